"""The read step's format readers, file patterns and archives, each on a tiny file written in tmp_path."""

from __future__ import annotations

import gzip
import json
import os
import zipfile
from pathlib import Path

import pyarrow as pa
import pytest

from clinreg.core.builderrors import RecordProblem, SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources import files as source_files
from clinreg.sources.files import match_files
from clinreg.sources.formats.json import json_records
from clinreg.sources.read import read_table

WHERE = "rec: split 'test'"


def write(folder: Path, rel: str, content: str | bytes, encoding: str = "utf-8") -> Path:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode(encoding))
    return path


def read(folder: Path, **spec) -> pa.Table:
    return read_table(folder, TableSpec(**spec), WHERE, folder.parent / "scratch")


def rows(table: pa.Table) -> list[dict]:
    return table.to_pylist()


# ----------------------------------------------------------------------------------------------- csv / tsv


def test_csv_latin1_with_semicolons(tmp_path):
    write(tmp_path, "notes.csv", "id;note\n1;fièvre à 39°\n", encoding="latin-1")
    assert rows(read(tmp_path, files="notes.csv", encoding="latin-1",
                     delimiter=";")) == [{"id": "1", "note": "fièvre à 39°"}]


def test_csv_gz_is_decompressed(tmp_path):
    write(tmp_path, "t.csv.gz", gzip.compress(b"a,b\nx,y\n"))
    assert rows(read(tmp_path, files="t.csv.gz")) == [{"a": "x", "b": "y"}]


def test_gz_that_inflates_past_the_size_cap_is_refused(tmp_path, monkeypatch):
    write(tmp_path, "t.csv.gz", gzip.compress(b"a\n" + b"x" * 100_000 + b"\n"))
    assert (tmp_path / "t.csv.gz").stat().st_size < 1000
    monkeypatch.setattr(source_files, "MAX_FILE_BYTES", 1000)
    with pytest.raises(SourceUnavailable,
                       match=r"^rec: split 'test': t\.csv\.gz: unpacks to more than 1,000 bytes \(the most a file may "
                             r"have\)"):
        read(tmp_path, files="t.csv.gz")


def test_bom_is_not_part_of_the_first_header(tmp_path):
    write(tmp_path, "t.csv", "\ufeffid,q\n1,why\n")
    table = read(tmp_path, files="t.csv")
    assert table.column_names == ["id", "q"]


def test_duplicate_header_is_a_located_error(tmp_path):
    write(tmp_path, "t.csv", "id,q,q\n1,a,b\n")
    with pytest.raises(SourceUnavailable, match=r"t\.csv.*repeats.*'q'"):
        read(tmp_path, files="t.csv")


def test_too_many_fields_names_file_and_line(tmp_path):
    write(tmp_path, "t.csv", "a,b\n1,2\n3,4,5\n")
    with pytest.raises(SourceUnavailable, match=r"t\.csv:3: 3 fields where the header has 2"):
        read(tmp_path, files="t.csv")


def test_too_many_fields_line_counts_lines_of_the_file_not_records(tmp_path):
    # A quoted field spanning two lines: the bad record starts on line 4 of the file, not at record 3.
    write(tmp_path, "t.csv", 'a,b\n1,"two\nlines"\n3,4,5\n')
    with pytest.raises(SourceUnavailable, match=r"t\.csv:4: "):
        read(tmp_path, files="t.csv")


def test_reader_errors_name_record_split_and_path_in_the_mirror(tmp_path):
    for subset in ("a", "b"):
        write(tmp_path, f"{subset}/test.jsonl", '{"q": 1}\n' if subset == "a" else '{"q": 1}\n{bad\n')
    with pytest.raises(SourceUnavailable, match=r"^rec: split 'test': b/test\.jsonl:2: not JSON"):
        read(tmp_path, files="{subset}/test.jsonl")


def test_trailing_empty_extra_fields_are_tolerated(tmp_path):
    write(tmp_path, "t.csv", "a,b\n1,2,,,\n3,4, ,\n")
    assert rows(read(tmp_path, files="t.csv")) == [{"a": "1", "b": "2"}, {"a": "3", "b": "4"}]


def test_values_stay_text(tmp_path):
    write(tmp_path, "t.csv", "id,label,flag,score\n007,0,TRUE,1.50\n")
    assert rows(read(tmp_path, files="t.csv")) == [{"id": "007", "label": "0", "flag": "TRUE", "score": "1.50"}]
    assert all(pa.types.is_string(t) for t in read(tmp_path, files="t.csv").schema.types)


def test_short_records_and_empty_fields_are_null(tmp_path):
    write(tmp_path, "t.csv", "a,b,c\n1,,\n2\n")
    assert rows(read(tmp_path, files="t.csv")) == [{"a": "1", "b": None, "c": None}, {"a": "2", "b": None, "c": None}]




def test_blank_lines_are_not_records(tmp_path):
    # pandas (and so `datasets`) skips blank lines; a file that ends in an extra newline has no empty record.
    write(tmp_path, "t.csv", "a,b\n1,2\n\n3,4\n\n\n")
    assert rows(read(tmp_path, files="t.csv")) == [{"a": "1", "b": "2"}, {"a": "3", "b": "4"}]


def test_crlf_line_ends(tmp_path):
    write(tmp_path, "t.csv", 'a,b\r\n1,"x\r\ny"\r\n')
    assert rows(read(tmp_path, files="t.csv")) == [{"a": "1", "b": "x\ny"}]


def test_tsv_by_extension(tmp_path):
    write(tmp_path, "t.tsv", "a\tb\n1,5\t2\n")
    assert rows(read(tmp_path, files="t.tsv")) == [{"a": "1,5", "b": "2"}]


def test_undecodable_text_is_one_located_line(tmp_path):
    write(tmp_path, "t.csv", b"a\n\xff\xfe\n")
    with pytest.raises(SourceUnavailable, match=r"rec: split 'test': cannot read t\.csv as csv"):
        read(tmp_path, files="t.csv")


# ----------------------------------------------------------------------------------------------- json / jsonl


def test_json_records_path(tmp_path):
    write(tmp_path, "t.json", json.dumps({"data": [{"id": 1, "dialogue": "hi"}, {"id": 2, "dialogue": "bye"}]}))
    assert rows(read(tmp_path, files="t.json", records="data")) == [{"id": 1, "dialogue": "hi"},
                                                                    {"id": 2, "dialogue": "bye"}]


def test_json_keyed_object_with_key_column(tmp_path):
    write(tmp_path, "ori.json",
          json.dumps({"123": {"QUESTION": "q1", "final_decision": "yes"},
                      "456": {"QUESTION": "q2", "final_decision": "no"}}))
    table = read(tmp_path, files="ori.json", records="*", key_column="pubid")
    assert rows(table) == [
        {"pubid": "123", "QUESTION": "q1", "final_decision": "yes"},
        {"pubid": "456", "QUESTION": "q2", "final_decision": "no"},
    ]


def test_json_nested_star_carries_parent_fields(tmp_path):
    doc = {"version": 1, "exams": {
        "cardio_2013": {"name": "Cardio", "year": "2013", "data": [{"qid": 1, "qtext": "a"}, {"qid": 2, "qtext": "b"}]},
        "pharma_2014": {"name": "Pharma", "year": "2014", "data": [{"qid": 1, "qtext": "c", "year": "own"}]},
    }}
    write(tmp_path, "exams.json", json.dumps(doc))
    got = rows(read(tmp_path, files="exams.json", records="exams.*.data", key_column="exam"))
    assert got == [
        {"exam": "cardio_2013", "name": "Cardio", "year": "2013", "qid": 1, "qtext": "a"},
        {"exam": "cardio_2013", "name": "Cardio", "year": "2013", "qid": 2, "qtext": "b"},
        {"exam": "pharma_2014", "name": "Pharma", "year": "own", "qid": 1, "qtext": "c"},  # the record's own field wins
    ]


def test_json_wrong_records_path_is_an_error(tmp_path):
    write(tmp_path, "t.json", json.dumps({"data": []}))
    with pytest.raises(SourceUnavailable, match=r"t\.json: no 'rows' in the file \(records path 'rows'\)"):
        read(tmp_path, files="t.json", records="rows")
    write(tmp_path, "u.json", json.dumps({"data": [1, 2]}))
    with pytest.raises(SourceUnavailable, match="expected a list of objects at 'data'"):
        read(tmp_path, files="u.json", records="data")


def test_json_records_star_on_a_scalar_is_an_error():
    with pytest.raises(SourceUnavailable, match="meets a int"):
        json_records({"a": 3}, "a.*", None, "f.json")


def test_jsonl_bad_line_names_file_and_line(tmp_path):
    write(tmp_path, "t.jsonl", '{"a": 1}\n\n{"a": 2\n')
    with pytest.raises(SourceUnavailable, match=r"t\.jsonl:3: not JSON"):
        read(tmp_path, files="t.jsonl")
    write(tmp_path, "u.jsonl", '{"a": 1}\n[1]\n')
    with pytest.raises(SourceUnavailable, match=r"u\.jsonl:2: a line must hold one JSON object"):
        read(tmp_path, files="u.jsonl")




def test_jsonl_keeps_unicode_line_separators_inside_strings(tmp_path):
    # JSON allows U+2028, U+0085 and form feeds raw inside strings; only "\n" ends a JSON Lines record.
    text = "para one\u2028para two\x85end\x0cpage"
    write(tmp_path, "t.jsonl", json.dumps({"a": text}, ensure_ascii=False) + "\n" + json.dumps({"a": "b"}) + "\n")
    assert rows(read(tmp_path, files="t.jsonl")) == [{"a": text}, {"a": "b"}]


def test_json_mixed_types_become_text(tmp_path):
    write(tmp_path, "t.jsonl", '{"a": 1}\n{"a": "x"}\n{"a": null}\n')
    assert read(tmp_path, files="t.jsonl").column("a").to_pylist() == ["1", "x", None]


# ----------------------------------------------------------------------------------------------- arrow formats


def _table():
    return pa.table({"id": pa.array([1, 2], pa.int64()), "codes": pa.array([["I10"], ["E11", "N18"]])})


def test_parquet(tmp_path):
    import pyarrow.parquet as pq

    pq.write_table(_table(), tmp_path / "t.parquet")
    assert read(tmp_path, files="t.parquet").equals(_table())


def test_feather(tmp_path):
    import pyarrow.feather as feather

    feather.write_feather(_table(), tmp_path / "t.feather")
    assert read(tmp_path, files="t.feather").to_pylist() == _table().to_pylist()


def test_arrow_file_and_stream(tmp_path):
    import pyarrow.ipc as ipc

    with ipc.new_file(str(tmp_path / "f.arrow"), _table().schema) as writer:
        writer.write_table(_table())
    with ipc.new_stream(str(tmp_path / "s.arrow"), _table().schema) as writer:
        writer.write_table(_table())
    assert read(tmp_path, files="f.arrow").to_pylist() == _table().to_pylist()
    assert read(tmp_path, files="s.arrow").to_pylist() == _table().to_pylist()


def test_corrupt_parquet_is_one_located_line(tmp_path):
    write(tmp_path, "t.parquet", b"not parquet at all")
    with pytest.raises(SourceUnavailable, match=r"^rec: split 'test': cannot read t\.parquet as parquet: "):
        read(tmp_path, files="t.parquet")


# ----------------------------------------------------------------------------------------------- xlsx


def _xlsx(path: Path, sheets: dict[str, list[list]]) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, grid in sheets.items():
        sheet = book.create_sheet(name)
        for row in grid:
            sheet.append(row)
    book.save(path)


def test_xlsx_sheet_by_name_with_cell_text(tmp_path):
    _xlsx(tmp_path / "b.xlsx", {
        "Intro": [["about"], ["nothing"]],
        "Data": [["id", "score", "ratio", "QC", "note"], [7, 3.0, 2.5, True, "ok"], [8, 4, 0.5, False, None],
                 [None, None], []],
    })
    table = read(tmp_path, files="b.xlsx", sheet="Data")
    assert rows(table) == [
        {"id": "7", "score": "3", "ratio": "2.5", "QC": "TRUE", "note": "ok"},
        {"id": "8", "score": "4", "ratio": "0.5", "QC": "FALSE", "note": None},
    ]


def test_xlsx_first_sheet_by_default(tmp_path):
    _xlsx(tmp_path / "b.xlsx", {"One": [["a"], ["x"]], "Two": [["b"], ["y"]]})
    assert rows(read(tmp_path, files="b.xlsx")) == [{"a": "x"}]


def test_xlsx_missing_sheet_lists_the_sheets(tmp_path):
    _xlsx(tmp_path / "b.xlsx", {"One": [["a"]], "Two": [["b"]]})
    with pytest.raises(SourceUnavailable, match=r"b\.xlsx: no sheet 'Three' \(sheets: One, Two\)"):
        read(tmp_path, files="b.xlsx", sheet="Three")


def test_xlsx_repeated_header_is_an_error(tmp_path):
    _xlsx(tmp_path / "b.xlsx", {"S": [["a", "a"], [1, 2]]})
    with pytest.raises(SourceUnavailable, match="empty or repeated column name"):
        read(tmp_path, files="b.xlsx")


# ----------------------------------------------------------------------------------------------- text folders, lines


def test_text_folder_one_row_per_file_with_parts(tmp_path):
    write(tmp_path, "notes/Cardiology/Dr. Smith - 2.txt", "note two")
    write(tmp_path, "notes/Cardiology/a.txt", "note a")
    write(tmp_path, "notes/Neurology/b.txt", "note b")
    write(tmp_path, "notes/Neurology/skip.md", "not text")
    table = read(tmp_path, files="notes/{specialty}/*.txt", format="text", text_column="note")
    assert rows(table) == [
        {"file": "Dr. Smith - 2", "note": "note two", "specialty": "Cardiology"},
        {"file": "a", "note": "note a", "specialty": "Cardiology"},
        {"file": "b", "note": "note b", "specialty": "Neurology"},
    ]


def test_where_restricts_placeholder_values(tmp_path):
    for subset in ("healthcaremagic", "icliniq", "other"):
        write(tmp_path, f"{subset}/test.jsonl", json.dumps({"q": subset}) + "\n")
    table = read(tmp_path, files="{subset}/test.jsonl", where={"subset": ["icliniq", "healthcaremagic"]})
    assert rows(table) == [{"q": "healthcaremagic", "subset": "healthcaremagic"}, {"q": "icliniq", "subset": "icliniq"}]


def test_a_placeholder_used_twice_matches_the_same_text(tmp_path):
    write(tmp_path, "101/101.csv", "a\n1\n")
    write(tmp_path, "102/notes.csv", "a\n2\n")
    write(tmp_path, "103/104.csv", "a\n3\n")
    assert rows(read(tmp_path, files="{id}/{id}.csv")) == [{"a": "1", "id": "101"}]


def test_placeholder_clashing_with_a_column_is_refused(tmp_path):
    write(tmp_path, "x/t.csv", "subset\n1\n")
    with pytest.raises(RecordProblem, match=r"\{subset\} clashes"):
        read(tmp_path, files="{subset}/t.csv")


@pytest.mark.parametrize("pattern", ["{file}/*.txt", "{text}/*.txt"])
def test_text_placeholder_clashing_with_file_or_text_is_refused(tmp_path, pattern):
    write(tmp_path, "ward/a.txt", "note")
    with pytest.raises(RecordProblem, match=r"clashes with the '(file|text)' column"):
        read(tmp_path, files=pattern, format="text")


def test_lines_are_aligned(tmp_path):
    write(tmp_path, "test.findings.tok", "f one\nf two\n")
    write(tmp_path, "test.impression.tok", "i one\ni two\n")
    table = read(tmp_path, format="lines", files={"findings": "test.findings.tok", "impression": "test.impression.tok"})
    assert rows(table) == [{"findings": "f one", "impression": "i one"}, {"findings": "f two", "impression": "i two"}]


def test_lines_of_different_length_are_an_error(tmp_path):
    write(tmp_path, "a.tok", "1\n2\n3\n")
    write(tmp_path, "b.tok", "1\n2\n")
    with pytest.raises(SourceUnavailable, match=r"differ in length \(a\.tok 3, b\.tok 2 lines\)"):
        read(tmp_path, format="lines", files={"x": "a.tok", "y": "b.tok"})


# ----------------------------------------------------------------------------------------------- xml


TRIAL = """<?xml version="1.0"?>
<PatientMatching>
  <TEXT>Record text here.</TEXT>
  <TAGS>
    <ABDOMINAL met="met" />
    <CREATININE met="not met" />
  </TAGS>
</PatientMatching>
"""

QA = """<QuestionList>
  <Question QID="1"><QuestionText>What?</QuestionText>
    <AnswerList>
      <Answer AID="a" ReferenceRank="2"><AnswerText>second</AnswerText></Answer>
      <Answer AID="b" ReferenceRank="1"><AnswerText>first</AnswerText></Answer>
    </AnswerList>
  </Question>
  <Question QID="2"><QuestionText>Why?</QuestionText><AnswerList /></Question>
</QuestionList>
"""


def test_xml_rows_attributes_tags_and_root_text(tmp_path):
    write(tmp_path, "100.xml", TRIAL)
    table = read(tmp_path, files="*.xml", rows="TAGS/*", fields={"criterion": "name()", "met": "@met", "text": "/TEXT"})
    assert rows(table) == [
        {"criterion": "ABDOMINAL", "met": "met", "text": "Record text here."},
        {"criterion": "CREATININE", "met": "not met", "text": "Record text here."},
    ]


def test_xml_list_of_row_paths_in_order(tmp_path):
    write(tmp_path, "100.xml", TRIAL)
    table = read(tmp_path, files="100.xml", rows=["TAGS/CREATININE", "TAGS/ABDOMINAL"], fields={"c": "name()"})
    assert table.column("c").to_pylist() == ["CREATININE", "ABDOMINAL"]


def test_xml_child_attribute_and_predicate(tmp_path):
    write(tmp_path, "qa.xml", QA)
    fields = {"qid": "@QID", "question": "QuestionText", "first_aid": "AnswerList/Answer@AID",
              "best": "AnswerList/Answer[@ReferenceRank='1']/AnswerText"}
    table = read(tmp_path, files="qa.xml", rows="Question", fields=fields)
    assert rows(table) == [
        {"qid": "1", "question": "What?", "first_aid": "a", "best": "first"},
        {"qid": "2", "question": "Why?", "first_aid": None, "best": None},
    ]


def test_xml_without_rows_is_a_record_problem(tmp_path):
    write(tmp_path, "qa.xml", QA)
    with pytest.raises(RecordProblem, match="needs `rows:`"):
        read(tmp_path, files="qa.xml")


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<root><row>&lol3;</row></root>
"""


@pytest.mark.parametrize("doc", [
    BILLION_LAUGHS,
    '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<root><row>&x;</row></root>\n',
    '<?xml version="1.0"?>\n<!DOCTYPE r SYSTEM "http://example.invalid/r.dtd">\n<root><row>a</row></root>\n',
], ids=["billion-laughs", "external-entity", "external-dtd"])
def test_xml_with_a_doctype_is_refused_not_expanded(tmp_path, doc):
    write(tmp_path, "bad.xml", doc)
    with pytest.raises(SourceUnavailable, match=r"^rec: split 'test': cannot read bad\.xml as xml: .*DTD") as err:
        read(tmp_path, files="bad.xml", rows="row")
    assert "lollol" not in str(err.value) and "root:" not in str(err.value)


# ----------------------------------------------------------------------------------------------- docx


W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _docx(path: Path, body: str) -> None:
    xml = f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{W}"><w:body>{body}</w:body></w:document>'
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", xml)


def _p(text: str, red: bool = False) -> str:
    colour = '<w:rPr><w:color w:val="FF0000"/></w:rPr>' if red else '<w:rPr><w:color w:val="000000"/></w:rPr>'
    return f"<w:p><w:r>{colour}<w:t>{text}</w:t></w:r></w:p>"


def _tbl(grid: list[list[str]]) -> str:
    cells = "".join("<w:tr>" + "".join(f"<w:tc>{_p(c)}</w:tc>" for c in row) + "</w:tr>" for row in grid)
    return f"<w:tbl>{cells}</w:tbl>"


def test_docx_paragraphs_with_red_flag(tmp_path):
    _docx(tmp_path / "s.docx", _p("Run 1: question") + _p("a harmful answer", red=True) + _p("plain"))
    assert rows(read(tmp_path, files="s.docx")) == [
        {"paragraph": 0, "text": "Run 1: question", "red": False},
        {"paragraph": 1, "text": "a harmful answer", "red": True},
        {"paragraph": 2, "text": "plain", "red": False},
    ]


def test_docx_paragraphs_leave_out_table_cells(tmp_path):
    _docx(tmp_path / "s.docx", _p("before") + _tbl([["h"], ["cell"]]) + _p("after"))
    assert read(tmp_path, files="s.docx").column("text").to_pylist() == ["before", "after"]


def test_docx_table_by_index(tmp_path):
    _docx(tmp_path / "s.docx",
          _p("intro") + _tbl([["a", "b"], ["1", "2"]]) + _tbl([["case", "plan"], ["c1", "p1"], ["c2", "p2"]]))
    assert rows(read(tmp_path, files="s.docx", docx_table=1)) == [{"case": "c1", "plan": "p1"},
                                                                  {"case": "c2", "plan": "p2"}]
    with pytest.raises(SourceUnavailable, match=r"no table 2 \(the document has 2\)"):
        read(tmp_path, files="s.docx", docx_table=2)




def test_docx_table_with_a_repeated_header_is_an_error(tmp_path):
    _docx(tmp_path / "s.docx", _tbl([["a", "a"], ["1", "2"]]))
    with pytest.raises(SourceUnavailable, match="repeated"):
        read(tmp_path, files="s.docx", docx_table=0)


# ----------------------------------------------------------------------------------------------- archives


def test_only_named_archive_members_are_extracted(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with zipfile.ZipFile(mirror / "data.zip", "w") as archive:
        archive.writestr("en/test.json", json.dumps([{"q": "a"}]))
        archive.writestr("es/test.json", json.dumps([{"q": "b"}]))
        archive.writestr("pdfs/big.pdf", b"%PDF")
    scratch = tmp_path / "scratch"
    table = read_table(mirror, TableSpec(archive="data.zip", files="en/*.json"), WHERE, scratch)
    assert rows(table) == [{"q": "a"}]
    extracted = sorted(p.relative_to(scratch).as_posix() for p in scratch.rglob("*") if p.is_file())
    assert extracted == ["archive-data.zip/en/test.json"]


@pytest.mark.parametrize("member", ["../evil.json", "/abs.json"])
def test_archive_member_outside_the_folder_is_refused(tmp_path, member):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with zipfile.ZipFile(mirror / "data.zip", "w") as archive:
        archive.writestr(zipfile.ZipInfo(member), json.dumps([{"q": "a"}]))
    pattern = "{d}/evil.json" if member.startswith("..") else "*/abs.json"
    with pytest.raises(SourceUnavailable, match="would land outside the folder"):
        read_table(mirror, TableSpec(archive="data.zip", files=pattern), WHERE, tmp_path / "scratch")
    assert not (tmp_path / "evil.json").exists() and not (tmp_path / "scratch" / "evil.json").exists()


def test_archive_member_over_the_size_cap_is_refused(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with zipfile.ZipFile(mirror / "data.zip", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("t.json", json.dumps([{"q": "x" * 5000}]))
    monkeypatch.setattr(source_files, "MAX_FILE_BYTES", 1000)
    with pytest.raises(SourceUnavailable, match="unpacks to more than 1,000 bytes"):
        read_table(mirror, TableSpec(archive="data.zip", files="t.json"), WHERE, tmp_path / "scratch")






def _lying_zip(path: Path, payload: bytes, declared: int) -> None:
    """A zip whose headers declare `declared` bytes for a member that inflates to `payload`."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("t.json", payload)
    data = bytearray(path.read_bytes())
    real = len(payload).to_bytes(4, "little")
    # the uncompressed size sits at offset 22 of the local header and offset 24 of the central directory entry
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(signature) + offset
        assert data[at : at + 4] == real
        data[at : at + 4] = declared.to_bytes(4, "little")
    path.write_bytes(bytes(data))


def test_archive_member_whose_declared_size_lies_is_capped(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    payload = json.dumps([{"q": "x" * 50_000}]).encode()
    _lying_zip(mirror / "data.zip", payload, declared=100)
    monkeypatch.setattr(source_files, "MAX_FILE_BYTES", 1000)
    with pytest.raises(SourceUnavailable, match=r"^rec: split 'test': data\.zip") as err:
        read_table(mirror, TableSpec(archive="data.zip", files="t.json"), WHERE, tmp_path / "scratch")
    assert "\n" not in str(err.value)
    written = [p.stat().st_size for p in (tmp_path / "scratch").rglob("*") if p.is_file()]
    assert all(size <= 1000 for size in written)


def test_not_a_zip_is_one_located_line(tmp_path):
    write(tmp_path, "data.zip", b"not a zip")
    with pytest.raises(SourceUnavailable, match="not a readable zip archive"):
        read(tmp_path, archive="data.zip", files="t.json")


# ----------------------------------------------------------------------------------------------- file patterns


@pytest.mark.parametrize("pattern,why", [
    ("/etc/passwd", "is absolute"), ("C:/data/x.csv", "is absolute"), ("../other/x.csv", "climbs out"),
    ("a/../../x.csv", "climbs out"), ("a\\b.csv", "holds a backslash"),
])
def test_unsafe_patterns_are_located_record_problems(tmp_path, pattern, why):
    with pytest.raises(RecordProblem, match=rf"^rec: split 'test': file .* {why}"):
        read(tmp_path, files=pattern)


def test_symlink_out_of_the_mirror_is_refused(tmp_path):
    outside = tmp_path / "secret.csv"
    outside.write_text("a\n1\n")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    os.symlink(outside, mirror / "t.csv")
    with pytest.raises(SourceUnavailable, match="link that leads out of the mirror folder"):
        read(mirror, files="t.csv")
    with pytest.raises(SourceUnavailable, match="link that leads out of the mirror folder"):
        read(mirror, files="*.csv")


def test_symlinked_folder_out_of_the_mirror_is_refused(tmp_path):
    outside = tmp_path / "elsewhere"
    write(outside, "t.csv", "a\n1\n")
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    os.symlink(outside, mirror / "sub")
    with pytest.raises(SourceUnavailable, match="leads out of the mirror folder"):
        read(mirror, files="{part}/t.csv")


def test_symlink_inside_the_mirror_is_read(tmp_path):
    write(tmp_path, "real/t.csv", "a\n1\n")
    os.symlink(tmp_path / "real" / "t.csv", tmp_path / "t.csv")
    assert rows(read(tmp_path, files="t.csv")) == [{"a": "1"}]


def test_no_match_names_pattern_and_folder(tmp_path):
    write(tmp_path, "other.csv", "a\n1\n")
    with pytest.raises(SourceUnavailable, match=rf"no file matches 'data/\*\.csv' in {tmp_path}"):
        read(tmp_path, files="data/*.csv")


def test_glob_does_not_cross_folders_and_skips_hidden(tmp_path):
    write(tmp_path, "a/x.csv", "c\n1\n")
    write(tmp_path, "a/b/y.csv", "c\n2\n")
    write(tmp_path, "a/.hidden.csv", "c\n3\n")
    assert [m.relative for m in match_files(tmp_path, "a/*.csv", {}, WHERE)] == ["a/x.csv"]


def test_several_files_are_concatenated_in_path_order(tmp_path):
    write(tmp_path, "part-2.csv", "a\n2\n")
    write(tmp_path, "part-1.csv", "a\n1\n")
    assert read(tmp_path, files="part-*.csv").column("a").to_pylist() == ["1", "2"]


def test_unknown_format_asks_for_format(tmp_path):
    write(tmp_path, "t.dat", "x")
    with pytest.raises(RecordProblem, match="give `format:`"):
        read(tmp_path, files="t.dat")
