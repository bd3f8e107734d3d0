"""Guess a mapping from a dataset's columns: the input, the label scheme, the choices and the template."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from clinreg.contrib.features import Column, HubCard
from clinreg.core.model import LETTERS


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


_INPUT_NAMES = ("question", "query", "context", "passage", "abstract", "knowledge", "patient_note", "note",
                "clinical_note",
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
                "None", "row", "loop", "range", "dict", "lipsum", "cycler", "joiner", "namespace", "self", "varargs",
                "kwargs"}


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
        if (c.kind == "struct" and 2 <= len(c.fields) <= len(LETTERS)
            and all(f.kind in ("string", "other") for f in c.fields)):
            return ({"struct": c.name}, len(c.fields), [c.name], None,
                    f"`{c.name}` is a struct of {len(c.fields)} options ({', '.join(f.name for f in c.fields)})")
        if c.kind == "list" and c.item_kind == "struct":
            keys = {_norm(f.name): f.name for f in c.fields}
            text_key = next((keys[k] for k in ("atext", "text", "option_text", "value", "answer", "content")
                             if k in keys), None)
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


# Answer columns that hold reference text even beside options (PubMedQA's long_answer, a summary).
_TEXT_ANSWERS = ("long_answer", "summary", "response", "reference", "completion", "output", "tgt", "target",
                 "explanation", "rationale", "solution")


def _option_letters(columns: list[Column], choices: dict | None, n_options: int | None) -> list[str]:
    """The gold letters: a struct's own keys where they run A, B, C, ...; else one letter per option found."""
    count = max(n_options or 4, 2)
    struct = next((c for c in columns if choices and c.name == choices.get("struct")), None)
    letters = [f.name for f in struct.fields] if struct else list(LETTERS[:count])
    return letters if letters == list(LETTERS[: len(letters)]) else list(LETTERS[:count])


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
    yes = 1  # the index of the positive class, for a two-valued index label (see below)
    if label_col is None:
        g.label = {"encoding": "free_text", "column": "TODO"}
        g.reasons.append("label: no column looks like the gold answer; free_text is a placeholder")
        g.reasons = [r for r in g.reasons if not r.startswith("choices:")]  # a free-text placeholder takes no options
        choices = None
        choice_cols = []
    else:
        key, kind = _norm(label_col.name), label_col.kind
        if lower is not None and upper is not None and kind in ("string", "float", "int", "other"):
            g.label = {"encoding": "number", "column": label_col.name, "lower_column": lower.name,
                       "upper_column": upper.name}
            range_cols = [lower.name, upper.name]
            g.reasons.append(f"label: `{label_col.name}` with the accepted range in `{lower.name}` .. `{upper.name}` "
                             "(number)")
            choices, choice_cols = None, []
            g.metric = "TODO"
        elif key in ("ra", "right_answer") and choices and "items" in choices and id_key:
            g.label = {"encoding": "option_id", "column": label_col.name, "max_options": 5}
            g.reasons.append(f"label: `{label_col.name}` names the `{id_key}` of the right option (option_id); check "
                             "max_options")
        elif key == "answer_idx" or (kind == "string" and key in ("correct_option", "correct_answer") and choices):
            g.label = {"encoding": "letter", "column": label_col.name,
                       "letters": _option_letters(columns, choices, n_options)}
            g.reasons.append(f"label: `{label_col.name}` holds the gold letter (letter)")
        elif kind == "class_label" and len(label_col.names) <= len(LETTERS):
            names = label_col.names + [f"TODO name of class {i}" for i in range(len(label_col.names), 2)]
            count = len(names)
            g.label = {"encoding": "index", "column": label_col.name, "base": 0, "count": count}
            g.reasons.append(f"label: `{label_col.name}` is a ClassLabel {label_col.names} stored as 0..{count - 1} "
                             "(index)")
            if not choices:
                choices, n_options = {"fixed": names}, count
                g.reasons.append("choices: the ClassLabel names, as fixed options")
            yes = next((i for i, n in enumerate(label_col.names) if _norm(n) in ("yes", "true", "1", "positive")), 1)
        elif kind == "int":
            count = max(n_options or 4, 2)
            g.label = {"encoding": "index", "column": label_col.name, "base": 0, "count": count}
            g.reasons.append(f"label: `{label_col.name}` is an integer, read as a 0-based option index; "
                             "check `base` (0 or 1) and add `unlabeled: -1` if unlabeled rows use -1")
        elif kind == "bool":
            g.label = {"encoding": "boolean", "column": label_col.name, "map": {"true": "A", "false": "B"},
                       "positive": "true"}
            g.reasons.append(f"label: `{label_col.name}` is a boolean")
            choices, choice_cols = None, []
        elif key in ("final_decision", "decision"):
            g.label = {"encoding": "string_set", "column": label_col.name, "map": {"yes": "A", "no": "B", "maybe": "C"}}
            choices, choice_cols = {"fixed": ["yes", "no", "maybe"]}, []
            g.reasons.append(f"label: `{label_col.name}` looks like yes/no/maybe (string_set); check the values the "
                             "column holds")
        elif key in ("label", "labels", "gold_label", "class") and not choices:
            g.label = {"encoding": "coded", "column": label_col.name,
                       "map": {"TODO first value": "A", "TODO second value": "B"}, "positive": "TODO second value"}
            g.reasons.append(f"label: `{label_col.name}` holds class values; list each value and its letter (coded)")
        elif choices and kind in ("string", "other") and key not in _TEXT_ANSWERS:
            # Beside options, a short string column is the gold letter: a multiple-choice scheme, scored by exact match.
            g.label = {"encoding": "letter", "column": label_col.name,
                       "letters": _option_letters(columns, choices, n_options)}
            g.reasons.append(f"label: `{label_col.name}` beside the options holds the gold letter "
                             f"({', '.join(g.label['letters'])}); check that it is a letter, not the option text")
        else:
            g.label = {"encoding": "free_text", "column": label_col.name}
            g.reasons.append(f"label: `{label_col.name}` is reference text (free_text)")
            # a free-text answer takes no options: drop the guess rather than list it beside a contradiction
            if choices:
                g.reasons = [r for r in g.reasons if not r.startswith("choices:")]
            choices, choice_cols = None, []
    if g.label.get("encoding") not in ("free_text", "number") and choices is None:
        count = (g.label.get("count") or len(g.label.get("letters", [])) or len(set(g.label.get("map", {}).values()))
                 or 4)
        choices = {"columns": [f"TODO column of option {LETTERS[i]}" for i in range(count)]}
        g.reasons.append("choices: no option columns found; name one column per option")
    if g.label.get("encoding") == "index":
        if choices and "columns" in choices:
            g.label["count"] = len(choices["columns"])
        # Settled once the count is final (it follows the option columns): a two-valued scheme names its
        # positive letter (CLR503), the class named yes/true/positive where there is one, else B.
        if g.label["count"] == 2:
            g.label["positive"] = LETTERS[yes] if yes < 2 else "B"
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
