"""Small registry trees written into tmp_path for tests: one good tree, and helpers to break it one way at a time."""

from __future__ import annotations

import textwrap
from pathlib import Path

TAXONOMY = """\
# yaml-language-server: $schema=../schemas/taxonomy.schema.json
id: mini
name: Mini taxonomy
version: 1.0.0
citation: {text: Test fixture}
task_total: 3
categories: [care]
"""

CATEGORY = """\
# yaml-language-server: $schema=../schemas/category.schema.json
id: care
name: Care
definition: Work done while caring for patients.
subcategories:
  - id: diagnosis
    name: Diagnosis
    definition: Deciding what is wrong.
    tasks:
      - id: answer_questions
        name: Answer questions
        definition: Answer a clinical question.
        provenance: {kind: published, quote: "A name", citation: {text: A paper}}
        review: {status: proposed}
      - id: rank_differentials
        name: Rank differentials
        definition: Rank candidate diagnoses.
        provenance: {kind: drafted}
        review: {status: proposed}
  - id: treatment
    name: Treatment
    definition: Deciding what to do.
    tasks:
      - id: plan_treatment
        name: Plan treatment
        definition: Write a treatment plan.
        provenance: {kind: drafted}
        review: {status: proposed}
"""

DATASET = """\
# yaml-language-server: $schema=../../schemas/dataset.schema.json
id: qa_set
name: QA set
version: 1.0.0
added_in: 1.0.0
in_medhelm: true
description: Yes/no/maybe questions.
measures: Whether a model draws the conclusion an abstract's authors drew.
use_when: Comparing models on reading research abstracts.
not_for: Judging clinical advice.
languages: {value: [en], source: "The paper, section 2."}
first_released: {value: "2019", source: The paper.}
status: {value: active, source: The schema.}
maintainer: {value: The authors, source: The paper.}
independence: {value: not assessed, reason: No source read says who runs the models.}
compare_with: [{id: plans, reason: Both are in this fixture.}]
access: {tier: public}
licence: {spdx: MIT}
citation: {text: A paper}
source:
  type: huggingface
  repo: owner/qa_set
  splits: [test]
  revision: 0123456789abcdef0123456789abcdef01234567
mappings:
  - id: qa_set
    tasks: [answer_questions]
    splits: [test]
    input_template: "{{ question }}"
    choices: {fixed: ["yes", "no", "maybe"]}
    label:
      encoding: string_set
      column: answer
      map: {"yes": A, "no": B, "maybe": C}
    metric: {name: exact_match}
    instances: {source: 10, evaluated: 10}
"""

DATASET2 = """\
# yaml-language-server: $schema=../../schemas/dataset.schema.json
id: plans
name: Plans
version: 1.0.0
added_in: 1.1.0
in_medhelm: true
description: Treatment plans.
measures: How well a model writes a treatment plan.
use_when: Comparing models on writing plans.
not_for: Deciding care for a patient.
languages: {value: unknown, reason: The data are private and no source says.}
first_released: {value: unknown, reason: No source says.}
status: {value: active, source: The schema.}
maintainer: {value: unknown, reason: No source names one.}
independence: {value: The hospital runs the models., source: The paper.}
access: {tier: private, instructions: Ask the holder.}
licence: {spdx: unknown, note: Private data.}
citation: {text: Another paper}
source: {type: local, description: Held by a hospital., files: [plans.csv], read: {splits: {test: {files: plans.csv}}}}
mappings:
  - id: plans
    tasks: [plan_treatment]
    splits: [test]
    input_template: "{{ note }}"
    label: {encoding: free_text, column: plan}
    metric: {name: jury, range: [1, 5]}
    scoring:
      method: jury
      jury:
        rubric: The model wrote a treatment plan; a clinician's plan is the reference.
        axes: [{id: accuracy, question: "Is it right?"}, {id: clarity, question: "Is it clear?"}]
"""

RELEASES = """\
# yaml-language-server: $schema=../schemas/releases.schema.json
current: 1.1.0
releases:
  - {version: 1.0.0, date: 2025-01-01, title: First, datasets_added: [qa_set]}
  - {version: 1.1.0, date: 2025-02-01, title: Second, datasets_added: [plans]}
"""

GOOD_TREE = {
    "taxonomy/taxonomy.yaml": TAXONOMY,
    "taxonomy/care.yaml": CATEGORY,
    "registry/datasets/qa_set.yaml": DATASET,
    "registry/datasets/plans.yaml": DATASET2,
    "registry/releases.yaml": RELEASES,
}


def write_tree(root: Path, files: dict[str, str] | None = None, **changes: str | None) -> Path:
    """Write the good tree into `root`, with `files` replacing or adding files (None removes one)."""
    merged = dict(GOOD_TREE)
    merged.update(files or {})
    for rel, text in merged.items():
        if text is None:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if not text.startswith("#") else text, encoding="utf-8")
    return root


def replace_in(text: str, old: str, new: str) -> str:
    """str.replace that fails loudly when the fixture no longer holds `old`."""
    assert old in text, f"fixture does not contain {old!r}"
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    """1-based line number of the first line containing `needle`."""
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not found")
