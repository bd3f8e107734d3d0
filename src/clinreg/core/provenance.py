"""Provenance in a clinician's words: dataset names for ids, and a sentence for who placed a task where it is."""

from __future__ import annotations

import re
from typing import Any

# Who placed a task in its subcategory (`provenance.subcategory_assignment`), as a clinician reads it.
PLACEMENT_WORDS = {
    "inferred": "Placed in this subcategory by clinreg (inferred), not by MedHELM.",
    "stated": "Placed in this subcategory by MedHELM itself.",
}


def dataset_names(reg: Any) -> dict[str, str]:
    """Each dataset id, and each of its benchmark (mapping) ids, to the dataset's display name."""
    names: dict[str, str] = {}
    for record in reg.datasets.values():
        names[record.id] = record.name
        for mapping in record.mappings:
            names.setdefault(mapping.id, record.name)
    return names


def with_names(text: str, names: dict[str, str]) -> str:
    """`text` with every whole-word dataset or benchmark id (written in lower case, as ids are) replaced by the
    dataset's display name."""
    if not text or not names:
        return text
    pattern = re.compile(r"(?<![\w/.-])(" + "|".join(map(re.escape,
                                                         sorted(names, key=len, reverse=True))) + r")(?![\w/-]|\.\w)")
    return pattern.sub(lambda m: names[m.group(1)], text)


def plain_note(note: str | None, names: dict[str, str], assignment: str | None = None) -> tuple[str | None, str | None]:
    """(the note in plain words, the placement sentence or None): ids become display names, and a task's
    `subcategory_assignment` (ASSIGNMENT) becomes a sentence of its own."""
    placement = PLACEMENT_WORDS.get(assignment) if assignment else None
    if not note:
        return note, placement
    text = re.sub(r"\s+([.;,])", r"\1", " ".join(note.split()))
    return with_names(text, names), placement
