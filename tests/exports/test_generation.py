"""Every export sends the record's generation settings (issue 37, item 3; issue 53, items 10-13), and every record's
settings are MedHELM's: read from medhelm 0.8.0's run specs (the wheel, where CLINREG_MEDHELM_WHEEL names it) and
from the recorded extract medhelm_generation.yaml (see that file's header for the source).

The harnesses are not needed: the task files each export writes are read back (lm-eval's YAML), or run here against
stand-ins for inspect_ai and HELM that record what the task or run spec is given. tests/interop runs the real
harnesses.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import json
import importlib.machinery
import os
import re
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest
import yaml

from clinreg.core.store import load_registry
from clinreg.exports import helm as helm_export
from clinreg.exports import inspect_ai as inspect_export
from clinreg.exports import lm_eval as lm_eval_export
from clinreg.exports.contents import LETTER_INSTRUCTION, LETTER_PATTERN, ExportReport, MappingExport
from clinreg.exports.harness import ExportProblem, export, gold_kind, scoring_spec, generation_spec

ROOT = Path(__file__).resolve().parents[2]
EXTRACT = yaml.safe_load((Path(__file__).parent / "medhelm_generation.yaml").read_text(encoding="utf-8"))
EXTRACT_SCRIPT = Path(__file__).parent / "medhelm_generation_extract.py"
REGISTRY = load_registry(ROOT)
RECORDS = [(dataset_id, mapping) for dataset_id, record in sorted(REGISTRY.datasets.items())
           for mapping in record.mappings]
# What the exports write: every mapping but those MedHELM runs as an agent, which no export can run.
EXPORTED = [(dataset_id, mapping) for dataset_id, mapping in RECORDS if mapping.generation.adapter != "agent"]
# HELM's adapter methods (adapter_spec.py) as the records name them.
ADAPTERS = {"generation": "generation", "multiple_choice_joint": "multiple_choice", "chat": "chat",
            "health_admin_bench": "agent"}


def closed_instructions(g) -> str:
    """What a closed task's prompt opens with: MedHELM's instructions where its adapter is multiple choice."""
    return g.instructions if g.adapter == "multiple_choice" and g.instructions else LETTER_INSTRUCTION


def report_of(tmp_path: Path, harness: str) -> ExportReport:
    """An export report holding every mapping of the registry, as the export builds it (no instances needed)."""
    report = ExportReport(harness, tmp_path / harness, canary="canary")
    for dataset_id, mapping in EXPORTED:
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


WRITERS = {"helm": helm_export.write, "inspect": inspect_export.write, "lm-eval": lm_eval_export.write}


def written_module(tmp_path: Path, harness: str) -> tuple[ExportReport, dict]:
    """The report of every exported mapping and the Python file the Inspect or HELM export writes for it, run."""
    report = report_of(tmp_path, harness)
    staged = tmp_path / harness
    staged.mkdir()
    WRITERS[harness](staged, report, REGISTRY)
    return report, run_file(staged / {"inspect": "clinreg_tasks.py", "helm": "clinreg_helm.py"}[harness])


def test_every_record_gives_generation_settings():
    assert RECORDS
    for dataset_id, mapping in RECORDS:
        assert mapping.generation is not None, dataset_id
        assert mapping.generation.temperature == 0.0, dataset_id


class TaskLoader(yaml.SafeLoader):
    """lm-eval's task YAML, its `!function` scalars read as `!function <name>` strings."""


TaskLoader.add_constructor("!function", lambda loader, node: "!function " + loader.construct_scalar(node))


def written_lm_eval_tasks(tmp_path: Path, choice_scoring: str = "generate") -> tuple[ExportReport, dict[str, dict]]:
    """The export report and each task file lm-eval's writer wrote (name -> its YAML, and `_text` its whole text)."""
    report = report_of(tmp_path, "lm-eval")
    report.choice_scoring = choice_scoring
    staged = tmp_path / f"lm-eval-{choice_scoring}"
    staged.mkdir()
    lm_eval_export.write(staged, report, REGISTRY)
    tasks = {}
    for m in report.mappings:
        text = (staged / "tasks" / f"{m.name}.yaml").read_text(encoding="utf-8")
        tasks[m.name] = dict(yaml.load(text, Loader=TaskLoader), _text=text)
    return report, tasks


def requested(g):
    """(stop sequences, outputs) MedHELM's requests carry: HELM's joint multiple-choice adapter sends one completion
    and no stop sequence whatever its spec says (crfm-helm's MultipleChoiceJointAdapter; test_helm.py reads it off
    HELM's own requests)."""
    return ([], 1) if g.adapter == "multiple_choice" else (list(g.stop), g.num_outputs)


def test_lm_eval_tasks_carry_the_records_settings(tmp_path):
    report, tasks = written_lm_eval_tasks(tmp_path)
    assert len(report.mappings) == len(EXPORTED)
    for m, (dataset_id, mapping) in zip(report.mappings, EXPORTED):
        task, g = tasks[m.name], mapping.generation
        # every task generates, with the record's stop sequences, output limit and temperature
        assert task["output_type"] == "generate_until", dataset_id
        stop, outputs = requested(g)
        assert task["generation_kwargs"] == {"until": stop, "do_sample": False, "temperature": g.temperature,
                                             "max_gen_toks": g.max_tokens}, dataset_id
        assert task["metadata"]["medhelm_comparable"] is True, dataset_id
        not_sent = task["metadata"]["settings_not_sent"]
        assert ("num_outputs" in not_sent) == (outputs != 1), dataset_id
        assert ("reasoning_max_tokens" in not_sent) == (g.reasoning_max_tokens is not None), dataset_id
        assert not_sent == m.not_sent == report.to_dict()["mappings"][report.mappings.index(m)]["settings_not_sent"]
        if m.kind == "choice":  # MedHELM's instructions, the letter filtered out, exact match on the gold letter
            assert task["description"] == closed_instructions(g) + "\n\n", dataset_id
            assert "{{input}}" in task["doc_to_text"] and task["doc_to_text"].endswith("Answer:"), dataset_id
            assert task["doc_to_target"] == "{{gold.letter}}", dataset_id
            (letter,) = task["filter_list"]
            assert letter["filter"][0] == {"function": "regex", "regex_pattern": LETTER_PATTERN, "group_select": 0,
                                           "fallback": "[invalid]"}, dataset_id
            assert task["process_results"] == "!function utils.process_letter", dataset_id
            assert [x["metric"] for x in task["metric_list"]] == ["exact_match", "score"], dataset_id
            assert ("instructions" in not_sent) == bool(g.instructions and g.adapter != "multiple_choice"), dataset_id
        else:
            assert task.get("description") == (g.instructions + "\n" if g.instructions else None), dataset_id


def test_lm_eval_letter_filter_reads_a_letter_as_helms_exact_match_does():
    """The regex of the closed tasks' filter (lm-eval's RegexFilter: findall, the first match) keeps a reply that is one
    letter once stripped, as HELM's exact match compares the stripped reply with the letter, and nothing else."""
    pattern = re.compile(LETTER_PATTERN)
    assert [pattern.findall(reply) for reply in ("B", " C", "A\n", "\tD ")] == [["B"], ["C"], ["A"], ["D"]]
    assert all(pattern.findall(reply) == [] for reply in ("", "A.", "The answer is B", "AB", "a", "(C)", "A B"))


def test_lm_eval_loglikelihood_variant_says_it_is_not_medhelm_comparable(tmp_path):
    report, tasks = written_lm_eval_tasks(tmp_path, "loglikelihood")
    closed = [m for m in report.mappings if m.kind == "choice"]
    assert closed and report.to_dict()["choice_scoring"] == "loglikelihood"
    manifest = {entry["name"]: entry for entry in report.to_dict()["mappings"]}
    for m in report.mappings:
        task = tasks[m.name]
        if m.kind != "choice":  # the other tasks are as in the default export
            assert task["output_type"] == "generate_until" and manifest[m.name]["medhelm_comparable"] is True
            continue
        assert task["output_type"] == "multiple_choice" and "generation_kwargs" not in task, m.name
        assert task["metadata"]["medhelm_comparable"] is False and manifest[m.name]["medhelm_comparable"] is False
        assert "all" in task["metadata"]["settings_not_sent"] and "all" in manifest[m.name]["settings_not_sent"]
        assert "NOT MedHELM-comparable" in task["_text"], m.name
        # never `acc` or `exact_match`, which `clinreg results import` reads as MedHELM's exact match
        assert [x["metric"] for x in task["metric_list"]] == ["acc_loglikelihood", "score"], m.name


def test_inspect_tasks_carry_the_records_settings(tmp_path, stand_ins, monkeypatch):
    template = tmp_path / "healthbench_eval.py"  # a rubric task reads its grader template when it is made
    template.write_text('GRADER_TEMPLATE = "<<conversation>> <<rubric_item>>"\n', encoding="utf-8")
    monkeypatch.setenv("CLINREG_HEALTHBENCH_GRADER_TEMPLATE", str(template))
    report, module = written_module(tmp_path, "inspect")
    read = {}
    module["read_samples"] = lambda data_file, conversation=None, instructions=None: read.update(
        instructions=instructions) or []
    for m, (dataset_id, mapping) in zip(report.mappings, EXPORTED):
        g = mapping.generation
        made = module[m.name]()
        config = made["config"]
        assert config["temperature"] == g.temperature and config["max_tokens"] == g.max_tokens, dataset_id
        stop, outputs = requested(g)
        assert config["stop_seqs"] == (stop or None), dataset_id
        assert config["num_choices"] == (outputs if outputs > 1 else None), dataset_id
        assert made["metadata"]["settings_not_sent"] == m.not_sent, dataset_id
        assert ("num_outputs" in m.not_sent) == (outputs != 1), dataset_id
        if m.kind == "choice":  # MedHELM's instructions in the prompt, one letter generated, HELM's exact match
            assert made["solver"] == {"__call__": "generate", "args": ()}, dataset_id
            assert made["scorer"].__qualname__.startswith("letter_match."), dataset_id
            assert read["instructions"] == closed_instructions(g), dataset_id
            continue
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


def test_inspect_closed_prompt_and_letter_match(tmp_path, stand_ins):
    """The closed prompt as HELM lays it out, and the scorer's reading of a reply (HELM's exact match)."""
    import asyncio
    from types import SimpleNamespace

    report, module = written_module(tmp_path, "inspect")
    assert module["closed_prompt"]("Give a letter.", "Which?", ["one", "two"]) == \
        "Give a letter.\n\nWhich?\nA. one\nB. two\nAnswer:"
    module["CORRECT"], module["INCORRECT"] = "C", "I"
    score = module["letter_match"]()

    def scored(reply):
        state = SimpleNamespace(output=SimpleNamespace(completion=reply))
        return asyncio.run(score(state, SimpleNamespace(text="B")))["value"]

    assert [scored(reply) for reply in ("B", " B\n", "A", "B.", "The answer is B", "")] == ["C", "C", "I", "I", "I",
                                                                                           "I"]


def test_helm_run_specs_carry_the_records_settings(tmp_path, stand_ins):
    report, module = written_module(tmp_path, "helm")
    judges = tmp_path / "judges.yaml"  # a jury file in medhelm's format, for the rubric benchmarks
    judges.write_text("judges: [{name: a, model: m/a, model_deployment: d/a}]\n", encoding="utf-8")
    for m, (dataset_id, mapping) in zip(report.mappings, EXPORTED):
        g = mapping.generation
        rubric = mapping.scoring is not None and mapping.scoring.rubric is not None
        adapter = module["get_clinreg_spec"](m.mapping, str(judges) if rubric else None)["adapter_spec"]
        assert adapter["max_tokens"] == g.max_tokens and adapter["temperature"] == g.temperature, dataset_id
        assert adapter["stop_sequences"] == g.stop and adapter["num_outputs"] == g.num_outputs, dataset_id
        assert set(m.not_sent) <= {"reasoning_max_tokens", "instructions"}, dataset_id
        if m.kind == "choice":  # MedHELM's instructions, not clinreg's, in HELM's joint multiple-choice adapter
            assert adapter["__call__"] == "AdapterSpec" and adapter["output_prefix"] == "Answer: ", dataset_id
            assert adapter["instructions"] == closed_instructions(g) + "\n", dataset_id
            continue
        if rubric and mapping.scoring.rubric.conversation_column:  # medhelm's chat adapter, with every setting
            assert adapter["__call__"] == "AdapterSpec", dataset_id
        else:
            assert adapter["__call__"] == "get_generation_adapter_spec", dataset_id
        assert adapter["instructions"] == (g.instructions or ""), dataset_id


def test_an_agent_benchmark_is_not_exported_and_says_why(tmp_path):
    agents = [dataset_id for dataset_id, mapping in RECORDS if mapping.generation.adapter == "agent"]
    assert agents  # HealthAdminBench: medhelm 0.8.0 runs it with its agent adapter
    for dataset_id in agents:
        with pytest.raises(ExportProblem, match="agent adapter"):
            export(REGISTRY, "inspect", tmp_path / dataset_id, [dataset_id], data_dir=tmp_path)
        assert not (tmp_path / dataset_id).exists()
        record = REGISTRY.datasets[dataset_id]
        assert all("NOT RUNNABLE IN CLINREG" in (m.generation.note or "") for m in record.mappings), dataset_id


def _same_settings(dataset_id: str, g, spec: dict) -> None:
    """The record's generation block against one run spec's adapter settings (recorded by the extract script)."""
    assert ADAPTERS[spec["method"]] == g.adapter, dataset_id
    assert (g.temperature, g.max_tokens, g.stop, g.num_outputs) == (
        spec["temperature"], spec["max_tokens"], spec["stop_sequences"], spec["num_outputs"]), dataset_id
    if g.adapter == "agent":  # the adapter's instructions carry the harness's settings, not text for the model
        assert g.instructions is None and isinstance(json.loads(spec["instructions"]), dict), dataset_id
    else:
        assert (g.instructions or "") == spec["instructions"], dataset_id


def test_records_match_medhelms_run_specs():
    """Each record naming a MedHELM run spec gives the values that run spec sets (read into the extract table)."""
    specs = EXTRACT["run_specs"]
    named = [(dataset_id, mapping.generation) for dataset_id, mapping in RECORDS if mapping.generation.run_spec]
    assert named
    for dataset_id, g in named:
        spec = specs[g.run_spec]
        _same_settings(dataset_id, g, spec)
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


@pytest.fixture(scope="module")
def wheel_specs(tmp_path_factory) -> dict:
    """Every run spec function of the medhelm 0.8.0 wheel, run by the extract script: name -> adapter settings."""
    path = os.environ.get("CLINREG_MEDHELM_WHEEL")
    if not path or not Path(path).is_file():
        if os.environ.get("CLINREG_REQUIRE_MEDHELM_WHEEL"):
            pytest.fail("CLINREG_MEDHELM_WHEEL must name the medhelm 0.8.0 wheel here")
        pytest.skip("the medhelm 0.8.0 wheel is not here (set CLINREG_MEDHELM_WHEEL; .ci/run does)")
    source = tmp_path_factory.mktemp("medhelm") / "medhelm_run_specs.py"
    with zipfile.ZipFile(path) as wheel:
        source.write_bytes(wheel.read("helm/benchmark/run_specs/medhelm_run_specs.py"))
    done = subprocess.run([sys.executable, str(EXTRACT_SCRIPT), str(source)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def test_every_generation_block_matches_its_run_spec_in_medhelm_0_8_0(wheel_specs):
    """The records against medhelm 0.8.0's own run spec functions, run from the wheel: every setting, and no
    record claims to have no run spec where 0.8.0 has one under its id (as HealthAdminBench once did)."""
    checked = 0
    for dataset_id, mapping in RECORDS:
        g = mapping.generation
        if g.run_spec is None:
            assert not {dataset_id, mapping.id, f"medhelm_{dataset_id}"} & set(wheel_specs), dataset_id
            continue
        spec = wheel_specs[g.run_spec]
        assert "error" not in spec, (dataset_id, spec)
        _same_settings(dataset_id, g, spec)
        checked += 1
    assert checked == sum(1 for _, mapping in RECORDS if mapping.generation.run_spec)


def test_the_extract_matches_medhelms_files_where_present(tmp_path, wheel_specs):
    """Remake the extract table from medhelm 0.8.0's wheel and, where this machine has HELM's git mirror, from HELM's
    run specs at 63754d05."""
    read = {name: ("medhelm-0.8.0", values) for name, values in wheel_specs.items() if "error" not in values}
    helm_git = Path("/work/.mirror/stanford-crfm+helm/repo")
    if helm_git.exists():
        pinned = tmp_path / "medhelm_run_specs.py"
        pinned.write_text(subprocess.run(["git", "-C", str(helm_git), "show",
                                          "63754d05:src/helm/benchmark/run_specs/medhelm_run_specs.py"],
                                         capture_output=True, text=True, check=True).stdout, encoding="utf-8")
        done = subprocess.run([sys.executable, str(EXTRACT_SCRIPT), str(pinned)], capture_output=True, text=True,
                              check=True)
        read.update({name: ("helm@63754d05", v) for name, v in json.loads(done.stdout).items() if "error" not in v})
    keys = ("method", "temperature", "max_tokens", "stop_sequences", "num_outputs")
    for name, spec in EXTRACT["run_specs"].items():
        if name not in read:  # a run spec of HELM at 63754d05 that 0.8.0 dropped, and no mirror here
            continue
        label, values = read[name]
        if label != spec["source"]:  # 0.8.0's values for a run spec recorded from 63754d05: the same settings
            assert [spec[k] for k in keys] == [values[k] for k in keys], name
            continue
        assert [spec[k] for k in (*keys, "instructions")] == [values[k] for k in (*keys, "instructions")], name


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


@pytest.mark.parametrize("harness,choice_scoring", [("helm", "generate"), ("inspect", "generate"),
                                                    ("lm-eval", "generate"), ("lm-eval", "loglikelihood")])
def test_the_readme_says_what_each_task_sends_and_how_to_run_medhelms_own_entry(tmp_path, harness, choice_scoring,
                                                                               monkeypatch):
    """What the export's README tells a user, per task: what is sent, what is not sent as MedHELM sends it, what
    differs from MedHELM's run entry, and MedHELM's own run entry where the record names one (issue 52, points 4
    and 5; issue 53, item 13)."""
    from clinreg.exports.harness import _generation_lines
    from clinreg.reports.markdown import code, escape

    monkeypatch.setenv("CLINREG_HEALTHBENCH_GRADER_TEMPLATE", str(tmp_path / "unused.py"))
    report = report_of(tmp_path, harness)
    report.choice_scoring = choice_scoring
    (tmp_path / "staged").mkdir()
    WRITERS[harness](tmp_path / "staged", report, REGISTRY)  # the writer names what its harness does not send
    lines = dict(line[2:].split(":", 1) for line in _generation_lines(report).splitlines())
    loglikelihood = choice_scoring == "loglikelihood"
    for m, (dataset_id, mapping) in zip(report.mappings, EXPORTED):
        g, line = mapping.generation, lines[escape(m.name)]
        assert " sends " in line and escape("Differs from MedHELM's run entry: ") in line, dataset_id
        if g.run_spec:
            assert code(f"helm-run --run-entries {g.run_spec}:model=MODEL") in line, dataset_id
        else:
            assert "No MedHELM run entry to compare with" in line, dataset_id
        for setting, why in m.not_sent.items():
            assert escape(f"{setting} ({why})") in line, dataset_id
        if m.kind == "choice" and loglikelihood:
            assert escape("not MedHELM-comparable") in line and "temperature" not in line, dataset_id
            continue
        assert escape(f"at most {g.max_tokens} token(s)") in line, dataset_id
        outputs = g.num_outputs if harness == "helm" else requested(g)[1]  # HELM's adapter makes its own requests
        assert escape(f"{outputs} output(s) asked for") in line, dataset_id
        # Where the export sends fewer settings than the record's spec, the line says why, once.
        said_why = harness != "helm" and g.adapter == "multiple_choice"
        assert line.count(escape("One output and no stop sequence are what MedHELM's requests carry")) == said_why, \
            dataset_id
        if m.kind == "choice":
            opening = closed_instructions(g)
            said = "MedHELM's instructions" if opening == g.instructions else "clinreg's letter instruction"
            assert escape(f"{said} {json.dumps(opening)}") in line, dataset_id
            continue
        chat_without_instructions = harness == "helm" and mapping.scoring is not None and \
            mapping.scoring.rubric is not None and mapping.scoring.rubric.conversation_column
        if g.instructions and not chat_without_instructions:
            assert escape(f"MedHELM's instructions {json.dumps(g.instructions)}") in line, dataset_id
