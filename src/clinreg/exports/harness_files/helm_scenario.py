

# ----------------------------------------------------------------------------------------- HELM
# A scenario that reads one exported JSON-lines file, the metric that scores number tasks by the shared range
# rule under the benchmark's own metric name, and the run spec function `clinreg` that the run entries name.
# HELM imports this module through `helm-run --plugins clinreg_helm` (see the export's README).

import json
import os

from helm.benchmark.adaptation.adapter_spec import ADAPT_CHAT, ADAPT_MULTIPLE_CHOICE_JOINT, AdapterSpec
from helm.benchmark.annotation.annotator import Annotator, AnnotatorSpec
from helm.benchmark.metrics.metric import Metric, MetricSpec
from helm.benchmark.metrics.metric_name import MetricName
from helm.benchmark.metrics.statistic import Stat
from helm.benchmark.adaptation.common_adapter_specs import get_generation_adapter_spec
from helm.benchmark.metrics.common_metric_specs import get_basic_metric_specs, get_exact_match_metric_specs
from helm.benchmark.run_spec import RunSpec, run_spec_function
from helm.benchmark.scenarios.scenario import (
    CORRECT_TAG, TEST_SPLIT, Input, Instance, Output, Reference, Scenario, ScenarioSpec,
)

HERE = os.path.dirname(os.path.abspath(__file__))


class ClinregJsonlScenario(Scenario):
    """Instances of one clinreg mapping, read from the export's data/<dataset>/<mapping>.jsonl."""

    name = "clinreg"
    description = "A clinreg mapping exported as JSON lines"
    tags = ["clinreg"]

    def __init__(self, data_file: str, mapping: str = None):
        super().__init__()
        self.data_file = data_file
        self.mapping = mapping

    def get_instances(self, output_path: str):
        instances = []
        with open(os.path.join(HERE, self.data_file), encoding="utf-8") as handle:
            for line in handle:
                doc = json.loads(line)
                gold = doc["gold"]
                if gold["kind"] == "choice":
                    # The question alone: HELM's multiple-choice adapter lists the options and asks for a letter.
                    references = [Reference(Output(text=text), tags=[CORRECT_TAG] if i == gold["index"] else [])
                                  for i, text in enumerate(doc["choices"])]
                    text = doc["input"]
                else:
                    references = [Reference(Output(text=gold["value"] or ""), tags=[CORRECT_TAG])]
                    text = doc["prompt"]
                extra = {"gold": gold}
                if "is_impossible" in (doc.get("context") or {}):  # read by HELM's EHRSQL metric
                    extra["is_impossible"] = impossible_question(doc["context"])
                # EHRSQL's expected values when the gold query returns no rows
                if "value" in (doc.get("context") or {}):
                    extra["value"] = {k: v for k, v in (doc["context"]["value"] or {}).items() if v is not None}
                messages = None
                rubric = ((MAPPINGS.get(self.mapping) or {}).get("scoring") or {}).get("rubric")
                if rubric:  # for medhelm's rubric annotator: the rubric items, and the conversation as its turns
                    context = doc.get("context") or {}
                    extra["rubrics"] = context.get(rubric["column"]) or []
                    turns = context.get(rubric.get("conversation_column") or "")
                    messages = ([{"role": t["role"], "content": t["content"]} for t in turns] if turns
                                else [{"role": "user", "content": doc["input"]}])
                instances.append(Instance(input=Input(text=text, messages=messages), references=references,
                                          split=TEST_SPLIT, id=doc["id"], extra_data=extra))
        return instances


class ClinregNumberMetric(Metric):
    """A number task scored as every clinreg export scores it (scoring.in_range), under the benchmark's metric name."""

    def __init__(self, name: str):
        self.name = name

    def evaluate_generation(self, adapter_spec, request_state, metric_service, eval_cache_path):
        completions = request_state.result.completions if request_state.result else []
        completion = completions[0].text if completions else ""
        hit = in_range(completion, request_state.instance.extra_data["gold"])
        return [Stat(MetricName(self.name)).add(1 if hit else 0)]


class ClinregSqlAnnotator(Annotator):
    """Runs the gold and the predicted query against the record's SQLite database and hands HELM's EHRSQL metric
    the results it compares, as HELM's own annotator does (the row's `value`s when the gold query returns no
    rows), but read-only and with the record's time limit (HELM's opens the database writable, without a time
    limit, at a fixed path under benchmark_output)."""

    name = "ehr_sql"

    def __init__(self, mapping: str):
        self.database = MAPPINGS[mapping]["scoring"]["database"]

    def annotate(self, request_state):
        gold = request_state.instance.references[0].output.text.strip()
        value = (request_state.instance.extra_data or {}).get("value")
        expected = expected_result(gold, self.database, value)
        completions = request_state.result.completions if request_state.result else []
        rows, error = predicted_result(completions[0].text if completions else "", self.database)
        return {"predicted_result": rows, "ground_truth_result": expected, "query_error": error}


class ClinregJuryCounts(Metric):
    """Beside HELM's jury score, what lies behind it, from HELM's own annotations: judge replies dropped, ratings
    of the jury's axes missing, ratings counted although irregular, and whether the score is the default."""

    def __init__(self, mapping: str, scenario_name: str, judges: list, replacements: dict = None):
        self.jury = dict(MAPPINGS[mapping]["scoring"]["jury"], judges=judges)
        self.scenario_name = scenario_name
        self.replacements = replacements or {}  # also in run_spec.json, as this metric's argument

    def evaluate_generation(self, adapter_spec, request_state, metric_service, eval_cache_path):
        annotations = (request_state.annotations or {}).get(self.scenario_name) or {}
        completions = request_state.result.completions if request_state.result else []
        response = completions[0].text if completions else ""
        # A judge whose reply HELM's annotator dropped has no entry; the used replies go through the shared rules.
        replies = {j: None if annotations.get(j) is None else json.dumps(annotations[j]) for j in self.jury["judges"]}
        counts = jury_score(self.jury, response, replies)
        stats = [Stat(MetricName(f"clinreg_jury_{key}")).add(float(counts[key]))
                 for key in ("replies_dropped", "ratings_missing", "ratings_irregular", "default_used")]
        if self.replacements:  # judges standing in for the record's or for retired ones: the score says how many
            stats.append(Stat(MetricName("clinreg_judges_replaced")).add(float(len(self.replacements))))
        return stats


def judge_models(entry, judges=None):
    """HELM's annotator models for a jury: the judges file given (HELM's judges.yaml format) by the run entry's
    `judges=` or $CLINREG_HELM_JUDGES, else the record's judges (MedHELM's three, on HELM's stanfordhealthcare
    deployments, unless the record names others)."""
    from helm.benchmark.annotation.model_as_judge import AnnotatorModelInfo

    path = judges or os.environ.get("CLINREG_HELM_JUDGES")
    if path:
        from helm.benchmark.run_specs.medhelm_run_specs import get_annotator_models_from_config

        return get_annotator_models_from_config(path)
    return {j["name"]: AnnotatorModelInfo(model_name=j["model"], model_deployment=j.get("helm_deployment")
                                          or j["model"])
            for j in entry["scoring"]["jury"]["judges"]}


def text_specs(mapping, entry, judges=None):
    """(annotator specs, metric specs) of a free-text mapping: HELM's own classes, named by the record."""
    scoring = entry.get("scoring")
    basic = get_basic_metric_specs(["f1_score"])
    if scoring is None:
        return [], basic
    if scoring["method"] == "jury":
        annotator = scoring["jury"]["helm_annotator"]
        models = judge_models(entry, judges)
        # HELM's annotator stores its ratings under its own name: the module's name without `_annotator`.
        scenario_name = annotator.rsplit(".", 2)[-2].removesuffix("_annotator")
        annotators = [AnnotatorSpec(class_name=annotator, args={"annotator_models": models})]
        # MedHELM's run specs pass default_score=1.0: an instance no judge rated scores 1.0, not HELM's 0.0.
        metrics = [MetricSpec(class_name="helm.benchmark.metrics.llm_jury_metrics.LLMJuryMetric",
                              args={"metric_name": entry["metric"], "scenario_name": scenario_name,
                                    "annotator_models": models, "default_score": JURY_DEFAULT_SCORE}),
                   MetricSpec(class_name=f"{__name__}.ClinregJuryCounts",
                              args={"mapping": mapping, "scenario_name": scenario_name, "judges": list(models),
                                    "replacements": judge_replacements(
                                        scoring["jury"], {j["name"]: j["model"] for j in scoring["jury"]["judges"]},
                                        {n: m.model_name for n, m in models.items()})})]
        return annotators, metrics + basic
    if scoring["method"] == "rubric":
        return rubric_specs(entry, basic, judges)
    annotators = []
    if scoring["method"] == "sql_execution":
        annotators = [AnnotatorSpec(class_name=f"{__name__}.ClinregSqlAnnotator", args={"mapping": mapping})]
    return annotators, [MetricSpec(class_name=scoring["helm_metric"], args={})] + basic


def medhelm_judges(path=None):
    """MedHELM's jury configuration: the file at `path` (a run entry's `judges=`, as medhelm's jury_config_path),
    else the judges.yaml medhelm installs (three judges, averaged by LLMJuryMetric)."""
    import importlib.resources

    import yaml

    if path is None:
        path = str(importlib.resources.files("helm.benchmark.scenarios.medhelm").joinpath("judges.yaml"))
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def rubric_specs(entry, basic, judges=None):
    """(annotator specs, metric specs) of rubric grading as medhelm 0.8.0's run spec builds them: medhelm's
    annotator for the benchmark with the judges of medhelm's judges.yaml (or of the file `judges` names), and
    HELM's LLMJuryMetric averaging them. Plain crfm-helm has no such annotator: the run then reports token F1
    only, and says so."""
    import importlib.util
    import re

    annotator = entry["scoring"]["rubric"]["helm_annotator"]
    if importlib.util.find_spec(annotator.rsplit(".", 1)[0]) is None:
        from helm.common.hierarchical_logger import hwarn

        hwarn(f"{annotator} is not installed (it comes with the medhelm package, not crfm-helm): "
              f"{entry['metric']} is not computed; score with the Inspect export's rubric_grader instead")
        return [], basic
    from helm.benchmark.annotation.model_as_judge import AnnotatorModelInfo

    models = {judge["name"]: AnnotatorModelInfo(model_name=judge["model"], model_deployment=judge["model_deployment"])
              for judge in medhelm_judges(judges)["judges"]}
    # The annotator's own name, under which it stores its grades: its class name in snake case, less `_annotator`.
    scenario_name = re.sub(r"(?<!^)(?=[A-Z])", "_", annotator.rsplit(".", 1)[1]).lower().removesuffix("_annotator")
    annotators = [AnnotatorSpec(class_name=annotator, args={"annotator_models": models})]
    # default_score 0.0, as medhelm 0.8.0's health_bench run specs pass it.
    metrics = [MetricSpec(class_name="helm.benchmark.metrics.llm_jury_metrics.LLMJuryMetric",
                          args={"metric_name": entry["metric"], "scenario_name": scenario_name,
                                "annotator_models": models, "default_score": 0.0})]
    return annotators, metrics + basic


@run_spec_function("clinreg")
def get_clinreg_spec(mapping: str, judges: str = None) -> RunSpec:
    entry = MAPPINGS[mapping]
    annotator_specs = []
    scenario_args = {"data_file": entry["data_file"]}
    if (entry.get("scoring") or {}).get("method") == "rubric":
        scenario_args["mapping"] = mapping
    scenario_spec = ScenarioSpec(class_name=f"{__name__}.ClinregJsonlScenario", args=scenario_args)
    settings = entry.get("generation") or {}
    if entry["kind"] == "choice":
        # HELM's joint multiple-choice adapter with every setting of the record: the instructions (MedHELM's, or
        # clinreg's letter instruction where the record gives none), the question, a line break, the lettered
        # options and `Answer:`; temperature and stop sequences as given (HELM's helper would fix them).
        adapter_spec = AdapterSpec(method=ADAPT_MULTIPLE_CHOICE_JOINT, instructions=entry["closed_instructions"] + "\n",
                                   input_prefix="", input_suffix="\n", output_prefix="Answer: ", output_suffix="\n",
                                   max_train_instances=0, num_outputs=settings.get("num_outputs", 1),
                                   max_tokens=settings.get("max_tokens", 1),
                                   temperature=settings.get("temperature", 0.0),
                                   stop_sequences=settings.get("stop", ["\n"]))
        metric_specs = get_exact_match_metric_specs()
    elif ((entry.get("scoring") or {}).get("rubric") or {}).get("conversation_column"):
        # A conversation goes as chat messages, as medhelm's health_bench run spec sends it (ADAPT_CHAT, whose
        # adapter sends the turns and not the instructions).
        adapter_spec = AdapterSpec(method=ADAPT_CHAT, global_prefix="", global_suffix="",
                                   instructions=settings.get("instructions", ""), input_prefix="", input_suffix="",
                                   output_prefix="", output_suffix="", instance_prefix="", max_train_instances=0,
                                   num_outputs=settings.get("num_outputs", 1),
                                   max_tokens=settings.get("max_tokens", 512),
                                   temperature=settings.get("temperature", 0.0),
                                   stop_sequences=settings.get("stop") or [])
        annotator_specs, metric_specs = text_specs(mapping, entry, judges)
    else:
        adapter_spec = get_generation_adapter_spec(
            instructions=settings.get("instructions", ""), input_noun=None, output_noun="Answer",
            max_tokens=settings.get("max_tokens", 1024 if entry["kind"] == "text" else 64),
            temperature=settings.get("temperature", 0.0), stop_sequences=settings.get("stop"), max_train_instances=0,
            num_outputs=settings.get("num_outputs", 1))
        if entry["kind"] == "number":
            metric_specs = [MetricSpec(class_name=f"{__name__}.ClinregNumberMetric", args={"name": entry["metric"]})]
            metric_specs += get_basic_metric_specs([])
        else:
            annotator_specs, metric_specs = text_specs(mapping, entry, judges)
    return RunSpec(name=f"clinreg:mapping={mapping}", scenario_spec=scenario_spec, adapter_spec=adapter_spec,
                   metric_specs=metric_specs, annotators=annotator_specs, groups=[entry["run_group"]])
