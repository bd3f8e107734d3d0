"""Generate the GitHub issue form for proposing a dataset, with dropdowns taken from the taxonomy and the data model."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from clinreg.core.model import Access
from clinreg.core.store import Registry
from clinreg.errors import ClinregError
from clinreg.text.yamltext import yaml_scalar

ISSUE_FORM_PATH = ".github/ISSUE_TEMPLATE/propose-dataset.yml"
FIX_COMMAND = f"uv run clinreg issue-form -o {ISSUE_FORM_PATH}"

_TIER_TEXT = {
    "public": "public: anyone can download it",
    "gated": "gated: after registration or a data use agreement (e.g. PhysioNet credentialing)",
    "private": "private: held by an institution and not distributed",
}

_INTRO = """\
Thank you for proposing a dataset. A maintainer will check that it fits the taxonomy and that its data can be
obtained; after that you (or we) write the record with `clinreg new dataset` as CONTRIBUTING.md describes.
Never paste patient data into this issue.
"""


class IssueFormError(ClinregError, ValueError):
    """The taxonomy could not be loaded, so the dropdowns cannot be generated."""

    default_code = "CLR981"


def access_tiers() -> list[str]:
    """The access tiers the data model accepts, in its order."""
    return list(typing.get_args(Access.model_fields["tier"].annotation))


def issue_form(reg: Registry) -> dict[str, Any]:
    """The issue form as plain data: dropdowns list the categories, subcategories and access tiers."""
    categories = reg.ordered_categories()
    if reg.taxonomy is None or not categories:
        raise IssueFormError("the taxonomy could not be loaded; run `clinreg validate` and fix its errors first")
    category_options = [f"{c.name} ({c.id})" for c, _ in categories]
    subcategory_options = [f"{c.name} / {s.name} ({s.id})" for c, _ in categories for s in c.subcategories]
    tier_options = [_TIER_TEXT.get(t, t) for t in access_tiers()]
    return {
        "name": "Propose a dataset",
        "description": f"Suggest a dataset that measures tasks of the {reg.taxonomy.name}.",
        "title": "[dataset]: ",
        "labels": ["dataset proposal"],
        "body": [
            {"type": "markdown", "attributes": {"value": _INTRO}},
            _field("input", "name", "Dataset name", "The name its authors use, e.g. MedMCQA.", required=True),
            _field("input", "link", "Where the data is",
                   "A Hugging Face repo (owner/name), a GitHub repository, a PhysioNet project or a URL.",
                   required=True, placeholder="owner/name"),
            {"type": "dropdown", "id": "category",
             "attributes": {"label": "Category", "description": "The taxonomy category the dataset measures.",
                            "options": category_options},
             "validations": {"required": True}},
            {"type": "dropdown", "id": "subcategories",
             "attributes": {"label": "Subcategories",
                            "description": "Every subcategory whose tasks the dataset measures (choose one or more).",
                            "multiple": True, "options": subcategory_options},
             "validations": {"required": True}},
            _field("textarea", "tasks", "Tasks",
                   "Task ids from the taxonomy, one per line (`clinreg coverage --by task --format markdown` lists the "
                   "ids), "
                   "or describe the work if no task fits."),
            {"type": "dropdown", "id": "access",
             "attributes": {"label": "Access tier", "description": "Who can obtain the data.", "options": tier_options},
             "validations": {"required": True}},
            _field("input", "licence", "Licence", "An SPDX id such as CC-BY-4.0, and where you read it.",
                   placeholder="CC-BY-4.0 (hub card)"),
            _field("textarea", "gold", "Gold answers",
                   "Which column holds the gold answer and how it is written (a letter, a 0- or 1-based index, "
                   "yes/no/maybe, codes such as 1/0/2, free text, a number with a range).", required=True),
            _field("input", "citation", "Citation", "Authors (year), title, venue; a DOI or arXiv id if there is one."),
            {"type": "checkboxes", "id": "checks",
             "attributes": {"label": "Before you submit", "options": [
                 {"label": "The dataset is not already in registry/datasets/.", "required": True},
                 {"label": "This issue contains no patient data.", "required": True},
             ]}},
        ],
    }


def _field(kind: str, ident: str, label: str, description: str, *, required: bool = False,
           placeholder: str | None = None) -> dict[str, Any]:
    attributes: dict[str, Any] = {"label": label, "description": description}
    if placeholder:
        attributes["placeholder"] = placeholder
    out: dict[str, Any] = {"type": kind, "id": ident, "attributes": attributes}
    if required:
        out["validations"] = {"required": True}
    return out


def render_issue_form(reg: Registry) -> str:
    header = [
        "# Generated by `clinreg issue-form` from the taxonomy (taxonomy/*.yaml) and the data model.",
        "# Do not edit by hand; after changing the taxonomy run:",
        f"#   {FIX_COMMAND}",
    ]
    return "\n".join(header + _lines(issue_form(reg), 0)) + "\n"


def _lines(value: dict[str, Any], indent: int) -> list[str]:
    pad = " " * indent
    out: list[str] = []
    for key, item in value.items():
        if isinstance(item, dict):
            out.append(f"{pad}{key}:")
            out += _lines(item, indent + 2)
        elif isinstance(item, list) and item and isinstance(item[0], dict):
            out.append(f"{pad}{key}:")
            for entry in item:
                sub = _lines(entry, indent + 4)
                out.append(f"{pad}  - {sub[0].lstrip()}")
                out += sub[1:]
        elif isinstance(item, list):
            out.append(f"{pad}{key}:")
            out += [f"{pad}  - {yaml_scalar(v)}" for v in item]
        elif isinstance(item, str) and "\n" in item:
            out.append(f"{pad}{key}: |")
            out += [f"{pad}  {line}" if line else "" for line in item.rstrip("\n").split("\n")]
        else:
            out.append(f"{pad}{key}: {yaml_scalar(item)}")
    return out


def drift(reg: Registry, path: Path) -> bool:
    """True when the file at `path` differs from what `render_issue_form` would write."""
    try:
        return path.read_text(encoding="utf-8") != render_issue_form(reg)
    except OSError:
        return True
