"""`new dataset` as library calls: requests refused with the reason before anything is written, and what a
created record leaves (TODO fields, the release joined, the test writer)."""

from __future__ import annotations

import datetime as dt

import pytest
from trees import write_tree

from clinreg.contrib.new_dataset import (
    DatasetRefused, DatasetRequest, check_request, create_dataset, id_problem, split_tasks, unknown_task,
)
from clinreg.contrib.new_release import open_next_release
from clinreg.core.store import load_registry


@pytest.fixture
def reg(tmp_path):
    root = write_tree(tmp_path / "reg")
    open_next_release(load_registry(root), "1.2.0", "Next", dt.date(2025, 3, 1))
    return load_registry(root)


@pytest.mark.parametrize("given, want", [("good_id", None), ("Bad-Id", "try 'bad_id'"), ("1x", "try 'x_1x'")])
def test_an_id_that_is_not_snake_case_is_refused_with_a_suggestion(given, want):
    problem = id_problem(given)
    assert problem is None if want is None else want in problem


def test_tasks_are_split_and_an_unknown_one_gets_a_did_you_mean(reg):
    assert split_tasks(("a, b", "c")) == ["a", "b", "c"] and split_tasks("a b") == ["a", "b"]
    assert unknown_task(["answer_questions"], reg.tasks()) is None
    assert "did you mean 'answer_questions'" in unknown_task(["answer_question"], reg.tasks())


@pytest.mark.parametrize("changes, message", [
    ({"id": "qa_set"}, "registry/datasets/qa_set.yaml already exists"),
    ({"tasks": ["no_such_task"]}, "unknown task 'no_such_task'"),
    ({"hf_repo": "not a repo"}, "--hf-repo 'not a repo' is not a hub repository id"),
    ({"source": "url", "gh_repo": "o/n"}, "--repo is for --source github, not --source url"),
    ({"source": "url", "url": "http://x"}, "--url 'http://x' is not an https URL"),
])
def test_a_request_that_cannot_be_written_is_refused_before_anything_is(reg, changes, message):
    request = DatasetRequest(**{"id": "new_set", "tasks": ["answer_questions"], **changes})
    before = sorted(p.name for p in (reg.root / "registry/datasets").iterdir())
    with pytest.raises(DatasetRefused, match=message.replace("(", r"\(")):
        check_request(reg, request)
    assert sorted(p.name for p in (reg.root / "registry/datasets").iterdir()) == before


def test_a_created_record_says_what_was_written_and_what_is_left(reg):
    request = DatasetRequest("new_set", name="New set", access="public", tasks=["answer_questions"])
    assert check_request(reg, request) is None
    created = create_dataset(reg, request, None)
    assert (created.path, created.added_in, created.writer) == ("registry/datasets/new_set.yaml", "1.2.0", None)
    assert (reg.root / created.path).is_file()
    assert created.todo_fields and all(" " not in field for field in created.todo_fields)  # key paths, not messages
    assert created.joined.releases_refused is None
    assert created.validate_command == "clinreg validate registry/datasets/new_set.yaml"  # not a git checkout
    lines = created.lines()
    assert lines[0] == "wrote registry/datasets/new_set.yaml" and lines[-1].startswith("next: fill in the TODOs")
    assert created.to_dict()["todo_fields"] == created.todo_fields
    with pytest.raises(DatasetRefused, match="already exists"):
        check_request(reg, request)


def test_a_test_writer_is_written_where_the_tree_has_the_folder_and_never_replaced(reg):
    (reg.root / "tests/distributions").mkdir(parents=True)
    (reg.root / "tests/distributions/other_set.py").write_text("# mine\n", encoding="utf-8")
    created = create_dataset(reg, DatasetRequest("new_set", tasks=["answer_questions"]), None)
    assert created.writer == "tests/distributions/new_set.py" and (reg.root / created.writer).is_file()
    again = create_dataset(load_registry(reg.root), DatasetRequest("other_set", tasks=["answer_questions"]), None)
    assert again.writer is None
    assert (reg.root / "tests/distributions/other_set.py").read_text(encoding="utf-8") == "# mine\n"


def test_no_task_or_no_open_release_is_refused(tmp_path, reg):
    with pytest.raises(DatasetRefused, match="name at least one --task"):
        create_dataset(reg, DatasetRequest("new_set"), None)
    closed = load_registry(write_tree(tmp_path / "closed"))
    with pytest.raises(DatasetRefused, match="open the next with `clinreg new release 1.2.0 --title ...`"):
        create_dataset(closed, DatasetRequest("new_set", tasks=["answer_questions"]), None)
    assert not (closed.root / "registry/datasets/new_set.yaml").exists()
