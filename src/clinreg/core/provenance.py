"""Provenance in a clinician's words: dataset names for ids, and a sentence for who placed a task where it is."""

from __future__ import annotations

import re
from typing import Any

# Registry notes record where a placement comes from with a tag a maintainer can grep for; a clinician reads
# the sentence instead.
_TAG = re.compile(r"\s*\(\s*subcategory_assignment:\s*(inferred|stated)\s*\)|subcategory_assignment:\s*(inferred|stated)")
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
    pattern = re.compile(r"(?<![\w/.-])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?![\w/-]|\.\w)")
    return pattern.sub(lambda m: names[m.group(1)], text)


def plain_note(note: str | None, names: dict[str, str]) -> tuple[str | None, str | None]:
    """(the note in plain words, the placement sentence or None): the placement tag becomes a sentence of its own,
    and ids become display names."""
    if not note:
        return note, None
    found = _TAG.search(note)
    placement = PLACEMENT_WORDS[found.group(1) or found.group(2)] if found else None
    text = _TAG.sub("", note)
    text = re.sub(r"\s+([.;,])", r"\1", " ".join(text.split()))
    return with_names(text, names), placement
