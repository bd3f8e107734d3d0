

# ----------------------------------------------------------------------------------------- HELM
# A scenario that reads one exported JSON-lines file, the metric that scores number tasks by the shared range
# rule under the benchmark's own metric name, and the run spec function `clinreg` that the run entries name.
# HELM imports this module through `helm-run --plugins clinreg_helm` (see the export's README).

import json
import os

from helm.benchmark.adaptation.adapter_spec import ADAPT_MULTIPLE_CHOICE_JOINT
from helm.benchmark.metrics.metric import Metric, MetricSpec
from helm.benchmark.metrics.metric_name import MetricName
from helm.benchmark.metrics.statistic import Stat
from helm.benchmark.adaptation.common_adapter_specs import get_generation_adapter_spec, get_multiple_choice_adapter_spec
from helm.benchmark.metrics.common_metric_specs import get_basic_metric_specs, get_exact_match_metric_specs
from helm.benchmark.run_spec import RunSpec, run_spec_function
from helm.benchmark.scenarios.scenario import CORRECT_TAG, TEST_SPLIT, Input, Instance, Output, Reference, Scenario, ScenarioSpec

HERE = os.path.dirname(os.path.abspath(__file__))


class ClinregJsonlScenario(Scenario):
    """Instances of one clinreg mapping, read from the export's data/<dataset>/<mapping>.jsonl."""

    name = "clinreg"
    description = "A clinreg mapping exported as JSON lines"
    tags = ["clinreg"]

    def __init__(self, data_file: str):
        super().__init__()
        self.data_file = data_file

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
                instances.append(Instance(input=Input(text=text), references=references, split=TEST_SPLIT, id=doc["id"],
                                          extra_data={"gold": gold}))
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


LETTER_INSTRUCTION = "Answer with the letter of the correct option."


@run_spec_function("clinreg")
def get_clinreg_spec(mapping: str) -> RunSpec:
    entry = MAPPINGS[mapping]
    scenario_spec = ScenarioSpec(class_name=f"{__name__}.ClinregJsonlScenario", args={"data_file": entry["data_file"]})
    if entry["kind"] == "choice":
        # One instruction, asking for the letter HELM scores; a line break between the question and option A.
        adapter_spec = get_multiple_choice_adapter_spec(method=ADAPT_MULTIPLE_CHOICE_JOINT, instructions=LETTER_INSTRUCTION,
                                                        input_noun=None, output_noun="Answer", max_train_instances=0,
                                                        input_suffix="\n")
        metric_specs = get_exact_match_metric_specs()
    else:
        adapter_spec = get_generation_adapter_spec(instructions="", input_noun=None, output_noun="Answer",
                                                   max_tokens=1024 if entry["kind"] == "text" else 64, max_train_instances=0)
        if entry["kind"] == "number":
            metric_specs = [MetricSpec(class_name=f"{__name__}.ClinregNumberMetric", args={"name": entry["metric"]})]
            metric_specs += get_basic_metric_specs([])
        else:
            metric_specs = get_basic_metric_specs(["f1_score"])
    return RunSpec(name=f"clinreg:mapping={mapping}", scenario_spec=scenario_spec, adapter_spec=adapter_spec,
                   metric_specs=metric_specs, groups=[entry["run_group"]])
