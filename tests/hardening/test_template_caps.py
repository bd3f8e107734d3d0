"""Input-template caps that hold whatever the template does: loops, concatenation, big integers, amplifying filters.

Each hostile shape must fail with a TemplateFailure that names the cap it hit (not a MemoryError, not the wall
clock of the machine), and `clinreg build` must report it as one located line naming the record, the mapping and
the row, with exit code 1. What such a refusal costs in time is measured in bench/bench_hostile.py, not here.
"""

from __future__ import annotations

import json

import pytest
import yaml

from clinreg.core.builderrors import TemplateFailure
from clinreg.templating.sandbox import InputTemplate

from .support import assert_no_traceback, run_cli

TEXT = "y" * 100
CHAIN = "".join(f"{{% set s{i + 1} = s{i} ~ s{i} %}}" for i in range(30))

# shape -> (template, the words the failure message must hold)
SHAPES = {
    "nested-range-loops": ("{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
                           "steps|longer than"),
    "triple-range-loops": ("{% for i in range(1000) %}{% for j in range(1000) %}{% for k in range(1000) %}{% endfor %}"
                           "{% endfor %}{% endfor %}", "steps|longer than"),
    "nested-string-loops": ("{% for a in text * 10000 %}{% for b in text * 10000 %}{% endfor %}{% endfor %}",
                            "steps|longer than"),
    "loop-in-loop-filter": ("{% for a in range(10000)|list %}{% for b in range(10000)|map('string') %}{% endfor %}{% "
                            "endfor %}", "steps|longer than"),
    "big-range": ("{% for i in range(99999) %}{% endfor %}", "range"),
    "concat-doubling": ("{% set s0 = text %}" + CHAIN + "{{ s30 | length }}", "cap"),
    "plus-doubling": ("{% set s0 = text %}" + CHAIN.replace(" ~ ", " + ") + "{{ s30 | length }}", "cap"),
    "list-plus-doubling": ("{% set s0 = [text] %}" + CHAIN.replace(" ~ ", " + ") + "{{ s30 | length }}", "cap"),
    "chained-power": ("{{ ((10 ** 64) ** 64) ** 64 }}", "bits"),
    "power-of-big-int": ("{% set n = 10 ** 60 %}{% set m = n * n * n * n * n %}{{ m ** 60 }}", "bits"),
    "multiply-doubling": ("{% set a0 = 10 ** 60 %}" + "".join(f"{{% set a{i + 1} = a{i} * a{i} %}}" for i in range(20))
                          + "{{ a20 }}", "bits"),
    "join-amplified": ("{{ ([text * 10000] * 1000) | join }}", "cap"),
    "join-filter-separator": ("{{ ([text] * 10000) | join(text * 10000) }}", "cap"),
    "join-method": ("{{ ','.join([text * 10000] * 1000) }}", "cap"),
    # found by test_fuzz under load: `join` over a text joins its characters (and over a mapping, its keys)
    "join-filter-over-text": ("{{ (text * 9999) | join(text * 9999) }}", "cap"),
    "join-filter-over-row": ("{{ row | join(text * 9999) | join(text * 9999) }}", "cap"),
    "replace-filter": ("{{ (text * 10000) | replace('y', text * 10000) }}", "cap"),
    "replace-method": ("{{ (text * 10000).replace('y', text * 10000) }}", "cap"),
    "indent-amplified": ("{{ ('\\n' * 999999) | indent(999999) }}", "cap"),
    "expandtabs": ("{{ ('\\t' * 999999).expandtabs(999999) }}", "cap"),
    "set-block-buffer": ("{% set s %}{% for i in range(10000) %}{{ text * 10000 }}{% endfor %}{% endset %}{{ s | "
                         "length }}", "cap|longer than"),
    "macro-buffer": ("{% macro m() %}{% for i in range(10000) %}{{ text * 10000 }}{% endfor %}{% endmacro %}{{ m() | "
                     "length }}", "cap|longer than"),
    "recursive-macro-doubling": ("{% macro m(n) %}{% if n %}{{ m(n - 1) }}{{ m(n - 1) }}{% else %}{{ text }}{% endif %}"
                                 "{% endmacro %}{{ m(40) | length }}", "cap|longer than|steps"),
    "filter-block": ("{% filter upper %}{% for i in range(10000) %}{{ text * 10000 }}{% endfor %}{% endfilter %}",
                     "cap|longer than"),
    "output-flood": ("{% for i in range(10000) %}{{ text * 10000 }}{% endfor %}", "longer than|cap"),
    "format-width": ("{{ '%0999999999d' % 1 }}", "width"),
}


def _render(source: str) -> str:
    return InputTemplate(source, "hostile/m").render({"text": TEXT, "row": {"text": TEXT}})


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_hostile_shape_hits_a_cap(shape):
    source, words = SHAPES[shape]
    with pytest.raises(TemplateFailure) as failure:
        _render(source)
    message = str(failure.value)
    assert "\n" not in message
    assert any(w in message for w in words.split("|")), message
    assert "memory" not in message.lower()  # the cap that fired is named


def test_benign_templates_are_unaffected():
    row = {"question": "Which drug?", "opa": "a", "opb": "b", "items": [{"t": "x"}, {"t": "y"}]}
    source = ("{{ question }}\n{% for o in [opa, opb] %}{{ loop.index }}. {{ o }}\n{% endfor %}"
              "{{ items | map(attribute='t') | join(', ') }} {{ (question ~ '!') | upper }} {{ 2 ** 10 }} {{ 3 * 4 }}")
    assert _render_with(source, row) == "Which drug?\n1. a\n2. b\nx, y WHICH DRUG?! 1024 12"


def _render_with(source, row):
    return InputTemplate(source, "benign/m").render({**row, "row": row})


def test_a_template_cannot_rebind_the_loop_guard():
    """The guard is reached through the environment, so no variable a template sets can replace it."""
    source = ("{% set guarded_iter = none %}{% set environment = none %}"
              "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}")
    with pytest.raises(TemplateFailure):
        _render(source)


def _hub_fixture(tmp_path, template: str):
    data = tmp_path / "data" / "owner__fixture"
    (data / "data").mkdir(parents=True)
    (data / "data" / "test.jsonl").write_text(json.dumps({"question": "q", "answer": "yes", "text": TEXT}) + "\n")
    (data / "README.md").write_text("---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n"
                                    "    path: data/test.jsonl\n---\n")
    record = {
        "id": "fixture", "name": "Fixture", "version": "1.0.0", "added_in": "1.0.0", "in_medhelm": True,
        "description": "x", "access": {"tier": "public"}, "licence": {"spdx": "MIT"}, "citation": {"text": "x"},
        "source": {"type": "huggingface", "repo": "owner/fixture", "splits": ["test"]},
        "mappings": [{"id": "hostile", "tasks": ["answer_questions"], "splits": ["test"], "input_template": template,
                      "choices": {"fixed": ["yes", "no"]}, "metric": {"name": "exact_match"},
                      "label": {"encoding": "string_set", "column": "answer", "map": {"yes": "A", "no": "B"},
                                "positive": "yes"}}],
    }
    root = tmp_path / "reg"
    (root / "taxonomy").mkdir(parents=True)
    (root / "registry" / "datasets").mkdir(parents=True)
    (root / "registry" / "datasets" / "fixture.yaml").write_text(
        "# yaml-language-server: $schema=../../schemas/dataset.schema.json\n" + yaml.safe_dump(record, sort_keys=False))
    return root, tmp_path / "data"


@pytest.mark.parametrize("shape", ["nested-range-loops", "concat-doubling", "chained-power", "set-block-buffer"])
def test_build_reports_each_cap_as_one_located_line(tmp_path, shape):
    root, data = _hub_fixture(tmp_path, SHAPES[shape][0])
    out = tmp_path / "out.jsonl"
    result = run_cli("build", "fixture", "--root", str(root), "--data-dir", str(data), "--quiet", "-o", str(out),
                     timeout=120)

    assert_no_traceback(result)
    assert result.returncode == 1, result.stderr
    line = result.stderr.strip()
    assert "\n" not in line and "fixture/hostile" in line and "row 0" in line, line
    assert not out.exists()  # nothing half-written
