"""Write the skeleton of a new dataset record, pre-filled from a hub features description where one is given."""

from __future__ import annotations

import datetime as dt
import errno
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clinreg.model import LETTERS

HUB_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
SCHEMA_HEADER = "# yaml-language-server: $schema=../../schemas/dataset.schema.json"


class FeaturesError(ValueError):
    """The --from-hub-features file cannot be read as a description of columns."""


# --------------------------------------------------------------------------------------------- YAML text


def yaml_scalar(value: Any) -> str:
    """One scalar as YAML text: plain where YAML reads it back as the same string, else double-quoted."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value)
    return text if _plain_ok(text) else _NOT_PRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


# Characters YAML does not allow raw in a file, or reads as line breaks inside a quoted scalar: escape them.
_NOT_PRINTABLE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _plain_ok(text: str) -> bool:
    if not text or text != text.strip() or any(c in text for c in "\n\r\t,[]{}#:?\"'\\"):
        return False
    if text[0] in "-?&*!|>%@`":
        return False
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    # YAML 1.1 reads yes/no/on/off, 012 and dates as non-strings (CLR005): those are quoted.
    return isinstance(loaded, str) and loaded == text


def yaml_flow_list(values: list[Any]) -> str:
    return "[" + ", ".join(yaml_scalar(v) for v in values) + "]"


def yaml_flow_map(mapping: dict[str, Any]) -> str:
    return "{" + ", ".join(f"{yaml_scalar(k)}: {yaml_scalar(v)}" for k, v in mapping.items()) + "}"


# --------------------------------------------------------------------------------------------- features


@dataclass
class Column:
    """One column of a hub dataset, as far as its declared features tell."""

    name: str
    kind: str  # string | int | float | bool | class_label | struct | list | other
    names: list[str] = field(default_factory=list)  # class_label names, in index order
    fields: list["Column"] = field(default_factory=list)  # struct fields, or the fields of a list's struct items
    item_kind: str | None = None  # for lists: the kind of each item


@dataclass
class HubCard:
    """What a features file says: its columns, and (from a README's front matter) licence, configs and splits."""

    columns: list[Column]
    licence: str | None = None
    configs: dict[str, list[str]] = field(default_factory=dict)  # config name -> split names
    split_rows: dict[str, int] = field(default_factory=dict)  # split name -> rows, from dataset_info.splits


def merge_cards(first: HubCard | None, second: HubCard) -> HubCard:
    """Two features files read together: a hub card gives licence, configs and split sizes, a column
    description gives the columns; a later file's column replaces an earlier one of the same name."""
    if first is None:
        return second
    columns = {c.name: c for c in first.columns}
    columns.update({c.name: c for c in second.columns})
    return HubCard(
        columns=list(columns.values()),
        licence=first.licence or second.licence,
        configs=first.configs or second.configs,
        split_rows=first.split_rows or second.split_rows,
    )


def _dtype_kind(dtype: str) -> str:
    d = str(dtype).lower()
    if d in ("string", "large_string", "str", "text", "utf8"):
        return "string"
    if re.match(r"^u?int\d*$", d) or d == "integer":
        return "int"
    if re.match(r"^(float|double|decimal)\d*$", d) or d == "number":
        return "float"
    if d in ("bool", "boolean"):
        return "bool"
    return "other"


def _class_names(spec: Any) -> list[str]:
    names = spec.get("names") if isinstance(spec, dict) else spec
    if isinstance(names, dict):  # hub cards write {'0': a, '1': b}
        names = [v for _, v in sorted(names.items(), key=lambda kv: int(kv[0]) if str(kv[0]).lstrip("-").isdigit() else 0)]
    if not isinstance(names, list):
        raise FeaturesError("a class_label has no `names`")
    return [" ".join(_CONTROL.sub(" ", str(v)).split()) or f"TODO name of class {i}" for i, v in enumerate(names)]


def _column_name(name: Any) -> str:
    text = str(name)
    if not text.strip() or _CONTROL.search(text):
        raise FeaturesError(f"column name {text!r} is empty or holds control characters"[:200])
    return text


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _card_feature(entry: Any) -> Column:
    """One entry of a hub card's `features:` list: {name, dtype | struct | sequence | list}."""
    if not isinstance(entry, dict) or "name" not in entry:
        raise FeaturesError(f"a feature entry must be a mapping with a `name`, not {entry!r}"[:200])
    name = _column_name(entry["name"])
    if "dtype" in entry:
        dtype = entry["dtype"]
        if isinstance(dtype, dict) and "class_label" in dtype:
            return Column(name, "class_label", names=_class_names(dtype["class_label"]))
        if isinstance(dtype, dict):
            raise FeaturesError(f"feature {name!r}: unsupported dtype {dtype!r}"[:200])
        return Column(name, _dtype_kind(dtype))
    if "class_label" in entry:
        return Column(name, "class_label", names=_class_names(entry["class_label"]))
    if "struct" in entry:
        return Column(name, "struct", fields=[_card_feature(f) for f in _as_list(entry["struct"], name)])
    for key in ("sequence", "list", "large_list"):
        if key in entry:
            inner = entry[key]
            if isinstance(inner, list):
                return Column(name, "list", fields=[_card_feature(f) for f in inner], item_kind="struct")
            if isinstance(inner, dict):
                item = _card_feature({"name": name, **inner})
                return Column(name, "list", fields=item.fields, item_kind=item.kind)
            return Column(name, "list", item_kind=_dtype_kind(inner))
    raise FeaturesError(f"feature {name!r} has none of dtype, struct, sequence or list")


def _as_list(value: Any, name: str) -> list:
    if not isinstance(value, list):
        raise FeaturesError(f"feature {name!r}: expected a list of fields")
    return value


def _mapped_feature(name: str, spec: Any) -> Column:
    """A value of a simple {column: type} mapping, or of a `datasets` Features.to_dict() mapping."""
    if isinstance(spec, str):
        if spec.lower() in ("class_label", "classlabel"):
            raise FeaturesError(f"column {name!r}: a class_label needs its names, e.g. {{class_label: {{names: [a, b]}}}}")
        return Column(name, _dtype_kind(spec))
    if isinstance(spec, list):
        if len(spec) == 1:
            item = _mapped_feature(name, spec[0])
            return Column(name, "list", fields=item.fields, item_kind=item.kind)
        raise FeaturesError(f"column {name!r}: a list type holds exactly one item type, e.g. [string]")
    if isinstance(spec, dict):
        kind = spec.get("_type")
        if kind == "Value":
            return Column(name, _dtype_kind(spec.get("dtype", "")))
        if kind == "ClassLabel":
            return Column(name, "class_label", names=_class_names(spec))
        if kind in ("Sequence", "List", "LargeList"):
            item = _mapped_feature(name, spec.get("feature"))
            if item.kind == "struct" and kind == "Sequence":  # datasets turns Sequence({...}) into a struct of lists
                return Column(name, "struct", fields=[Column(f.name, "list", item_kind=f.kind) for f in item.fields])
            return Column(name, "list", fields=item.fields, item_kind=item.kind)
        if kind is not None:
            return Column(name, "other")
        if "class_label" in spec:
            return Column(name, "class_label", names=_class_names(spec["class_label"]))
        if "dtype" in spec and not isinstance(spec["dtype"], dict):
            return Column(name, _dtype_kind(spec["dtype"]))
        return Column(name, "struct", fields=[_mapped_feature(_column_name(k), v) for k, v in spec.items()])
    raise FeaturesError(f"column {name!r}: cannot read type {spec!r}"[:200])


def _front_matter(text: str) -> Any:
    if not text.startswith("---"):
        raise FeaturesError("the Markdown file has no YAML front matter (--- ... ---)")
    end = text.find("\n---", 3)
    if end < 0:
        raise FeaturesError("the Markdown file's front matter is not closed by ---")
    return yaml.safe_load(text[3:end])


def read_features(path: Path) -> HubCard:
    """Read a JSON or YAML features file (or a hub README.md with front matter). Raises FeaturesError."""
    from clinreg.safeio import read_regular_file

    try:
        raw = read_regular_file(path, 1024 * 1024)  # a FIFO or /dev/zero is refused before it is read
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise FeaturesError(f"{path} is larger than 1 MiB; give just the features")
        raise FeaturesError(f"cannot read {path}: {exc.strerror or exc}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FeaturesError(f"{path} is not UTF-8 text")
    try:
        data = _front_matter(text) if path.suffix.lower() == ".md" else yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid"
        raise FeaturesError(f"{path} is neither JSON nor YAML: {first}")
    return card_from_data(data)


def card_from_data(data: Any) -> HubCard:
    licence = None
    configs: dict[str, list[str]] = {}
    if isinstance(data, dict):
        if isinstance(data.get("license"), str):
            licence = data["license"]
        cfgs = data.get("configs")
        for cfg in cfgs if isinstance(cfgs, list) else []:
            if isinstance(cfg, dict) and "config_name" in cfg:
                files = cfg.get("data_files")
                splits = [str(f["split"]) for f in files if isinstance(f, dict) and "split" in f] if isinstance(files, list) else []
                configs[str(cfg["config_name"])] = splits
        split_rows = _split_rows(data)
        features = _find_features(data)
        if features is None:  # a README whose card declares no features: keep its licence and configs
            return HubCard([], licence, configs, split_rows)
    else:
        features = data
    if isinstance(features, list):
        columns = [_card_feature(f) for f in features]
    elif isinstance(features, dict):
        columns = [_mapped_feature(_column_name(k), v) for k, v in features.items()]
    else:
        raise FeaturesError("expected a list of {name, dtype} features or a mapping of column: type")
    if not columns:
        raise FeaturesError("the file describes no columns")
    return HubCard(columns, licence, configs, split_rows if isinstance(data, dict) else {})


def _split_rows(data: dict) -> dict[str, int]:
    info = data.get("dataset_info")
    if isinstance(info, list):
        info = info[0] if len(info) == 1 else None
    splits = info.get("splits") if isinstance(info, dict) else None
    if not isinstance(splits, list):
        return {}
    return {str(s["name"]): s["num_examples"] for s in splits
            if isinstance(s, dict) and "name" in s and isinstance(s.get("num_examples"), int)}


def _find_features(data: dict) -> Any | None:
    """`features` may sit at the top, under `info` (parquet metadata) or `dataset_info` (a hub card)."""
    for key in ("dataset_info", "info"):
        inner = data.get(key)
        if isinstance(inner, list):  # several configs on one card: take the first that declares features
            inner = next((c for c in inner if isinstance(c, dict) and "features" in c), None)
        if isinstance(inner, dict) and "features" in inner:
            return inner["features"]
    if "features" in data:
        return data["features"]
    if "configs" in data or "license" in data:
        return None
    return data  # a plain {column: type} mapping


# --------------------------------------------------------------------------------------------- guesses


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


_INPUT_NAMES = ("question", "query", "context", "passage", "abstract", "knowledge", "patient_note", "note", "clinical_note",
                "text", "src", "input", "prompt", "instruction", "dialogue", "conversation", "document", "article",
                "report", "findings", "history", "sentence", "premise", "hypothesis")
_OUTPUT_NAMES = ("answer", "output", "target", "tgt", "summary", "response", "reference", "completion", "long_answer",
                 "ground_truth", "ground_truth_answer", "gold", "impression", "solution")
# Columns that are never model input: identifiers, bookkeeping, and explanations of the answer.
_ID_LIKE = re.compile(r"(^|_)(id|idx|index|pubid|uid|key|split|source|file|row_number|meta_info|year|exp|explanation|"
                      r"rationale|choice_type|subject_name|topic_name)$")


@dataclass
class Guess:
    """A pre-filled mapping and the reasons behind each guess, to show as comments in the record."""

    input_template: str | None = None
    choices: dict[str, Any] | None = None
    label: dict[str, Any] | None = None
    fields_read: list[str] = field(default_factory=list)
    metric: str | None = None
    reasons: list[str] = field(default_factory=list)


_JINJA_WORDS = {"and", "or", "not", "in", "is", "if", "else", "elif", "for", "true", "false", "none", "True", "False",
                "None", "row", "loop", "range", "dict", "lipsum", "cycler", "joiner", "namespace", "self", "varargs", "kwargs"}


def _var(name: str) -> str:
    """The template expression for a column: its name when that is a plain identifier, else row["..."]."""
    if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) and name not in _JINJA_WORDS:
        return name
    return f"row[{json.dumps(name, ensure_ascii=False)}]"


def _find_choices(columns: list[Column]) -> tuple[dict | None, int | None, list[str], str | None, str]:
    """(choices, option count, columns read, id key, why), or Nones when no options are found."""
    by = {_norm(c.name): c for c in columns}
    for key in ("options", "choices", "option", "answers", "candidates", "answer_choices"):
        c = by.get(key)
        if c is None:
            continue
        if c.kind == "struct" and 2 <= len(c.fields) <= len(LETTERS) and all(f.kind in ("string", "other") for f in c.fields):
            return ({"struct": c.name}, len(c.fields), [c.name], None,
                    f"`{c.name}` is a struct of {len(c.fields)} options ({', '.join(f.name for f in c.fields)})")
        if c.kind == "list" and c.item_kind == "struct":
            keys = {_norm(f.name): f.name for f in c.fields}
            text_key = next((keys[k] for k in ("atext", "text", "option_text", "value", "answer", "content") if k in keys), None)
            id_key = next((keys[k] for k in ("aid", "id", "option_id", "key", "label", "letter") if k in keys), None)
            if text_key:
                spec = {"items": c.name, "text_key": text_key}
                if id_key:
                    spec["id_key"] = id_key
                return spec, None, [c.name], id_key, f"`{c.name}` is a list of options with text `{text_key}`"
        if c.kind == "list" and c.item_kind in ("string", "other"):
            return {"items": c.name}, None, [c.name], None, f"`{c.name}` is a list of option texts"
    groups: dict[str, list[tuple[str, Column]]] = {}
    for c in columns:
        m = re.match(r"^(op|option_?|choice_?|ending_?|answer_?|opt_?)([a-z]|\d)$", _norm(c.name))
        if m and c.kind in ("string", "other"):
            groups.setdefault(m.group(1).rstrip("_"), []).append((m.group(2), c))
    letters = [c for c in columns if re.fullmatch(r"[A-Ha-h]", c.name) and c.kind == "string"]
    if len(letters) >= 2:
        groups["letters"] = [(c.name.lower(), c) for c in letters]
    best = max(groups.values(), key=len, default=[])
    if len(best) >= 2:
        names = [c.name for _, c in sorted(best, key=lambda sc: sc[0])][: len(LETTERS)]
        return {"columns": names}, len(names), names, None, f"options are the columns {', '.join(names)}"
    return None, None, [], None, ""


def _label_column(columns: list[Column], taken: set[str]) -> Column | None:
    order = ("answer_idx", "cop", "label", "labels", "gold_label", "gold", "correct_answer", "correct_option",
             "answer_index", "final_decision", "decision", "ra", "right_answer", "ground_truth_answer", "ground_truth",
             "answer", "target", "output", "tgt", "long_answer", "summary", "response", "reference", "class")
    by = {_norm(c.name): c for c in columns if c.name not in taken}
    for key in order:
        if key in by:
            return by[key]
    classes = [c for c in columns if c.kind == "class_label" and c.name not in taken]
    return classes[0] if len(classes) == 1 else None


def guess_mapping(card: HubCard) -> Guess:
    """Guess a mapping's input template, choices and label scheme from the columns. Every guess needs checking."""
    columns = card.columns
    g = Guess()
    choices, n_options, choice_cols, id_key, why = _find_choices(columns)
    if choices:
        g.reasons.append(f"choices: {why}")
    by = {_norm(c.name): c for c in columns}
    lower = next((c for k, c in by.items() if re.search(r"(^|_)(lower|min)(_|$)", k)), None)
    upper = next((c for k, c in by.items() if re.search(r"(^|_)(upper|max)(_|$)", k)), None)
    label_col = _label_column(columns, set(choice_cols) | {c.name for c in (lower, upper) if c})
    range_cols: list[str] = []
    if label_col is None:
        g.label = {"encoding": "free_text", "column": "TODO"}
        g.reasons.append("label: no column looks like the gold answer; free_text is a placeholder")
        choices = None
        choice_cols = []
    else:
        key, kind = _norm(label_col.name), label_col.kind
        if lower is not None and upper is not None and kind in ("string", "float", "int", "other"):
            g.label = {"encoding": "number", "column": label_col.name, "lower_column": lower.name, "upper_column": upper.name}
            range_cols = [lower.name, upper.name]
            g.reasons.append(f"label: `{label_col.name}` with the accepted range in `{lower.name}` .. `{upper.name}` (number)")
            choices, choice_cols = None, []
            g.metric = "TODO"
        elif key in ("ra", "right_answer") and choices and "items" in choices and id_key:
            g.label = {"encoding": "option_id", "column": label_col.name, "max_options": 5}
            g.reasons.append(f"label: `{label_col.name}` names the `{id_key}` of the right option (option_id); check max_options")
        elif key == "answer_idx" or (kind == "string" and key in ("correct_option", "correct_answer") and choices):
            count = max(n_options or 4, 2)
            struct = next((c for c in columns if choices and c.name == choices.get("struct")), None)
            letters = [f.name for f in struct.fields] if struct else list(LETTERS[:count])
            if letters != list(LETTERS[: len(letters)]):
                letters = list(LETTERS[:count])
            g.label = {"encoding": "letter", "column": label_col.name, "letters": letters}
            g.reasons.append(f"label: `{label_col.name}` holds the gold letter (letter)")
        elif kind == "class_label" and len(label_col.names) <= len(LETTERS):
            names = label_col.names + [f"TODO name of class {i}" for i in range(len(label_col.names), 2)]
            count = len(names)
            g.label = {"encoding": "index", "column": label_col.name, "base": 0, "count": count}
            g.reasons.append(f"label: `{label_col.name}` is a ClassLabel {label_col.names} stored as 0..{count - 1} (index)")
            if not choices:
                choices, n_options = {"fixed": names}, count
                g.reasons.append("choices: the ClassLabel names, as fixed options")
            if count == 2:
                yes = next((i for i, n in enumerate(label_col.names) if _norm(n) in ("yes", "true", "1", "positive")), 1)
                g.label["positive"] = LETTERS[yes]
        elif kind == "int":
            count = max(n_options or 4, 2)
            g.label = {"encoding": "index", "column": label_col.name, "base": 0, "count": count}
            g.reasons.append(f"label: `{label_col.name}` is an integer, read as a 0-based option index; "
                             "check `base` (0 or 1) and add `unlabeled: -1` if unlabeled rows use -1")
            if count == 2:
                g.label["positive"] = "B"
        elif kind == "bool":
            g.label = {"encoding": "boolean", "column": label_col.name, "map": {"true": "A", "false": "B"}, "positive": "true"}
            g.reasons.append(f"label: `{label_col.name}` is a boolean")
            choices, choice_cols = None, []
        elif key in ("final_decision", "decision"):
            g.label = {"encoding": "string_set", "column": label_col.name, "map": {"yes": "A", "no": "B", "maybe": "C"}}
            choices, choice_cols = {"fixed": ["yes", "no", "maybe"]}, []
            g.reasons.append(f"label: `{label_col.name}` looks like yes/no/maybe (string_set); check the values the column holds")
        elif key in ("label", "labels", "gold_label", "class") and not choices:
            g.label = {"encoding": "coded", "column": label_col.name,
                       "map": {"TODO first value": "A", "TODO second value": "B"}, "positive": "TODO second value"}
            g.reasons.append(f"label: `{label_col.name}` holds class values; list each value and its letter (coded)")
        elif choices and key in ("answer", "correct_answer", "gold"):
            g.label = {"encoding": "letter", "column": label_col.name, "letters": list(LETTERS[: max(n_options or 4, 2)])}
            g.reasons.append(f"label: `{label_col.name}` next to options; check that it holds a letter, not the option text")
        else:
            g.label = {"encoding": "free_text", "column": label_col.name}
            g.reasons.append(f"label: `{label_col.name}` is reference text (free_text)")
            choices, choice_cols = None, []
    if g.label.get("encoding") not in ("free_text", "number") and choices is None:
        count = g.label.get("count") or len(g.label.get("letters", [])) or len(set(g.label.get("map", {}).values())) or 4
        choices = {"columns": [f"TODO column of option {LETTERS[i]}" for i in range(count)]}
        g.reasons.append("choices: no option columns found; name one column per option")
    if choices and "columns" in choices and g.label.get("encoding") == "index":
        g.label["count"] = len(choices["columns"])
    g.choices = choices
    if g.metric is None:
        g.metric = "exact_match" if g.label.get("encoding") not in ("free_text", "number") else "TODO"
    used = set(choice_cols) | set(range_cols) | ({label_col.name} if label_col else set())
    g.input_template, inputs = _template(columns, used)
    if inputs:
        g.reasons.append(f"input_template: reads {', '.join(inputs)}")
    g.fields_read = inputs + [c for c in choice_cols if c not in inputs]
    if label_col is not None:
        g.fields_read.append(label_col.name)
    g.fields_read += range_cols
    return g


def _template(columns: list[Column], used: set[str]) -> tuple[str | None, list[str]]:
    candidates = [c for c in columns if c.name not in used and not _ID_LIKE.search(_norm(c.name))]
    known = [c for c in candidates if any(_norm(c.name) == n or _norm(c.name).endswith("_" + n) for n in _INPUT_NAMES)]
    chosen = known or [c for c in candidates if c.kind == "string"][:3]
    chosen = [c for c in chosen if c.kind in ("string", "list", "struct", "other")]
    if not chosen:
        return None, []
    if len(chosen) == 1:
        return "{{ " + _var(chosen[0].name) + " }}", [chosen[0].name]
    lines = []
    for c in chosen:
        title = c.name.replace("_", " ").strip().capitalize()
        value = _var(c.name)
        if c.kind == "list" and c.item_kind in ("string", "other"):
            lines.append(f"{title}: {{{{ {value} | join(' ') }}}}")
        else:
            lines.append(f"{title}: {{{{ {value} }}}}")
    return "\n".join(lines), [c.name for c in chosen]


# --------------------------------------------------------------------------------------------- the record

_HF_LICENCES = {"mit": "MIT", "apache-2.0": "Apache-2.0", "cc0-1.0": "CC0-1.0", "bsd-3-clause": "BSD-3-Clause",
                "gpl-3.0": "GPL-3.0-only", "openrail": "other", "unknown": "unknown", "other": "other"}


def spdx_from_hub(licence: str | None) -> str | None:
    """The SPDX id of a hub card's `license:` value, where it is a plain one (cc-by-4.0 -> CC-BY-4.0)."""
    if not licence:
        return None
    key = licence.strip().lower()
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
    hf_repo: str | None = None
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
        "# The registry release that first includes this record (see registry/releases.yaml).",
        f"added_in: {a.release or '1.0.0'}",
        "# Two or three sentences on what the data is and what the benchmark asks.",
        "description: " + yaml_scalar(_todo("what the data is and what the benchmark asks, in two or three sentences")),
        "# Optional: the id of the data collection when several records share one (e.g. mtsamples).",
        "# collection: ...",
        "access:",
        "  # public: anyone can download it. gated: after registration or a data use agreement. private: not distributed.",
    ]
    tier = a.access or "public"
    out.append(f"  tier: {tier}")
    if a.access is None:
        out += ["  # How to get access; required for gated and private data.",
                "  instructions: " + yaml_scalar(_todo("confirm the tier; for gated or private data, say how to get access"))]
    elif tier in ("gated", "private"):
        out += ["  # How to get access: credentialing, a data use agreement, or who holds the data.",
                "  instructions: " + yaml_scalar(_todo("how to get access"))]
    spdx = spdx_from_hub(card.licence) if card else None
    out += [
        "licence:",
        "  # An SPDX id (MIT, CC-BY-4.0, ...), or unknown / other with a note saying why.",
        f"  spdx: {yaml_scalar(spdx or 'TODO')}",
        "  # Where you read the licence: the hub card, a LICENSE file, the paper.",
        "  note: " + yaml_scalar(f"Hub card `license: {card.licence}`; TODO: check the repository's LICENSE file."
                                 if spdx else _todo("where the licence was read")),
        "citation:",
        "  # Authors (year). Title. Venue. Add doi (without https://doi.org/), arxiv (quoted) or url where known.",
        "  text: " + yaml_scalar(_todo("authors (year). Title. Venue.")),
        '  # doi: 10.xxxx/xxxxx',
        '  # arxiv: "2505.23802"',
        "source:",
        "  # Where the data comes from: huggingface, github, url, physionet or local (schemas/dataset.schema.json).",
        "  type: huggingface",
        "  # The hub repository, owner/name.",
        # The placeholder must pass the repo-id pattern, so that the skeleton's only findings are TODO warnings.
        f"  repo: {yaml_scalar(a.hf_repo or 'TODO-owner/TODO-name')}",
    ]
    config, splits, config_note = _config_and_splits(card)
    all_splits = splits
    if "test" in splits and len(splits) > 1:  # benchmarks are usually built from the test split
        splits = ["test"]
    out += [f"  # The config (subset) name, or null for the default config.{config_note}",
            f"  config: {yaml_scalar(config)}",
            "  # The splits this record reads." + (f" The card has {', '.join(all_splits)}." if splits != all_splits else ""),
            f"  splits: {yaml_flow_list(splits)}",
            "  # The pinned commit, 40 lowercase hex characters (the repository's history on the hub). A branch name",
            "  # or null draws CLR701; if it cannot be pinned, set revision: null and say why in revision_note.",
            "  revision: " + yaml_scalar(_todo("the 40-hex commit")),
            "  # How the repository's files become rows, split by split: the file(s) of each split, as they lie in",
            "  # the repository (a glob such as data/test-*.parquet is fine). Formats are told by extension; joins,",
            "  # filters and the other steps are in CONTRIBUTING ('The read step').",
            "  read:",
            "    splits:",
            *[f"      {yaml_scalar(split)}: {{files: {yaml_scalar(_todo(_files_hint(split)))}}}" for split in splits],
            "mappings:",
            "  # One entry per benchmark built from this dataset.",
            f"  - id: {a.id}",
            "    # Task ids this benchmark measures (`clinreg coverage --by task --format markdown` lists them).",
            f"    tasks: {yaml_flow_list(a.tasks)}",
            "    # The source splits the benchmark is built from.",
            f"    splits: {yaml_flow_list(splits)}"]
    if g is not None:
        out += [f"    # GUESSED from {a.features_file or 'the hub features'}; check every guess below:"]
        out += [f"    #   - {_CONTROL.sub('?', r)}" for r in g.reasons]
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
            "      # HELM's metric name: exact_match for closed answers; e.g. jury_score or a reference metric for text.",
            f"      name: {yaml_scalar((g.metric if g else None) or _todo('the main metric'))}",
            "    instances:",
            "      # Rows in the source split(s), and how many instances MedHELM evaluated (null when not evaluated).",
            f"      source: {yaml_scalar(_rows(card, splits))}",
            "      evaluated: null",
            "    # Optional: references (extra reference columns), metadata_columns, variants (several instances",
            "    # per row), filter (rows excluded, in words) and note.",
            "# Caveats, disputed facts and open questions.",
            "notes: []",
            ""]
    return "\n".join(out), g


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
    if "\n" not in text:
        return [f"{key}: {yaml_scalar(text)}"]
    indent = " " * (len(key) - len(key.lstrip()) + 2)
    return [f"{key}: |-"] + [indent + line if line else "" for line in text.split("\n")]


def _rows(card: HubCard | None, splits: list[str]) -> int | None:
    if card is None or not splits or any(s not in card.split_rows for s in splits):
        return None
    return sum(card.split_rows[s] for s in splits)


def _config_and_splits(card: HubCard | None) -> tuple[str | None, list[str], str]:
    if card is None or not card.configs:
        return None, ["TODO"], ""
    if len(card.configs) == 1:
        name, splits = next(iter(card.configs.items()))
        return (None if name == "default" else name), (splits or ["TODO"]), ""
    names = ", ".join(card.configs)
    return _todo(f"one of {names}"), ["TODO"], f" The card has several: {names}."
