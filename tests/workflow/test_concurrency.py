"""Writers of registry files under concurrency and signals: no lost update, no leftover temp file, links kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from clinreg.core.store import load_registry
from clinreg.review.signoff import sign_off
from trees import write_tree
from workflow.helpers import sign
from workflow.test_signoff import CARE, CATEGORY

TASKS = ("answer_questions", "rank_differentials", "plan_treatment")


def _cli(root: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "HOME": str(root.parent), "XDG_CACHE_HOME": str(root.parent / "cache")}
    code = "import sys; from clinreg.cli.main import main; sys.exit(main())"
    return subprocess.Popen([sys.executable, "-c", code, *args, "--root", str(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
def test_eight_parallel_approvals_on_one_file_are_all_recorded(tmp_path):
    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    runs = [(TASKS[i % 3], f"Reviewer {i}") for i in range(8)]
    procs = [_cli(root, "review", "approve", task, "--reviewer", who) for task, who in runs]
    outcomes = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    assert all(code == 0 for code, _, _ in outcomes), outcomes
    tasks = load_registry(root).tasks()
    recorded = {(t, r.name) for t in TASKS for r in tasks[t].task.review.reviewers}
    assert recorded == set(runs)
    assert not [p for p in (root / "taxonomy").iterdir() if p.name.endswith(".tmp")]


def test_a_decision_on_a_stale_view_is_applied_to_the_fresh_file(tmp_path):
    """A writer that read the file before another wrote it re-reads under the lock: neither update is lost."""
    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    stale_view = load_registry(root)
    assert sign(root, "approve", "answer_questions", "--reviewer", "First").exit_code == 0
    sign_off(stale_view, "rank_differentials", "approved", "Second")
    tasks = load_registry(root).tasks()
    assert [r.name for r in tasks["answer_questions"].task.review.reviewers] == ["First"]
    assert [r.name for r in tasks["rank_differentials"].task.review.reviewers] == ["Second"]


def test_a_file_changed_behind_the_lock_is_not_overwritten(tmp_path, monkeypatch):
    """A program that ignores the lock edits the file between our read and our replace: we refuse, loudly."""
    import clinreg.review.signoff as signoff

    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    path = root / CARE
    real_verify = signoff._verify

    def verify_then_meddle(*args, **kwargs):
        real_verify(*args, **kwargs)
        path.write_text(path.read_text(encoding="utf-8") + "# an editor saved this\n", encoding="utf-8")

    monkeypatch.setattr(signoff, "_verify", verify_then_meddle)
    with pytest.raises(signoff.SignOffError, match="changed while the decision was being written"):
        sign_off(load_registry(root), "answer_questions", "approved", "Jane")
    assert path.read_text(encoding="utf-8").endswith("# an editor saved this\n")
    assert "Jane" not in path.read_text(encoding="utf-8")


def test_a_link_inside_the_tree_is_written_through_and_stays_a_link(tmp_path):
    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    shared = root / "taxonomy" / "shared"
    shared.mkdir()
    real = shared / "care.data"
    (root / CARE).rename(real)
    (root / CARE).symlink_to(Path("shared") / "care.data")
    result = sign(root, "approve", "answer_questions", "--reviewer", "Jane Doe")
    assert result.exit_code == 0, result.output
    assert (root / CARE).is_symlink()
    assert "Jane Doe" in real.read_text(encoding="utf-8")
    assert not [p for p in shared.iterdir() if p.name.endswith(".tmp")]


def test_a_link_leading_out_of_the_tree_is_refused_and_its_target_untouched(tmp_path):
    root = write_tree(tmp_path / "reg", {CARE: CATEGORY})
    outside = tmp_path / "outside.yaml"
    (root / CARE).rename(outside)
    (root / CARE).symlink_to(outside)
    before = outside.read_bytes()
    result = sign(root, "approve", "answer_questions", "--reviewer", "Jane Doe")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert outside.read_bytes() == before and (root / CARE).is_symlink()


# The child sets up SIGINT itself: a process started from a background job without job control inherits SIGINT as
# ignored, and Python then never turns it into KeyboardInterrupt, so the child would sleep on through the signal.
CHILD = textwrap.dedent("""
    import signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from clinreg.text.safeio import atomic_open
    with atomic_open(sys.argv[1], "w") as handle:
        handle.write("partial")
        handle.flush()
        print("WRITING", flush=True)
        time.sleep(120)
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_mid_write_leaves_no_temp_file_and_the_old_content(tmp_path, sig):
    target = tmp_path / "care.yaml"
    target.write_text("old\n", encoding="utf-8")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(target)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "WRITING"
        os.kill(child.pid, sig)
        code = child.wait(timeout=30)
    finally:
        if child.poll() is None:  # pragma: no cover - only when an assertion above failed
            child.kill()
            child.wait()
    assert code != 0
    if sig != signal.SIGINT:  # SIGINT is Python's KeyboardInterrupt; the others exit quietly with 128 + signal
        assert code == 128 + sig and "Traceback" not in child.stderr.read()
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["care.yaml"]


def test_a_temp_name_fits_beside_a_250_character_target(tmp_path):
    from clinreg.text.safeio import atomic_write_text

    target = tmp_path / ("r" * 245 + ".yaml")
    atomic_write_text(target, "ok\n")
    assert target.read_text(encoding="utf-8") == "ok\n"


def test_two_creators_of_one_new_file_cannot_both_win(tmp_path):
    from clinreg.text.safeio import RefusedOverwrite, atomic_open

    target = tmp_path / "new.yaml"
    with pytest.raises(RefusedOverwrite):
        with atomic_open(target, "w", overwrite=False) as first:
            first.write("first\n")
            target.write_text("someone else\n", encoding="utf-8")  # created after our check, before our rename
    assert target.read_text(encoding="utf-8") == "someone else\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.yaml"]
