

# ----------------------------------------------------------------------------------------- HELM
# A scenario that reads one exported JSON-lines file, and the run spec function `clinreg` that the run
# entries name. HELM must import this module before it reads the run entries (see the export's README):
# the code is not part of HELM, and clinreg cannot test it without HELM installed.

import json
import os

from helm.benchmark.adaptation.adapter_spec import ADAPT_MULTIPLE_CHOICE_JOINT
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
                    references = [Reference(Output(text=text), tags=[CORRECT_TAG] if i == gold["index"] else [])
                                  for i, text in enumerate(doc["choices"])]
                    text = doc["input"]
                else:
                    references = [Reference(Output(text=gold["value"]), tags=[CORRECT_TAG])]
                    text = doc["prompt"]
                instances.append(Instance(input=Input(text=text), references=references, split=TEST_SPLIT, id=doc["id"]))
        return instances


@run_spec_function("clinreg")
def get_clinreg_spec(mapping: str) -> RunSpec:
    entry = MAPPINGS[mapping]
    scenario_spec = ScenarioSpec(class_name=f"{__name__}.ClinregJsonlScenario", args={"data_file": entry["data_file"]})
    if entry["kind"] == "choice":
        adapter_spec = get_multiple_choice_adapter_spec(method=ADAPT_MULTIPLE_CHOICE_JOINT, instructions="",
                                                        input_noun=None, output_noun="Answer", max_train_instances=0)
        metric_specs = get_exact_match_metric_specs()
    else:
        adapter_spec = get_generation_adapter_spec(instructions="", input_noun=None, output_noun="Answer",
                                                   max_tokens=1024 if entry["kind"] == "text" else 64, max_train_instances=0)
        metric_specs = get_exact_match_metric_specs() if entry["kind"] == "number" else get_basic_metric_specs(["f1_score"])
    return RunSpec(name=f"clinreg:mapping={mapping}", scenario_spec=scenario_spec, adapter_spec=adapter_spec,
                   metric_specs=metric_specs, groups=[entry["run_group"]])
