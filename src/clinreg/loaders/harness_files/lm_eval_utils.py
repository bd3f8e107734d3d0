

# lm-evaluation-harness hooks, named by the task YAML files as `!function utils.<name>`.


def process_choice(doc, results):
    """multiple_choice: `results` holds one (loglikelihood, is_greedy) pair per option, in letter order."""
    scores = [result[0] for result in results]
    chosen = max(range(len(scores)), key=scores.__getitem__)
    hit = float(chosen == doc["gold"]["index"])
    return {"acc": hit, "score": hit}


def process_number(doc, results):
    hit = float(in_range(results[0], doc["gold"]))
    return {"range_accuracy": hit, "score": hit}


def process_text(doc, results):
    f1 = token_f1(results[0], doc["gold"]["value"])
    return {"reference_f1": f1, "score": f1}
