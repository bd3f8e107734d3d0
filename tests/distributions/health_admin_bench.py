"""As-distributed fixture for `health_admin_bench`: none is written, because nothing can be built.

SHAPE: public, but not a data set a static build can score. medhelm 0.8.0's HealthAdminBenchScenario
(helm/benchmark/scenarios/health_admin_bench_scenario.py) finds a HealthAdminBench checkout and reads
benchmark/v2/tasks/<task set>/*.json (task sets prior_auth, appeals_denials, dme), one JSON object per file: id,
goal, website {id, name, url}, difficulty, category (or challengeType), possible, evals (JMESPath checks on the
portals' state with expected values, and LLM-judge rubrics, each with points), points, config (start URL with
task and run placeholders) and metadata; the fork cabosanlucas/health-admin-bench-ext at commit 9c4bc722 holds 60,
60 and 15 such files. HELM's instance is a JSON envelope for the agent harness with no references: the episode in
the portals is the evaluation. With no answer to compare a reply with, this writer lays out nothing and says why.
"""
import pathlib

FILLED_IN = True


def write(folder: pathlib.Path) -> dict:
    return {"unbuildable": "a computer-use agent benchmark: each task is carried out in live web portals and scored "
                           "from their state after the episode, so a task file holds no answer a build could score"}
