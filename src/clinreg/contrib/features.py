"""Read a hub features description (JSON, YAML or a dataset card's front matter) into columns and card facts."""

from __future__ import annotations

import errno
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from clinreg.errors import ClinregError
from clinreg.text.safeio import read_regular_file


class FeaturesError(ClinregError, ValueError):
    """The --from-hub-features file cannot be read as a description of columns."""

    default_code = "CLR985"


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
    # config name -> split name -> the card's `data_files` paths (globs as written), for the read step
    files: dict[str, dict[str, list[str]]] = field(default_factory=dict)


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
        files=first.files or second.files,
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
        names = [v for _, v in sorted(names.items(), key=lambda kv: int(kv[0]) if str(kv[0]).lstrip("-").isdigit()
                                      else 0)]
    if not isinstance(names, list):
        raise FeaturesError("a class_label has no `names`")
    return [" ".join(CONTROL.sub(" ", str(v)).split()) or f"TODO name of class {i}" for i, v in enumerate(names)]


def _column_name(name: Any) -> str:
    text = str(name)
    if not text.strip() or CONTROL.search(text):
        raise FeaturesError(f"column name {text!r} is empty or holds control characters"[:200])
    return text


CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


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
            raise FeaturesError(f"column {name!r}: a class_label needs its names, e.g. {{class_label: {{names: [a, "
                                f"b]}}}}")
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
    try:
        raw = read_regular_file(path, 1024 * 1024)  # a FIFO or /dev/zero is refused before it is read
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise FeaturesError(f"{path} is larger than 1 MiB; give just the features") from None
        raise FeaturesError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FeaturesError(f"{path} is not UTF-8 text") from None
    try:
        data = _front_matter(text) if path.suffix.lower() == ".md" else yaml.safe_load(text)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "invalid"
        raise FeaturesError(f"{path} is neither JSON nor YAML: {first}") from None
    return card_from_data(data)


def card_from_data(data: Any) -> HubCard:
    licence = None
    configs: dict[str, list[str]] = {}
    files: dict[str, dict[str, list[str]]] = {}
    if isinstance(data, dict):
        if isinstance(data.get("license"), str):
            licence = data["license"]
        elif isinstance(data.get("license"), list):  # a card may list several: `license: [cc-by-4.0]`
            names = [str(x) for x in data["license"] if isinstance(x, (str, int, float)) and str(x).strip()]
            licence = ", ".join(names) or None
        cfgs = data.get("configs")
        for cfg in cfgs if isinstance(cfgs, list) else []:
            if isinstance(cfg, dict) and "config_name" in cfg:
                entries = cfg.get("data_files")
                entries = ([f for f in entries if isinstance(f, dict) and "split" in f] if isinstance(entries, list)
                           else [])
                configs[str(cfg["config_name"])] = [str(f["split"]) for f in entries]
                paths = {str(f["split"]): _paths(f.get("path")) for f in entries}
                files[str(cfg["config_name"])] = {k: v for k, v in paths.items() if v}
        split_rows = _split_rows(data)
        features = _find_features(data)
        if features is None:  # a README whose card declares no features: keep its licence and configs
            return HubCard([], licence, configs, split_rows, files)
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
    return HubCard(columns, licence, configs, split_rows if isinstance(data, dict) else {}, files)


def _paths(value: Any) -> list[str]:
    """A data_files entry's `path`: one path or a list, kept only where it is a plain relative file name."""
    items = value if isinstance(value, list) else [value]
    out = [str(v) for v in items if isinstance(v, str) and v.strip() and not CONTROL.search(v)]
    return [] if any(p.startswith("/") or ".." in p.split("/") or "://" in p for p in out) else out


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
