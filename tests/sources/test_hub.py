"""Building straight from the hub, as a user of a public dataset does: the real huggingface_hub client, default
settings, against the loopback emulator in hubemu.py.

Each hub build runs `clinreg` in a fresh process with `HF_ENDPOINT` pointing at the emulator and `HF_HOME` in the
test's temp folder, so that huggingface_hub reads its settings as it would for a user, and nothing touches $HOME.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest
from clirunner import invoke
from sources.hubemu import HubEmulator
from record_fixtures import distribution_writer

from clinreg.cli.main import main
from clinreg.core.store import load_registry
from clinreg.sources.mirror import folder_name

REPO = Path(__file__).resolve().parents[2]
REALDATA = REPO.parent / "shared" / "realdata"
REGISTRY = load_registry(REPO)
HUB_RECORDS = sorted(r.id for r in REGISTRY.datasets.values() if r.source.type == "huggingface")
_HF_VARS = ("HF_", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
            "no_proxy")


def clinreg(home: Path, endpoint: str, *args: str, env: dict[str, str] | None = None, timeout: float = 120):
    """`clinreg ARGS` in a fresh process, with the user's default hub settings but for the endpoint and HF_HOME."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(_HF_VARS)}
    base.update(HF_ENDPOINT=endpoint, HF_HOME=str(home), HF_HUB_DISABLE_TELEMETRY="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "clinreg", *args], env=base, capture_output=True, text=True,
                          timeout=timeout, cwd=home.parent)


def instances(text: str) -> list[dict]:
    """Built instances without their provenance, which says where they were read from and so differs."""
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    for row in rows:
        row.pop("provenance", None)
    return rows


def mirror_build(record_id: str, data_dir: Path) -> list[dict]:
    result = invoke(main, ["build", record_id, "-q", "--data-dir", str(data_dir), "--root", str(REPO)])
    assert result.exit_code == 0, result.output
    return instances(result.stdout)


def write_distribution(record_id: str, data_dir: Path) -> Path:
    record = REGISTRY.datasets[record_id]
    folder = data_dir / folder_name(record)
    distribution_writer(record)[1](folder)  # a hub record: write_hub where its files differ between GitHub and the hub
    return folder


def test_the_registry_has_hub_records():
    assert HUB_RECORDS, "no record reads from the hub: this file tests nothing"


@pytest.mark.slow
@pytest.mark.parametrize("record_id", HUB_RECORDS)
def test_hub_build_matches_the_mirror_build_then_reads_the_cache(record_id, tmp_path):
    record = REGISTRY.datasets[record_id]
    folder = write_distribution(record_id, tmp_path / "mirror")
    want = mirror_build(record_id, tmp_path / "mirror")
    assert want
    home = tmp_path / "home"
    with HubEmulator() as hub:
        commit = hub.add(record.source.repo, folder, record.source.revision)
        first = clinreg(home, hub.endpoint, "build", record_id, "-q")
        assert first.returncode == 0, first.stderr
        assert first.stderr == "", "-q shows nothing, huggingface_hub's progress bars included"
        assert instances(first.stdout) == want
        provenance = json.loads(first.stdout.splitlines()[0])["provenance"]["source"]
        assert provenance["revision"] == commit and provenance["kind"] == "hub"
        fetched = [r for r in hub.log if r.server == "files"]
        assert fetched, "the first build downloads the files"
        links = list((home / "hub").rglob("snapshots/*/**/*"))
        assert any(p.is_symlink() for p in links), "huggingface_hub laid the snapshot out as links into blobs"

        hub.log.clear()
        second = clinreg(home, hub.endpoint, "build", record_id, "-q")
        assert second.returncode == 0, second.stderr
        assert instances(second.stdout) == want
        assert hub.file_requests() == [], "a second build reads the cache and asks for no file"

    offline = clinreg(home, "http://127.0.0.1:9", "build", record_id, "-q", env={"HF_HUB_OFFLINE": "1"})
    assert offline.returncode == 0, offline.stderr
    assert instances(offline.stdout) == want


@pytest.mark.slow
@pytest.mark.realdata
@pytest.mark.parametrize("record_id", HUB_RECORDS)
def test_hub_build_of_the_real_sample_matches_its_data_dir_build(record_id, tmp_path):
    record = REGISTRY.datasets[record_id]
    folder = REALDATA / folder_name(record)
    if not folder.is_dir():
        pytest.skip(f"no real sample of {record_id} in {REALDATA}")
    want = mirror_build(record_id, REALDATA)
    with HubEmulator() as hub:
        hub.add(record.source.repo, folder, record.source.revision)
        built = clinreg(tmp_path / "home", hub.endpoint, "build", record_id, "-q")
    assert built.returncode == 0, built.stderr
    assert instances(built.stdout) == want


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Every hub record's files, served by one emulator for the tests that need no fault."""
    base = tmp_path_factory.mktemp("served")
    with HubEmulator() as hub:
        commits = {r: hub.add(REGISTRY.datasets[r].source.repo, write_distribution(r, base / "mirror"),
                              REGISTRY.datasets[r].source.revision) for r in HUB_RECORDS}
        yield hub, commits, base


@pytest.mark.slow
def test_lock_hub_records_the_served_commit(served, tmp_path):
    hub, commits, _ = served
    out = tmp_path / "lock.json"
    done = clinreg(tmp_path / "home", hub.endpoint, "lock", "--hub", "-o", str(out), "--root", str(REPO))
    assert done.returncode == 0, done.stderr
    locked = json.loads(out.read_text())["mappings"]
    for record_id, commit in commits.items():
        entries = [e for e in locked.values() if e["dataset"] == record_id]
        assert entries, f"{record_id} was skipped: {json.loads(out.read_text()).get('skipped')}"
        assert {e["source"]["revision"] for e in entries} == {commit}


@pytest.mark.slow
def test_check_data_reads_the_hub_too(served, tmp_path):
    hub, _, _ = served
    record_id = HUB_RECORDS[0]
    done = clinreg(tmp_path / "home", hub.endpoint, "check-data", record_id, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["data"]["summary"]["errors"] == 0


# Each fault as a user meets it: one clinreg line, exit 2, no traceback, well inside 30 s. huggingface_hub's own
# timeouts are set low, as a user would set them, so that a stall is reported as a timeout.
FAULTS = {
    "missing repository": ({"missing": True}, "was not found"),
    "gated, no token": ({"gated": True}, "is gated and refused access"),
    "missing pinned revision": ({"revision": "0" * 40}, "is not on the hub for"),
    "500 on repo info": ({"fault": {"info": 500}}, "failed with HTTP 500 while reading its repository information"),
    "500 on the file listing": ({"fault": {"tree": 500}}, "failed with HTTP 500"),
    "500 on a file's metadata": ({"fault": {"resolve": 500}}, "failed with HTTP 500"),
    "500 on a file's body": ({"fault": {"file": 500}}, "failed with HTTP 500"),
    "stall on repo info": ({"fault": {"info": "stall"}}, "did not answer within its timeout"),
    "stall on a file's body": ({"fault": {"file": "stall"}}, "did not answer within its timeout"),
}


# huggingface_hub's http_backoff: the first attempt and its default five retries (2.x sends a failing metadata
# request once more when it falls back). A retry of clinreg's own would repeat the whole sequence: twice as many.
HUB_CLIENT_ATTEMPTS = 6


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FAULTS))
def test_each_hub_fault_is_one_line_and_exit_2(name, tmp_path):
    setup, words = FAULTS[name]
    record_id = (next(r for r in HUB_RECORDS if REGISTRY.datasets[r].source.revision) if "revision" in setup
                 else HUB_RECORDS[0])
    record = REGISTRY.datasets[record_id]
    folder = write_distribution(record_id, tmp_path / "mirror")
    with HubEmulator() as hub:
        if not setup.get("missing"):
            hub.add(record.source.repo, folder, setup.get("revision") or record.source.revision)
        if setup.get("gated"):
            hub.gated.add(record.source.repo)
        hub.fault.update(setup.get("fault", {}))
        done = clinreg(tmp_path / "home", hub.endpoint, "build", record_id, "-q",
                       env={"HF_HUB_ETAG_TIMEOUT": "2", "HF_HUB_DOWNLOAD_TIMEOUT": "2"})
    if setup.get("fault") and not hub.fired:
        # This huggingface_hub never makes that request (before 2.x it lists files from the repo info, not the
        # tree): the fault cannot happen, and the build must simply work.
        assert done.returncode == 0, done.stderr
        return
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith(f"clinreg: error: {record_id}: "), done.stderr
    assert words in lines[0]
    assert "Traceback" not in done.stderr and done.stdout == ""
    # What clinreg controls is how often it asks, not how long huggingface_hub backs off between its own retries
    # (about 25 s on a 500): each request is sent only as often as the client retries it, never again by clinreg.
    sent = Counter((r.method, r.server, r.path) for r in hub.log)
    assert sent and max(sent.values()) < 2 * HUB_CLIENT_ATTEMPTS, (name, sent.most_common(3))
    if setup.get("gated"):
        assert "accept its terms on its dataset page" in lines[0] and "HF_TOKEN" in lines[0]


@contextmanager
def serving(tmp_path: Path, record_id: str | None = None):
    """An emulator serving one hub record's files as distributed: (hub, record id, repo, mirror folder)."""
    record_id = record_id or HUB_RECORDS[0]
    record = REGISTRY.datasets[record_id]
    folder = write_distribution(record_id, tmp_path / "mirror")
    with HubEmulator() as hub:
        hub.add(record.source.repo, folder, record.source.revision)
        yield hub, record_id, record.source.repo, folder


@pytest.mark.slow
def test_the_token_reaches_the_hub_and_a_gated_dataset_builds_with_it(tmp_path):
    with serving(tmp_path) as (hub, record_id, repo, _):
        hub.gated.add(repo)
        done = clinreg(tmp_path / "home", hub.endpoint, "build", record_id, "-q", env={"HF_TOKEN": "hf_test_token"})
    assert done.returncode == 0, done.stderr
    assert all(r.authorized for r in hub.log if r.server == "api" and r.path.startswith(("/api/datasets", "/datasets")))
    assert not any(r.authorized for r in hub.log if r.server == "files"), "the token never goes to the file server"


@pytest.mark.slow
def test_the_hub_is_reached_through_the_configured_proxy(served, tmp_path):
    """A name only the proxy can resolve: the build works through HTTP_PROXY, and fails without it."""
    hub, _, _ = served
    record_id = HUB_RECORDS[0]
    endpoint = "http://hub.clinreg-test.invalid"
    direct = clinreg(tmp_path / "direct", endpoint, "build", record_id, "-q")
    assert direct.returncode == 2 and "unreachable" in direct.stderr, direct.stderr
    before = len(hub.log)
    proxied = clinreg(tmp_path / "proxied", endpoint, "build", record_id, "-q", env={"HTTP_PROXY": hub.endpoint})
    assert proxied.returncode == 0, proxied.stderr
    assert len(hub.log) > before


@pytest.mark.slow
def test_a_slow_hub_is_waited_for_and_an_absent_one_is_called_unreachable(tmp_path):
    """No private time limit: a hub that takes 1.5 s per answer is used. Nothing listening is 'unreachable'."""
    with serving(tmp_path) as (hub, record_id, _, folder):
        hub.delay_seconds = 1.5
        slow = clinreg(tmp_path / "home", hub.endpoint, "build", record_id, "-q")
    assert slow.returncode == 0, slow.stderr
    absent = clinreg(tmp_path / "empty", "http://127.0.0.1:9", "build", record_id, "-q")
    assert absent.returncode == 2
    assert absent.stderr.strip() == (f"clinreg: error: {record_id}: no network: 127.0.0.1:9 is unreachable; "
                                      f"pass --data-dir DIR with it in DIR/{folder.name}")


@pytest.mark.slow
def test_an_unreachable_hub_falls_back_to_the_cache_with_a_notice(tmp_path):
    home = tmp_path / "home"
    with serving(tmp_path) as (hub, record_id, _, _):
        first = clinreg(home, hub.endpoint, "build", record_id, "-q")
    later = clinreg(home, "http://127.0.0.1:9", "build", record_id, "-q")  # -q hides progress, never this warning
    assert later.returncode == 0, later.stderr
    assert instances(later.stdout) == instances(first.stdout)
    assert "no network: 127.0.0.1:9 is unreachable; read the copy in the hub cache at commit" in later.stderr


def _open_release(root: Path) -> str:
    """The tree's open release, opened with `clinreg new release` when every release is published."""
    from clirunner import invoke

    from clinreg.cli.main import main
    from clinreg.core.store import load_registry

    reg = load_registry(root)
    if reg.open_release is None:
        major, minor, _ = (int(p) for p in reg.releases.releases[-1].version.split("."))
        result = invoke(main, ["new", "release", f"{major}.{minor + 1}.0", "--root", str(root), "--title", "Test"])
        assert result.exit_code == 0, result.output
        reg = load_registry(root)
    return reg.open_release


@pytest.mark.slow
def test_a_record_without_a_read_step_builds_from_the_hub_through_datasets(tmp_path):
    """A record that leaves the reading to `datasets` (no source.read) uses the same hub, cache and settings."""
    import shutil

    import yaml
    from record_fixtures import hub_folder, record_dict

    folder = hub_folder(tmp_path / "data", "owner/fixture", {"test": [{"question": "q1", "answer": "yes"},
                                                                      {"question": "q2", "answer": "no"}]})
    root = tmp_path / "root"
    shutil.copytree(REPO / "taxonomy", root / "taxonomy")
    (root / "registry" / "datasets").mkdir(parents=True)
    shutil.copy(REPO / "registry" / "releases.yaml", root / "registry" / "releases.yaml")
    task = sorted(REGISTRY.tasks())[0]
    data = record_dict({"label": {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"},
                                  "positive": "yes"},
                        "choices": {"fixed": ["yes", "no"]}, "tasks": [task]})
    data["added_in"] = _open_release(root)  # a published release never gains a record (CLR604)
    (root / "registry" / "datasets" / "fixture.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    home = tmp_path / "home"
    with HubEmulator() as hub:
        commit = hub.add("owner/fixture", folder)
        first = clinreg(home, hub.endpoint, "build", "fixture", "-q", "--root", str(root))
        assert first.returncode == 0, first.stderr
        rows = [json.loads(line) for line in first.stdout.splitlines()]
        assert [r["answer"] for r in rows] == ["A", "B"]
        assert rows[0]["provenance"]["source"]["revision"] == commit
        hub.log.clear()
        second = clinreg(home, hub.endpoint, "build", "fixture", "-q", "--root", str(root))
        assert second.returncode == 0, second.stderr
        assert [r for r in hub.log if r.server == "files"] == [], "the second build downloads no file"
