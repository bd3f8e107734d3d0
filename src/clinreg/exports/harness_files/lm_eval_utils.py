

# lm-evaluation-harness hooks, named by the task YAML files as `!function utils.<name>`.


def process_letter(doc, results):
    """A closed task, generated: `results` holds the reply after the regex filter (the letter, or `[invalid]`);
    HELM's exact match against the gold letter."""
    hit = float(results[0] == doc["gold"]["letter"])
    return {"exact_match": hit, "score": hit}


def process_choice(doc, results):
    """The log-likelihood variant (not MedHELM-comparable): `results` holds one (loglikelihood, is_greedy) pair per
    option, in letter order."""
    scores = [result[0] for result in results]
    chosen = max(range(len(scores)), key=scores.__getitem__)
    hit = float(chosen == doc["gold"]["index"])
    return {"acc_loglikelihood": hit, "score": hit}


def process_number(doc, results):
    hit = float(in_range(results[0], doc["gold"]))
    return {"range_accuracy": hit, "score": hit}


def process_text(doc, results):
    """Free text: MedHELM's own metric where the record names one that needs no judge (EHRSQL, billing codes,
    MEDEC), under its own name; token-overlap F1 always, as `reference_f1`. lm-eval has no judge, so a jury
    or rubric benchmark reports only the stand-in, which `clinreg results import` keeps beside, never in place of, a
    jury score."""
    f1 = token_f1(results[0], doc["gold"]["value"])
    out = {"reference_f1": f1, "score": f1}
    scoring = SCORING.get(doc["mapping"])
    if scoring and scoring["method"] not in ("jury", "rubric"):  # both need a grader model
        value = score_text(scoring, results[0], doc["gold"]["value"], doc.get("context"))
        out.update({METRICS[doc["mapping"]]: value, "score": value})
    return out
