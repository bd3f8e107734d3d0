"""Render a jury agreement (`clinreg jury agreement`) as text; nothing is recomputed."""

from __future__ import annotations

from typing import Any

from clinreg.text.output import shown


def _n(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _lines(label: str, s: dict[str, Any]) -> list[str]:
    j, jc = s["judges"], s["jury_vs_clinicians"]
    out = [f"{label}: {s['targets']} target(s)",
           f"  judges: ICC(2,1) {_n(j['icc2_1'])}, ICC(2,k) {_n(j['icc2_k'])} over the "
           f"{j['targets_scored_by_every_judge']} target(s) every judge scored; alpha (interval) "
           f"{_n(j['alpha_interval'])}",
           f"  jury mean vs clinicians' mean: ICC(2,1) {_n(jc['icc2_1'])}, ICC(2,k) {_n(jc['icc2_k'])} "
           f"over {jc['targets']} target(s)",
           f"  clinicians: alpha (interval) {_n(s['clinicians']['alpha_interval'])}; all raters: alpha (interval) "
           f"{_n(s['all_raters']['alpha_interval'])}"]
    for b in s["bias"]:
        out.append(f"  bias of {b['judge']}: {_n(b['minus_other_judges'])} against the other judges, "
                   f"{_n(b['minus_clinicians'])} against the clinicians")
    return out


def jury_agreement_lines(data: dict[str, Any]) -> list[str]:
    """The judges and clinicians, then the agreement overall and per axis, then leaving each judge out."""
    out = [shown(f"{len(data['judges'])} judge(s): {', '.join(data['judges']) or 'none'}; "
                 f"{len(data['clinicians'])} clinician(s); {data['instances']} instance(s); "
                 f"axes: {', '.join(data['axes'])}")]
    if len(data["benchmarks"]) > 1:
        out.append(shown(f"pooled over {len(data['benchmarks'])} benchmarks ({', '.join(data['benchmarks'])}); "
                         "--benchmark NAME reads one alone"))
    out.extend(shown(line) for line in _lines("all axes", data["overall"]))
    if len(data["by_axis"]) > 1:
        for axis in data["by_axis"]:
            out.extend(shown(line) for line in _lines(f"axis {axis['axis']}", axis))
    loo = data["leave_one_judge_out"]
    if loo is None:
        out.append("leave one judge out: needs a model column naming at least two rated models, and two judges")
    else:
        out.append(f"leave one judge out ({loo['models']} models):")
        out.extend(shown(f"  without {j['judge']}: Kendall's tau {_n(j['kendall_tau'])}") for j in loo["left_out"])
    return out
