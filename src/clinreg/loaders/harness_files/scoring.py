# Scoring shared by every clinreg export (written by `clinreg export`; standard library only, so the export
# runs without clinreg installed). Each instance's `gold` says how it is scored:
#   choice: the chosen option's index equals gold.index (the harness decides how an option is chosen);
#   number: the first number in the completion lies in [gold.lower, gold.upper], or, without a numeric
#           range, the completion equals gold.value after trimming (dates, tuples);
#   text:   token-overlap F1 between the completion and gold.value (a cheap reference metric, not a
#           clinical judgement: MedHELM scores these tasks with an LLM jury).
import re
import string
from collections import Counter

_NUMBER = re.compile(r"[-+]?(?:\d+(?:,\d{3})*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def _float(text):
    if text is None:
        return None
    try:
        return float(str(text).replace(",", "").strip())
    except ValueError:
        return None


def first_number(completion):
    """The first number written in a completion, or None."""
    match = _NUMBER.search(completion or "")
    return None if match is None else _float(match.group(0))


def _normal(text):
    return " ".join(str(text or "").strip().strip(".").casefold().split())


def in_range(completion, gold):
    """True when a completion answers a number task: inside the accepted range, or equal to a non-numeric gold."""
    lower, upper = _float(gold.get("lower")), _float(gold.get("upper"))
    value = _float(gold.get("value"))
    if lower is None and upper is None and value is not None:
        lower = upper = value
    if lower is not None or upper is not None:
        answer = first_number(completion)
        if answer is None:
            return False
        return (lower is None or answer >= lower) and (upper is None or answer <= upper)
    return _normal(completion) == _normal(gold.get("value"))


def _tokens(text):
    return str(text or "").casefold().translate(_PUNCTUATION).split()


def token_f1(completion, reference):
    """Token-overlap F1 of a completion against one reference text (0.0 to 1.0)."""
    predicted, expected = _tokens(completion), _tokens(reference)
    if not predicted or not expected:
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)
