"""Text and file utilities with no knowledge of the registry: safe writes, safe output, the JSON envelope,
YAML scalars, regular-expression guards, did-you-mean suggestions and running git."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.text.git import GitError, changed_paths, run_git
    from clinreg.text.jsonout import dumps, envelope, error_line, json_requested, wrap
    from clinreg.text.output import (
        NotStrictJSON, csv_cell, csv_uncell, defuse, printable, shown, template_finalize, to_json,
    )
    from clinreg.text.patterns import PatternTimeout, deadline, glob_class_problem, nested_repetition
    from clinreg.text.plainwords import first_sight, has_maintainer_words
    from clinreg.text.safeio import (
        BackgroundWrites, NotARegularFile, RefusedOverwrite, atomic_open, atomic_write_text, file_lock, open_regular,
        read_regular_file,
    )
    from clinreg.text.suggest import Suggester, closest
    from clinreg.text.tracked import ChangedUnderneath, Tracked, edit_tracked, read_tracked
    from clinreg.text.yamltext import yaml_dump, yaml_flow_list, yaml_flow_map, yaml_scalar

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "BackgroundWrites": "clinreg.text.safeio",
    "ChangedUnderneath": "clinreg.text.tracked",
    "GitError": "clinreg.text.git",
    "NotARegularFile": "clinreg.text.safeio",
    "NotStrictJSON": "clinreg.text.output",
    "PatternTimeout": "clinreg.text.patterns",
    "RefusedOverwrite": "clinreg.text.safeio",
    "Suggester": "clinreg.text.suggest",
    "Tracked": "clinreg.text.tracked",
    "atomic_open": "clinreg.text.safeio",
    "atomic_write_text": "clinreg.text.safeio",
    "changed_paths": "clinreg.text.git",
    "closest": "clinreg.text.suggest",
    "deadline": "clinreg.text.patterns",
    "csv_cell": "clinreg.text.output",
    "csv_uncell": "clinreg.text.output",
    "defuse": "clinreg.text.output",
    "dumps": "clinreg.text.jsonout",
    "edit_tracked": "clinreg.text.tracked",
    "envelope": "clinreg.text.jsonout",
    "error_line": "clinreg.text.jsonout",
    "file_lock": "clinreg.text.safeio",
    "first_sight": "clinreg.text.plainwords",
    "glob_class_problem": "clinreg.text.patterns",
    "has_maintainer_words": "clinreg.text.plainwords",
    "json_requested": "clinreg.text.jsonout",
    "nested_repetition": "clinreg.text.patterns",
    "open_regular": "clinreg.text.safeio",
    "printable": "clinreg.text.output",
    "read_regular_file": "clinreg.text.safeio",
    "read_tracked": "clinreg.text.tracked",
    "run_git": "clinreg.text.git",
    "shown": "clinreg.text.output",
    "template_finalize": "clinreg.text.output",
    "to_json": "clinreg.text.output",
    "wrap": "clinreg.text.jsonout",
    "yaml_dump": "clinreg.text.yamltext",
    "yaml_flow_list": "clinreg.text.yamltext",
    "yaml_flow_map": "clinreg.text.yamltext",
    "yaml_scalar": "clinreg.text.yamltext",
}

__all__ = [
    "atomic_open", "atomic_write_text", "BackgroundWrites", "changed_paths", "ChangedUnderneath", "closest", "csv_cell",
    "csv_uncell", "deadline", "defuse", "dumps", "edit_tracked", "envelope", "error_line", "file_lock", "first_sight",
    "GitError", "glob_class_problem", "has_maintainer_words", "json_requested", "nested_repetition", "NotARegularFile",
    "NotStrictJSON", "open_regular", "PatternTimeout", "printable", "read_regular_file", "read_tracked",
    "RefusedOverwrite", "run_git", "shown", "Suggester", "template_finalize", "to_json", "Tracked", "wrap", "yaml_dump",
    "yaml_flow_list", "yaml_flow_map", "yaml_scalar",
]

__getattr__, __dir__ = _serve(__name__, _API)
