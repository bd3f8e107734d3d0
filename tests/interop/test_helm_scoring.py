"""HELM's own scoring code beside the shared scoring module (clinreg.scoring.medhelm, exported as scoring.py), on the
same inputs.

Jury: one corpus of judge replies covering every irregular case (a reply lacking an axis or an explanation, a
non-whole score, a score off the scale, JSON lacking its final brace, no usable reply, an empty response) goes
through each MedHELM jury benchmark's own annotator class (LLMAsJuryAnnotator.annotate, with a client that
returns the corpus's replies) and LLMJuryMetric with default_score=1.0, as MedHELM's run specs build it, and
through scoring.jury_score; the per-instance scores must be equal. Replies on which HELM's metric raises are
checked apart: the shared rules drop them (the one place they cannot give HELM's score, since HELM gives none).

EHRSQL: HELM's EhrSqlAnnotator and EhrSqlMetric beside scoring.sql_execution and the HELM export's own
annotator, on one database and one set of answers.

Needs crfm-helm (the HELM stage of .ci/run); skipped without it unless CLINREG_REQUIRE_INTEROP=1.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
import sqlite3
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from clinreg.scoring import medhelm as scoring

from .support import REPO, have, jury_export, need

pytestmark = pytest.mark.interop


JUDGES = ("gpt", "llama", "claude")


@pytest.fixture(scope="module")
def helm():
    need(have("helm"), "crfm-helm is not installed")
    from helm.benchmark.adaptation.request_state import RequestState
    from helm.benchmark.scenarios.scenario import CORRECT_TAG, Input, Instance, Output, Reference
    from helm.common.request import GeneratedOutput, Request, RequestResult

    def state(question: str, completion: str, gold: str, extra_data: dict | None = None) -> RequestState:
        instance = Instance(input=Input(text=question), references=[Reference(Output(text=gold), tags=[CORRECT_TAG])],
                            split="test", id="id0", extra_data=extra_data)
        result = RequestResult(success=True, embedding=[], cached=False,
                               completions=[GeneratedOutput(text=completion, logprob=0.0, tokens=[])])
        return RequestState(instance=instance, reference_index=None, request_mode=None, train_trial_index=0,
                            output_mapping=None, request=Request(model="test/model", model_deployment="test/model",
                                                                 prompt=question),
                            result=result, num_train_instances=0, prompt_truncated=False)

    return state


def juries() -> dict[str, dict]:
    """Every jury record's jury, JSON-shaped as the exports carry it."""
    from clinreg.core.store import load_registry
    from clinreg.exports.harness import scoring_spec

    found = {}
    for record in load_registry(REPO).datasets.values():
        for mapping in record.mappings:
            spec = scoring_spec(record.id, mapping)
            if spec and spec["method"] == "jury" and spec["jury"].get("helm_annotator"):
                found[mapping.id] = spec
    return found


def reply(axes, scores, explanation=True, **extra) -> str:
    entries = {axis: {"score": score, "explanation": "because"} if explanation else {"score": score}
               for axis, score in zip(axes, scores)}
    return json.dumps(entries | extra)


def corpus(axes: list[str]) -> list[tuple[str, str, dict]]:
    """(case, model response, {judge: reply text, or None for a failed request}) covering every irregular case."""
    a, b, c = axes
    good = reply(axes, (4, 5, 3))
    cut = reply(axes, (4, 3, 2))
    return [
        ("regular", "A note.", {"gpt": good, "llama": reply(axes, (2, 3, 4)), "claude": reply(axes, (5, 4, 5))}),
        ("lacks an axis", "A note.", {"gpt": reply(axes, (4, 5)), "llama": good, "claude": reply(axes, (1, 2, 3))}),
        ("lacks an explanation", "A note.", {"gpt": reply(axes, (4, 5, 3), explanation=False), "llama": good,
                                              "claude": reply(axes, (2, 2, 2))}),
        ("lacks a score", "A note.", {"gpt": json.dumps({a: {"explanation": "x"}, b: {"score": 3, "explanation": "x"},
                                                         c: {"score": 3, "explanation": "x"}}), "llama": good,
                                      "claude": good}),
        ("an axis that is a number", "A note.", {"gpt": json.dumps({a: 4, b: 4, c: 4}), "llama": good, "claude": good}),
        ("non-whole scores", "A note.", {"gpt": reply(axes, (4.7, "4", -0.5)), "llama": reply(axes, (True, 5.0, " 3 ")),
                                         "claude": reply(axes, (1.99, "+2", 3))}),
        ("scores off the scale", "A note.", {"gpt": reply(axes, (7, 0, 5)), "llama": reply(axes, (-3, 10, 1)),
                                             "claude": good}),
        ("final brace missing", "A note.", {"gpt": cut[:-1], "llama": good, "claude": reply(axes, (1, 1, 1))}),
        ("two braces missing", "A note.", {"gpt": cut[:-2], "llama": good, "claude": reply(axes, (1, 1, 1))}),
        ("cut inside the last explanation", "A note.", {"gpt": cut[:-5], "llama": good, "claude": good}),
        ("cut before any closing brace", "A note.", {"gpt": cut[:cut.index("because") + 3], "llama": good,
                                                     "claude": reply(axes, (2, 3, 2))}),
        ("prose and a fence around the JSON", "A note.", {"gpt": "Sure.\n```json\n" + cut + "\n```\nDone.",
                                                          "llama": "Rating: " + good, "claude": good}),
        ("two JSON objects", "A note.",
         {"gpt": good + "\nor\n" + cut, "llama": reply(axes, (3, 3, 3)), "claude": good}),
        ("a list, a number, prose", "A note.", {"gpt": "[4, 5, 3]", "llama": "5", "claude": "I would give it a four."}),
        ("an extra entry with a score", "A note.", {"gpt": reply(axes, (4, 4, 4), overall={"score": 1}),
                                                    "llama": reply(axes, (5, 5, 5),
                                                                   note={"score": 9, "explanation": "x"}),
                                                    "claude": good}),
        ("one failed request", "A note.", {"gpt": None, "llama": good, "claude": reply(axes, (2, 2, 2))}),
        ("no usable reply", "A note.", {"gpt": None, "llama": "no JSON here", "claude": reply(axes, (4, 5))}),
        ("every request failed", "A note.", {"gpt": None, "llama": None, "claude": None}),
        ("empty response", "", {"gpt": good, "llama": good, "claude": good}),
        ("white-space response", "  \n\t", {"gpt": good, "llama": good, "claude": good}),
    ]


def helm_raises(axes: list[str]) -> list[tuple[str, str]]:
    """(case, reply) on which HELM's LLMJuryMetric raises, stopping HELM's run."""
    a, b, c = axes
    return [
        ("a score int() cannot read", reply(axes, ("4/5", 4, 4))),
        ("a score with a decimal point, in quotes", reply(axes, ("4.5", 4, 4))),
        ("a null score", reply(axes, (None, 4, 4))),
        ("a list score", reply(axes, ([4], 4, 4))),
        ("a NaN score", reply(axes, (4, 4, 4)).replace('"score": 4', '"score": NaN', 1)),
        ("an extra entry that is text", reply(axes, (4, 4, 4), overall="fine")),
        ("an extra entry without a score", reply(axes, (4, 4, 4), overall={"explanation": "x"})),
        ("an axis written as text naming its keys", json.dumps({a: "score: 4, explanation: fine",
                                                                b: {"score": 4, "explanation": "x"},
                                                                c: {"score": 4, "explanation": "x"}})),
    ]


class _Client:
    """HELM's AutoClient as the annotator uses it: each judge model answers with the corpus's reply."""

    def __init__(self, replies: dict[str, str | None]):
        self.replies = replies

    def make_request(self, request):
        from helm.common.request import GeneratedOutput, RequestResult

        text = self.replies[request.model.split("/", 1)[1]]
        if text is None:
            return RequestResult(success=False, embedding=[], completions=[], cached=False, error="test: no reply")
        return RequestResult(success=True, embedding=[], cached=False,
                             completions=[GeneratedOutput(text=text, logprob=0.0, tokens=[])])


def _helm_jury(annotator_class: str, state, replies):
    """(annotations, metric) of one instance as MedHELM scores it: the benchmark's annotator, then LLMJuryMetric
    with default_score=1.0 (medhelm_run_specs.py)."""
    from helm.benchmark.annotation.model_as_judge import AnnotatorModelInfo
    from helm.benchmark.metrics.llm_jury_metrics import LLMJuryMetric

    module, name = annotator_class.rsplit(".", 1)
    models = {j: AnnotatorModelInfo(model_name=f"test/{j}", model_deployment=f"test/{j}") for j in JUDGES}
    annotator = getattr(importlib.import_module(module), name)(auto_client=_Client(replies), annotator_models=models)
    annotations = annotator.annotate(state)
    metric = LLMJuryMetric(metric_name="jury", scenario_name=annotator.name, annotator_models=models, default_score=1.0)
    return annotator.name, annotations, lambda: metric.evaluate_generation(
        None, replace(state, annotations={annotator.name: annotations}), None, "")[0].mean


def test_every_jury_benchmark_rates_the_axes_helms_annotator_asks_for(helm):
    found = juries()
    assert len(found) == 13
    for mapping, spec in found.items():
        module = importlib.import_module(spec["jury"]["helm_annotator"].rsplit(".", 1)[0])
        assert list(module.ANNOTATION_CRITERIA) == [axis["id"] for axis in spec["jury"]["axes"]], mapping
        assert all(keys == {"score", "explanation"} for keys in module.ANNOTATION_CRITERIA.values()), mapping


def test_the_shared_rules_give_medhelms_per_instance_jury_scores(helm):
    compared = 0
    for mapping, spec in juries().items():
        jury = spec["jury"]
        axes = [axis["id"] for axis in jury["axes"]]
        for case, response, replies in corpus(axes):
            _, _, helm_score = _helm_jury(jury["helm_annotator"], helm("A question.", response, "A reference."),
                                          replies)
            ours = scoring.jury_score(dict(jury, judges=list(JUDGES)), response, replies)
            assert ours["score"] == pytest.approx(helm_score()), f"{mapping}: {case}"
            compared += 1
    assert compared == 13 * len(corpus(["a", "b", "c"]))


def test_where_helms_metric_raises_the_shared_rules_drop_the_reply(helm):
    jury = juries()["aci_bench"]["jury"]
    axes = [axis["id"] for axis in jury["axes"]]
    for case, text in helm_raises(axes):
        replies = {"gpt": text, "llama": reply(axes, (2, 3, 4)), "claude": reply(axes, (4, 3, 2))}
        _, _, helm_score = _helm_jury(jury["helm_annotator"], helm("A question.", "A note.", "A reference."), replies)
        with pytest.raises((TypeError, ValueError, KeyError, OverflowError)):
            helm_score()
        ours = scoring.jury_score(dict(jury, judges=list(JUDGES)), "A note.", replies)
        assert ours["score"] == 3.0 and ours["replies_dropped"] == 1, case


@pytest.fixture(scope="module")
def helm_export(tmp_path_factory, helm):
    """The HELM export's plugin module (`clinreg export helm` of ACI-Bench and EHRSQL), imported."""
    base = tmp_path_factory.mktemp("helm-scoring")
    out = jury_export("helm", base, ["aci_bench", "ehr_sql"], limit=2)
    spec = importlib.util.spec_from_file_location("clinreg_helm_scoring_test", out / "clinreg_helm.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_helm_export_builds_llm_jury_metric_with_medhelms_default(helm_export):
    run_spec = helm_export.get_clinreg_spec("aci_bench")
    (jury_metric,) = [m for m in run_spec.metric_specs if m.class_name.endswith("LLMJuryMetric")]
    assert jury_metric.args["default_score"] == 1.0
    assert jury_metric.args["scenario_name"] == "aci_bench"


def test_the_helm_export_counts_what_lies_behind_helms_jury_score(helm_export, helm):
    """ClinregJuryCounts reads HELM's annotations; its counts equal the shared rules' counts from the raw replies."""
    run_spec = helm_export.get_clinreg_spec("aci_bench")
    (counts_spec,) = [m for m in run_spec.metric_specs if m.class_name.endswith("ClinregJuryCounts")]
    jury = juries()["aci_bench"]["jury"]
    axes = [axis["id"] for axis in jury["axes"]]
    counts = helm_export.ClinregJuryCounts(**dict(counts_spec.args, judges=list(JUDGES)))
    for case, response, replies in corpus(axes):
        state = helm("A question.", response, "A reference.")
        name, annotations, _ = _helm_jury(jury["helm_annotator"], state, replies)
        stats = counts.evaluate_generation(None, replace(state, annotations={name: annotations}), None, "")
        got = {stat.name.name.removeprefix("clinreg_jury_"): stat.mean for stat in stats}
        ours = scoring.jury_score(dict(jury, judges=list(JUDGES)), response, replies)
        assert got == {key: float(ours[key]) for key in got}, case


# ------------------------------------------------------------------------------------------------ EHRSQL

ROWS = "select uniquepid from patient where hospitalid = 1"
NO_ROWS = "select uniquepid from patient where hospitalid = 9"
BROKEN = "select uniquepid from no_such_table"
SQL_CASES = [
    # (gold query, value, model output)
    (ROWS, {"patient_id": "001-1"}, "SELECT uniquepid FROM patient WHERE admissionweight > 70 ORDER BY 1 DESC"),
    (ROWS, {}, "<sql>select uniquepid from patient where hospitalid = 1</sql>"),
    (ROWS, {}, "```sql\nselect uniquepid from patient where hospitalid = 1\n```"),
    (ROWS, {}, "select uniquepid from patient"),
    (ROWS, {}, "select nothing from nowhere"),
    (ROWS, {}, ""),
    (NO_ROWS, {"patient_id": "001-1"}, ""),
    (NO_ROWS, {"patient_id": "001-1"}, "select '001-1'"),
    (NO_ROWS, {"patient_id": "001-1"}, NO_ROWS),
    (NO_ROWS, {}, ""),
    (NO_ROWS, {}, NO_ROWS),
    (NO_ROWS, {}, "<sql></sql>"),
    ("null", {}, ""),
    ("null", {}, "  \n"),
    ("null", {}, "select 1"),
    ("null", {}, "<sql></sql>"),
    ("null", {}, "```sql\n```"),
    (BROKEN, {"patient_id": "001-1"}, ""),
    (BROKEN, {}, ""),
    (BROKEN, {}, "select 1"),
    ("", {}, ""),
    ("", {}, "select 1"),
]


def _database(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript("""
        create table patient (uniquepid text, admissionweight real, hospitalid int);
        insert into patient values ('001-1', 70.5, 1), ('001-2', 82.0, 1), ('002-1', 64.0, 2);
    """)
    conn.commit()
    conn.close()


def test_ehrsql_execution_accuracy_is_helms(helm, helm_export, tmp_path, monkeypatch):
    from helm.benchmark.annotation.ehr_sql_annotator import EhrSqlAnnotator
    from helm.benchmark.metrics.ehr_sql_metrics import EhrSqlMetric
    from helm.benchmark.runner import get_benchmark_output_path, set_benchmark_output_path

    data_dir = tmp_path / "data"
    _database(data_dir / "ehr_sql" / "eicu.sqlite")
    helm_output = tmp_path / "benchmark_output"
    (helm_output / "scenarios" / "ehr_sql").mkdir(parents=True)
    shutil.copy(data_dir / "ehr_sql" / "eicu.sqlite", helm_output / "scenarios" / "ehr_sql" / "eicu.sqlite")
    monkeypatch.setenv("CLINREG_DATA_DIR", str(data_dir))
    database = helm_export.MAPPINGS["ehr_sql"]["scoring"]["database"]
    assert database["file"] == "ehr_sql/eicu.sqlite"
    previous = get_benchmark_output_path()
    set_benchmark_output_path(str(helm_output))
    try:
        ours_annotator = helm_export.ClinregSqlAnnotator("ehr_sql")
        for gold, value, output in SQL_CASES:
            extra = {"value": value, "is_impossible": gold == "null"}
            state = helm("A question.", output, gold, extra)

            def accuracy(annotation, state=state):
                stats = EhrSqlMetric().evaluate_generation(None, replace(state, annotations={"ehr_sql": annotation}),
                                                           None, "")
                return next(s.mean for s in stats if s.name.name == "ehr_sql_execution_accuracy")

            helm_score = accuracy(EhrSqlAnnotator().annotate(state))
            case = (gold, value, output)
            assert scoring.sql_execution(output, gold, database, value=value) == helm_score, case
            # The instance context holds absent keys as null (one table for rows with different keys).
            padded = dict({"drug_name": None}, **value)
            assert scoring.score_text({"method": "sql_execution", "database": database}, output, gold,
                                      {"value": padded}) == helm_score, case
            assert accuracy(ours_annotator.annotate(state)) == helm_score, case
    finally:
        set_benchmark_output_path(previous)


def test_the_ehrsql_export_carries_the_schema_and_the_values(helm_export):
    scenario = helm_export.ClinregJsonlScenario(helm_export.MAPPINGS["ehr_sql"]["data_file"])
    instances = scenario.get_instances("unused")
    assert instances
    for instance in instances:
        assert "-- Database Schema:\nCREATE TABLE patient\n(\nuniquepid VARCHAR(10) NOT NULL," in instance.input.text
        assert "DROP TABLE" not in instance.input.text
        assert "value" in instance.extra_data and None not in instance.extra_data["value"].values()
