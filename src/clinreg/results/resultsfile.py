"""Read back a results file that `clinreg results import` wrote, checking it again as untrusted input."""

from __future__ import annotations

from typing import Any

from clinreg.results.accumulate import Reading, checked_jury, checked_provenance
from clinreg.results.score import ReportedWinRate
from clinreg.results.strictinput import Positions, count, finite_number, locate

RESULTS_FORMAT = 1  # version of the normalised results file

# --------------------------------------------------------------------------------------------- clinreg results file


SCORE_FIELDS = ("model", "record", "mapping", "metric", "value")


def read_clinreg_results(reading: Reading, name: str, text: str, data: dict[str, Any]) -> None:
    """A file `clinreg results import` wrote: checked again, since it may have been edited by hand."""
    if data.get("clinreg_results") != RESULTS_FORMAT or not isinstance(data.get("scores"), list):
        reading.error("CLR962", name, *locate(text, '"clinreg_results"'),
                      f"expected clinreg_results: {RESULTS_FORMAT} and a list of scores")
        return
    published = data.get("published") if isinstance(data.get("published"), dict) else {}
    release = published.get("id") if isinstance(published.get("id"), str) else None
    # a published file's block stands for every score's provenance that does not name its release itself
    block = {"published": {"id": release, **{k: published[k] for k in ("date",)
                                             if isinstance(published.get(k), str)}}} \
        if release else {}
    offset = 0
    positions = Positions(text)
    for i, entry in enumerate(data["scores"]):
        # Scores are written one object after another, so the i-th `"model"` key is (close to) entry i. The
        # offsets only grow, so their lines are counted in one pass over the file.
        at = text.find('"model"', offset)
        offset = at + 1 if at >= 0 else offset
        where = positions(at) if at >= 0 else (1, 1)
        if not isinstance(entry, dict) or not (_text(entry.get("model")) and _text(entry.get("record"))
                                               and _text(entry.get("mapping")) and _text(entry.get("metric"))):
            reading.error("CLR962", name, *where, f"scores[{i}] needs text fields {', '.join(SCORE_FIELDS[:4])}")
            continue
        b = reading.index.get(entry["record"], entry["mapping"])
        if b is None:
            reading.error("CLR963", name, *where, f"scores[{i}]: {entry['record']}/{entry['mapping']} is no benchmark "
                          "of the registry")
            continue
        other = b.other_metric(entry["metric"]) if entry["metric"] != b.mapping.metric.name else None
        if entry["metric"] != b.mapping.metric.name and other is None:
            reading.error("CLR965", name, *where, f"scores[{i}]: metric {entry['metric']!r} is not {b.key}'s main "
                          f"metric {b.mapping.metric.name}")
            continue
        value = finite_number(entry.get("value"))
        if value is None:
            reading.error("CLR966", name, *where, f"scores[{i}]: value must be a finite number")
            continue
        n = entry.get("n_instances")
        if n is not None and count(n) is None:
            reading.error("CLR966", name, *where, f"scores[{i}]: n_instances must be a whole number >= 1 or null")
            continue
        stderr = entry.get("stderr")
        if stderr is not None and (finite_number(stderr) is None or stderr < 0):
            reading.error("CLR966", name, *where, f"scores[{i}]: stderr must be a finite number >= 0 or null")
            continue
        per_instance = checked_per_instance(entry.get("per_instance"))
        if per_instance is False:
            reading.error("CLR966", name, *where, f"scores[{i}]: per_instance needs n >= 1, finite mean and sd >= 0, "
                          "and binary true or false")
            continue
        jury = checked_jury(entry.get("jury"))
        if jury is False:
            reading.error("CLR966", name, *where, f"scores[{i}]: jury needs a rubric and judges {{name: model}}")
            continue
        source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
        reading.score(b, entry["model"], value, {**source, "via": name, "line": where[0], "column": where[1]},
                      n=count(n) if n is not None and entry.get("n_instances_from") != "registry" else None,
                      stderr=stderr, per_instance=per_instance, jury=jury,
                      provenance={**block, **checked_provenance(entry.get("provenance"))}, metric=other)
    _stand_ins(reading, name, data.get("stand_ins"))
    for entry in data.get("reported_win_rates") or []:
        if isinstance(entry, dict) and isinstance(entry.get("model"), str) and finite_number(entry.get("value")) \
                is not None and isinstance(entry.get("benchmarks"), list):
            reading.reported.append(ReportedWinRate(entry["model"], float(entry["value"]),
                                                    [str(k) for k in entry["benchmarks"]],
                                                    {"via": name, **({"published": release} if release else {})}))


def _stand_ins(reading: Reading, name: str, entries: Any) -> None:
    """Scores a results file keeps beside a benchmark's main metric (`stand_ins`), read back so that a leaderboard
    can name them, never rank them: well-formed entries on a benchmark of the registry; any other is left out."""
    for entry in entries if isinstance(entries, list) else []:
        named = isinstance(entry, dict) and all(_text(entry.get(k)) for k in ("model", "record", "mapping", "metric"))
        if not named or finite_number(entry.get("value")) is None \
                or reading.index.get(entry["record"], entry["mapping"]) is None:
            continue
        n = count(entry.get("n_instances")) if entry.get("n_instances") is not None else None
        reading.findings.stand_ins.append({
            **{k: entry[k][:300] for k in ("model", "record", "mapping", "metric", "stands_in_for", "harness")
               if _text(entry.get(k))},
            "value": float(entry["value"]), "n_instances": n, "source": {"via": name}})


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def checked_per_instance(value: Any) -> dict[str, Any] | None | bool:
    """A per-instance summary (n, mean, sd, binary) as checked data; None when absent, False when malformed."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return False
    n, mean, sd, binary = count(value.get("n")), finite_number(value.get("mean")), finite_number(value.get("sd")), \
        value.get("binary")
    if n is None or mean is None or sd is None or sd < 0 or not isinstance(binary, bool):
        return False
    return {"n": n, "mean": mean, "sd": sd, "binary": binary}
