"""Render a jury agreement (`clinreg jury agreement`) as text; nothing is recomputed. A statistic with no value
is shown as `n/a` with the reason the data gives (`<name>_undefined`), never as `nan`."""

from __future__ import annotations

from typing import Any

from clinreg.text.output import shown

MAX_NAMES = 20  # raters named in the first line; --format json lists them all


def _n(entry: dict[str, Any], key: str) -> str:
    value = entry[key]
    if value is None:
        why = entry.get(f"{key}_undefined")
        return f"n/a ({why})" if why else "n/a"
    return f"{value:.3f}"


def _names(names: list[str]) -> str:
    if len(names) <= MAX_NAMES:
        return ", ".join(names) or "none"
    return f"{', '.join(names[:MAX_NAMES])} and {len(names) - MAX_NAMES} more"


def _lines(label: str, s: dict[str, Any]) -> list[str]:
    j, jc = s["judges"], s["jury_vs_clinicians"]
    every = j["targets_scored_by_every_judge"]
    out = [f"{label}: {s['targets']} target(s)",
           f"  judges: ICC(2,1) {_n(j, 'icc2_1')}, ICC(2,k) {_n(j, 'icc2_k')}"
           + (f" over the {every} target(s) every judge scored" if every is not None else "")
           + f"; alpha (interval) {_n(j, 'alpha_interval')}",
           f"  jury mean vs clinicians' mean: ICC(2,1) {_n(jc, 'icc2_1')}, ICC(2,k) {_n(jc, 'icc2_k')} "
           f"over {jc['targets']} target(s)",
           f"  clinicians: alpha (interval) {_n(s['clinicians'], 'alpha_interval')}; all raters: alpha (interval) "
           f"{_n(s['all_raters'], 'alpha_interval')}"]
    for b in s["bias"]:
        out.append(f"  bias of {b['judge']}: {_n(b, 'minus_other_judges')} against the other judges, "
                   f"{_n(b, 'minus_clinicians')} against the clinicians")
    return out


def jury_agreement_lines(data: dict[str, Any]) -> list[str]:
    """The judges and clinicians, then the agreement overall and per axis, then leaving each judge out."""
    out = [shown(f"{len(data['judges'])} judge(s): {_names(data['judges'])}; "
                 f"{len(data['clinicians'])} clinician(s); {data['instances']} instance(s); "
                 f"axes: {_names(data['axes'])}")]
    if data.get("rater_kinds_from") == "names":
        out.append("no rater_kind column: a rater named clinician:... on a row without judge_model is read as a "
                   "clinician (the old convention; docs/jury.md)")
    if len(data["benchmarks"]) > 1:
        out.append(shown(f"pooled over {len(data['benchmarks'])} benchmarks ({_names(data['benchmarks'])}); "
                         "--benchmark NAME reads one alone"))
    out.extend(shown(line) for line in _lines("all axes", data["overall"]))
    if len(data["by_axis"]) > 1:
        for axis in data["by_axis"]:
            out.extend(shown(line) for line in _lines(f"axis {axis['axis']}", axis))
    loo = data["leave_one_judge_out"]
    if loo is None:
        out.append("leave one judge out: needs a model column naming at least two rated models, and two judges"
                   + (f" (and at most {data['max_judges']})" if data.get("max_judges") else ""))
    else:
        out.append(f"leave one judge out ({loo['models']} models):")
        out.extend(shown(f"  without {j['judge']}: Kendall's tau {_n(j, 'kendall_tau')}") for j in loo["left_out"])
    return out
