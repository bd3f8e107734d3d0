"""Write the skeleton of a new dataset record, pre-filled from a hub features description where one is given.

The features file is read by clinreg.contrib.features, and the mapping guessed from its columns by
clinreg.contrib.guess.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from clinreg.contrib.features import CONTROL, HubCard
from clinreg.contrib.guess import Guess, guess_mapping
from clinreg.core.model import RESTRICTED_TIERS
from clinreg.text.output import shown
from clinreg.text.yamltext import yaml_flow_list, yaml_flow_map, yaml_scalar

HUB_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
SCHEMA_HEADER = "# yaml-language-server: $schema=../../schemas/dataset.schema.json"

_HF_LICENCES = {"mit": "MIT", "apache-2.0": "Apache-2.0", "cc0-1.0": "CC0-1.0", "bsd-3-clause": "BSD-3-Clause",
                "gpl-3.0": "GPL-3.0-only", "openrail": "other", "unknown": "unknown", "other": "other"}


def spdx_from_hub(licence: str | None) -> str | None:
    """The SPDX id of a hub card's `license:` value, where it is a plain one (cc-by-4.0 -> CC-BY-4.0)."""
    if not licence:
        return None
    key = licence.strip().lower()
    if "," in key:  # several licences on one card: the contributor says which applies
        return None
    if key in _HF_LICENCES:
        return _HF_LICENCES[key]
    if re.fullmatch(r"cc-by(-nc)?(-sa|-nd)?-\d\.\d", key):
        return key.upper()
    return None


@dataclass
class Answers:
    """What the contributor told `clinreg new dataset`, flags and prompts alike."""

    id: str
    name: str | None = None
    repo: str | None = None
    source: str | None = None
    config: str | None = None
    url: str | None = None
    access: str | None = None
    tasks: list[str] = field(default_factory=list)
    release: str | None = None
    card: HubCard | None = None
    features_file: str | None = None


def _todo(what: str) -> str:
    return f"TODO: {what}"


def render_dataset(a: Answers, today: dt.date | None = None) -> tuple[str, Guess | None]:
    """The skeleton record as YAML text with a comment on every field, and the guess it used (if any)."""
    today = today or dt.date.today()
    g = guess_mapping(a.card) if a.card is not None and a.card.columns else None
    card = a.card
    out: list[str] = [
        SCHEMA_HEADER,
        "#",
        f"# Skeleton written by `clinreg new dataset` on {today.isoformat()}. Replace every value that says TODO:",
        "# `clinreg validate` lists them as CLR106 warnings, and CONTRIBUTING.md explains each field. Quote",
        '# strings that YAML would read as something else, such as "yes", "no", "on", "012" or "1:30" (CLR005).',
        "",
        "# snake_case id: the file name without .yaml. For a MedHELM benchmark, use its HELM run-group name.",
        f"id: {a.id}",
        "# The display name, as the dataset's authors write it.",
        f"name: {yaml_scalar(a.name or _todo('display name'))}",
        "# Semantic version of this record. Bump it whenever the record's content changes (CLR603).",
        "version: 1.0.0",
        "# The registry release that first includes this record: the open release of registry/releases.yaml. A",
        "# published release never changes (CLR604); `clinreg new release X.Y.Z --title ...` opens one.",
        f"added_in: {a.release or '1.0.0'}",
        "# true only when MedHELM's published evaluation runs this benchmark; a benchmark added beyond it is false.",
        "in_medhelm: false",
        "# Two or three sentences on what the data is and what the benchmark asks.",
        "description: " + yaml_scalar(_todo("what the data is and what the benchmark asks, in two or three sentences")),
        "# The benchmark card (CONTRIBUTING.md, step 3): what a score measures, who should use it, what it cannot "
        "show.", "measures: " + yaml_scalar(_todo("what a score on this benchmark measures, in one sentence")),
        "use_when: " + yaml_scalar(_todo("who should use it and when")),
        "not_for: " + yaml_scalar(_todo("what it should not be used for or read as")),
        "# Each fact is {value: ..., source: where you read it}, or unknown with the reason no source says. Never "
        "guess.",
        "languages:", "  value: unknown", "  reason: " + yaml_scalar(_todo("BCP 47 tags such as [en], with a source")),
        "first_released:", "  value: unknown",
        "  reason: " + yaml_scalar(_todo("the year of the publication that introduced it")),
        "status:", "  value: unknown", "  reason: " + yaml_scalar(_todo("active or retired, with a source")),
        "maintainer:", "  value: unknown", "  reason: " + yaml_scalar(_todo("who publishes the data, with a source")),
        "# Who runs the models whose scores are reported, and whether submissions are accepted; or not assessed.",
        "independence:", "  value: not assessed",
        "  reason: " + yaml_scalar(_todo("a sourced fact, or why it was not assessed")),
        "# Optional: related records, each with a reason: [{id: other_dataset, reason: ...}]",
        "# compare_with: []",
        "# Optional: the id of the data collection when several records share one (e.g. mtsamples).",
        "# collection: ...",
        "access:",
        "  # public: anyone can download it. gated: after registration or a data use agreement. private: not "
        "distributed.",
    ]
    tier = a.access or "public"
    out.append(f"  tier: {tier}")
    if a.access is None:
        out += ["  # How to get access; required for gated and private data.",
                "  instructions: " + yaml_scalar(_todo("confirm the tier; for gated or private data, say how to get "
                                                       "access"))]
    elif tier in RESTRICTED_TIERS:
        out += ["  # How to get access: credentialing, a data use agreement, or who holds the data.",
                "  instructions: " + yaml_scalar(_todo("how to get access"))]
    spdx = spdx_from_hub(card.licence) if card else None
    out += [
        "licence:",
        "  # An SPDX id (MIT, CC-BY-4.0, ...), or unknown / other with a note saying why.",
        f"  spdx: {yaml_scalar(spdx or 'TODO')}",
        "  # Where you read the licence: the hub card, a LICENSE file, the paper.",
        "  note: " + yaml_scalar(f"Hub card `license: {card.licence}`; TODO: check the repository's LICENSE file."
                                 if spdx
                                 else f"Hub card `license: {card.licence}`; TODO: which of them applies, and its SPDX "
                                      "id."
                                 if card is not None and card.licence else _todo("where the licence was read")),
        "citation:",
        "  # Authors (year). Title. Venue. Add doi (without https://doi.org/), arxiv (quoted) or url where known.",
        "  text: " + yaml_scalar(_todo("authors (year). Title. Venue.")),
        '  # doi: 10.xxxx/xxxxx',
        '  # arxiv: "2505.23802"',
    ]
    config, splits, config_note = _config_and_splits(card, a.config)
    all_splits = splits
    if "test" in splits and len(splits) > 1:  # benchmarks are usually built from the test split
        splits = ["test"]
    out += _source_lines(a, config, splits, all_splits, config_note)
    out += [
            "mappings:",
            "  # One entry per benchmark built from this dataset.",
            f"  - id: {a.id}",
            "    # Task ids this benchmark measures (`clinreg coverage --by task --format markdown` lists them).",
            f"    tasks: {yaml_flow_list(a.tasks)}",
            "    # The source splits the benchmark is built from.",
            f"    splits: {yaml_flow_list(splits)}"]
    if g is not None:
        out += [f"    # GUESSED from {a.features_file or 'the hub features'}; check every guess below:"]
        out += [f"    #   - {CONTROL.sub('?', r)}" for r in g.reasons]
    out += ["    # The model input: a Jinja template over the row's columns. Write row[\"Column Name\"] for names",
            "    # with spaces or dots, and use {% for %} / join for lists."]
    out += _block_scalar("    input_template", (g.input_template if g and g.input_template else
                                                  _todo("the model input, e.g. {{ question }}")))
    label = g.label if g else {"encoding": "free_text", "column": "TODO"}
    choices = g.choices if g else None
    if choices:
        out += ["    # Where the answer options come from: columns, struct, items (+ text_key, id_key) or fixed."]
        out += ["    choices:"] + [f"      {k}: {_label_value(k, v)}" for k, v in choices.items()]
    else:
        out += ["    # For closed tasks: where the answer options come from (columns, struct, items or fixed).",
                "    # choices: {columns: [opa, opb, opc, opd]}"]
    out += ["    # How the gold answer is encoded: letter, index, option_id, string_set, coded, boolean, free_text or",
            "    # number. CONTRIBUTING.md shows a real example of each."]
    out += ["    label:"] + [f"      {k}: {_label_value(k, v)}" for k, v in label.items()]
    out += ["    # Every source field the benchmark reads.",
            f"    fields_read: {yaml_flow_list(g.fields_read if g else [])}",
            "    metric:",
            "      # HELM's metric name: exact_match for closed answers; e.g. jury_score or a reference metric for "
            "text.", f"      name: {yaml_scalar((g.metric if g else None) or _todo('the main metric'))}"]
    if label.get("encoding") == "free_text":
        out += ["      range: [1, 5]",
                "    # How a free-text answer is scored: jury (an LLM jury, MedHELM's three judges unless `judges` "
                "names",
                "    # others), sql_execution, code_set_f1 or error_flag. `clinreg explain CLR509` shows each.",
                "    scoring:",
                "      method: jury",
                "      jury:",
                "        rubric: "
                f"{yaml_scalar(_todo('what the model wrote and what the reference is, in your words'))}",
                "        axes:",
                f"          - {{id: accuracy, question: {yaml_scalar(_todo('what accuracy means here'))}}}",
                f"          - {{id: completeness, question: {yaml_scalar(_todo('what completeness means here'))}}}",
                f"          - {{id: clarity, question: {yaml_scalar(_todo('what clarity means here'))}}}"]
    out += ["    instances:",
            "      # Rows in the source split(s), and how many instances MedHELM evaluated (null when not evaluated).",
            f"      source: {yaml_scalar(_rows(card, splits))}",
            "      evaluated: null",
            "    # Optional: references (extra reference columns), metadata_columns, variants (several instances",
            "    # per row), filter (rows excluded, in words) and note.",
            "# Caveats, disputed facts and open questions.",
            "notes: []",
            ""]
    return "\n".join(out), g


SOURCES = ("huggingface", "github", "url", "physionet", "local")


def _read_lines(splits: list[str], example: str, known: dict[str, list[str]] | None = None) -> list[str]:
    """The read step; a split whose files the hub card's `configs` name reads those (as the card writes them)."""
    known = known or {}

    def files(split: str) -> str:
        paths = known.get(split)
        if not paths:
            return yaml_scalar(_todo(_files_hint(split)))
        return yaml_scalar(paths[0]) if len(paths) == 1 else yaml_flow_list(paths)

    return ["  # How the files become rows, split by split: the file(s) of each split, as they lie in the copy",
            f"  # (a glob such as {example} is fine). Formats are told by extension; joins, filters and the other",
            "  # steps are in CONTRIBUTING ('The read step')."
            + (" The files below are the card's `data_files`." if any(s in known for s in splits) else ""),
            "  read:",
            "    splits:",
            *[f"      {yaml_scalar(split)}: {{files: {files(split)}}}" for split in splits]]


def _source_lines(a: "Answers", config: str | None, splits: list[str], all_splits: list[str],
                  config_note: str) -> list[str]:
    """The `source:` block of the chosen source type, with the fields its model takes (schemas/dataset.schema.json)."""
    kind = a.source or "huggingface"
    out = ["source:",
           "  # Where the data comes from: huggingface, github, url, physionet or local (schemas/dataset.schema.json).",
           f"  type: {kind}"]
    if kind == "huggingface":
        out += ["  # The hub repository, owner/name.",
                # The placeholder must pass the repo-id pattern, so that the skeleton's only findings are TODO warnings.
                f"  repo: {yaml_scalar(a.repo or 'TODO-owner/TODO-name')}",
                f"  # The config (subset) name, or null for the default config.{config_note}",
                f"  config: {yaml_scalar(config)}",
                "  # The splits this record reads." + (f" The card has {shown(', '.join(all_splits))}."
                                                       if splits != all_splits else ""),
                f"  splits: {yaml_flow_list(splits)}",
                "  # The pinned commit, 40 lowercase hex characters (the repository's history on the hub). A branch "
                "name",
                "  # or null draws CLR701; if it cannot be pinned, set revision: null and say why in revision_note.",
                "  revision: " + yaml_scalar(_todo("the 40-hex commit")),
                *_read_lines(splits, "data/test-*.parquet", _card_files(a.card, config))]
    elif kind == "github":
        out += ["  # The GitHub repository, owner/name.",
                f"  repo: {yaml_scalar(a.repo or 'TODO-owner/TODO-name')}",
                "  # The pinned commit, 40 lowercase hex characters (`git rev-parse HEAD` in a clone). A branch name "
                "or", "  # null draws CLR701; if it cannot be pinned, set commit: null and say why in revision_note.",
                "  commit: " + yaml_scalar(_todo("the 40-hex commit")),
                "  # Every repository file a copy must hold, relative to the repository root (globs allowed). Each "
                "file",
                "  # the read step below reads must be listed here (CLR715); list also files read elsewhere (a "
                "database).", f"  paths: [{yaml_scalar(_todo('the files read, e.g. data/test.csv'))}]",
                *_read_lines(splits, "data/*.csv")]
    elif kind == "url":
        out += ["  # An https URL of the download.",
                f"  url: {yaml_scalar(a.url or _todo('the https URL of the download'))}",
                "  # What is at the URL (an archive? which files?) and how it was checked (size, checksum, date).",
                "  note: " + yaml_scalar(_todo("what the download holds")),
                *_read_lines(splits, "data/*.jsonl")]
    elif kind == "physionet":
        out += ["  # The PhysioNet project or parent database, e.g. MIMIC-IV, and its page.",
                f"  project: {yaml_scalar(_todo('the PhysioNet project'))}",
                f"  url: {yaml_scalar(a.url) if a.url else 'null'}",
                "  # The files read, as they lie in the project's file listing.",
                f"  files: [{yaml_scalar(_todo('the files read'))}]",
                *_read_lines(splits, "files/*.csv.gz")]
    else:
        out += ["  # What the files are and who holds them; they are passed to build with --data-dir.",
                "  description: " + yaml_scalar(_todo("what the files are and who holds them")),
                "  # The file names expected in the data folder.",
                f"  files: [{yaml_scalar(_todo('the file names'))}]",
                *_read_lines(splits, "*.csv")]
    return out


def _card_files(card: HubCard | None, config: str | None) -> dict[str, list[str]]:
    if card is None or (config or "").startswith("TODO"):
        return {}
    return card.files.get(config or "default", {})  # config null is the card's `default` config


def _files_hint(split: str) -> str:
    if split == "TODO":
        return "the split's file(s), e.g. data/test-*.parquet"
    return f"the {split} file(s), e.g. data/{split}-*.parquet"


def _quoted(v: Any) -> str:
    return yaml_scalar(v) if not isinstance(v, str) or v.startswith("TODO") else json.dumps(v, ensure_ascii=False)


def _label_value(key: str, v: Any) -> str:
    """Label values and fixed options are always quoted strings, so `yes` or `0` never becomes a bool or a number."""
    if key in ("map", "fixed") and isinstance(v, dict):
        return "{" + ", ".join(f"{_quoted(k)}: {yaml_scalar(x)}" for k, x in v.items()) + "}"
    if key in ("map", "fixed", "unlabeled") and isinstance(v, list):
        return "[" + ", ".join(_quoted(x) for x in v) + "]"
    if key == "positive" and isinstance(v, str):
        return _quoted(v)
    return _value(v)


def _value(v: Any) -> str:
    if isinstance(v, list):
        return yaml_flow_list(v)
    if isinstance(v, dict):
        return yaml_flow_map(v)
    return yaml_scalar(v)


def _block_scalar(key: str, text: str) -> list[str]:
    # A block holds LF line breaks only; CR, NEL, U+2028 and U+2029 are line breaks to YAML as well, and would end
    # the block early: text with any of them is written quoted, with each escaped.
    if "\n" not in text or any(c in text for c in "\r\x85\u2028\u2029"):
        return [f"{key}: {yaml_scalar(text)}"]
    indent = " " * (len(key) - len(key.lstrip()) + 2)
    return [f"{key}: |-"] + [indent + line if line else "" for line in text.split("\n")]


def _rows(card: HubCard | None, splits: list[str]) -> int | None:
    if card is None or not splits or any(s not in card.split_rows for s in splits):
        return None
    return sum(card.split_rows[s] for s in splits)


def _config_and_splits(card: HubCard | None, chosen: str | None = None) -> tuple[str | None, list[str], str]:
    if chosen is not None:
        splits = (card.configs.get(chosen) if card is not None else None) or ["TODO"]
        return (None if chosen == "default" else chosen), splits, ""
    if card is None or not card.configs:
        return None, ["TODO"], ""
    if len(card.configs) == 1:
        name, splits = next(iter(card.configs.items()))
        return (None if name == "default" else name), (splits or ["TODO"]), ""
    names = ", ".join(card.configs)
    return _todo(f"one of {names}"), ["TODO"], f" The card has several: {shown(names)}."  # a comment: one line
