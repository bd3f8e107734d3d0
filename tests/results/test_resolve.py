"""The one resolver of a results source: a published release id or a path, by each command's policy."""

from __future__ import annotations

import pytest

from clinreg.results.published import published_file
from clinreg.results.resolve import resolve_source, takes_as_id

PUBLISHED = "medhelm-2025-07-31"


@pytest.mark.parametrize("given, policy, as_id", [
    (PUBLISHED, "never", False),  # results import, leaderboard SOURCES
    (PUBLISHED, "when-missing", True),  # leaderboard diff
    (PUBLISHED, "when-bare", True),  # results export
    ("medhelm.json", "when-bare", False),  # a dot: a file name, never an id
    ("runs/medhelm", "when-bare", False),
    ("medhelm.json", "when-missing", True),
    ("medhelm.json", "always", True),  # leaderboard --with
])
def test_each_policy_decides_id_or_path(given, policy, as_id):
    assert takes_as_id(given, policy) is as_id


def test_an_existing_path_wins_over_an_id_of_the_same_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / PUBLISHED).write_text("{}", encoding="utf-8")
    for policy in ("when-missing", "when-bare"):
        found = resolve_source(PUBLISHED, policy)
        assert found.release_id is None and str(found.path) == PUBLISHED
    assert resolve_source(PUBLISHED, "always").release_id == PUBLISHED


def test_a_published_id_resolves_to_its_shipped_file():
    found = resolve_source(PUBLISHED, "when-missing")
    assert (found.path, found.release_id, found.problem) == (published_file(PUBLISHED), PUBLISHED, None)


def test_a_name_that_is_neither_gets_the_problem_and_a_did_you_mean():
    found = resolve_source("medhelm-2025-07-30", "when-missing")
    assert found.path is None and found.suggestion == PUBLISHED
    assert found.message() == ("'medhelm-2025-07-30' is no file or folder, and no published release (known: "
                               "medhelm-2025-05-04, medhelm-2025-07-31; see `clinreg results published`)")
    assert found.message(did_you_mean=True).endswith(f"; did you mean {PUBLISHED!r}?")
    far = resolve_source("something-else", "always")
    assert far.suggestion is None and far.message(did_you_mean=True) == far.message()


def test_a_missing_path_of_a_command_that_reads_paths_only_still_gets_a_suggestion(tmp_path):
    found = resolve_source(PUBLISHED, "never")
    assert str(found.path) == PUBLISHED and found.problem is None and found.suggestion == PUBLISHED
    there = tmp_path / "medhelm-2025-07-31.json"
    there.write_text("{}", encoding="utf-8")
    assert resolve_source(str(there), "never").suggestion is None
