"""Content hashes of reviewed items, so a changed definition can be told from an approved one."""

from __future__ import annotations

import hashlib
import json


def review_hash(name: str, definition: str) -> str:
    """sha256 over what a clinician reviews: the item's name and definition, whitespace-normalised."""
    payload = json.dumps({"name": " ".join(name.split()), "definition": " ".join(definition.split())},
                         sort_keys=True, ensure_ascii=False, allow_nan=False)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()
