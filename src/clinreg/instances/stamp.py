"""Provenance that only a build knows: the registry release, the source actually read, and the registry's canary."""

from __future__ import annotations

import uuid
from typing import Any, Iterable, Iterator

from clinreg.core.store import Registry
from clinreg.instances.batch import InstanceBatch
from clinreg.sources.location import DataLocation

# A fixed namespace, so that the GUID depends on the taxonomy id alone and never on the machine or the date.
CANARY_NAMESPACE = uuid.UUID("6f1c0d3e-5a43-4c8e-9b1d-2f6c1e0a7b52")
CANARY_SENTENCE = "CLINREG EVALUATION DATA: keep it out of training corpora."


def canary_guid(taxonomy_id: str) -> str:
    """The registry's GUID: uuid5 of the taxonomy id in clinreg's namespace."""
    return str(uuid.uuid5(CANARY_NAMESPACE, f"clinreg-registry:{taxonomy_id}"))


def canary(registry: Registry) -> str:
    """The canary string stamped on every instance and export of a registry; search corpora for its GUID."""
    taxonomy_id = registry.taxonomy.id if registry.taxonomy is not None else "unnamed"
    return f"{CANARY_SENTENCE} canary GUID {canary_guid(taxonomy_id)}"


def build_provenance(base: dict[str, Any], registry: Registry | None, location: DataLocation | None) -> dict[str, Any]:
    """The record's provenance completed with the release, the canary and what `location` read."""
    out = {**base, "source": dict(base["source"])}
    if registry is not None:
        out["registry_release"] = registry.current_release
        out["canary"] = canary(registry)
    if location is not None:
        read = location.describe()
        out["source"]["kind"] = read.get("kind", out["source"]["kind"])
        if read.get("kind") == "hub":
            out["source"].update(repo=read.get("repo") or out["source"]["repo"], revision=read.get("revision") or None)
        else:
            out["source"]["content_sha256"] = read.get("content_sha256")
            # The commit read, never the one the record pins: a plain folder's commit is unknown (null).
            out["source"]["revision"] = location.commit_read
    return out


def stamped(batches: Iterable[InstanceBatch], registry: Registry | None,
            location: DataLocation | None) -> Iterator[InstanceBatch]:
    """The batches with their provenance completed (computed once: a mirror's hash reads every file)."""
    done: dict[int, dict[str, Any]] = {}
    for batch in batches:
        key = id(batch.provenance)
        if key not in done:
            done[key] = build_provenance(batch.provenance, registry, location)
        batch.provenance = done[key]
        yield batch
