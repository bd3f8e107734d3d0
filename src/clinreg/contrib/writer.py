"""The skeleton of a record's test writer: tests/distributions/ID.py, which lays out the source's files
as distributed and says what the build must give (CONTRIBUTING.md, "The test writer")."""

from __future__ import annotations

WRITERS_DIR = "tests/distributions"


def render_writer(dataset_id: str, name: str | None, splits: list[str]) -> str:
    """A writer that fails until it is filled in: the suite must not pass on a placeholder."""
    split = repr(next((s for s in splits if s != "TODO"), "test"))  # a Python literal, whatever the card names it
    # The display name goes into the docstring: no quote or backslash of it may end the string early.
    shown = " ".join((name or "TODO: display name").replace("\\", "/").replace('"', "'").split())
    return f'''"""As-distributed fixture for `{dataset_id}` ({shown}).

SHAPE: TODO. Say where the files come from (repository and pinned commit, or the download page), and describe
the files as distributed: their paths, their format, their columns or fields, and what one row looks like. Read
it from the source itself (its README, its loading script, a downloaded copy); never guess. Write rows of your
own in that shape: never copy real rows of gated or private data.
"""

import json
import pathlib

FILLED_IN = False  # set to True once write() lays out the real files and returns the real expectations


def write(folder: pathlib.Path) -> dict:
    """Write the source's files under `folder` (the copy's root, as `--data-dir` holds it); return the build's \
expectations.

    The returned dict: {{"splits": {{SPLIT: [one entry per instance, in order]}}, "dropped": {{SPLIT: rows the
    record's filters drop}}}}, where an entry is {{"gold": the gold answer (a letter for a closed task, else the
    reference text), "input_must_contain": [texts of the row the prompt must show], "input_must_not_contain":
    [texts, such as the answer, the prompt must not show]}}.
    """
    if not FILLED_IN:
        raise NotImplementedError("{WRITERS_DIR}/{dataset_id}.py is a skeleton: write the files as distributed "
                                  "(CONTRIBUTING.md, 'The test writer'), then set FILLED_IN = True")
    rows = [  # TODO: two or three rows shaped like the real ones, one of them a row the record drops if it drops any
        {{"question": "TODO", "answer": "TODO"}},
    ]
    path = folder / "data" / ({split} + ".jsonl")  # TODO: the real path, as the record's read step names it
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\\n" for r in rows), encoding="utf-8")
    return {{
        "splits": {{{split}: [
            {{"gold": r["answer"], "input_must_contain": [r["question"]], "input_must_not_contain": []}} for r in rows
        ]}},
        "dropped": {{{split}: 0}},
    }}
'''
