"""As-distributed fixture for `physician_bench`: none is written, because nothing can be built.

SHAPE: not a data set a static build can score. medhelm's PhysicianBenchScenario (src/helm/benchmark/scenarios/
physician_bench_scenario.py on medhelm's main branch; docs/physician_bench.md at 5d962258) finds a PhysicianBench
checkout (PHYSICIAN_BENCH_ROOT, or pb_root) and loads the task folders of tasks/v1 (100 tasks); one HELM instance is
one task, sent to a harness that starts a FHIR server in Docker (image fhir-full:v1), runs the evaluated model as an
agent against it and then the task's pytest checkpoints (670 in all). With no answer to compare a reply with, this
writer lays out nothing and says why.
"""

import pathlib

FILLED_IN = True


def write(folder: pathlib.Path) -> dict:
    return {
        "unbuildable": "an EHR-agent benchmark: each task is carried out against a FHIR server in Docker and "
        "scored by pytest checkpoints on its state, so no instance file could be built"
    }
