"""Content hashes of reviewed items, so a changed name, definition, example or placement can be told from an approved
one."""

from __future__ import annotations

import hashlib
import json


def review_hash(name: str, definition: str, example: str | None = None, placement: str | None = None) -> str:
    """sha256 over what a clinician judges: name, definition, example and placement (the subcategory of a task,
    the category of a subcategory), each whitespace-normalised."""
    payload = json.dumps({"name": " ".join(name.split()), "definition": " ".join(definition.split()),
                          "example": " ".join((example or "").split()), "placement": placement or ""},
                         sort_keys=True, ensure_ascii=False, allow_nan=False)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def reviewed_content(name: str, definition: str, example: str | None, placement: str | None) -> dict[str, str]:
    """The wording a decision covers, stored with the decision so a later change can be shown old beside new."""
    out = {"name": " ".join(name.split()), "definition": " ".join(definition.split())}
    if example:
        out["example"] = " ".join(example.split())
    if placement:
        out["placement"] = placement
    return out
