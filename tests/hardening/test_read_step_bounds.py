"""The read step's work is bounded whatever a mirror or a record holds (issue 21, classes 8 and 9)."""

from __future__ import annotations

import os

import pyarrow as pa
import pytest

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import JoinStep
from clinreg.sources.files import match_files
from clinreg.sources.steps import join


def test_links_that_loop_back_into_the_mirror_visit_each_folder_once(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    (mirror / "data").mkdir(parents=True)
    (mirror / "data" / "t.csv").write_text("a\n1\n")
    for name in ("x", "y", "z", "w"):  # four links to the folder itself: 4**12 paths 12 levels down
        os.symlink(".", mirror / "data" / name)
    listed = []
    real_iterdir = type(mirror).iterdir

    def spy(self):
        listed.append(os.path.realpath(self))
        return real_iterdir(self)

    monkeypatch.setattr(type(mirror), "iterdir", spy)
    found = match_files(mirror, "data/" + "*/" * 12 + "t.csv", {}, "rec: split 'test'")
    assert 0 < len(listed) <= 2 * 13, len(listed)  # a listing per folder and level at most, never 4**12
    assert len(found) <= 1


def test_a_link_to_the_root_is_refused_before_it_is_listed(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    (mirror / "data").mkdir(parents=True)
    os.symlink("/", mirror / "data" / "everything")
    listed = []
    real_iterdir = type(mirror).iterdir

    def spy(self):
        listed.append(str(self))
        return real_iterdir(self)

    monkeypatch.setattr(type(mirror), "iterdir", spy)
    with pytest.raises(SourceUnavailable, match="leads out of the mirror folder"):
        match_files(mirror, "data/*/*/*.csv", {}, "rec: split 'test'")
    assert not any(p.endswith("everything") for p in listed), "the directory outside the mirror was never listed"


def test_keys_repeated_on_both_sides_of_a_one_to_many_join_are_refused_before_the_text_is_built():
    left = pa.table({"k": ["same"] * 2000})
    right = pa.table({"k": ["same"] * 2000, "note": ["x" * 1000] * 2000})  # 2 MB: 4 GB of joined text
    spec = JoinStep.model_validate({"table": "notes", "keys": ["k"], "cardinality": "one_to_many", "columns": ["note"]})
    with pytest.raises(SourceUnavailable, match="would build more than"):
        join(left, right, spec, "rec: split 'test'", {})


def test_a_one_to_many_join_within_the_bound_is_unchanged():
    left = pa.table({"k": ["a", "b", "a"]})
    right = pa.table({"k": ["a", "a", "b"], "note": ["one", "two", "three"]})
    spec = JoinStep.model_validate({"table": "notes", "keys": ["k"], "cardinality": "one_to_many", "columns": ["note"]})
    out = join(left, right, spec, "rec", {})
    both = spec.separator.join(["one", "two"])
    assert out.column("note").to_pylist() == [both, "three", both]


def test_a_reversed_glob_range_is_a_located_record_problem_not_an_unexpected_error(tmp_path):
    from clinreg.core.builderrors import RecordProblem

    (tmp_path / "data").mkdir()
    with pytest.raises(RecordProblem, match=r"rec: split 'test': file pattern 'data/\[z-a\]\.csv' is unusable"):
        match_files(tmp_path, "data/[z-a].csv", {}, "rec: split 'test'")


def _office(path, members):
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def test_a_workbook_listing_millions_of_shared_strings_is_refused_before_parsing(tmp_path):
    from clinreg.sources.formats.office import MAX_SHARED_STRINGS, check_office_file

    strings = b"<sst>" + b"<si><t/></si>" * (MAX_SHARED_STRINGS + 1) + b"</sst>"
    book = _office(tmp_path / "bomb.xlsx", [("xl/sharedStrings.xml", strings)])
    assert book.stat().st_size < 1_000_000  # a small file that would make openpyxl hold millions of strings
    with pytest.raises(SourceUnavailable, match="bomb.xlsx: the workbook lists more than"):
        check_office_file(book, "workbook")


def test_an_office_file_with_too_many_parts_is_refused(tmp_path):
    from clinreg.sources.formats.office import MAX_OFFICE_MEMBERS, check_office_file

    document = _office(tmp_path / "parts.docx", [(f"p/{i}.xml", b"") for i in range(MAX_OFFICE_MEMBERS + 1)])
    with pytest.raises(SourceUnavailable, match="parts.docx: the document holds 10,001 parts"):
        check_office_file(document, "document")


def test_a_plain_workbook_passes_the_office_checks(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    from clinreg.sources.formats.office import check_office_file

    book = openpyxl.Workbook()
    book.active.append(["a", "b"])
    book.active.append(["x", "y"])
    book.save(tmp_path / "fine.xlsx")
    check_office_file(tmp_path / "fine.xlsx", "workbook")


def test_a_results_json_of_millions_of_empty_objects_is_refused_before_parsing(tmp_path):
    from clirunner import invoke

    from clinreg.cli.main import main

    path = tmp_path / "results.json"
    path.write_text("[" + ",".join(["{}"] * 3_000_000) + "]", encoding="utf-8")  # 9 MB: 3 million dicts
    result = invoke(main, ["results", "import", str(path)])
    assert result.exit_code == 2 and "objects and arrays; refusing to parse it" in result.output


def test_slow_extract_rows_cannot_add_up_without_bound(monkeypatch):
    """Each row stays under the 5 s limit, but 100 rows of about 0.15 s each would take 15 s: the step's budget
    (here shrunk from 30 s, so the test is quick) stops it, naming the rows done."""
    from clinreg.core.builderrors import RecordProblem
    from clinreg.core.model import ExtractStep
    from clinreg.sources import steps

    monkeypatch.setattr(steps, "EXTRACT_BUDGET_SECONDS", 0.5)
    monkeypatch.setattr(steps, "EXTRACT_SECONDS_PER_ROW", 0.001)
    table = pa.table({"note": ["a" * 19] * 100})
    spec = ExtractStep(column="note", patterns=[r"(?P<x>(a|a)*b)"])  # overlapping alternatives: slow, not nested
    with pytest.raises(RecordProblem, match=r"extract patterns took .* s for \d+ row\(s\), more than the budget"):
        steps.extract(table, spec, "rec: split 'test'")


def _gzip_of(path, line: bytes, total: int) -> None:
    import gzip

    with gzip.open(path, "wb", compresslevel=9) as out:
        block = line * ((1 << 20) // len(line))
        for _ in range(total // len(block)):
            out.write(block)


@pytest.mark.slow
def test_a_small_gz_that_inflates_hugely_is_refused_by_name_before_the_memory_is_spent(tmp_path):
    """Class 7: 512 MiB of CSV in a gzip file of well under 1 MB. Unpacking stops at the bound (128 MiB here, the
    packed size being tiny) in 1 MiB steps, so no buffer the size of the declared or real content is allocated."""
    import tracemalloc

    from clinreg.sources import files

    bomb = tmp_path / "notes.csv.gz"
    _gzip_of(bomb, b"a,b\n", 512 << 20)
    assert bomb.stat().st_size < 2 << 20
    tracemalloc.start()
    with pytest.raises(SourceUnavailable, match=r"notes\.csv\.gz: unpacks to more than 134,217,728 bytes"):
        files.read_text(bomb, "utf-8")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 300 << 20, f"peak {peak >> 20} MiB"


def test_a_gz_that_compresses_as_text_does_reads_whole(tmp_path):
    from clinreg.sources import files

    plain = tmp_path / "rows.csv.gz"
    import gzip

    text = "".join(f"{i},note number {i} for patient {i * 7919 % 10007}\n" for i in range(200_000))
    with gzip.open(plain, "wt", encoding="utf-8") as out:
        out.write(text)
    assert files.inflation_limit(plain.stat().st_size) >= len(text)
    assert files.read_text(plain, "utf-8") == text


def test_an_office_part_is_bounded_by_the_size_of_its_file(tmp_path, monkeypatch):
    import zipfile

    from clinreg.sources import files
    from clinreg.sources.formats import office

    monkeypatch.setattr(files, "MIN_INFLATED", 1 << 20)  # a small floor, so the test stays small and fast
    docx = tmp_path / "report.docx"
    with zipfile.ZipFile(docx, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"<w:document>" + b"<w:p/>" * (2 << 20) + b"</w:document>")
    with pytest.raises(SourceUnavailable,
                       match=r"report\.docx: the document unpacks to 12,582,945 bytes \(at most 1,048,576\)"):
        office.check_office_file(docx, "document")
    assert files.inflation_limit(10) == 1 << 20 and files.inflation_limit(1 << 20) == 32 << 20


@pytest.mark.parametrize("kind", ["template", "filter"])
def test_slow_template_and_filter_rows_cannot_add_up_without_bound(monkeypatch, kind):
    """Class 10 for `render` steps, input templates and `filters`: every one is an InputTemplate, whose rows
    may together spend 30 s + 20 ms a row (shrunk here to 0.05 s, so the test is quick); past that the build
    stops with a RecordProblem naming the template and the rows done."""
    from clinreg.core.builderrors import RecordProblem
    from clinreg.templating import sandbox as templates
    from clinreg.templating.rowfilters import FilterExpression

    monkeypatch.setattr(templates, "TEMPLATE_BUDGET_SECONDS", 0.05)
    monkeypatch.setattr(templates, "TEMPLATE_SECONDS_PER_ROW", 0.0)
    slow = "{% for i in range(500) %}{{ note ~ i }}{% endfor %}"
    table = pa.table({"note": ["x"] * 5000})
    with pytest.raises(RecordProblem, match=r"took .* s for \d+ row\(s\), more than the budget of 0.05 s"):
        if kind == "template":
            t = templates.InputTemplate(slow, "rec: render step")
            for _, row in t.rows(["note"], [table.column("note").to_pylist()], range(table.num_rows)):
                t.render_row(row)
        else:
            FilterExpression("note and (range(500) | map('string') | join) | length > 0", "test", "rec").keep(
                table, "test", 0)


def test_a_plain_template_never_counts_against_the_budget(monkeypatch):
    from clinreg.templating import sandbox as templates

    monkeypatch.setattr(templates, "TEMPLATE_BUDGET_SECONDS", 0.0)
    monkeypatch.setattr(templates, "TEMPLATE_SECONDS_PER_ROW", 0.0)
    t = templates.InputTemplate("Question: {{ q }}", "rec")
    assert [t.render_with_globals({"q": str(i)}) for i in range(1000)][-1] == "Question: 999"
