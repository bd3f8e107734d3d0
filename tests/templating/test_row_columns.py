"""A template that reads `row` only by constant names gets a row of just those columns, with the same text."""

from __future__ import annotations

import pyarrow as pa
import pytest

from clinreg.sources.steps import render
from clinreg.templating.sandbox import InputTemplate

COLUMNS = ["id", "note", "flag", "items", "extra"]


@pytest.mark.parametrize(("template", "read"), [
    ("{{ row['flag'] ~ ' ' ~ row.id if row['flag'] == '1' else 'CORRECT' }}", ["id", "flag"]),
    ("{{ row['flag'] }} {{ note }}", ["note", "flag"]),
    ("{{ flag }}", ["flag"]),
    ("{{ row | length }}", COLUMNS),  # the whole row
    ("{{ row.keys() | list }}", COLUMNS),
    ("{{ row['missing'] }}", COLUMNS),  # not a column: looked up as in the whole row
    ("{{ row['items'] }}", COLUMNS),  # a dict attribute's name
    ("{{ row[flag] }}", COLUMNS),  # not a constant
    ("{% set row = {'a': 1} %}{{ row['a'] }}", []),  # not the row at all
    ("{% for row in [1] %}{{ row }}{% endfor %}{{ row['flag'] }}", COLUMNS),
])
def test_columns_read(template, read):
    assert InputTemplate(template, "t").columns_read(COLUMNS) == read


@pytest.mark.parametrize("template", [
    "{{ row['flag'] ~ ' ' ~ row.id if row['flag'] == '1' else 'CORRECT' }}",
    "{{ row['flag'] }} {{ note }} {{ row.extra | upper }}",
    "{{ row | length }} {{ row.values() | join(',') }}",
])
def test_render_step_text_is_the_whole_row_text(template):
    table = pa.table({"id": ["7", "8", None], "note": ["a", "b c", ""], "flag": ["1", "0", "1"],
                      "items": ["x", "y", "z"], "extra": ["e", None, "g"]})

    class Spec:
        column = "out"

    Spec.template = template
    got = render(table, Spec, "t").column("out").to_pylist()
    whole = InputTemplate(template, "t")
    names = table.column_names
    expected = [whole.render_row(dict(zip(names, values)))
                for values in zip(*(table.column(n).to_pylist() for n in names))]
    assert got == expected
