"""CSV read through Arrow's C++ reader gives exactly the table the csv-module reader gives (every value text,
empty fields null), or the file goes the csv-module way (issue 26)."""

from __future__ import annotations

import csv
import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinreg.core.builderrors import SourceUnavailable
from clinreg.core.model import TableSpec
from clinreg.sources.formats import csv as csv_format

SPEC = TableSpec(files="x.csv")

cells = st.one_of(st.just(""), st.text(alphabet='ab ,"\n\r\t1é', max_size=8),
                  st.sampled_from(["0", "1", "TRUE", "NA", "007"]))


@given(st.lists(st.sampled_from(["id", "q", "note", "a b", "x"]), min_size=1, max_size=4, unique=True),
       st.lists(st.lists(cells, min_size=0, max_size=6), max_size=8), st.sampled_from(["\n", "\r\n"]),
       st.booleans(), st.sampled_from([",", "\t", ";"]))
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_arrow_path_reads_what_the_csv_module_reads_or_steps_aside(tmp_path, header, rows, newline, blank, sep):
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=sep, lineterminator=newline)
    writer.writerow(header)
    for row in rows:
        writer.writerow(row)
        if blank:
            buffer.write(newline)
    path = tmp_path / "x.csv"
    path.write_bytes(buffer.getvalue().encode("utf-8"))
    spec = TableSpec(files="x.csv", delimiter=sep)
    try:
        slow = csv_format._read_csv_python(path, spec)
    except SourceUnavailable:
        slow = None
    fast = csv_format._read_csv_arrow(path, spec, ",")
    if fast is not None:
        assert slow is not None and fast.column_names == slow.column_names
        assert fast.to_pylist() == slow.to_pylist()


def test_a_plain_csv_of_notes_goes_the_arrow_way(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text('note_id,text,label\n1,"Line one\nline two, with a comma",1\n2,,0\n3,"He said ""no""",\n',
                    encoding="utf-8")
    fast = csv_format._read_csv_arrow(path, SPEC, ",")
    assert fast is not None
    assert fast.to_pylist() == csv_format._read_csv_python(path, SPEC).to_pylist() == [
        {"note_id": "1", "text": "Line one\nline two, with a comma", "label": "1"},
        {"note_id": "2", "text": None, "label": "0"},
        {"note_id": "3", "text": 'He said "no"', "label": None}]
