

# ----------------------------------------------------------------------------------------- Inspect AI tasks

import json
import re
from pathlib import Path

from inspect_ai import Task, task  # noqa: F401 - the @task functions the export appends use it
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig, ModelOutput,
                              get_model)
from inspect_ai.scorer import CORRECT, INCORRECT, SampleScore, Score, Target, accuracy, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState, generate, solver, system_message

HERE = Path(__file__).resolve().parent


CHAT_MESSAGES = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}


def chat_input(turns):
    """A conversation ({role, content} turns) as Inspect's chat messages, sent as they are."""
    return [CHAT_MESSAGES[turn["role"]](content=turn["content"]) for turn in turns]


def closed_prompt(instructions, question, options):
    """A closed task's prompt as HELM's multiple-choice adapter lays it out: the instructions, a blank line, the
    question, the lettered options and `Answer:`."""
    listed = "".join(f"{chr(65 + i)}. {option}\n" for i, option in enumerate(options))
    return f"{instructions}\n\n{question}\n{listed}Answer:"


def read_samples(data_file, conversation=None, instructions=None):
    """Samples of one exported JSON-lines file: for closed tasks the instructions, the stem and the lettered options
    as one prompt (the options also as choices); when `conversation` names a context column holding chat turns,
    those turns as the input's messages."""
    samples = []
    with (HERE / data_file).open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            gold = doc["gold"]
            metadata = {key: doc[key] for key in ("dataset", "mapping", "split", "tasks", "variant", "gold",
                                                  "references", "context", "provenance")}
            if gold["kind"] == "choice":
                samples.append(Sample(input=closed_prompt(instructions, doc["input"], doc["choices"]),
                                      choices=doc["choices"], target=gold["letter"], id=doc["id"], metadata=metadata))
            else:
                turns = (doc.get("context") or {}).get(conversation) if conversation else None
                samples.append(Sample(input=chat_input(turns) if turns else doc["prompt"], target=gold["value"],
                                      id=doc["id"], metadata=metadata))
    return samples


@scorer(metrics=[accuracy(), stderr()])
def letter_match():
    """A closed task scored as HELM's exact match scores it: the reply, stripped, is the gold letter."""

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        found = re.match(LETTER_PATTERN, completion)
        answer = found.group(1) if found else None
        return Score(value=CORRECT if answer == target.text else INCORRECT, answer=completion,
                     explanation=f"letter read: {answer}" if answer else "no letter: the reply is not one letter")

    return score


@scorer(metrics=[accuracy(), stderr()])
def numeric_range():
    """Correct when the completion's first number lies in the gold range (or equals a non-numeric gold)."""

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        hit = in_range(completion, state.metadata["gold"])
        return Score(value=CORRECT if hit else INCORRECT, answer=completion)

    return score


@scorer(metrics=[mean(), stderr()])
def reference_overlap():
    """Token-overlap F1 against the reference text: a cheap stand-in, reported beside MedHELM's metric, never for it."""

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        return Score(value=token_f1(completion, target.text), answer=completion)

    return score


@scorer(metrics=[mean(), stderr()])
def medhelm_metric(name):
    """MedHELM's own metric of a free-text benchmark: EHRSQL execution, billing-code F1 or MEDEC's error flag."""
    scoring = MAPPINGS[name]["scoring"]

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion
        value = score_text(scoring, completion, target.text, state.metadata.get("context"))
        return Score(value=value, answer=completion)

    return score


# The jury's metrics: the mean over every sample (one with an empty response, or that no judge rated, scores
# MedHELM's default, 1.0, and stays in the mean), and, summed from each sample's metadata, the irregularities.
@metric
def jury_mean():
    def compute(scores: list[SampleScore]) -> float:
        values = [s.score.as_float() for s in scores]
        return sum(values) / len(values) if values else float("nan")

    return compute


@metric
def jury_stderr():
    def compute(scores: list[SampleScore]) -> float:
        values = [s.score.as_float() for s in scores]
        if len(values) < 2:
            return 0.0
        centre = sum(values) / len(values)
        return (sum((v - centre) ** 2 for v in values) / (len(values) - 1) / len(values)) ** 0.5

    return compute


def _count(key):
    def compute(scores: list[SampleScore]) -> float:
        return float(sum((s.score.metadata or {}).get(key, 0) for s in scores))

    return compute


@metric
def ratings_missing():
    """Ratings of the jury's axes not received: judge x axis, less those counted."""
    return _count("ratings_missing")


@metric
def replies_dropped():
    """Judge replies not used: no reply, unreadable JSON, or an axis, score or explanation missing."""
    return _count("replies_dropped")


@metric
def ratings_irregular():
    """Ratings counted as MedHELM counts them although not a whole number on the scale, or not of an axis."""
    return _count("ratings_irregular")


@metric
def defaults_used():
    """Samples scored MedHELM's default (1.0): an empty response, or no usable reply from any judge."""
    return _count("default_used")


def judge_models(spec, judges=None):
    """(name, model) of each judge: `judges` (comma-separated models, in the jury's order) if given, else the model
    role `judge_<name>` if the eval sets one, else the judge the record names."""
    override = [j.strip() for j in judges.split(",")] if isinstance(judges, str) else list(judges or [])
    if override and len(override) not in (1, len(spec["judges"])):
        raise ValueError(f"judges: give 1 or {len(spec['judges'])} models, not {len(override)}")
    chosen = []
    for i, judge in enumerate(spec["judges"]):
        if override:
            chosen.append((judge["name"], get_model(override[i] if len(override) > 1 else override[0])))
        else:
            chosen.append((judge["name"], get_model(role="judge_" + judge["name"],
                                                    default=judge.get("inspect_model") or judge["model"])))
    return chosen


@scorer(metrics=[jury_mean(), jury_stderr(), ratings_missing(), replies_dropped(), ratings_irregular(),
                 defaults_used()])
def jury(name, judges=None):
    """MedHELM's LLM jury: every judge rates the response on every axis; the score is the mean of the ratings,
    under MedHELM's rules for irregular replies (see jury_score)."""
    scoring = MAPPINGS[name]["scoring"]
    spec = scoring["jury"]

    async def score(state: TaskState, target: Target) -> Score:
        models = judge_models(spec, judges)  # here, where the eval's model roles are bound
        response = state.output.completion
        replies, errors = {}, {}
        if not empty_response(response):  # MedHELM sends an empty response to no judge
            prompt = jury_prompt(spec, state.input_text, response, target.text)
            for judge_name, model in models:
                try:
                    reply = await model.generate(prompt, config=GenerateConfig(temperature=0.0, max_tokens=4096))
                    replies[judge_name] = reply.completion
                except Exception as exc:  # noqa: BLE001 - API error after the model's retries: this judge gave no reply
                    replies[judge_name] = None
                    errors[judge_name] = f"no reply ({type(exc).__name__}: {str(exc)[:200]})"
        result = jury_score(spec, response, replies)
        problems = {judge: [errors[judge]] if judge in errors else found for judge, found in result["problems"].items()}
        metadata = {key: result[key] for key in ("ratings", "ratings_missing", "replies_dropped", "ratings_irregular",
                                                 "default_used")}
        used = {n: str(m) for n, m in models}
        metadata |= {"problems": problems, "jury": {"rubric": scoring["rubric_id"], "judges": used}}
        planned = {j["name"]: j.get("inspect_model") or j["model"] for j in spec["judges"]}
        replaced = judge_replacements(spec, planned, used)
        if replaced:  # a judge stands in for the record's or for a retired one: the score says so
            metadata["jury"]["replacements"] = replaced
        if result["default_used"]:
            why = "the response is empty" if empty_response(response) else "no judge gave a usable reply"
            note = f"MedHELM's default score {result['score']:g}: {why}"
        else:
            counted = sum(len(r) for r in result["ratings"].values())
            note = (f"mean of {counted} rating(s) from {len(models) - result['replies_dropped']} of {len(models)} "
                    "judge(s)")
            note += "".join(f"; {result[key]} {text}" for key, text in (
                ("replies_dropped", "reply(ies) dropped"), ("ratings_irregular", "rating(s) irregular")) if result[key])
        return Score(value=result["score"], answer=response, explanation=note, metadata=metadata)

    return score


def generate_config(name):
    """The record's generation settings as Inspect's GenerateConfig: temperature, output limit, stop sequences and,
    where MedHELM asks for several outputs, `num_choices` (which only some providers honour; the scorers read the
    first output)."""
    settings = MAPPINGS[name].get("generation")
    if not settings:  # a closed task: HELM's multiple-choice defaults (one token, stop at a line break)
        closed = MAPPINGS[name]["kind"] == "choice"
        return GenerateConfig(max_tokens=1, stop_seqs=["\n"]) if closed else GenerateConfig()
    outputs = settings.get("num_outputs", 1)
    return GenerateConfig(temperature=settings["temperature"], max_tokens=settings["max_tokens"],
                          stop_seqs=settings.get("stop") or None, num_choices=outputs if outputs > 1 else None)


# Rubric grading (HealthBench), as simple-evals grades it (see the rubric section of the scoring code above): the
# statistics simple-evals reports, under its names, with HealthBench's own score named HEALTHBENCH_METRIC (never
# MedHELM's health_bench_score, another computation), and the instances and criteria left ungraded.
UNGRADED = "ungraded"  # a sample's value when it has no score (NaN would hide it from the metrics that count it)


@metric
def healthbench_simple_evals():
    def compute(scores: list[SampleScore]) -> dict:
        stats = healthbench_stats([(s.score.metadata or {})["rubric"] for s in scores])
        renamed = {HEALTHBENCH_METRIC: float("nan")}  # NaN when no sample has a score
        for key, value in stats.items():
            name, _, stat = key.partition(":")
            renamed[HEALTHBENCH_METRIC + (":" + stat if stat else "") if name == "score" else key] = float(value)
        return renamed

    return compute


async def grade_criterion(model, settings, prompt):
    """(met, problem, asks) of one criterion: the grader is asked again, with the same messages, while its reply
    cannot be read, up to GRADER_ATTEMPTS asks; then the criterion is ungraded (met None)."""
    messages = [ChatMessageSystem(content=settings["system_message"]), ChatMessageUser(content=prompt)]
    config = GenerateConfig(temperature=settings["temperature"], max_tokens=settings["max_tokens"])
    problem = None
    for ask in range(1, GRADER_ATTEMPTS + 1):
        try:
            reply = await model.generate(messages, config=config)
            hit, problem = criterion_met(reply.completion)
        except Exception as exc:  # noqa: BLE001 - an API error after the model's retries counts as one ask
            hit, problem = None, f"no reply ({type(exc).__name__}: {str(exc)[:200]})"
        if hit is not None:
            return hit, None, ask
    return None, f"ungraded after {GRADER_ATTEMPTS} asks; last: {problem}", GRADER_ATTEMPTS


@scorer(metrics=[healthbench_simple_evals()])
def rubric_grader(name, grader=None, template_source=None):
    """HealthBench's grading as simple-evals does it: the grader decides, for each criterion of the sample's own
    rubric, whether the response meets it, reading the turns the model was sent (system turns included, as
    simple-evals' grader reads its sampler's actual_queried_message_list) with the response last; the sample scores
    the points met over its positive points (see rubric_score)."""
    spec = MAPPINGS[name]["scoring"]["rubric"]
    read = {}  # the template, read at the first score: a missing one stops this task, not every task of tasks_in

    async def score(state: TaskState, target: Target) -> Score:
        if "template" not in read:
            read["template"] = grader_template(template_source)
        template = read["template"]
        model = get_model(grader) if grader else get_model(
            role="grader", default=spec["grader"].get("inspect_model") or spec["grader"]["model"])
        settings = dict({k: GRADER_SETTINGS[k] for k in ("temperature", "max_tokens", "system_message")},
                        model=str(model), attempts=GRADER_ATTEMPTS)
        response = state.output.completion
        context = state.metadata.get("context") or {}
        items = rubric_items(spec, context)
        sent = [{"role": m.role, "content": m.text} for m in state.messages]
        if sent and sent[-1]["role"] == "assistant":  # the reply, which generate() appended: read from the output
            sent = sent[:-1]
        turns = rubric_graded_turns(sent, response)
        met, problems, asks = [], [], 0
        for criterion, points, _ in items:
            hit, problem, used = await grade_criterion(model, settings,
                                                       rubric_grader_prompt(template, turns, criterion, points))
            met.append(hit)
            asks += used
            if problem:
                problems.append(f"{criterion[:60]}: {problem}")
        result = rubric_score(items, met, context.get(spec.get("example_tags_column") or "") or [])
        metadata = {"rubric": result, "problems": problems, "grader": settings, "grader_asks": asks,
                    "met": [{"criterion": c, "points": p, "met": m} for (c, p, _), m in zip(items, met)]}
        if result["criteria_ungraded"]:
            note = (f"ungraded: {result['criteria_ungraded']} of {len(items)} criteria unread after "
                    f"{GRADER_ATTEMPTS} asks each; this sample is left out of every statistic")
        elif result["score"] is None:
            note = "no positive points: this sample has no score and is left out"
        else:
            note = (f"{result['points_met']:g} of {result['points_possible']:g} points "
                    f"({result['criteria_met']} of {len(items)} criteria met)")
        return Score(value=result["score"] if result["score"] is not None else UNGRADED, answer=response,
                     explanation=note, metadata=metadata)

    return score


@solver
def first_system_message(text):
    """The record's instructions as the first turn, before any system turn of the conversation's own: where
    simple-evals' ChatCompletionSampler puts its system message (rubric_sent_turns)."""

    async def solve(state: TaskState, generate) -> TaskState:
        state.messages.insert(0, ChatMessageSystem(content=text))
        return state

    return solve


def clinreg_task(name, kind, data_file, judges=None, grader_template=None):
    """One exported mapping as an Inspect task, with the solver and scorer of its gold kind. A free-text task is
    scored by the record's scoring (an LLM jury, or MedHELM's own metric) and, beside it, by token overlap."""
    rubric = (MAPPINGS[name].get("scoring") or {}).get("rubric") or {}
    dataset = MemoryDataset(read_samples(data_file, rubric.get("conversation_column"),
                                         MAPPINGS[name].get("closed_instructions")), name=name)
    if kind == "choice":  # the instructions are in the prompt, as HELM sends them
        return Task(dataset=dataset, solver=generate(), scorer=letter_match(), name=name, metadata=MAPPINGS[name],
                    config=generate_config(name))
    if kind == "number":
        scorers = numeric_range()
    else:
        scoring = MAPPINGS[name].get("scoring")
        if scoring is None:
            scorers = reference_overlap()
        elif scoring["method"] == "jury":
            scorers = [jury(name, judges), reference_overlap()]
        elif scoring["method"] == "rubric":
            scorers = [rubric_grader(name, judges, grader_template), reference_overlap()]
        else:
            scorers = [medhelm_metric(name), reference_overlap()]
    instructions = (MAPPINGS[name].get("generation") or {}).get("instructions")
    first = first_system_message if rubric.get("conversation_column") else system_message
    solver = [first(instructions), generate()] if instructions else generate()
    return Task(dataset=dataset, solver=solver, scorer=scorers, name=name, metadata=MAPPINGS[name],
                config=generate_config(name))


# Judging after an lm-eval run (lm-eval has no model-graded metric): read the samples file lm-eval wrote with
# --log_samples for one exported jury mapping, and apply the same jury to the responses it recorded. No model
# generates here (run it with `--model none`); the judges are bound as for the jury tasks.
def lm_eval_samples(samples_file):
    """(mapping name, samples) of an lm-eval samples file: each doc as this export wrote it, with the response
    lm-eval recorded (after its filters) in the metadata."""
    samples, names = [], set()
    with open(samples_file, encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            doc = entry["doc"]
            names |= {n for n, spec in MAPPINGS.items()
                      if (spec["dataset"], spec["mapping"]) == (doc["dataset"], doc["mapping"])}
            response = (entry.get("filtered_resps") or entry["resps"])[0]
            while isinstance(response, list):
                response = response[0] if response else ""
            metadata = {key: doc.get(key) for key in ("dataset", "mapping", "split", "tasks", "variant", "gold",
                                                      "references", "context", "provenance")}
            metadata |= {"input": doc.get("input"), "response": response, "lm_eval_doc_id": entry.get("doc_id")}
            samples.append((metadata, doc))
    if len(names) != 1:
        raise ValueError(f"{samples_file}: the docs belong to {sorted(names) or 'no mapping'} of this export, not to "
                         "one")
    name = names.pop()
    return name, [Sample(input=judged_input(name, doc), target=doc["gold"]["value"], id=doc["id"], metadata=metadata)
                  for metadata, doc in samples]


def judged_input(name, doc):
    """What the judges or the grader read as the input of an lm-eval doc: its prompt, or, for a rubric mapping whose
    instances hold a conversation, that conversation's turns with the record's instructions first (as the Inspect
    task sends them and as simple-evals' grader reads them), never the flattened text lm-eval sent."""
    rubric = (MAPPINGS[name].get("scoring") or {}).get("rubric") or {}
    turns = (doc.get("context") or {}).get(rubric.get("conversation_column") or "")
    if not turns:
        return doc["prompt"]
    return chat_input(rubric_sent_turns((MAPPINGS[name].get("generation") or {}).get("instructions"), turns))


@solver
def recorded_response():
    """The model's output is the response lm-eval recorded: nothing is generated."""

    async def solve(state: TaskState, generate) -> TaskState:
        state.output = ModelOutput.from_content(model="lm-eval", content=state.metadata["response"])
        state.messages.append(state.output.message)
        return state

    return solve


def lm_eval_judged_task(samples_file, judges=None, grader_template=None):
    """The jury (or rubric grader) of the mapping an lm-eval samples file belongs to, over its recorded responses.
    The task's metadata names the samples file and its sha256, which `clinreg results import` joins on."""
    import hashlib

    name, samples = lm_eval_samples(samples_file)
    scoring = MAPPINGS[name].get("scoring") or {}
    if scoring.get("method") == "jury":
        scorers = [jury(name, judges), reference_overlap()]
    elif scoring.get("method") == "rubric":
        scorers = [rubric_grader(name, judges, grader_template), reference_overlap()]
    else:
        raise ValueError(f"{name} is not scored by a jury or a grader: lm-eval already scores it")
    path = Path(samples_file)
    judged = {"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}
    # The run's results file, beside the samples file with the same time stamp, names the model that answered.
    results = path.with_name("results_" + path.stem.rsplit("_", 1)[-1] + ".json")
    if results.is_file():
        run = json.loads(results.read_text(encoding="utf-8"))
        judged |= {"results_file": results.name, "config": run.get("config"), "model_name": run.get("model_name")}
    metadata = dict(MAPPINGS[name], judged_lm_eval_samples=judged)
    return Task(dataset=MemoryDataset(samples, name=name), solver=recorded_response(), scorer=scorers,
                name=f"{name}_lm_eval_judged", metadata=metadata)


def tasks_in(group):
    """The tasks of a subcategory or category id (or of `all`), e.g.
    `inspect_ai.eval(tasks_in("planning_treatments"))`."""
    names = sorted(MAPPINGS) if group == "all" else SUBCATEGORIES.get(group) or CATEGORIES.get(group)
    if names is None:
        raise KeyError(f"no subcategory or category {group!r} in this export (see SUBCATEGORIES and CATEGORIES)")
    return [globals()[name]() for name in names]
