"""Wave 5, class 3: a path a user names (a results source, a file in a results folder, an alias table, a ratings
file, a decisions file, an export's manifest and the data files it names) that is a FIFO or a device is refused
before it is read: a located error and exit 2 (or, where the command leaves an unreadable part out, a located
warning), never a hang on the FIFO or a MemoryError on /dev/zero.

FIFOs are tried in-process: a watchdog opens the FIFO's other end after a while, so that a reader that wrongly
opened it gets an empty file and the test fails instead of hanging. /dev/zero is tried in a subprocess held to
the contract's 2 GiB, so that a reader that wrongly read it ends in a MemoryError instead of filling the machine.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest
from clirunner import invoke

from clinreg.cli.main import main
from trees import write_tree

from .support import assert_no_traceback, run_cli

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = "medhelm-2025-07-31"
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


class Watchdog:
    """Opens a FIFO's writing end after `after` seconds, and keeps trying until stopped: a reader blocked in open()
    is let through (to read nothing) instead of hanging the test."""

    def __init__(self, fifo: Path, after: float = 20.0) -> None:
        self.fifo, self.after = fifo, after
        self.stop = threading.Event()
        self.fired = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        if self.stop.wait(self.after):
            return
        while not self.stop.is_set():
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader has it open yet
                self.stop.wait(0.2)
                continue
            self.fired = True
            os.close(fd)
            return

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


@pytest.fixture
def fifo(tmp_path):
    """make(name) -> a FIFO at tmp_path/name, watched; asserts at the end that no reader ever opened it."""
    dogs: list[Watchdog] = []

    def make(name: str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(path)
        dogs.append(Watchdog(path))
        return path

    yield make
    for dog in dogs:
        dog.close()
        assert not dog.fired, f"something opened the FIFO {dog.fifo} and blocked on it"


def _refused(result, path: Path | str, code: int = 2) -> None:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert str(path) in result.output and "not a regular file" in result.output, result.output


COMMANDS = {
    "results import": lambda src, tmp: ["results", "import", src, "-o", tmp / "out.json"],
    "results export": lambda src, tmp: ["results", "export", src, "--to", "every-eval-ever", "-o", tmp / "out"],
    "leaderboard": lambda src, tmp: ["leaderboard", src],
    "leaderboard diff": lambda src, tmp: ["leaderboard", "diff", src, PUBLISHED],
    "results ratings": lambda src, tmp: ["results", "ratings", src],
    "jury agreement": lambda src, tmp: ["jury", "agreement", src],
    "medhelm diff": lambda src, tmp: ["medhelm", "diff", src],
    "--aliases": lambda src, tmp: ["leaderboard", PUBLISHED, "--aliases", src],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("suffix", [".json", ".csv", ".eval"])
def test_a_fifo_named_on_the_command_line_is_refused_before_it_is_read(fifo, tmp_path, command, suffix):
    source = fifo("named" + suffix)
    result = invoke(main, COMMANDS[command](source, tmp_path))
    _refused(result, source)
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_a_fifo_as_a_decisions_file_is_refused(fifo, tmp_path, suffix):
    source = fifo("decisions" + suffix)
    root = write_tree(tmp_path / "registry")
    result = invoke(main, ["review", "import", source, "--root", root])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "not a regular file" in result.output


@pytest.mark.parametrize("name", ["results_1.json", "run.eval"])  # what a results folder is searched for
def test_a_fifo_inside_a_results_folder_is_refused_at_its_path(fifo, tmp_path, name):
    member = fifo(f"runs/{name}")
    result = invoke(main, ["results", "import", tmp_path / "runs", "-o", tmp_path / "out.json"])
    _refused(result, member)
    assert not (tmp_path / "out.json").exists()


def _export(folder: Path, data_file: str) -> Path:
    """An export folder whose manifest names `data_file` for a mapping of a benchmark the published scores have."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"harness": "inspect", "release": "1.0.0",
                "mappings": [{"dataset": "medcalc_bench", "mapping": "main", "data_file": data_file}]}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def test_an_export_whose_manifest_is_a_fifo_is_left_out_with_a_located_warning(fifo, tmp_path):
    export = tmp_path / "export"
    fifo("export/manifest.json")
    result = invoke(main, ["results", "import", PUBLISHED, "--export", export, "-o", tmp_path / "out.json"])
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert f"{export}:1:1" in result.output and "manifest.json" in result.output
    strict = invoke(main, ["results", "import", PUBLISHED, "--export", export, "--strict", "-o", tmp_path / "s.json"])
    assert strict.exit_code == 2 and not (tmp_path / "s.json").exists()


def test_a_data_file_a_manifest_names_that_is_a_fifo_is_never_opened(fifo, tmp_path):
    data = fifo("pipe.jsonl")
    export = _export(tmp_path / "export", str(data))
    result = invoke(main, ["results", "import", PUBLISHED, "--export", export, "-o", tmp_path / "out.json"])
    assert result.exit_code == 0 and "Traceback" not in result.output


def test_a_data_file_a_manifest_names_nested_past_the_parsers_depth_leaves_the_set_unknown(tmp_path):
    """Review finding: a RecursionError from a deeply nested line escaped as a traceback."""
    data = tmp_path / "deep.jsonl"
    data.write_text("[" * 200_000 + "\n", encoding="utf-8")
    export = _export(tmp_path / "export", str(data))
    result = invoke(main, ["results", "import", PUBLISHED, "--export", export, "-o", tmp_path / "out.json"])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output


# --------------------------------------------------------------------------------------------- /dev/zero


def _limited_run(*args: str) -> object:
    import resource

    def two_gib() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return run_cli(*args, preexec_fn=two_gib, timeout=120)


needs_dev_zero = pytest.mark.skipif(sys.platform == "win32" or not os.path.exists("/dev/zero"),
                                    reason="no /dev/zero or no resource limits here")


@needs_dev_zero
@pytest.mark.parametrize("case", ["results import .json", "results import .eval", "results import /dev/zero",
                                  "--aliases", "jury agreement", "results ratings"])
def test_dev_zero_is_refused_before_it_is_read(tmp_path, case):
    if case.endswith("/dev/zero"):
        source: Path | str = "/dev/zero"
    else:
        source = tmp_path / ("zero.eval" if case.endswith(".eval") else "zero.json")
        source.symlink_to("/dev/zero")
    if case.startswith("results import"):
        args = ["results", "import", str(source), "-o", str(tmp_path / "out.json")]
    elif case == "--aliases":
        args = ["leaderboard", PUBLISHED, "--aliases", str(source)]
    elif case == "jury agreement":
        args = ["jury", "agreement", str(source)]
    else:
        args = ["results", "ratings", str(source)]
    result = _limited_run(*args)
    assert_no_traceback(result)
    assert result.returncode == 2, result.stderr
    assert str(source) in result.stdout + result.stderr and "not a regular file" in result.stdout + result.stderr


@needs_dev_zero
def test_a_manifest_naming_dev_zero_as_a_data_file_is_read_without_it(tmp_path):
    export = _export(tmp_path / "export", "/dev/zero")
    result = _limited_run("results", "import", PUBLISHED, "--export", str(export), "-o", str(tmp_path / "out.json"))
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
