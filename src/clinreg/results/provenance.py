"""Where each score comes from: the instance-set hash, the export a run used (from the export's manifest.json),
the generation settings each harness records, and filling those in after every source is read.

An export's manifest.json has no id of its own, so an export is named by the hash of its manifest text
(`manifest:<sha256, 16 hex>`): the manifest names the registry release, every mapping and its data file and
instance count, and the data files hold the prompts. An instance set is named by the hash of its sorted instance
ids (`ids:<sha256, 16 hex>`), which HELM's per-instance stats, Inspect's sample ids and an export's data files all
give alike.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any, Iterable

from clinreg.results.score import Score
from clinreg.results.strictinput import Unreadable, parse_json, read_text
from clinreg.text.safeio import open_regular

HASH_CHARS = 16
MAX_EXPORT_DATA_BYTES = 1024 * 1024 * 1024
HARNESSES = ("helm", "inspect", "lm-eval")


def instance_set(ids: Iterable[Any]) -> str | None:
    """`ids:<hash>` of a set of instance ids, or None when there are none."""
    names = sorted({str(i) for i in ids})
    if not names:
        return None
    return "ids:" + hashlib.sha256("\n".join(names).encode("utf-8")).hexdigest()[:HASH_CHARS]


def settings(values: dict[str, Any] | None) -> dict[str, Any] | None:
    """Generation settings as a flat, sorted object of the scalar ones that are set; None when there are none."""
    if not isinstance(values, dict):
        return None
    out = {str(k): v for k, v in sorted(values.items())
           if v is not None and isinstance(v, (str, int, float, bool)) and not (isinstance(v, str) and not v)}
    lists = {str(k): ",".join(map(str, v)) for k, v in values.items() if isinstance(v, list) and v
             and all(isinstance(x, (str, int, float)) for x in v)}
    out.update(lists)
    return dict(sorted(out.items())) or None


def export_of(folder: Path) -> dict[str, Any] | None:
    """An export folder as provenance: {"export": id, "registry_release", "harness", "mappings": {key:
    {"data_file", "instance_set"}}}; None when the folder has no readable manifest.json."""
    manifest = folder / "manifest.json"
    try:
        text = read_text(manifest)
        data = parse_json(text)
    except (Unreadable, OSError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("mappings"), list):
        return None
    mappings = {}
    for m in data["mappings"]:
        if not isinstance(m, dict) or not all(isinstance(m.get(k), str) for k in ("dataset", "mapping", "data_file")):
            continue
        mappings[f"{m['dataset']}/{m['mapping']}"] = {"data_file": m["data_file"], "instances": m.get("instances"),
                                                      "instance_set": _data_file_ids(folder / m["data_file"])}
    return {"export": "manifest:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_CHARS],
            "registry_release": data.get("release") if isinstance(data.get("release"), str) else None,
            "harness": data.get("harness"), "folder": str(folder), "mappings": mappings}


def _data_file_ids(path: Path) -> str | None:
    try:
        ids = []
        # A manifest may name any path: a FIFO or a device (/dev/zero) is refused before it is opened.
        with open_regular(path) as raw, io.TextIOWrapper(raw, encoding="utf-8") as handle:
            if os.fstat(raw.fileno()).st_size > MAX_EXPORT_DATA_BYTES:
                return None
            for line in handle:
                if line.strip():
                    doc = json.loads(line)
                    ids.append(doc["id"])
        return instance_set(ids)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # a line nested past the parser's depth
        return None


def export_folder_of(data_file: str) -> Path | None:
    """The export folder a harness run points into (`<export>/data/<record>/<mapping>.jsonl`), if it is there."""
    path = Path(data_file)
    if not path.is_absolute() or len(path.parts) < 4:
        return None
    folder = path.parents[2]
    return folder if (folder / "manifest.json").is_file() else None


def fill_exports(scores: list[Score], exports: list[dict[str, Any]]) -> None:
    """Each harness score's export, registry release and instance set, from the exports given or found: the export
    that lists the score's benchmark (and the data file the run names, when it names one); when several do, the
    one whose instance set is the score's. A score no export fits keeps what its source said (the rest unknown)."""
    for score in scores:
        prov = score.provenance if score.provenance is not None else {}
        if score.published or prov.get("export") or prov.get("harness") not in HARNESSES:
            continue
        fits = [e for e in exports if score.key in e["mappings"]
                and (not prov.get("data_file") or Path(prov["data_file"]).as_posix().endswith(
                    e["mappings"][score.key]["data_file"]))]
        if len(fits) > 1:
            fits = [e for e in fits if e["mappings"][score.key]["instance_set"] == prov.get("instance_set")]
        if len(fits) != 1:
            continue
        export = fits[0]
        prov["export"] = export["export"]
        if export.get("registry_release"):
            prov["registry_release"] = export["registry_release"]
        mapping = export["mappings"][score.key]
        if not prov.get("instance_set") and score.n_instances in (None, mapping.get("instances")):
            prov["instance_set"] = mapping["instance_set"]
        score.provenance = {k: v for k, v in prov.items() if v is not None}
