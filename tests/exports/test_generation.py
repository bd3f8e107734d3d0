"""Every export carries the record's generation settings (issue 37, item 3), and every record's settings are
MedHELM's, as read from its run specs into medhelm_generation.yaml (see that file's header for the source).

The harnesses are not needed: the exported Inspect and HELM files run here against stand-ins for inspect_ai and
HELM that record what the task or run spec is given. tests/interop runs the real harnesses.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import json
import importlib.machinery
import sys
import types
from pathlib import Path

import pytest
import yaml

from clinreg.core.store import load_registry
from clinreg.exports import helm as helm_export
from clinreg.exports import inspect_ai as inspect_export
from clinreg.exports.contents import ExportReport, MappingExport
from clinreg.exports.harness import gold_kind, scoring_spec, generation_spec
from clinreg.exports.lm_eval import task_config

ROOT = Path(__file__).resolve().parents[2]
EXTRACT = yaml.safe_load((Path(__file__).parent / "medhelm_generation.yaml").read_text(encoding="utf-8"))
REGISTRY = load_registry(ROOT)
RECORDS = [(dataset_id, mapping) for dataset_id, record in sorted(REGISTRY.datasets.items())
           for mapping in record.mappings]


def report_of(tmp_path: Path, harness: str) -> ExportReport:
    """An export report holding every mapping of the registry, as the export builds it (no instances needed)."""
    report = ExportReport(harness, tmp_path / harness, canary="canary")
    for dataset_id, mapping in RECORDS:
        report.mappings.append(MappingExport(dataset_id, mapping.id, gold_kind(mapping.label),
                                             f"data/{mapping.id}.jsonl", 1, "public", [], [], mapping.metric.name,
                                             scoring_spec(dataset_id, mapping), generation_spec(mapping)))
    return report


def recording_class(name: str) -> type:
    """A stand-in for a harness class: an instance is the dict of what it was built with."""

    def init(self, *args, **kwargs):
        dict.__init__(self, {"__call__": name, "args": args, **kwargs})
        self.__dict__.update(kwargs)

    return type(name, (dict,), {"__init__": init})


def recording_function(name: str):
    """A stand-in for a harness function: returns what it was called with; as a decorator, leaves the function be."""

    def call(*args, **kwargs):
        if name in {"task", "metric", "solver"} and len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        if name in {"scorer", "metric", "run_spec_function"}:
            return lambda function: function
        if name.endswith("_metric_specs"):  # HELM's lists of metric specs
            return []
        return {"__call__": name, "args": args, **kwargs}

    return call


def stand_in(attr: str):
    if attr.startswith("__"):
        raise AttributeError(attr)
    return recording_class(attr) if attr[0].isupper() else recording_function(attr)


class StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Modules under the given top-level names whose every attribute is a recording class or function."""

    def __init__(self, *tops: str):
        self.tops = tops

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.tops:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = stand_in
        return module

    def exec_module(self, module):
        pass


@pytest.fixture
def stand_ins():
    finder = StandIns("inspect_ai", "helm")
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n.split(".")[0] in finder.tops]:
            del sys.modules[name]


def run_file(path: Path) -> dict:
    namespace: dict = {"__name__": "clinreg_generated", "__file__": str(path)}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return namespace


def test_every_record_gives_generation_settings():
    assert RECORDS
    for dataset_id, mapping in RECORDS:
        assert mapping.generation is not None, dataset_id
        assert mapping.generation.temperature == 0.0, dataset_id


def test_lm_eval_tasks_carry_the_records_settings(tmp_path):
    for m, (dataset_id, mapping) in zip(report_of(tmp_path, "lm-eval").mappings, RECORDS):
        task = task_config(m, tmp_path / m.data_file, "canary")
        g = mapping.generation
        if m.kind == "choice":  # scored by likelihood: nothing is generated
            assert "generation_kwargs" not in task and "description" not in task, dataset_id
            continue
        assert task["generation_kwargs"] == {"until": g.stop, "do_sample": False, "temperature": g.temperature,
                                             "max_gen_toks": g.max_tokens}, dataset_id
        assert task.get("description") == (g.instructions + "\n" if g.instructions else None), dataset_id


def test_inspect_tasks_carry_the_records_settings(tmp_path, stand_ins, monkeypatch):
    template = tmp_path / "healthbench_eval.py"  # a rubric task reads its grader template when it is made
    template.write_text('GRADER_TEMPLATE = "<<conversation>> <<rubric_item>>"\n', encoding="utf-8")
    monkeypatch.setenv("CLINREG_HEALTHBENCH_GRADER_TEMPLATE", str(template))
    report = report_of(tmp_path, "inspect")
    staged = tmp_path / "inspect"
    staged.mkdir()
    inspect_export.write(staged, report, REGISTRY)
    module = run_file(staged / "clinreg_tasks.py")
    module["read_samples"] = lambda data_file, conversation=None: []
    for m, (dataset_id, mapping) in zip(report.mappings, RECORDS):
        g = mapping.generation
        made = module[m.name]()
        config = made["config"]
        assert config["temperature"] == g.temperature, dataset_id
        if m.kind == "choice":
            assert "max_tokens" not in config and made["solver"]["__call__"] == "multiple_choice", dataset_id
            continue
        assert config["max_tokens"] == g.max_tokens and config["stop_seqs"] == (g.stop or None), dataset_id
        if g.instructions and mapping.scoring is not None and mapping.scoring.rubric is not None \
                and mapping.scoring.rubric.conversation_column:  # first, as simple-evals' sampler sends it
            first, _ = made["solver"]
            state = types.SimpleNamespace(messages=[module["ChatMessageSystem"](content="the conversation's own")])
            asyncio.run(first(state, None))
            assert [m["content"] for m in state.messages] == [g.instructions, "the conversation's own"], dataset_id
        elif g.instructions:
            first, _ = made["solver"]
            assert first == {"__call__": "system_message", "args": (g.instructions,)}, dataset_id
        else:
            assert made["solver"]["__call__"] == "generate", dataset_id


def test_helm_run_specs_carry_the_records_settings(tmp_path, stand_ins):
    report = report_of(tmp_path, "helm")
    staged = tmp_path / "helm"
    staged.mkdir()
    helm_export.write(staged, report, REGISTRY)
    module = run_file(staged / "clinreg_helm.py")
    judges = tmp_path / "judges.yaml"  # a jury file in medhelm's format, for the rubric benchmarks
    judges.write_text("judges: [{name: a, model: m/a, model_deployment: d/a}]\n", encoding="utf-8")
    for m, (dataset_id, mapping) in zip(report.mappings, RECORDS):
        g = mapping.generation
        rubric = mapping.scoring is not None and mapping.scoring.rubric is not None
        adapter = module["get_clinreg_spec"](m.mapping, str(judges) if rubric else None)["adapter_spec"]
        assert adapter["max_tokens"] == g.max_tokens, dataset_id
        if m.kind == "choice":  # MedHELM's instructions, not clinreg's
            assert adapter["__call__"] == "get_multiple_choice_adapter_spec", dataset_id
            assert adapter["instructions"] == (g.instructions or module["LETTER_INSTRUCTION"]), dataset_id
            continue
        if rubric and mapping.scoring.rubric.conversation_column:  # medhelm's chat adapter, with every setting
            assert adapter["__call__"] == "AdapterSpec" and adapter["num_outputs"] == 1, dataset_id
        else:
            assert adapter["__call__"] == "get_generation_adapter_spec", dataset_id
        assert adapter["temperature"] == g.temperature and adapter["stop_sequences"] == g.stop, dataset_id
        assert adapter["instructions"] == (g.instructions or ""), dataset_id


def test_records_match_medhelms_run_specs():
    """Each record naming a MedHELM run spec gives the values that run spec sets (read into the extract table)."""
    specs = EXTRACT["run_specs"]
    named = [(dataset_id, mapping.generation) for dataset_id, mapping in RECORDS if mapping.generation.run_spec]
    assert named
    for dataset_id, g in named:
        spec = specs[g.run_spec]
        assert (g.temperature, g.max_tokens, g.stop) == (spec["temperature"], spec["max_tokens"],
                                                         spec["stop_sequences"]), dataset_id
        assert (g.instructions or "") == spec["instructions"], dataset_id
        assert ("63754d05" if spec["source"] == "helm@63754d05" else "medhelm 0.8.0") in g.source, dataset_id
        if g.reasoning_max_tokens is not None:
            assert g.reasoning_max_tokens == EXTRACT["reasoning_max_tokens"], dataset_id


def test_a_record_without_a_run_spec_says_why():
    for dataset_id, mapping in RECORDS:
        g = mapping.generation
        if g.run_spec is None:
            assert "no MedHELM run spec" in g.source, dataset_id
        else:
            assert g.run_spec in EXTRACT["run_specs"], dataset_id


def test_the_extract_matches_medhelms_files_where_present(tmp_path):
    """Remake the extract table from HELM's run specs at 63754d05 and medhelm 0.8.0's, where this machine has them."""
    import json
    import subprocess

    helm_git = Path("/work/.mirror/stanford-crfm+helm/repo")
    medhelm = Path("/work/research/medhelm/helm/benchmark/run_specs/medhelm_run_specs.py")
    if not helm_git.exists() or not medhelm.exists():
        pytest.skip("HELM's git mirror or medhelm 0.8.0 is absent")
    pinned = tmp_path / "medhelm_run_specs.py"
    pinned.write_text(subprocess.run(["git", "-C", str(helm_git), "show",
                                      "63754d05:src/helm/benchmark/run_specs/medhelm_run_specs.py"],
                                     capture_output=True, text=True, check=True).stdout, encoding="utf-8")
    script = Path(__file__).parent / "medhelm_generation_extract.py"
    read = {}
    for label, path in (("medhelm-0.8.0", medhelm), ("helm@63754d05", pinned)):
        done = subprocess.run([sys.executable, str(script), str(path)], capture_output=True, text=True, check=True)
        read.update({name: (label, v) for name, v in json.loads(done.stdout).items() if "error" not in v})
    for name, spec in EXTRACT["run_specs"].items():
        label, values = read[name]
        assert spec["source"] == label, name
        assert (spec["temperature"], spec["max_tokens"], spec["stop_sequences"], spec["instructions"]) == (
            values["temperature"], values["max_tokens"], values["stop_sequences"], values["instructions"]), name


# ------------------------------------------------------------------------------------------------ judges (item 6)

def _with_replacement(report: ExportReport) -> MappingExport:
    """The report's first jury task, its `gpt` judge made to replace a retired model."""
    m = next(m for m in report.mappings if m.scoring and m.scoring["method"] == "jury")
    judges = m.scoring["jury"]["judges"]
    judges[0] |= {"model": "openai/gpt-4o-2024-08-06", "inspect_model": "openai/gpt-4o-2024-08-06",
                  "replaces": "openai/gpt-4o-2024-05-13", "replaced_because": "retired by the provider (test)"}
    return m


def test_a_replacement_needs_its_reason():
    from clinreg.core.model import Judge

    with pytest.raises(ValueError):
        Judge(name="gpt", model="openai/gpt-4o-2024-08-06", replaces="openai/gpt-4o-2024-05-13")
    assert Judge(name="gpt", model="m2", replaces="m1", replaced_because="retired").replaces == "m1"


def test_the_readme_names_each_judges_serving_and_replacement(tmp_path):
    from clinreg.exports.harness import _judge_lines
    from clinreg.reports.markdown import escape

    report = report_of(tmp_path, "inspect")
    served = [j for _, mapping in RECORDS if mapping.scoring and mapping.scoring.jury
              for j in mapping.scoring.jury.judges if j.serving]
    assert served  # the Inspect Llama judge is Together's Turbo serving
    assert all(escape(j.serving) in _judge_lines(report) for j in served)
    m = _with_replacement(report)
    lines = _judge_lines(report)
    assert "REPLACES openai/gpt-4o-2024-05-13" in lines and escape(m.name) in lines


def test_the_inspect_jury_score_says_which_judges_were_replaced(tmp_path, stand_ins):
    import asyncio
    import json
    from types import SimpleNamespace

    report = report_of(tmp_path, "inspect")
    m = _with_replacement(report)
    staged = tmp_path / "inspect"
    staged.mkdir()
    inspect_export.write(staged, report, REGISTRY)
    module = run_file(staged / "clinreg_tasks.py")
    axes = [axis["id"] for axis in m.scoring["jury"]["axes"]]

    class Judge:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return self.name

        async def generate(self, prompt, config=None):
            return SimpleNamespace(completion=json.dumps({a: {"score": 4, "explanation": "ok"} for a in axes}))

    def run(judges=None):
        module["get_model"] = lambda name=None, role=None, default=None: Judge(name or default)
        score = module["jury"](m.name, judges)
        state = SimpleNamespace(output=SimpleNamespace(completion="A reply."), input_text="A question.")
        return asyncio.run(score(state, SimpleNamespace(text="A reference.")))["metadata"]["jury"]

    jury = run()
    assert jury["replacements"] == {"gpt": {"replaces": "openai/gpt-4o-2024-05-13", "by": "openai/gpt-4o-2024-08-06",
                                            "why": "retired by the provider (test)"}}
    by_run = run("mockllm/model")
    assert set(by_run["replacements"]) == {"gpt", "llama", "claude"}
    assert all(r["by"] == "mockllm/model" for r in by_run["replacements"].values())


def test_the_helm_jury_metric_carries_the_replacements(tmp_path, stand_ins):
    report = report_of(tmp_path, "helm")
    m = _with_replacement(report)
    staged = tmp_path / "helm"
    staged.mkdir()
    helm_export.write(staged, report, REGISTRY)
    module = run_file(staged / "clinreg_helm.py")
    metrics = module["get_clinreg_spec"](m.mapping)["metric_specs"]
    (counts,) = [spec for spec in metrics if spec["class_name"].endswith("ClinregJuryCounts")]
    assert counts["args"]["replacements"]["gpt"]["replaces"] == "openai/gpt-4o-2024-05-13"
    other = next(x for x in report.mappings if x.scoring and x.scoring["method"] == "jury" and x is not m)
    (plain,) = [spec for spec in module["get_clinreg_spec"](other.mapping)["metric_specs"]
                if spec["class_name"].endswith("ClinregJuryCounts")]
    assert plain["args"]["replacements"] == {}


@pytest.mark.parametrize("harness", ["helm", "inspect", "lm-eval"])
def test_the_readme_says_what_each_task_sends_and_how_to_run_medhelms_own_entry(tmp_path, harness):
    """What the export's README tells a user, per task: what is sent, what differs from MedHELM's run entry,
    and MedHELM's own run entry where the record names one (issue 52, points 4 and 5)."""
    from clinreg.exports.harness import _generation_lines
    from clinreg.reports.markdown import code, escape

    text = _generation_lines(report_of(tmp_path, harness))
    lines = dict(line[2:].split(":", 1) for line in text.splitlines())
    for m, (dataset_id, mapping) in zip(report_of(tmp_path, harness).mappings, RECORDS):
        g, line = mapping.generation, lines[escape(m.name)]
        assert " sends " in line and escape("Differs from MedHELM's run entry: ") in line, dataset_id
        if g.run_spec:
            assert code(f"helm-run --run-entries {g.run_spec}:model=MODEL") in line, dataset_id
        else:
            assert "No MedHELM run entry to compare with" in line, dataset_id
        sends_instructions = g.instructions and (m.kind != "choice" or harness == "helm")
        chat_without_instructions = harness == "helm" and mapping.scoring is not None and \
            mapping.scoring.rubric is not None and mapping.scoring.rubric.conversation_column
        if sends_instructions and not chat_without_instructions:
            assert escape(f"MedHELM's instructions {json.dumps(g.instructions)}") in line, dataset_id
        if harness == "lm-eval" and m.kind == "choice":
            assert escape("not MedHELM-comparable") in line, dataset_id
        if harness == "inspect" and m.kind == "choice":
            assert "are not sent" in line, dataset_id
