"""One model, one row: the alias table (aliases.json beside this module, extended with `--aliases FILE`) maps the
name each harness gives a model to one model id. A score's name is looked up under its own kind: `published`
for a published leaderboard's display name, else its harness (`helm`, `inspect`, `lm-eval` as
`<model type>:<pretrained= or model= argument>`). Names the table does not list are never merged, and a name is
renamed only where another name of the same id is on the same board, so a board of one source keeps its names.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from clinreg.errors import ClinregError
from clinreg.results.score import ReportedWinRate, Score
from clinreg.text.safeio import read_regular_file

MAX_ALIASES_BYTES = 16 * 1024 * 1024  # the shipped table is a few kilobytes

KINDS = ("helm", "inspect", "lm-eval", "published")


class AliasError(ClinregError, ValueError):
    """An alias table that cannot be used: not the format, or one name given to two model ids."""

    default_code = "CLR985"


def load_aliases(extra: list[Path] | None = None) -> dict[tuple[str, str], str]:
    """(kind, name) -> model id, from the shipped table and then each extra file (whose entries may add names)."""
    texts = [("aliases.json", resources.files(__package__).joinpath("aliases.json").read_text(encoding="utf-8"))]
    for path in extra or []:
        try:
            texts.append((str(path), read_regular_file(path, MAX_ALIASES_BYTES).decode("utf-8")))
        except OSError as exc:  # a FIFO or a device is refused before it is opened (NotARegularFile)
            raise AliasError(f"{path}: cannot read it: {exc.strerror or exc}", file=str(path)) from None
        except UnicodeDecodeError:
            raise AliasError(f"{path}: not UTF-8 text", file=str(path)) from None
    table: dict[tuple[str, str], str] = {}
    for name, text in texts:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise AliasError(f"{name}: not JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("clinreg_aliases") != 1 or not isinstance(data.get("models"), list):
            raise AliasError(f"{name}: expected {{\"clinreg_aliases\": 1, \"models\": [...]}}")
        for i, entry in enumerate(data["models"]):
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
                raise AliasError(f"{name}: models[{i}] needs an id")
            for kind in KINDS:
                names = entry.get(kind, [])
                if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
                    raise AliasError(f"{name}: models[{i}].{kind} must be a list of names")
                for alias in names:
                    known = table.get((kind, alias))
                    if known is not None and known != entry["id"]:
                        raise AliasError(f"{name}: {kind} name {alias!r} is given to {known} and to {entry['id']}")
                    table[(kind, alias)] = entry["id"]
    return table


def lookup_key(score: Score) -> tuple[str, str] | None:
    """The (kind, name) a score is looked up under; None when its harness is unknown."""
    if score.published:
        return ("published", score.model)
    prov = score.provenance or {}
    harness = prov.get("harness")
    if harness == "lm-eval" and prov.get("model_type"):
        return ("lm-eval", f"{prov['model_type']}:{score.model}")
    return (harness, score.model) if harness in KINDS else None


def merge_names(scores: list[Score], reported: list[ReportedWinRate],
                table: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """Rename to its model id every score whose name the table lists, where two or more names of that id are on
    the board; each renamed score keeps the name it was given (`provenance.model_name`). Returns, per merged
    model, the names merged: [{"model": id, "names": [{"kind", "name", "files"}]}]."""
    found: dict[str, dict[tuple[str, str], set[str]]] = {}
    for score in scores:
        key = lookup_key(score)
        model_id = table.get(key) if key else None
        if model_id is not None:
            where = score.published or str(score.source.get("via") or score.source.get("file"))
            found.setdefault(model_id, {}).setdefault(key, set()).add(where)
    merged = {model_id: names for model_id, names in found.items() if len({n for _, n in names}) > 1}
    if not merged:
        return []
    renamed: dict[tuple[str | None, str], str] = {}
    for score in scores:
        key = lookup_key(score)
        model_id = table.get(key) if key else None
        if model_id in merged:
            renamed[(score.published, score.model)] = model_id
            score.provenance = {**(score.provenance or {}), "model_name": score.model}
            score.model = model_id
    for r in reported:
        model_id = renamed.get((r.source.get("published"), r.model))
        if model_id is not None:
            r.model = model_id
    return [{"model": model_id, "names": [{"kind": kind, "name": name, "files": sorted(files)}
                                          for (kind, name), files in sorted(names.items())]}
            for model_id, names in sorted(merged.items())]
