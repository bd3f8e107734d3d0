"""The contributor path: the new-dataset scaffold, the GitHub issue form and the JSON Schemas editors use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinreg import _serve

if TYPE_CHECKING:
    from clinreg.contrib.issueform import ISSUE_FORM_PATH, IssueFormError, drift, render_issue_form
    from clinreg.contrib.new_dataset import (
        DatasetRefused, DatasetRequest, check_request, create_dataset, id_problem, split_tasks, unknown_task,
    )
    from clinreg.contrib.new_release import ReleaseRefused, open_next_release
    from clinreg.contrib.scaffold import HUB_REPO
    from clinreg.contrib.schemas import export_schemas, schema_drift

_API = {  # name -> the module that defines it (a submodule's own name: the submodule)
    "HUB_REPO": "clinreg.contrib.scaffold",
    "ISSUE_FORM_PATH": "clinreg.contrib.issueform",
    "DatasetRefused": "clinreg.contrib.new_dataset",
    "DatasetRequest": "clinreg.contrib.new_dataset",
    "IssueFormError": "clinreg.contrib.issueform",
    "ReleaseRefused": "clinreg.contrib.new_release",
    "check_request": "clinreg.contrib.new_dataset",
    "create_dataset": "clinreg.contrib.new_dataset",
    "drift": "clinreg.contrib.issueform",
    "export_schemas": "clinreg.contrib.schemas",
    "id_problem": "clinreg.contrib.new_dataset",
    "open_next_release": "clinreg.contrib.new_release",
    "render_issue_form": "clinreg.contrib.issueform",
    "schema_drift": "clinreg.contrib.schemas",
    "split_tasks": "clinreg.contrib.new_dataset",
    "unknown_task": "clinreg.contrib.new_dataset",
}

__all__ = [
    "HUB_REPO", "ISSUE_FORM_PATH", "DatasetRefused", "DatasetRequest", "IssueFormError", "ReleaseRefused",
    "check_request", "create_dataset", "drift", "export_schemas", "id_problem", "open_next_release",
    "render_issue_form", "schema_drift", "split_tasks", "unknown_task",
]

__getattr__, __dir__ = _serve(__name__, _API)
