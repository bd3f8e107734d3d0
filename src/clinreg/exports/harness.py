"""`clinreg export`: built instances plus the task files that lm-evaluation-harness, Inspect AI or HELM run as they are.

This module builds the chosen records into a staged folder, has the harness's module (lm_eval, inspect_ai, helm)
write its task files, adds the README and the manifest, then puts the folder in place.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from clinreg.core.builderrors import BuildError
from clinreg.core.model import FreeTextScheme, NumberScheme
from clinreg.exports import helm, inspect_ai, lm_eval
from clinreg.exports.contents import PREFIX, ExportReport, MappingExport, groups, sent_generation
from clinreg.instances.build import RecordBuild
from clinreg.instances.canonical import canonical_chunks
from clinreg.instances.stamp import canary
from clinreg.instances.write import replace_folder
from clinreg.reports.markdown import code, escape
from clinreg.sources.origin import locate
from clinreg.text.output import printable
from clinreg.text.suggest import closest

HARNESSES = ("lm-eval", "inspect", "helm")
# Each writes its task files into the staged folder and returns the README's "Running it" section.
WRITERS = {"lm-eval": lm_eval.write, "inspect": inspect_ai.write, "helm": helm.write}


class ExportProblem(BuildError):
    """An unknown dataset, an output in the way, nothing to export, or clashing names: a usage error."""

    default_code = "CLR984"
    exit_code = 2


def scoring_spec(dataset_id: str, mapping: Any) -> dict[str, Any] | None:
    """A mapping's `scoring` as the exports carry it: JSON-shaped, with `rubric_id` naming the exact rubric (the
    jury's rubric, axes, scale and what it is shown) so that results from different rubrics are never ranked
    together."""
    if mapping.scoring is None:
        return None
    spec = mapping.scoring.model_dump(mode="json", exclude_none=True)
    if mapping.scoring.jury is not None:
        jury = spec["jury"]
        rubric = json.dumps({k: jury[k] for k in ("rubric", "axes", "scale", "aggregate", "shows")}, sort_keys=True)
        spec["rubric_id"] = f"clinreg:{dataset_id}/{mapping.id}@{hashlib.sha256(rubric.encode()).hexdigest()[:12]}"
    return spec


def generation_spec(mapping: Any) -> dict[str, Any] | None:
    """A mapping's generation settings as the exports carry them (JSON-shaped), or None when the record gives none."""
    return None if mapping.generation is None else mapping.generation.model_dump(mode="json", exclude_none=True)


def gold_kind(scheme: object) -> str:
    if isinstance(scheme, NumberScheme):
        return "number"
    if isinstance(scheme, FreeTextScheme):
        return "text"
    return "choice"


def export(
    registry: Any,
    harness: str,
    output: str | Path,
    datasets: list[str] | None = None,
    *,
    data_dir: str | Path | None = None,
    access: list[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    on_bad_label: str = "error",
    force: bool = False,
    choice_scoring: str = "generate",
) -> ExportReport:
    """Build the chosen records and write a self-contained folder for `harness`; return what went in.

    Records named in `datasets` must build; without names, every record of the allowed access tiers is tried
    and the ones whose data is not at hand, or that MedHELM runs as an agent (which no export can run), are listed
    in `skipped`. `choice_scoring` is lm-eval's for closed tasks: "generate" (MedHELM's) or "loglikelihood".
    """
    if harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r} (choose from {', '.join(HARNESSES)})")
    if choice_scoring not in ("generate", "loglikelihood"):
        raise ValueError(f"unknown choice_scoring {choice_scoring!r} (choose generate or loglikelihood)")
    output = Path(output)
    if output.exists() and not force:
        raise ExportProblem(f"{output} exists; refusing to overwrite it (use --force)", code="CLR983")
    if output.exists() and not output.is_dir():
        raise ExportProblem(f"{output} exists and is not a folder", code="CLR983")
    unknown = [d for d in datasets or [] if d not in registry.datasets]
    if unknown:
        close = closest(unknown[0], sorted(registry.datasets))
        raise ExportProblem(f"no dataset {unknown[0]!r} in the registry{f'; did you mean {close!r}?' if close else ''}")
    chosen = list(datasets) if datasets else sorted(registry.datasets)
    if access:
        chosen = [d for d in chosen if registry.datasets[d].access.tier in access]
    placement = _placement(registry)
    check_identifiers(registry, chosen, placement)
    report = ExportReport(harness, output, release=registry.current_release, canary=canary(registry),
                          choice_scoring=choice_scoring)
    for category, _ in registry.ordered_categories():
        report.order.setdefault(category.id, len(report.order))
        for sub in category.subcategories:
            report.order.setdefault(sub.id, len(report.order))
    output.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{output.name}.", dir=output.parent))
    try:
        staged = work / "export"
        for dataset_id in chosen:
            record = registry.datasets[dataset_id]
            agent = [m.id for m in record.mappings if m.generation is not None and m.generation.adapter == "agent"]
            if agent and len(agent) == len(record.mappings):
                reason = (f"MedHELM runs {', '.join(agent)} with an agent adapter (a harness driving a multi-step "
                          "episode), which no clinreg export can run; run it with medhelm itself")
                if datasets:
                    raise ExportProblem(f"{dataset_id}: {reason}")
                report.skipped[dataset_id] = reason
                continue
            try:
                location = locate(record, data_dir, registry.root)
            except BuildError as err:
                if datasets:
                    raise
                report.skipped[dataset_id] = str(err)
                continue
            for mapping in record.mappings:
                if mapping.id in agent:  # beside mappings an export can run; the README names it as skipped
                    report.skipped[f"{dataset_id}/{mapping.id}"] = "MedHELM runs it with an agent adapter, which no " \
                                                                    "clinreg export can run"
                    continue
                rel = f"data/{dataset_id}/{mapping.id}.jsonl"
                target = staged / rel
                if not target.resolve().is_relative_to(staged.resolve()):  # ids are checked above; never trust one
                    raise ExportProblem(f"{dataset_id}/{mapping.id}: its data file would land outside the export",
                                        code="CLR202")
                target.parent.mkdir(parents=True, exist_ok=True)
                made = RecordBuild(record, registry, mapping.id, limit=limit, seed=seed, on_bad_label=on_bad_label,
                                   location=location)
                count = 0
                with target.open("wb") as handle:
                    for chunk, lines in canonical_chunks(made.batches()):
                        handle.write(chunk)
                        count += lines
                subs = sorted({placement[t][0] for t in mapping.tasks if t in placement})
                cats = sorted({placement[t][1] for t in mapping.tasks if t in placement})
                report.mappings.append(MappingExport(dataset_id, mapping.id, gold_kind(mapping.label), rel, count,
                                                     record.access.tier, subs, cats, mapping.metric.name,
                                                     scoring_spec(dataset_id, mapping),
                                                     generation_spec(mapping)))
        if not report.mappings:
            reasons = "; ".join(f"{k}: {v}" for k, v in sorted(report.skipped.items())[:3])
            raise ExportProblem(f"nothing to export: no chosen record could be built ({reasons or 'none chosen'})",
                                code="CLR910")
        _check_names(report)
        _readme(staged, report, WRITERS[harness](staged, report, registry))
        (staged / "manifest.json").write_text(json.dumps(report.to_dict() | {"output": None}, indent=2,
                                                         allow_nan=False) + "\n",
                                              encoding="utf-8")
        replace_folder(staged, output)
        return report
    finally:
        shutil.rmtree(work, ignore_errors=True)


# Every id an export writes into generated Python (function names, literals), YAML task names, HELM run entries
# (`clinreg:mapping=<id>,model=...`) and file paths (`data/<record>/<mapping>.jsonl`). validate refuses other ids
# (CLR202), but export must hold even for a record that never went through validate.
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,119}")


def check_identifiers(registry: Any, chosen: list[str], placement: dict[str, tuple[str, str]]) -> None:
    """Refuse, before anything is written, any record, mapping, subcategory or category id an export would write
    into generated code or paths that is not a plain snake_case identifier."""
    bad = []
    for dataset_id in chosen:
        record = registry.datasets[dataset_id]
        if not IDENTIFIER.fullmatch(record.id):
            bad.append(f"record id {record.id!r}")
        for mapping in record.mappings:
            if not IDENTIFIER.fullmatch(mapping.id):
                bad.append(f"{record.id}: mapping id {mapping.id!r}")
            for task in mapping.tasks:
                for group in placement.get(task, ()):
                    if not IDENTIFIER.fullmatch(group):
                        bad.append(f"{record.id}/{mapping.id}: subcategory or category id {group!r}")
    if bad:
        raise ExportProblem(f"{printable(bad[0], 200)} is not a snake_case identifier, and an export writes "
                            "it "
                            f"into code and paths; nothing was exported ({len(bad)} such id(s); run `clinreg "
                            "validate`)", code="CLR202")


def _placement(registry: Any) -> dict[str, tuple[str, str]]:
    """task id -> (subcategory id, category id)."""
    return {task_id: (entry.subcategory.id, entry.category.id) for task_id, entry in registry.tasks().items()}


def _check_names(report: ExportReport) -> None:
    """Task and group names share one namespace in lm-eval and HELM: a clash would silently run the wrong thing."""
    subs, cats = groups(report)
    seen: dict[str, str] = {}
    for kind, names in (("mapping", [m.name for m in report.mappings]), ("subcategory", [PREFIX + s for s in subs]),
                        ("category", [PREFIX + c for c in cats])):
        for name in names:
            if name in seen and not (kind == seen[name] == "subcategory"):
                raise ExportProblem(f"{name} names both a {seen[name]} and a {kind}; rename one to export")
            seen[name] = kind


def _readme(staged: Path, report: ExportReport, usage: str) -> None:
    """The export's README: what went in, what was skipped and why, and how to run it (`usage`, the harness's)."""
    rows = "\n".join(f"| {m.name} | {m.dataset} | {m.kind} | {m.instances} | {', '.join(m.subcategories)} |"
                     for m in report.mappings)
    # Skip reasons quote paths and record text: escaped, one line each, never live Markdown.
    skipped = "\n".join(f"- {escape(k)}: {escape(v)}" for k, v in sorted(report.skipped.items())) or "- none"
    text = EXPORT_README.format(harness=report.harness, release=report.release, canary=report.canary, rows=rows,
                                skipped=skipped, generation=_generation_lines(report), judges=_judge_lines(report),
                                usage=usage)
    (staged / "README.md").write_text(text, encoding="utf-8")

CLOSED_LAYOUT = {  # harness -> how a closed task's prompt reaches the model
    "helm": "HELM's multiple-choice adapter, output label `Answer`",
    "inspect": "one user message, scored by HELM's exact match on the letter",
    "lm-eval": "lm-eval's `description` and prompt, a regex filter and exact match on the letter",
}
CLOSED_DIFFERS = ("clinreg's question wording, without MedHELM's `Question:` label and its own answer label, and no "
                  "few-shot examples, where MedHELM's scenario words its own and some run entries give five")
LOGLIKELIHOOD_SENT = ("clinreg's question and options, scored by the log-likelihood of each option; nothing is "
                      "generated", "not MedHELM-comparable: MedHELM generates the letter with its instructions")


def _generation_lines(report: ExportReport) -> str:
    """One line per task: exactly what the export sends the model, what differs from MedHELM's run entry, and how
    to run MedHELM's own entry (with its own prompt) where MedHELM has one."""
    lines = []
    for m in report.mappings:
        g = m.generation
        if g is None:
            odd = "" if m.medhelm_comparable else f"; {LOGLIKELIHOOD_SENT[0]}, {LOGLIKELIHOOD_SENT[1]}"
            lines.append(f"- {escape(m.name)}: the harness's defaults (the record gives no generation settings){odd}")
            continue
        g = g if report.harness == "helm" else sent_generation(g)  # HELM's adapter makes its own requests
        stop = ", ".join(json.dumps(s) for s in g.get("stop", [])) or "none"
        settings = (f"temperature {g['temperature']:g}, at most {g['max_tokens']} token(s), stop {stop}, "
                    f"{g.get('num_outputs', 1)} output(s) asked for")
        if g.get("reasoning_max_tokens"):
            settings += f" ({g['reasoning_max_tokens']} tokens for reasoning models in MedHELM's runs)"
        instructions = json.dumps(g["instructions"]) if g.get("instructions") else "none"
        sent = differs = None
        if m.kind == "choice" and not m.medhelm_comparable:
            sent, differs = LOGLIKELIHOOD_SENT
        elif m.kind == "choice":
            opening = m.closed_instructions()
            opening = (f"MedHELM's instructions {json.dumps(opening)}" if opening == g.get("instructions")
                       else f"clinreg's letter instruction {json.dumps(opening)}")
            sent = (f"{opening}, then clinreg's question, the lettered options and `Answer:` "
                    f"({CLOSED_LAYOUT[report.harness]})")
            differs = CLOSED_DIFFERS
        chat = ((m.scoring or {}).get("rubric") or {}).get("conversation_column")
        if sent is None and chat and report.harness == "lm-eval":
            sent = (f"MedHELM's instructions {instructions}, then the conversation flattened into one text "
                    "(`role: content` lines, clinreg's input_template)")
            differs = "the conversation goes as one text, not as chat turns"
        elif sent is None and chat:
            sent = "the conversation's turns as chat messages" + (
                "" if report.harness == "helm"
                else f", after MedHELM's instructions {instructions} as a system message")
            differs = ("none in what the model reads" if report.harness == "helm" else
                       "MedHELM's chat adapter sends no system message; simple-evals' samplers do")
        elif sent is None:
            sent = f"MedHELM's instructions {instructions}, then clinreg's prompt"
            differs = ("clinreg's prompt words the task (input_template) and MedHELM's input and output labels "
                       "are not sent")
        if m.medhelm_comparable:
            sent += f"; {settings}"
        note = f" {g['request_note']}" if m.medhelm_comparable and g.get("request_note") else ""
        line = f"{m.name}: sends {sent}.{note} Differs from MedHELM's run entry: {differs}."
        if m.not_sent:
            line += " Not sent as MedHELM sends it: " + "; ".join(f"{k} ({v})" for k, v in m.not_sent.items()) + "."
        line = escape(line) + " "
        if g.get("run_spec"):
            line += (escape("MedHELM's own run entry (its prompt, not clinreg's):") + " "
                     + code(f"helm-run --run-entries {g['run_spec']}:model=MODEL") + " "
                     + escape("with the medhelm package, plus the arguments its run spec function requires."))
        else:
            line += escape("No MedHELM run entry to compare with (" + g.get("source", "")[:200] + ").")
        lines.append("- " + line)
    return "\n".join(lines) or "- none"


def _judge_lines(report: ExportReport) -> str:
    """The jury's judges whose serving differs from MedHELM's, or that replace a retired judge, with their tasks."""
    seen: dict[str, list[str]] = {}
    for m in report.mappings:
        for judge in ((m.scoring or {}).get("jury") or {}).get("judges", []):
            parts = []
            if judge.get("serving"):
                parts.append(f"served as: {judge['serving']}")
            if judge.get("replaces"):
                parts.append(f"REPLACES {judge['replaces']}, which MedHELM used: {judge.get('replaced_because', '')}")
            if parts:
                line = f"judge {judge['name']} ({judge.get('inspect_model') or judge['model']}): " + "; ".join(parts)
                seen.setdefault(line, []).append(m.name)
    return "\n".join("- " + escape(f"{line} (tasks: {', '.join(names)})") for line, names in seen.items()) or "- none"


EXPORT_README = """# clinreg export for {harness}

Written by `clinreg export {harness}` from registry release {release}. Each line of `data/<dataset>/<mapping>.jsonl`
is one clinreg instance (schema 2: `input`, `choices`, `gold`, `references`, `context`, `provenance`).

Canary, also in every instance: `{canary}`. Keep these files out of training data; search corpora for the GUID.

| task | dataset | scored as | instances | subcategories |
|---|---|---|---|---|
{rows}

Not exported (no data at hand, or run by MedHELM as an agent, which no export can run):
{skipped}

What each task sends the model (the record's `generation`, read from MedHELM's run specs; see `manifest.json`,
whose `settings_not_sent` lists per task each setting this harness cannot send as MedHELM does, and why), what
differs from MedHELM's own run entry, and how to run that entry for MedHELM's exact prompt:
{generation}

Judges that differ from MedHELM's (a provider's serving, or a replacement for a retired judge; every jury score
made with them says so):
{judges}

## Running it

{usage}
"""
