"""Costs that must grow near-linearly with the input: did-you-mean hints for unknown ids, and rename pairing in diff.

Each check counts the lines of Python the same work runs at n and 10n (a quadratic cost would be about 100x; linear
is 10x). A count depends on the work alone: timing the two runs instead failed on a busy machine, when a spike of load
fell on one run and not the other. The CLI runs at scale check the output, with only a generous guard.
"""

from __future__ import annotations

import json
import sys

from trees import CATEGORY, DATASET, replace_in, write_tree

from clinreg.reports.diff import _definition_key, _name_key, compare
from clinreg.rules.engine import validate
from clinreg.text.suggest import MAX_LOOKUPS, Suggester

from .support import assert_no_traceback, run_cli

GROWTH = 10
MAX_RATIO = 30  # linear is 10, n log n a little more; quadratic would be ~100


def _python_steps(work) -> int:
    """How many lines of Python `work` runs (`sys.settrace`'s line events, on this thread)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    previous = sys.gettrace()
    sys.settrace(lambda frame, event, arg: local)
    try:
        work()
    finally:
        sys.settrace(previous)
    return count


def _ratio(small, large) -> float:
    return _python_steps(large) / _python_steps(small)


def _unknown_ids_tree(path, n: int):
    ids = ", ".join(f"answer_question_{i:05d}" for i in range(n))
    return write_tree(path, {"registry/datasets/qa_set.yaml": replace_in(DATASET, "tasks: [answer_questions]",
                                                                         f"tasks: [{ids}]")})


def test_unknown_id_hints_cost_near_linear(tmp_path):
    small, large = _unknown_ids_tree(tmp_path / "small", 1000), _unknown_ids_tree(tmp_path / "large", 1000 * GROWTH)
    ratio = _ratio(lambda: validate(small), lambda: validate(large))
    assert ratio < MAX_RATIO, f"10x the unknown ids run {ratio:.1f}x the lines of Python"
    report = validate(large)
    unknown = [d for d in report.diagnostics if d.code == "CLR301"]
    assert len(unknown) == 1000 * GROWTH  # every unknown id is still reported ...
    assert sum(d.hint.startswith("did you mean") for d in unknown) <= MAX_LOOKUPS  # ... but hints are capped
    assert unknown[0].hint == "did you mean `answer_questions`?"


def test_hints_match_difflib_on_small_lists():
    import difflib

    candidates = ["answer_questions", "rank_differentials", "plan_treatment", "summarise_notes", "a", "ab"]
    suggester = Suggester(candidates)
    for value in ["answer_question", "rank_diferentials", "plan_treatmnet", "treatment_plan", "zzz", "ba", "a", "",
                  "summarize_notes", "answer_questions_x"]:
        expected = difflib.get_close_matches(value, candidates, n=1, cutoff=0.6)
        assert suggester.closest(value) == (expected[0] if expected else None), value


def test_repeated_unknown_ids_through_aliases_stay_fast(tmp_path):
    """One anchored list of 2,000 unknown ids, aliased by 15 more mappings: the hints are computed once per id."""
    ids = ", ".join(f"unknown_task_{i:04d}" for i in range(2000))
    mapping = DATASET.split("mappings:\n", 1)[1]
    extra = "".join(mapping.replace("  - id: qa_set\n", f"  - id: copy_{k}\n").replace("tasks: [answer_questions]",
                                                                                       "tasks: *ids")
                    for k in range(15))
    text = replace_in(DATASET, "tasks: [answer_questions]", f"tasks: &ids [{ids}]") + extra
    root = write_tree(tmp_path / "reg", {"registry/datasets/qa_set.yaml": text})
    result = run_cli("validate", "--root", str(root), "--format", "json", timeout=120)
    assert_no_traceback(result)
    assert result.returncode == 1
    codes = [d["code"] for d in json.loads(result.stdout)["data"]["diagnostics"]]
    assert codes.count("CLR301") == 16 * 2000


def _records(n: int, prefix: str) -> dict:
    out = {}
    for i in range(n):
        content = {"name": f"Task number {i}", "definition": f"Definition {i} ({prefix})",
                   "provenance": {"kind": "drafted"}}
        out[f"{prefix}_{i:05d}"] = {"content": content, "name": content["name"], "subcategory": "s"}
    return out


def test_rename_pairing_costs_near_linear():
    def pair(n):
        old, new = _records(n, "old"), _records(n, "new")
        return lambda: compare(old, new, [_name_key, _definition_key], "subcategory")

    ratio = _ratio(pair(300), pair(300 * GROWTH))
    assert ratio < MAX_RATIO, f"10x the renamed records run {ratio:.1f}x the lines of Python"
    result = pair(300)()
    assert len(result["renamed"]) == 300 and not result["added"] and not result["removed"]


def test_rename_pairing_prefers_same_content_then_keys():
    same = {"name": "A", "definition": "x"}
    old = {"a1": {"content": same, "name": "A", "subcategory": "s"},
           "b1": {"content": {"name": "B", "definition": "y"}, "name": "B", "subcategory": "s"}}
    new = {"a0": {"content": {"name": "A", "definition": "changed"}, "name": "A", "subcategory": "s"},
           "a2": {"content": same, "name": "A", "subcategory": "s"},
           "b2": {"content": {"name": "B2", "definition": "y"}, "name": "B2", "subcategory": "s"}}
    result = compare(old, new, [_name_key, _definition_key], "subcategory")
    assert sorted((r["old_id"], r["id"]) for r in result["renamed"]) == [("a1", "a2"), ("b1", "b2")]
    assert [a["id"] for a in result["added"]] == ["a0"]


def test_diff_of_3000_renamed_tasks_through_the_cli(tmp_path):
    head, tasks = CATEGORY.split("    tasks:\n", 1)
    block = "".join(f"      - id: {{prefix}}_{i:04d}\n        name: Task {i}\n        definition: Does thing {i}.\n"
                    "        provenance: {{kind: drafted}}\n        review: {{status: proposed}}\n"
                    for i in range(3000))
    old_cat = head + "    tasks:\n" + block.format(prefix="old") + tasks
    new_cat = head + "    tasks:\n" + block.format(prefix="new") + tasks
    old = write_tree(tmp_path / "old", {"taxonomy/care.yaml": old_cat})
    new = write_tree(tmp_path / "new", {"taxonomy/care.yaml": new_cat})
    result = run_cli("diff", str(old), str(new), "--format", "json", timeout=180)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["data"]["summary"]["tasks_renamed"] == 3000
