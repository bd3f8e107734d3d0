"""Turn pydantic validation errors into located diagnostics with rule codes and did-you-mean hints."""

from __future__ import annotations

import re

import types
import typing
from typing import Any, Iterable, Union

from pydantic import BaseModel, ValidationError

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.core.model import ID_PATTERN
from clinreg.core.yamlsrc import YamlDoc, is_yaml11_trap
from clinreg.text.suggest import closest

_TYPE_ERRORS = {
    "string_type", "int_type", "int_parsing", "float_type", "float_parsing", "bool_type", "bool_parsing",
    "list_type", "dict_type", "model_type", "model_attributes_type", "date_type", "date_parsing",
    "date_from_datetime_inexact", "int_from_float", "none_required", "tuple_type", "set_type",
}
_ENUM_ERRORS = {"literal_error", "enum", "union_tag_invalid"}



# Keys that one source type spells differently from another: the right key, not the nearest spelling
# (a GitHub `revision:` is its `commit:`, never `revision_note`).
_SAME_THING = {
    ("GitHubSource", "revision"): "commit",
    ("GitHubSource", "files"): "paths",
    ("HubSource", "commit"): "revision",
    ("PhysioNetSource", "paths"): "files",
    ("LocalSource", "paths"): "files",
    ("JoinStep", "on"): "keys",
}

def _data_path(data: Any, loc: tuple) -> tuple[tuple, bool]:
    """Follow a pydantic `loc` through the data, skipping union tags; returns the path and whether it names a key."""
    path: list = []
    node = data
    for i, part in enumerate(loc):
        if part == "[key]":
            return tuple(path), True
        if isinstance(node, dict) and part not in node and isinstance(part, str):
            # pydantic writes a None (or other odd) key into `loc` as its str(): find the real key
            part = next((k for k in node if not isinstance(k, str) and str(k) == part), part)
        if isinstance(node, dict) and part in node:
            path.append(part)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path.append(part)
            node = node[part]
        elif isinstance(node, dict) and i == len(loc) - 1:
            path.append(part)  # a missing or extra key: located at its parent or at the key itself
        # else: a discriminator tag or a function-validator name; it has no place in the data
    return tuple(path), False


def _unwrap(tp: Any) -> list[Any]:
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(tp)[0])
    if origin in (Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(tp):
            out.extend(_unwrap(arg))
        return out
    return [tp]


def _model_at(model: type[BaseModel], data: Any, path: tuple) -> type[BaseModel] | None:
    """The model class that describes the mapping at `path`, following the data to pick union members."""
    current: Any = model
    node = data
    for part in path:
        candidates = _unwrap(current)
        nxt = None
        for cand in candidates:
            if isinstance(cand, type) and issubclass(cand, BaseModel) and isinstance(node, dict):
                if _matches(cand, node):
                    field = _field_by_key(cand, part)
                    if field is not None:
                        nxt = field.annotation
                        break
            origin = typing.get_origin(cand)
            if origin in (list, dict):
                args = typing.get_args(cand)
                if args:
                    nxt = args[-1]
                    break
        if nxt is None:
            return None
        current = nxt
        node = node[part] if isinstance(node, (dict, list)) and _has(node, part) else None
    for cand in _unwrap(current):
        if (isinstance(cand, type) and issubclass(cand, BaseModel)
            and (not isinstance(node, dict) or _matches(cand, node))):
            return cand
    return None


def _has(node: Any, part: Any) -> bool:
    if isinstance(node, dict):
        return part in node
    return isinstance(part, int) and 0 <= part < len(node)


def _matches(cand: type[BaseModel], node: dict) -> bool:
    """For discriminated unions: does this member's literal tag agree with the data?"""
    for name in ("type", "encoding"):
        field = cand.model_fields.get(name)
        if field is not None and typing.get_origin(field.annotation) is typing.Literal:
            return node.get(name) in typing.get_args(field.annotation)
    return True


def _field_by_key(cand: type[BaseModel], key: Any):
    for name, field in cand.model_fields.items():
        if (field.alias or name) == key:
            return field
    return None


def _keys_of(cand: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in cand.model_fields.items()]


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"integer {value}"
    if isinstance(value, float):
        return f"number {value}"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def schema_diagnostics(exc: ValidationError, doc: YamlDoc, rel: str, model: type[BaseModel]) -> Iterable[Diagnostic]:
    seen: set[tuple] = set()
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        etype = err["type"]
        path, is_key = _data_path(doc.data, loc)
        if etype == "invalid_key":  # a top-level key that is not a string: a key type error, located at the key
            etype, is_key = "string_type", True
        if etype == "union_tag_invalid":  # point at the tag's own value, e.g. `encoding: string_sets`
            path = path + (str(err.get("ctx", {}).get("discriminator", "type")).strip("'"),)
        if (path, etype) in seen:
            continue
        seen.add((path, etype))
        field_name = ".".join(str(p) for p in path) or "(top level)"
        if etype == "extra_forbidden":
            line, col = doc.where_key(path)
            parent = _model_at(model, doc.data, path[:-1])
            hint = None
            if parent is not None:
                options = _keys_of(parent)
                close = _SAME_THING.get((getattr(parent, "__name__", ""), str(path[-1]))) or closest(path[-1], options)
                hint = f"did you mean `{close}`?" if close else "allowed keys: " + ", ".join(options)
            parent_name = ".".join(map(str, path[:-1])) or "the file"
            yield make("CLR101", rel, line, col, f"unknown key `{path[-1]}` in {parent_name}", hint, key_path=path)
        elif etype in ("missing", "union_tag_not_found"):
            key = path[-1] if etype == "missing" else err.get("ctx", {}).get("discriminator", "type").strip("'")
            parent = path[:-1] if etype == "missing" else path
            line, col = doc.where(parent)
            where = ".".join(map(str, parent)) or "the file"
            yield make("CLR103", rel, line, col, f"missing required field `{key}` in {where}",
                       "see the schema in schemas/ for what the field holds", key_path=parent + (key,))
        elif etype in _ENUM_ERRORS:
            line, col = doc.where_key(path) if is_key else doc.where(path)
            expected = err.get("ctx", {}).get("expected") or err.get("ctx", {}).get("expected_tags") or ""
            value = err.get("input")
            if etype == "union_tag_invalid":
                value = err.get("ctx", {}).get("tag")
            hint = None
            options = [o.strip().strip("'") for o in str(expected).replace(" or ", ",").split(",") if o.strip()]
            close = closest(value, options, cutoff=0.5)
            if close:
                hint = f"did you mean `{close}`?"
            elif expected:
                hint = f"expected {expected}"
            yield make("CLR104", rel, line, col, f"`{field_name}`: {value!r} is not an allowed value", hint,
                       key_path=path)
        elif etype in _TYPE_ERRORS:
            value_path = path + ("[key]",) if is_key else path
            plain = doc.plain.get(value_path)
            line, col = doc.where_key(path) if is_key else doc.where(path)
            value = err.get("input")
            if plain is not None and etype.startswith("string"):
                trap = is_yaml11_trap(plain, value)
                what = "a key" if is_key else f"`{field_name}`"
                msg = (f"unquoted {plain} in {what} is read by YAML as {_describe(value)}, but a string is meant")
                hint = f'quote it: "{plain}"' + (" (YAML 1.1 reads yes/no/on/off as booleans and 012 or 1:30 as "
                                                 "numbers)" if trap else "")
                parent = _model_at(model, doc.data, path[:-1]) if is_key else None
                if parent is not None and plain not in _keys_of(parent):
                    # Quoting a key the model does not have only trades this error for CLR101: name the right key.
                    right = (_SAME_THING.get((getattr(parent, "__name__", ""), plain))
                             or closest(plain, _keys_of(parent)))
                    hint = (f"`{plain}` is not a key here; write `{right}:`" if right
                            else f"`{plain}` is not a key here; allowed keys: " + ", ".join(_keys_of(parent)))
                yield make("CLR005", rel, line, col, msg, hint, key_path=path)
            else:
                yield make("CLR102", rel, line, col, f"`{field_name}`: {err['msg'].lower()}, got {_describe(value)}",
                           key_path=path)
        elif etype == "string_pattern_mismatch" and err.get("ctx", {}).get("pattern") == ID_PATTERN:
            # An id that is no snake_case identifier: refused at load, so that no command (build, export) ever
            # writes it into code or paths, whether or not validate ran.
            line, col = doc.where(path)
            value = str(err.get("input"))
            suggestion = re.sub(r"[^a-z0-9]+", "_", value.lower()).strip("_") or "an_id"
            if suggestion[0].isdigit():
                suggestion = "x_" + suggestion
            yield make("CLR202", rel, line, col, f"id {value[:120]!r} is not snake_case", f"use `{suggestion[:120]}`",
                       key_path=path)
        elif etype == "finite_number":
            line, col = doc.where(path)
            yield make("CLR105", rel, line, col,
                       f"`{field_name}`: {doc.plain.get(path) or err.get('input')!s} is not a "
                       "finite number", "write a plain number: .nan and .inf name no bound, and JSON cannot hold them",
                       key_path=path)
        else:
            line, col = doc.where_key(path) if is_key else doc.where(path)
            yield make("CLR105", rel, line, col, f"`{field_name}`: {err['msg']}", key_path=path)
