"""Issue 39, item 8: an archive whose members cannot all be unpacked side by side (a member that is a file where
another needs a folder, or one name twice) is refused in clinreg's words, naming the archive and the members,
never with the path of clinreg's scratch folder."""

from __future__ import annotations

import warnings
import zipfile

import pytest

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources.read import read_table

WHERE = "rec: split 'test'"


@pytest.mark.parametrize("members, words", [
    (["d/x", "d/x/y.csv"], "archive.zip member 'd/x/y.csv' cannot be unpacked: member 'd/x' is a file, but this "
                           "member needs it to be a folder"),
    (["d/x/y.csv", "d/x"], "archive.zip member 'd/x' cannot be unpacked: other members need it to be a folder"),
    (["d/x.csv", "d/x.csv"], "archive.zip member 'd/x.csv' cannot be unpacked: the archive holds it twice"),
], ids=["file-then-folder", "folder-then-file", "twice"])
def test_members_that_clash_are_named_without_the_scratch_path(tmp_path, members, words):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with zipfile.ZipFile(mirror / "archive.zip", "w") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile's "Duplicate name" warning
        for name in members:
            archive.writestr(name, "a\n1\n")
    scratch = tmp_path / "clinreg-cache-scratch"
    with pytest.raises(SourceUnavailable) as err:
        read_table(mirror, TableSpec(archive="archive.zip", files=["d/x", "d/*.csv", "d/x/*.csv"]), WHERE, scratch)
    message = str(err.value)
    assert message == f"{WHERE}: {words}"
    assert "clinreg-cache" not in message and str(tmp_path) not in message and "\n" not in message


def test_two_reads_of_the_same_members_into_one_scratch_folder_both_work(tmp_path):
    # Two splits or tables may read the same member of one archive within a build: not a member held twice.
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with zipfile.ZipFile(mirror / "archive.zip", "w") as archive:
        archive.writestr("d/x.csv", "a\n1\n")
    scratch = tmp_path / "scratch"
    for _ in range(2):
        table = read_table(mirror, TableSpec(archive="archive.zip", files="d/*.csv"), WHERE, scratch)
        assert table.column("a").to_pylist() == ["1"]
