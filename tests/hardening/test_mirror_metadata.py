"""A mirror's README is data: no `data_files` or `data_dir` it names may lead outside the mirror folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .support import assert_no_traceback, run_cli

from record_fixtures import hub_folder, record_dict, write_root  # noqa: E402

MCQ = {
    "input_template": "{{ question }}",
    "choices": {"fixed": ["yes", "no"]},
    "label": {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"}, "positive": "yes"},
}
ROWS = [{"question": "Is it?", "answer": "yes"}]
OUTSIDE = [{"question": "SECRET FROM OUTSIDE", "answer": "no"}]


def _mirror(tmp_path: Path, data_files: str, *, key: str = "path") -> tuple[Path, Path]:
    """A hub-layout mirror whose README points its test split at `data_files`, and a CSV outside it."""
    data_dir = tmp_path / "data"
    folder = hub_folder(data_dir, "owner/fixture", {"test": ROWS}, fmt="csv")
    secret = tmp_path / "outside.csv"
    secret.write_text("question,answer\nSECRET FROM OUTSIDE,no\n", encoding="utf-8")
    if key == "data_dir":
        front = f"---\nconfigs:\n- config_name: default\n  data_dir: {json.dumps(data_files)}\n---\n"
    else:
        front = ("---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: "
                 f"{json.dumps(data_files)}\n---\n")
    (folder / "README.md").write_text(front, encoding="utf-8")
    return data_dir, secret


def _outside_link(tmp_path: Path) -> str:
    data_dir = tmp_path / "data"
    folder = data_dir / "owner__fixture"
    (folder / "linked").symlink_to(tmp_path, target_is_directory=True)
    return "linked/outside.csv"


SHAPES = {
    "absolute": lambda tmp: str(tmp / "outside.csv"),
    "climbing": lambda tmp: "../../outside.csv",
    "climbing-glob": lambda tmp: "data/../../../*.csv",
    "remote": lambda tmp: "https://example.invalid/x.csv",
    "home": lambda tmp: "~/outside.csv",
}


CASES = [("build", shape) for shape in [*SHAPES, "link", "data_dir"]] + [("check-data", "absolute"),
                                                                         ("check-data", "climbing")]


@pytest.mark.parametrize("command,shape", CASES)
def test_mirror_readme_cannot_name_files_outside_the_mirror(tmp_path, shape, command):
    root = write_root(tmp_path, [record_dict(MCQ)])
    if shape == "link":
        data_dir, _ = _mirror(tmp_path, "placeholder")
        path = _outside_link(tmp_path)
        data_dir, _ = _mirror(tmp_path, path)
    elif shape == "data_dir":
        data_dir, _ = _mirror(tmp_path, str(tmp_path), key="data_dir")
    else:
        data_dir, _ = _mirror(tmp_path, SHAPES[shape](tmp_path))
    out = tmp_path / "out.jsonl"
    args = ["build", "fixture", "-o", str(out)] if command == "build" else ["check-data", "fixture"]
    result = run_cli(*args, "--root", str(root), "--data-dir", str(data_dir))
    assert_no_traceback(result)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "SECRET FROM OUTSIDE" not in result.stdout + result.stderr
    assert "README.md" in result.stderr and "inside its folder" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.slow
def test_a_mirror_readme_inside_the_folder_still_builds(tmp_path):
    root = write_root(tmp_path, [record_dict(MCQ)])
    data_dir = tmp_path / "data"
    hub_folder(data_dir, "owner/fixture", {"test": ROWS}, fmt="csv")
    out = tmp_path / "out.jsonl"
    result = run_cli("build", "fixture", "-o", str(out), "--root", str(root), "--data-dir", str(data_dir))
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["input"] for line in out.read_text().splitlines()] == ["Is it?"]
