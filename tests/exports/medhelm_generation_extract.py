"""Run MedHELM's run spec functions with stand-ins for HELM, recording the generation settings each passes."""
import importlib.abc
import importlib.machinery
import inspect
import json
import sys
import types

DEFAULTS = {}  # filled per call


class Any_:
    def __init__(self, *a, **k): self.a, self.k = a, k
    def __call__(self, *a, **k): return Any_(*a, **k)
    def __getattr__(self, n): return Any_()
    def __iter__(self): return iter([])
    def __add__(self, o): return self
    def __radd__(self, o): return self


def generation(instructions="", max_tokens=5, stop_sequences=None, temperature=0.0, num_outputs=1, **k):
    # HELM 63754d05 common_adapter_specs.get_generation_adapter_spec: stop_sequences None -> ["\n"], num_outputs 1
    return {"method": "generation", "instructions": instructions, "max_tokens": max_tokens,
            "stop_sequences": ["\n"] if stop_sequences is None else stop_sequences, "temperature": temperature,
            "num_outputs": num_outputs, "input_noun": k.get("input_noun"), "output_noun": k.get("output_noun")}


def multiple_choice(method, instructions, input_noun, output_noun, max_tokens=1, num_outputs=5, **k):
    # get_multiple_choice_joint_adapter_spec: temperature 0.0, stop_sequences ["\n"], num_outputs 5 unless given
    return {"method": "multiple_choice_joint", "instructions": instructions, "max_tokens": max_tokens,
            "stop_sequences": ["\n"], "temperature": 0.0, "num_outputs": num_outputs, "input_noun": input_noun,
            "output_noun": output_noun}


def adapter_spec(**k):
    # adapter_spec.AdapterSpec defaults: temperature 1, max_tokens 100, stop_sequences [], num_outputs 5
    return {"method": k.get("method"), "instructions": k.get("instructions", ""),
            "max_tokens": k.get("max_tokens", 100),
            "stop_sequences": k.get("stop_sequences", []), "temperature": k.get("temperature", 1),
            "num_outputs": k.get("num_outputs", 5), "input_noun": None, "output_noun": None}


REGISTERED = {}


def run_spec_function(name):
    def deco(f):
        REGISTERED[name] = f
        return f
    return deco


class Stub(types.ModuleType):
    def __getattr__(self, n):
        if n.startswith("__"):
            raise AttributeError(n)
        return Any_()


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name == "helm" or name.startswith("helm."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = Stub(spec.name)
        m.__path__ = []
        return m
    def exec_module(self, m):
        if m.__name__.endswith("common_adapter_specs"):
            m.get_generation_adapter_spec = generation
            m.get_multiple_choice_adapter_spec = multiple_choice
        if m.__name__.endswith("adaptation.adapter_spec"):
            m.AdapterSpec = adapter_spec
            # HELM's adapter method names, as adapter_spec.py spells them
            m.ADAPT_CHAT, m.ADAPT_GENERATION = "chat", "generation"
            m.ADAPT_MULTIPLE_CHOICE_JOINT = "multiple_choice_joint"
            m.ADAPT_HEALTH_ADMIN_BENCH = "health_admin_bench"
        if m.__name__ == "helm.benchmark.run_spec":
            m.RunSpec = lambda **k: k
            m.run_spec_function = run_spec_function


sys.meta_path.insert(0, Finder())
src = open(sys.argv[1]).read()
mod = types.ModuleType("rs")
mod.__file__ = sys.argv[1]
exec(compile(src, sys.argv[1], "exec"), mod.__dict__)
# One stand-in judge: HealthAdminBench's run spec refuses a jury config without judges.
mod.get_annotator_models_from_config = lambda *a, **k: {"judge": types.SimpleNamespace(model_name="judge",
                                                                               model_deployment="judge")}
mod.get_judges_config = lambda *a, **k: {}
out = {}
for name, f in sorted(REGISTERED.items()):
    args = {p: "x" for p, v in inspect.signature(f).parameters.items() if v.default is inspect.Parameter.empty}
    try:
        spec = f(**args)
    except Exception as e:  # noqa: BLE001 - any run spec that fails to build is recorded as its error
        out[name] = {"error": repr(e)}
        continue
    a = spec["adapter_spec"]
    out[name] = a if isinstance(a, dict) else {"error": "adapter not recorded"}
json.dump(out, sys.stdout, indent=1, default=lambda o: "<computed>")
