"""One mapping applied to one Arrow batch of rows: label status, then the instances of the rows that pass."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np
import pyarrow as pa

from clinreg import __version__
from clinreg.core.model import LETTERS, Dataset, Mapping, NumberScheme, OptionIdScheme, Variant
from clinreg.instances.choices import batch_choices, fixed_is_templated
from clinreg.core.builderrors import BadLabel, ColumnMissing, RecordProblem, TemplateFailure
from clinreg.templating.columns import find_column, python_values, text_column
from clinreg.instances.schema import INSTANCE_SCHEMA
from clinreg.instances.labels import OK, BatchLabels, allowed_values, is_closed, normalise
from clinreg.templating.sandbox import ROW_VARIABLE, InputTemplate


@dataclass
class InstanceBatch:
    """Instances of one batch, column by column; `rows()` gives them as Instance-shaped dicts.

    `provenance` is one dict for the whole batch (record, release, source read, clinreg version, canary).
    """

    dataset: str
    mapping: str
    tasks: list[str]
    split: str
    variant: list[str | None] = field(default_factory=list)
    source_index: list[int] = field(default_factory=list)
    prompt: list[str] = field(default_factory=list)
    input: list[str] = field(default_factory=list)
    choices: list[list[str]] = field(default_factory=list)
    gold: list[dict[str, Any]] = field(default_factory=list)
    references: list[list[str]] = field(default_factory=list)
    context: list[dict[str, Any]] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    # Every context value is text, a boolean, null or an integer of at most 32 bits unsigned / 64 bits signed,
    # which orjson writes exactly as json.dumps does (canonical.py then writes the context with the rest).
    plain_context: bool = False
    # Every context lists its keys in sorted order (and holds no mapping): orjson need not sort them.
    context_keys_sorted: bool = False

    def __len__(self) -> int:
        return len(self.source_index)

    def rows(self) -> Iterator[dict[str, Any]]:
        stem = f"{self.dataset}/{self.mapping}/{self.split}/"
        for variant, index, prompt, text, choices, gold, refs, context in zip(
            self.variant, self.source_index, self.prompt, self.input, self.choices, self.gold, self.references,
            self.context,
        ):
            yield {
                "id": f"{stem}{index}" if variant is None else f"{stem}{index}/{variant}",
                "dataset": self.dataset,
                "mapping": self.mapping,
                "tasks": self.tasks,
                "split": self.split,
                "variant": variant,
                "prompt": prompt,
                "input": text,
                "choices": choices,
                "answer": gold["letter"],
                "gold": gold,
                "references": refs,
                "context": context,
                "provenance": self.provenance,
                "source_index": index,
            }


def record_provenance(record: Dataset) -> dict[str, Any]:
    """What the record alone says about where its instances come from; builds fill in the rest."""
    source = record.source
    return {
        "instance_schema": INSTANCE_SCHEMA,
        "record": record.id,
        "record_version": record.version,
        "registry_release": None,
        "clinreg_version": __version__,
        "canary": None,
        "source": {
            "kind": source.type,
            "repo": getattr(source, "repo", None),
            "revision": getattr(source, "revision", None) or getattr(source, "commit", None),
            "content_sha256": None,
        },
    }


_OPTION_MARKS = frozenset(".):")
_LETTER_INDEX = {letter: i for i, letter in enumerate(LETTERS)}
# Per option count, what finds a line that may list an option: a line whose head (the line itself, or after a
# leading space or tab, the line with its whitespace stripped) is a letter of the first `count` and `.`, `)` or `:`.
# Most prompts (a question alone, with the options in their own column) hold none. Two patterns, the first line's
# and the others' (after a newline): a search that starts with a literal newline skips ahead to each one, where a
# MULTILINE `^` tries every position (six times slower on MedQA's questions).
_OPTION_LINES: dict[int, tuple[re.Pattern, re.Pattern]] = {}


def _may_list_options(prompt: str, count: int) -> bool:
    found = _OPTION_LINES.get(count)
    if found is None:
        head = rf"(?:[ \t]\s*)?[{re.escape(LETTERS[:count])}][.):]"
        found = _OPTION_LINES[count] = (re.compile(head), re.compile("\n" + head))
    # The search after a newline runs only where there is one: most questions are a single line, and `in` finds a
    # newline faster than the pattern's own scan for its first character.
    return found[0].match(prompt) is not None or ("\n" in prompt and found[1].search(prompt) is not None)


def question_stem(prompt: str, options: list[str]) -> str:
    """The prompt without the lines that list the options (`A. text`), so a harness can list them itself.

    A line is an option line when, whitespace folded, it reads `<letter><. or ) or :> <that option's text>`.
    Only lines shaped like that are folded and compared: this runs once per closed instance.
    """
    if not options:
        return prompt
    limit = min(len(options), len(LETTERS))
    if not _may_list_options(prompt, limit):
        return prompt  # no line may list an option: the slow path below would keep every line
    # Fast path: the template lists every option as `A. text` on a line of its own, the usual spelling. A needle
    # is longer than the newline it becomes, so a replace that finds nothing leaves the length as it was.
    wrapped = f"\n{prompt}\n"
    for i in range(limit):
        needle = f"\n{LETTERS[i]}. {options[i]}\n"
        shorter = wrapped.replace(needle, "\n")
        if len(shorter) == len(wrapped):
            break
        while len(shorter) != len(wrapped):  # `\nA. x\nA. x\n`: the second copy shares the first's newline
            wrapped, shorter = shorter, shorter.replace(needle, "\n")
    else:
        return wrapped[1:-1]
    lines = prompt.split("\n")
    kept = []
    for line in lines:
        head = line if line[:1] not in (" ", "\t") else line.lstrip()
        if len(head) >= 2 and head[1] in _OPTION_MARKS and 0 <= (i := ord(head[0]) - 65) < limit:
            option = options[i]
            if line == f"{head[:2]} {option}":  # the usual case: the template wrote `A. {{ opa }}` as is
                continue
            text = " ".join(str(option).split())
            if " ".join(line.split()) == (f"{head[:2]} {text}" if text else head[:2]):
                continue
        kept.append(line)
    return prompt if len(kept) == len(lines) else "\n".join(kept)


def letter_instruction(count: int) -> str:
    """The one answer instruction of a closed prompt, naming the letters it may answer with."""
    letters = list(LETTERS[:count])
    listed = letters[0] if count == 1 else f"{', '.join(letters[:-1])} or {letters[-1]}"
    return f"Answer with the letter of the correct option ({listed})."


def choice_prompt(stem: str, options: list[str]) -> str:
    """The plain prompt of a closed instance: the question, a blank line, the lettered options, the instruction.

    lm-eval reads it as it is (then `Answer:`); Inspect and HELM list the options themselves from `input` and
    `choices`, with their own instruction, so the record's question never carries one (CLR508). Filled in one call
    from a format string made once per option count.
    """
    fill = _PROMPT_FILLS.get(len(options)) or _prompt_fill(len(options))
    return fill(stem, *options)


def _prompt_fill(count: int) -> Callable[..., str]:
    # Past 26 options, the first 26 are lettered and listed: `format` ignores the arguments left.
    instruction = letter_instruction(count).replace("{", "{{").replace("}", "}}")
    lines = "\n".join(f"{letter}. {{}}" for letter in LETTERS[:count])
    fill = _PROMPT_FILLS[count] = f"{{}}\n\n{lines}\n\n{instruction}".format
    return fill


_PROMPT_FILLS: dict[int, Callable[..., str]] = {}


def _plain(column: Any) -> bool:
    """A column whose Python values orjson writes as json.dumps does (see InstanceBatch.plain_context)."""
    kind = None if column is None else column.type
    return kind is not None and (
        kind in (pa.string(), pa.large_string(), pa.bool_(), pa.null())
        or pa.types.is_signed_integer(kind) or kind in (pa.uint8(), pa.uint16(), pa.uint32())
    )


def _bound(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return repr(float(value)) if isinstance(value, float) else str(value)


FIELDS = ("prompt", "input", "choices", "gold", "references", "context")


class MappingBuild:
    """A mapping compiled once (template, choices, label scheme) and applied batch by batch."""

    def __init__(self, record: Dataset, mapping: Mapping) -> None:
        self.record, self.mapping = record, mapping
        self.where = f"{record.id}/{mapping.id}"
        self.scheme = mapping.label
        self.closed = is_closed(self.scheme)
        self.template = InputTemplate(mapping.input_template, self.where)
        spec = mapping.choices
        self.fixed_templates = (
            [InputTemplate(text, f"{self.where} choices") for text in spec.fixed] if fixed_is_templated(spec) else []
        )
        self.variants: list[Variant | None] = list(mapping.variants) or [None]
        self.provenance = record_provenance(record)
        self._last_labels: dict[str | None, tuple[pa.Table, tuple[BatchLabels, Any]]] = {}

    # ------------------------------------------------------------------ labels

    def labels(self, table: pa.Table, variant: Variant | None) -> tuple[BatchLabels, Any]:
        """The batch's labels and choices for a variant. `status` and then `instances` ask for the same batch
        (when every row passed): the last answer per variant is kept, with the table it is for."""
        key = None if variant is None else variant.id
        last = self._last_labels.get(key)
        if last is not None and last[0] is table:
            return last[1]
        found = self._labels(table, variant)
        self._last_labels[key] = (table, found)
        return found

    def _labels(self, table: pa.Table, variant: Variant | None) -> tuple[BatchLabels, Any]:
        choices = batch_choices(self.mapping.choices, self.scheme, table, self.where) if self.closed else None
        labels = normalise(
            self.scheme,
            self._label_table(table, variant),
            self.where,
            # No `choices` (a record CLR505 refuses): the options, if any, are in the input; nothing to check.
            choice_counts=None if choices is None or self.mapping.choices is None else choices.counts(),
            option_ids=None if choices is None else choices.ids,
            variant_label=None if variant is None else variant.label,
        )
        return labels, choices

    def _label_table(self, table: pa.Table, variant: Variant | None) -> pa.Table:
        """The batch as the label scheme sees it: a variant may name the column the scheme reads (DischargeMe)."""
        column = getattr(self.scheme, "column", None)
        if variant is None or variant.label is not None or column not in variant.columns:
            return table
        source = variant.columns[column]
        if source not in table.column_names:
            return table  # the scheme reports the missing column by its own name
        values = table.column(source)
        if column in table.column_names:
            table = table.drop_columns([column])
        return table.append_column(column, values)

    def status(self, table: pa.Table) -> tuple[np.ndarray, pa.Array]:
        """Per-row status over all variants (the worst wins), and the source values for messages."""
        status = np.zeros(table.num_rows, dtype=np.int8)
        values = None
        for variant in self.variants:
            labels, _ = self.labels(table, variant)
            status = np.maximum(status, labels.status)
            values = labels.values if values is None else values
        return status, values

    def bad_label_message(self, split: str, indices: np.ndarray, values: pa.Array) -> str:
        """`split 'test', rows 80, 81: column 'Error Flag' is empty; expected one of 0, 1`."""
        found = values.to_pylist()
        rows = ", ".join(str(i) for i in indices[:10]) + (f" and {len(indices) - 10} more" if len(indices) > 10 else "")
        noun = "row" if len(indices) == 1 else "rows"
        column = "the variant label" if self.mapping.variants else f"column {self.scheme.column!r}"
        if all(v is None for v in found):
            what = f"{column} is empty"
        else:
            shown = sorted({"empty" if v is None else repr(v) for v in found})
            what = f"{column} holds {', '.join(shown[:5])}{' ...' if len(shown) > 5 else ''}"
        allowed = allowed_values(self.scheme)
        if isinstance(self.scheme, OptionIdScheme):
            expected = f"expected the id of one of the row's options (at most {self.scheme.max_options})"
        elif allowed:
            expected = f"expected one of {', '.join(allowed)}"
            if any(v in allowed for v in found):
                expected += " that names an option the row has"
        else:
            expected = "expected a non-empty text"
        if any(str(v).strip() == "-1" for v in found) and getattr(self.scheme, "unlabeled", None) in (None, []):
            expected += "; if -1 marks rows without a gold answer, declare it with `unlabeled:` in the label scheme"
        return f"split {split!r}, {noun} {rows}: {what}; {expected}"

    def bad_label(self, split: str, indices: np.ndarray, values: pa.Array) -> BadLabel:
        return BadLabel(
            f"{self.where}: {self.bad_label_message(split, indices, values)} "
            f"(rows count from 0; --on-bad-label skip skips and counts such rows)",
            record=self.record.id, split=split, row=int(indices[0]) if len(indices) else None,
        )

    # ------------------------------------------------------------------ instances

    def instances(self, table: pa.Table, split: str, indices: np.ndarray) -> InstanceBatch:
        """Instances of rows that all passed `status`: one per row, or one per variant per row."""
        out = InstanceBatch(self.record.id, self.mapping.id, list(self.mapping.tasks), split,
                            provenance=self.provenance)
        n = table.num_rows
        if n == 0:
            return out
        columns = self._template_columns(table)
        metadata = self._context(table)
        out.plain_context = all(_plain(find_column(table, name)) for name in self.mapping.metadata_columns)
        out.context_keys_sorted = True  # _context's keys are the sorted names of flat columns
        references = self._extra_references(table)
        per_variant = []
        for variant in self.variants:
            labels, choices = self.labels(table, variant)
            if not (labels.status == OK).all():
                raise RecordProblem(f"{self.where}: split {split!r}: rows changed status between passes")
            # A plain template without variants renders straight from the columns (no context per row).
            inputs = self.template.render_columns(*columns, n) if variant is None and not self.fixed_templates else None
            contexts = self._contexts(table, columns, variant) if inputs is None else []
            per_variant.append(self._variant_columns(table, split, indices, contexts, variant, labels, choices,
                                                     metadata, references, inputs))
        if len(per_variant) == 1:
            only = per_variant[0]
            out.variant = [only["variant"]] * n
            out.source_index = np.asarray(indices, dtype=np.int64).tolist()
            for name in FIELDS:
                setattr(out, name, only[name])
            return out
        # Several variants: each row's instances stay together, variants in record order.
        out.variant = [columns["variant"] for _ in range(n) for columns in per_variant]
        out.source_index = [int(i) for i in indices for _ in per_variant]
        for name in FIELDS:
            setattr(out, name, [columns[name][i] for i in range(n) for columns in per_variant])
        return out

    def _variant_columns(self, table, split, indices, contexts, variant, labels, choices, metadata, references,
                         rendered=None) -> dict:
        n = table.num_rows
        inputs, fixed = [], []
        if rendered is not None:
            inputs = rendered
        elif not self.fixed_templates:
            render = self.template.render_with_globals
            try:
                inputs = [render(context) for context in contexts]  # the hot loop of every build
            except TemplateFailure:
                for i, context in enumerate(contexts):  # again, row by row, to name the row that fails
                    self._render(self.template, context, split, indices[i])
                raise
        for i, context in enumerate(contexts if self.fixed_templates else ()):
            inputs.append(self._render(self.template, context, split, indices[i]))
            fixed.append([self._render(t, context, split, indices[i]) for t in self.fixed_templates])
        if not self.closed:
            option_lists: list[list[str]] = [[] for _ in range(n)]
        else:
            option_lists = fixed if self.fixed_templates else choices.texts.to_pylist()
        if self.closed:
            letters = labels.letters.to_pylist()
            position = _LETTER_INDEX
            golds = [{"index": (index := position[letter]), "kind": "choice", "letter": letter, "lower": None,
                      "upper": None, "value": options[index] if index < len(options) else None}
                     for letter, options in zip(letters, option_lists)]
            stems = [question_stem(prompt, options).strip()
                     for prompt, options in zip(inputs, option_lists)]
            inputs = list(map(choice_prompt, stems, option_lists))
        else:
            texts = labels.gold_text.to_pylist()
            if isinstance(self.scheme, NumberScheme):
                bounds = zip(labels.lower.to_pylist(), labels.upper.to_pylist())
                golds = [{"index": None, "kind": "number", "letter": None, "lower": _bound(lo), "upper": _bound(hi),
                          "value": text} for text, (lo, hi) in zip(texts, bounds)]
            else:
                golds = [{"index": None, "kind": "text", "letter": None, "lower": None, "upper": None, "value": text}
                         for text in texts]
            stems = inputs
            if self.mapping.instruction:
                inputs = [f"{stem.rstrip()}\n\n{self.mapping.instruction.strip()}" for stem in stems]
        return {
            "variant": None if variant is None else variant.id,
            "prompt": inputs,
            "input": stems,
            "choices": option_lists,
            "gold": golds,
            "references": references,
            "context": metadata,
        }

    def _render(self, template: InputTemplate, context: dict[str, Any], split: str, index: int) -> str:
        try:
            return template.render_with_globals(context)
        except TemplateFailure as err:
            raise TemplateFailure(f"{template.where}: split {split!r}, row {index}: input_template failed: "
                                  f"{err}") from None

    def _template_columns(self, table: pa.Table) -> tuple[list[str], list[list[Any]]]:
        """The columns the templates read, as Python values (all columns when a template uses `row`)."""
        templates = [self.template, *self.fixed_templates]
        names = table.column_names
        if not any(t.uses_row for t in templates):
            wanted = set().union(*(t.variables for t in templates))
            names = [name for name in names if name in wanted]
        return names, [python_values(find_column(table, name)) for name in names]

    def _contexts(self, table: pa.Table, columns: tuple[list[str], list[list[Any]]],
                  variant: Variant | None) -> list[dict]:
        """One template context per row: sandbox globals, the row's columns, `row`, the variant's id and names."""
        names, values = columns
        base = self.template.globals
        if any(t.uses_row for t in (self.template, *self.fixed_templates)):
            contexts = []
            for row_values in zip(*values):
                row = dict(zip(names, row_values))
                contexts.append({**base, **row, ROW_VARIABLE: row})
        elif names:
            contexts = []
            for row_values in zip(*values):
                context = base.copy()
                context.update(zip(names, row_values))
                contexts.append(context)
        else:
            contexts = [base.copy() for _ in range(table.num_rows)]
        if variant is not None:
            for context in contexts:
                context["variant"] = variant.id  # so one template can word each variant's request
            for name, column in variant.columns.items():
                for context, value in zip(contexts, self._values(table, column, "variant column")):
                    context[name] = value
        return contexts

    def _values(self, table: pa.Table, name: str, what: str) -> list[Any]:
        column = find_column(table, name)
        if column is None:
            raise ColumnMissing(f"{self.where}: {what} {name!r} is not in the data "
                                f"(columns: {', '.join(table.column_names)})")
        return python_values(column)

    def _context(self, table: pa.Table) -> list[dict[str, Any]]:
        names = sorted(self.mapping.metadata_columns)  # the canonical order: the writer need not sort each row
        columns = [self._values(table, name, "metadata column") for name in names]
        if not names:
            return [{} for _ in range(table.num_rows)]
        # A dict display per row is about three times as fast as dict(zip(...)), the same keys in the same order.
        if len(names) == 1:
            a, = names
            return [{a: x} for x in columns[0]]
        if len(names) == 2:
            a, b = names
            return [{a: x, b: y} for x, y in zip(*columns)]
        if len(names) == 3:
            a, b, c = names
            return [{a: x, b: y, c: z} for x, y, z in zip(*columns)]
        return [dict(zip(names, values)) for values in zip(*columns)]

    def _extra_references(self, table: pa.Table) -> list[list[str]]:
        refs: list[list[str]] | None = None  # each row's own list: the first column's, the others added to it
        for name in self.mapping.references:
            column = find_column(table, name)
            if column is None:
                raise ColumnMissing(f"{self.where}: references column {name!r} is not in the data")
            if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
                values = [[str(x) for x in v if x is not None] if v else [] for v in python_values(column)]
            else:
                text = text_column(column, self.where, f"references column {name!r}")
                values = [[] if v is None else [v] for v in text.to_pylist()]
            if refs is None:
                refs = values
                continue
            for ref, value in zip(refs, values):
                ref.extend(value)
        return refs if refs is not None else [[] for _ in range(table.num_rows)]

