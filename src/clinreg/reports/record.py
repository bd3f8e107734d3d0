"""`clinreg show RECORD`: what a user needs before building one record, as data (`record_view`) and as text
(`render_record`): what it measures, where it sits in the taxonomy (and who placed it there), access and the
record's own instructions for getting the data, the files it expects under `--data-dir`, its scoring and jury,
its generation settings, the MedHELM editions that include it, and what is known of its contamination."""

from __future__ import annotations

import textwrap
from typing import Any

from clinreg.core.model import Dataset
from clinreg.core.provenance import PLACEMENT_WORDS
from clinreg.core.store import Registry
from clinreg.errors import ClinregError
from clinreg.instances.figures import contamination_view
from clinreg.reports.contamination import contamination_lines
from clinreg.scoring import judge_calls, judge_requirement
from clinreg.sources.mirror import folder_name, pinned_commit_sha
from clinreg.text.suggest import closest


class UnknownRecord(ClinregError, ValueError):
    """`clinreg show` names a record the registry does not hold."""

    default_code = "CLR984"


def _text(value: str | None) -> str | None:
    return " ".join(value.split()) if value else value


def _patterns(files: Any) -> list[str]:
    if isinstance(files, str):
        return [files]
    if isinstance(files, dict):
        return list(files.values())
    return list(files or [])


def expected_files(record: Dataset) -> dict[str, Any]:
    """The mirror folder the loaders read under --data-dir, and the files they expect in it, from the record."""
    folder = folder_name(record)
    commit = pinned_commit_sha(record)
    source, files = record.source, []
    read = getattr(source, "read", None)
    if read is not None:
        for split, spec in read.splits.items():
            inside = f" (inside {folder}/{spec.archive})" if spec.archive else ""
            files += [{"path": f"{folder}/{p}", "for": f"split {split}{inside}"} for p in _patterns(spec.files)]
        for name, spec in read.tables.items():
            files += [{"path": f"{folder}/{p}", "for": f"table {name}"} for p in _patterns(spec.files)]
    else:
        listed = getattr(source, "paths", None) or getattr(source, "files", None) or []
        files += [{"path": f"{folder}/{p}", "for": "the source"} for p in listed]
        if not listed and source.type == "huggingface":
            files.append({"path": f"{folder}/", "for": "a clone of the hub repository (splits "
                                                       f"{', '.join(source.splits)}, as its own card declares them)"})
    return {"folder": folder, "pinned_folder": f"{folder}@{commit[:12]}" if commit else None, "files": files}


def _where(record: Dataset) -> dict[str, Any]:
    source = record.source.model_dump(mode="json", exclude={"read"}, exclude_none=True)
    return {key: source[key] for key in ("type", "repo", "url", "project", "commit", "revision", "config", "splits",
                                         "description") if key in source}


def _placement(reg: Registry, record: Dataset) -> list[dict[str, Any]]:
    tasks = reg.tasks()
    out = []
    for mapping in record.mappings:
        for task_id in mapping.tasks:
            entry = tasks.get(task_id)
            if entry is None:
                out.append({"benchmark": mapping.id, "task": task_id, "found": False})
                continue
            assignment = entry.task.provenance.subcategory_assignment
            out.append({"benchmark": mapping.id, "task": task_id, "task_name": entry.task.name,
                        "subcategory": entry.subcategory.id, "subcategory_name": entry.subcategory.name,
                        "category": entry.category.id, "category_name": entry.category.name,
                        "placement": assignment, "placement_words": PLACEMENT_WORDS.get(assignment or "")})
    return out


def _scoring(mapping: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"metric": mapping.metric.name, "range": mapping.metric.range,
                           "lower_is_better": mapping.metric.lower_is_better, "method": None,
                           "note": _text(mapping.scoring_note)}
    scoring = mapping.scoring
    if scoring is None:
        return out
    out["method"] = scoring.method
    if scoring.jury is not None:
        jury = scoring.jury
        out["jury"] = {"judges": [{"name": j.name, "model": j.model} for j in jury.judges],
                       "axes": [{"id": a.id, "question": _text(a.question)} for a in jury.axes],
                       "scale": jury.scale, "aggregate": jury.aggregate, "shows": jury.shows}
    if scoring.rubric is not None:
        out["rubric"] = scoring.rubric.model_dump(mode="json", exclude_none=True)
    if scoring.database is not None:
        out["database"] = scoring.database.model_dump(mode="json", exclude_none=True)
    return out


def judge_view(mapping: Any) -> dict[str, Any]:
    """The judge a benchmark requires (see clinreg.scoring.requirement), with the judge calls one model run of it
    takes and the instance count they rest on."""
    calls, basis = judge_calls(mapping)
    return {**judge_requirement(mapping).to_dict(), "judge_calls": calls, "judge_calls_instances": basis}


def judge_sentences(judge: dict[str, Any]) -> list[tuple[str, str]]:
    """The judge requirement as (label, sentence) pairs: what `clinreg show` and the benchmark card print."""
    if judge["needs_judge"] is None:
        return [("judge", f"not known: {judge['calls_basis']}")]
    if not judge["needs_judge"]:
        return [("judge", "none needed (scored without a model)")]
    who = ", ".join(j["model"] for j in judge["judges"])
    kind = "an LLM jury" if judge["kind"] == "jury" else "a rubric grader"
    out = [("judge", f"needs {kind}: {who} ({judge['reference']})")]
    per, calls = judge["judge_calls_per_instance"], judge["judge_calls"]
    over = {"evaluated": "over MedHELM's evaluated instances",
            "source": "over every row of the source split (MedHELM's evaluated count is not recorded)"}
    counted = (f"{per:g} per instance, {calls:,} per model run {over[judge['judge_calls_instances']]}"
               if calls is not None else f"{per:g} per instance" if per is not None else "not counted")
    out.append(("judge calls", f"{counted}. {judge['calls_basis'][0].upper()}{judge['calls_basis'][1:]}."))
    if judge["reference_calls_basis"]:
        ref = judge["reference_calls_per_instance"]
        out.append(("MedHELM's own run", (f"{ref:g} calls per instance; " if ref is not None else "")
                     + judge["reference_calls_basis"] + "."))
    out.append(("portability", f"{judge['portability']}; {judge['portability_reason']}."))
    return out


def judge_lines(judge: dict[str, Any], indent: str = "  ") -> list[str]:
    """The judge requirement as `clinreg show` prints it."""
    return [line for i, (label, text) in enumerate(judge_sentences(judge))
            for line in _wrap(f"{label}: ", text, indent if i == 0 else indent + "  ")]


def record_view(reg: Registry, record_id: str) -> dict[str, Any]:
    """Everything `clinreg show` prints about one record; UnknownRecord (with the closest id) for one not held."""
    record = reg.datasets.get(record_id)
    if record is None:
        guess = closest(record_id, list(reg.datasets) + sorted(reg.later_datasets))
        later = " (it is not in this release)" if record_id in reg.later_datasets else ""
        raise UnknownRecord(f"no record {record_id!r}{later}" + (f"; did you mean {guess}?" if guess else "")
                            + " (`clinreg show` without an id lists every record)")
    editions = [] if reg.editions is None else [e.id for e in reg.editions.editions_of(record.id)]
    unreleased = [] if reg.editions is None else [
        {"id": e.id, "commit": e.source.commit, "branch": e.source.branch, "says": e.unreleased_words}
        for e in reg.editions.only_unreleased(record.id)]
    return {
        "id": record.id, "name": record.name, "version": record.version, "in_medhelm": record.in_medhelm,
        "description": _text(record.description), "measures": _text(record.measures),
        "use_when": _text(record.use_when), "not_for": _text(record.not_for),
        "taxonomy": _placement(reg, record),
        "access": {"tier": record.access.tier, "instructions": _text(record.access.instructions),
                   "licence": record.licence.spdx, "source": _where(record)},
        "data_dir": expected_files(record),
        "benchmarks": [{"id": m.id, "splits": m.splits, "scoring": _scoring(m), "judge": judge_view(m),
                        "generation": None if m.generation is None else
                        m.generation.model_dump(mode="json", exclude_none=True)} for m in record.mappings],
        "medhelm_editions": editions,
        "medhelm_unreleased": unreleased,
        "citation": record.citation.text,
        "notes": [_text(n) for n in record.notes],
        "contamination": contamination_view(reg, record),
    }


def record_index(reg: Registry) -> list[dict[str, Any]]:
    """Every record: id, name, access tier, whether MedHELM runs it (what `clinreg show` lists without an id)."""
    return [{"id": r.id, "name": r.name, "access": r.access.tier, "in_medhelm": r.in_medhelm}
            for r in sorted(reg.datasets.values(), key=lambda r: r.id)]


def _wrap(label: str, text: str | None, indent: str = "  ") -> list[str]:
    if not text:
        return []
    return textwrap.wrap(f"{label}{text}", width=100, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False)  # `lm-eval`, ids and paths stay whole


def record_lines(data: dict[str, Any]) -> list[str]:
    """`clinreg show` as text, in the order a user needs it before building."""
    out = [f"{data['id']}: {data['name']} (record version {data['version']}; "
           f"{'in MedHELM' if data['in_medhelm'] else 'not in MedHELM'})"]
    out.append("What it measures")
    out += _wrap("", data["measures"] or data["description"])
    out += _wrap("use when: ", data["use_when"]) + _wrap("not for: ", data["not_for"])
    out.append("Where it sits in the taxonomy")
    for p in data["taxonomy"]:
        if not p.get("found", True):
            out.append(f"  {p['benchmark']}: task {p['task']} (not in this taxonomy)")
            continue
        out.append(f"  {p['benchmark']}: task {p['task']} ({p['task_name']}) in {p['category_name']} > "
                   f"{p['subcategory_name']}")
        out += _wrap("placement: ", f"{p['placement'] or 'not recorded'}"
                     + (f" ({p['placement_words']})" if p["placement_words"] else ""), "    ")
    access = data["access"]
    out.append("Access and how to get the data")
    out.append(f"  access: {access['tier']}; licence: {access['licence'] or 'not stated'}")
    out.append("  source: " + ", ".join(f"{k} {', '.join(v) if isinstance(v, list) else v}"
                                        for k, v in access["source"].items()))
    out += _wrap("how to get it: ", access["instructions"] or "no instructions in the record; fetch the source "
                                                              "above into the folder below")
    files = data["data_dir"]
    out.append("Files expected under --data-dir DIR")
    out.append(f"  folder: DIR/{files['folder']}/"
               + (f" (or DIR/{files['pinned_folder']}/ for the pinned commit)" if files["pinned_folder"] else ""))
    out += [f"  DIR/{f['path']}  ({f['for']})" for f in files["files"]]
    if not files["files"]:
        out.append("  (the record lists no files)")
    out.append(f"  then: clinreg build {data['id']} --data-dir DIR -o OUT")
    for b in data["benchmarks"]:
        s = b["scoring"]
        out.append(f"Benchmark {b['id']} (splits {', '.join(b['splits'])})")
        rng = f" over {s['range'][0]:g} to {s['range'][1]:g}" if s["range"] else ""
        out.append(f"  scoring: {s['metric']}{rng}, {'lower' if s['lower_is_better'] else 'higher'} is better"
                   + (f"; method {s['method']}" if s["method"] else ""))
        out += _wrap("how it is scored (clinreg cannot express it): ", s.get("note"), "    ")
        jury = s.get("jury")
        if jury:
            out.append("  jury: " + ", ".join(f"{j['name']} ({j['model']})" for j in jury["judges"])
                       + f"; scale {min(jury['scale'])} to {max(jury['scale'])}, {jury['aggregate']} of the judges")
            out += [line for a in jury["axes"] for line in _wrap(f"axis {a['id']}: ", a["question"], "    ")]
        out += judge_lines(b["judge"])
        g = b["generation"]
        if g:
            stop = ", ".join(repr(x) for x in g.get("stop", [])) or "none"
            reasoning = f" ({g['reasoning_max_tokens']} for reasoning models)" if g.get("reasoning_max_tokens") else ""
            out.append(f"  generation: {g['adapter']} adapter, temperature {g['temperature']:g}, up to "
                       f"{g['max_tokens']} tokens{reasoning}, stop {stop}, {g.get('num_outputs', 1)} output(s)"
                       + (f"; MedHELM run spec {g['run_spec']}" if g.get("run_spec") else ""))
            out += _wrap("MedHELM's instructions: ", g.get("instructions"), "    ")
            out += _wrap("note: ", g.get("note"), "    ")
        else:
            out.append("  generation: no settings recorded")
    out += contamination_lines(data["contamination"])
    if data.get("notes"):  # caveats, disputed facts and where clinreg placed what MedHELM did not
        out.append("Notes")
        out += [line for note in data["notes"] for line in _wrap("- ", note)]
    editions = data["medhelm_editions"]
    out.append("MedHELM editions: " + (", ".join(editions) if editions else "no released edition lists it"))
    for e in data.get("medhelm_unreleased", []):
        out.append(f"MedHELM unreleased: {e['says']} (edition {e['id']})")
    return out


def render_record(data: dict[str, Any] | list[dict[str, Any]], fmt: str) -> str:
    """`clinreg show` as JSON or text: one record, or (a list) the index of every record."""
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        return dumps("records" if isinstance(data, list) else "record", data)
    if isinstance(data, list):
        width = max((len(r["id"]) for r in data), default=0)
        rows = [f"{r['id']:<{width}}  {r['access']:<7}  {'MedHELM' if r['in_medhelm'] else '-':<7}  {r['name']}"
                for r in data]
        return "\n".join(rows + [f"{len(data)} record(s); `clinreg show ID` for one"])
    return "\n".join(record_lines(data))
