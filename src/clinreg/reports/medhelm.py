"""`clinreg medhelm diff` as text: a header line, one line per difference (where, kind, message), the notes and
a count. The differences are found in `clinreg.medhelm.compare`."""

from __future__ import annotations

from typing import Any


def render_text(data: dict[str, Any]) -> str:
    edition = data["edition"]
    unreleased = f" (UNRELEASED: {edition['unreleased']})" if edition.get("unreleased") else ""
    lines = [f"clinreg medhelm diff: {data['source']} against edition {edition['id']}{unreleased} "
             f"({data['medhelm_benchmarks']} benchmarks in MedHELM's files, {data['edition_benchmarks']} in the "
             "edition)"]
    lines += [f"{d['where']}: {d['kind'].replace('_', ' ')}: {d['message']}" for d in data["differences"]]
    lines += [f"note: {n}" for n in data["notes"]]
    count = len(data["differences"])
    lines.append("no differences" if not count else f"{count} difference(s)")
    return "\n".join(lines)

