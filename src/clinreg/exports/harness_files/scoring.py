# Scoring shared by every clinreg export (written by `clinreg export`; standard library only, so the export
# runs without clinreg installed). Each instance's `gold` says how it is scored:
#   choice: the chosen option's index equals gold.index (the harness decides how an option is chosen);
#   number: the first number in the completion lies in [gold.lower, gold.upper], or, without a numeric
#           range, the completion equals gold.value after trimming (dates, tuples);
#   text:   as the record's `scoring` says (SCORING by mapping id): an LLM jury's mean rating, EHRSQL's execution
#           accuracy, code-set F1 or MEDEC's error flag. Token-overlap F1 against gold.value is also reported,
#           under its own name (`reference_f1`), as a cheap stand-in that is never read as the jury score.
import os
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


# ------------------------------------------------------------------------------------------ MedHELM's own metrics
# Each free-text benchmark's `scoring` in its record says which of these applies (the export keeps it in
# SCORING, by mapping id). They follow how MedHELM scores the benchmark; the words and code are clinreg's.

# An ICD-10 code as MedHELM's billing-code metric reads it: a capital letter, one to three digits, and an optional
# decimal part. Applied to both the answer and the gold list, so a code this form misses is missed on both sides.
_ICD10 = re.compile(r"\b[A-Z]\d{1,3}(?:\.\d{1,4})?\.?\b")


def icd10_codes(text):
    """The set of ICD-10 codes written in a text (markdown bold removed, trailing dots dropped)."""
    return {code.rstrip(".") for code in _ICD10.findall(str(text or "").replace("**", ""))}


def code_set_f1(completion, reference):
    """F1 of the codes in the completion against the codes in the reference (0.0 when either side has none)."""
    predicted, gold = icd10_codes(completion), icd10_codes(reference)
    common = len(predicted & gold)
    if not common:
        return 0.0
    return 2 * common / (len(predicted) + len(gold))


def error_flag_hit(completion, reference):
    """MEDEC's flag: an answer of exactly CORRECT says the text has no error; anything else says it has one.
    The gold is CORRECT, or the wrong sentence's number and its correction. 1.0 when the two flags agree."""
    gold_flag = str(reference or "").replace(".", "").strip() != "CORRECT"
    answer_flag = str(completion or "").strip() != "CORRECT"
    return float(gold_flag == answer_flag)


class SqlScoringError(Exception):
    """The database a SQL benchmark runs against cannot be opened: scoring stops rather than count zeros."""


MAX_SQL_ROWS = 1_000_000


def sql_text(completion):
    """The query in a completion: inside <sql> tags if present, without backticks or a leading `sql` line."""
    text = str(completion or "").strip()
    tagged = re.search(r"<\s*sql\s*>(.*?)<\/?\s*sql\s*>", text, re.DOTALL | re.IGNORECASE)
    text = (tagged.group(1) if tagged else text).replace("`", "").strip()
    return re.sub(r"^sql\n", "", text, flags=re.MULTILINE).strip()


def database_path(database, data_dir=None):
    """Where the record's SQLite file is: `data_dir` (or $CLINREG_DATA_DIR) joined with the record's `file`."""
    root = data_dir or os.environ.get("CLINREG_DATA_DIR")
    if not root:
        raise SqlScoringError(f"set CLINREG_DATA_DIR to the data folder holding {database['file']} "
                              "(the SQLite database the queries run against)")
    path = os.path.join(root, database["file"])
    if not os.path.isfile(path):
        raise SqlScoringError(f"no database at {path} (the record names {database['file']}"
                              + (f", from {database['source']}" if database.get("source") else "") + ")")
    return path


def run_query(path, query, time_limit):
    """(rows, error) of one query run read-only, stopped after `time_limit` seconds or MAX_SQL_ROWS rows."""
    import sqlite3
    import time
    from urllib.parse import quote

    deadline = time.monotonic() + float(time_limit)
    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise SqlScoringError(f"cannot open {path}: {exc}") from None
    try:
        conn.execute("PRAGMA query_only = ON")
        # Only reading: a query may select, read columns, call functions and recurse, nothing else (no ATTACH of
        # another file, no PRAGMA, no writes), whatever the model or the data wrote.
        allowed = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION,
                   getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
        conn.set_authorizer(lambda action, *_: sqlite3.SQLITE_OK if action in allowed else sqlite3.SQLITE_DENY)
        conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
        cursor = conn.execute(query)
        rows = cursor.fetchmany(MAX_SQL_ROWS + 1)
        if len(rows) > MAX_SQL_ROWS:
            return None, f"more than {MAX_SQL_ROWS} rows"
        return rows, None
    except sqlite3.DatabaseError as exc:
        if "interrupted" in str(exc):
            return None, f"stopped after {time_limit} s"
        return None, str(exc)
    except (sqlite3.Error, ValueError, OverflowError) as exc:  # a malformed query, or a value sqlite cannot hold
        return None, str(exc)
    finally:
        conn.close()


def unanswerable(gold_query, impossible=False):
    """Whether a question expects no query: the data marks it impossible, or its gold query is empty or `null`."""
    return bool(impossible) or str(gold_query or "").strip().casefold() in ("", "null", "none")


def sql_execution(completion, gold_query, database, *, impossible=False, data_dir=None):
    """EHRSQL's execution accuracy for one answer: 1.0 when the predicted query returns the same set of rows as the
    gold query. A question the database cannot answer (gold `null`, or `impossible`) expects no query; so does an
    answerable one whose gold query returns nothing. The database opens read-only; each query has a time limit."""
    predicted = sql_text(completion)
    gold = str(gold_query or "").strip()
    if unanswerable(gold, impossible):
        return float(not predicted)
    path = database_path(database, data_dir)
    limit = database.get("time_limit_seconds", 10)
    gold_rows, _ = run_query(path, gold, limit)
    if not predicted:
        return float(not gold_rows)
    predicted_rows, _ = run_query(path, predicted, limit)
    if gold_rows and predicted_rows:
        return float(set(predicted_rows) == set(gold_rows))
    return 0.0


def impossible_question(context):
    value = (context or {}).get("is_impossible")
    return value is True or str(value).strip().casefold() in ("true", "1")


def score_text(scoring, completion, gold_value, context=None):
    """The score of a free-text answer by a non-jury `scoring` (sql_execution, code_set_f1, error_flag)."""
    method = scoring["method"]
    if method == "code_set_f1":
        return code_set_f1(completion, gold_value)
    if method == "error_flag":
        return error_flag_hit(completion, gold_value)
    if method == "sql_execution":
        return sql_execution(completion, gold_value, scoring["database"], impossible=impossible_question(context))
    raise ValueError(f"{method} is not scored without a jury")


# ------------------------------------------------------------------------------------------ LLM jury
# Every judge rates the response on every axis of the benchmark's jury; the score is the mean of all the ratings
# received. A rating that is missing, not a whole number or off the scale is counted, never guessed.


def jury_prompt(jury, input_text, response, reference):
    """What each judge reads: the rubric, the texts the jury is shown, the axes, the scale and the answer format."""
    low, high = jury["scale"]
    shown = {"input": ("the model's input", input_text), "response": ("the model's response", response),
             "reference": ("a reference answer", reference)}
    parts = ["You are a clinician rating a response written by an AI model.", "", " ".join(jury["rubric"].split()), ""]
    for key in jury["shows"]:
        label, text = shown[key]
        parts += [f"Here is {label}, between <{key}> tags:", f"<{key}>", str(text or ""), f"</{key}>", ""]
    parts.append(f"Rate the response on each of these axes with a whole number from {low} (very poor) to {high} (excellent):")
    parts += [f"- {axis['id']}: {axis['question']}" for axis in jury["axes"]]
    example = ", ".join(f'"{axis["id"]}": {{"score": <{low}-{high}>, "explanation": "<one sentence>"}}' for axis in jury["axes"])
    parts += ["", "Reply with a single JSON object and nothing else, with one entry per axis:", "{" + example + "}"]
    return "\n".join(parts)


def _json_object(text):
    import json

    text = str(text or "").strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL | re.IGNORECASE)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        value = json.loads(text[start:end + 1])
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_ratings(jury, text):
    """(ratings, problems) of one judge's reply: the rating of each axis that is a whole number on the scale, and
    one problem per axis that is missing or malformed."""
    low, high = jury["scale"]
    answer = _json_object(text)
    if answer is None:
        return {}, [f"{axis['id']}: the reply holds no JSON object" for axis in jury["axes"]]
    ratings, problems = {}, []
    for axis in jury["axes"]:
        entry = answer.get(axis["id"])
        value = entry.get("score") if isinstance(entry, dict) else entry
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if entry is None:
            problems.append(f"{axis['id']}: missing")
        elif isinstance(value, bool) or not isinstance(value, int):
            problems.append(f"{axis['id']}: {str(value)[:40]!r} is not a whole number")
        elif not low <= value <= high:
            problems.append(f"{axis['id']}: {value} is outside {low}-{high}")
        else:
            ratings[axis["id"]] = value
    return ratings, problems


def mean_rating(ratings_by_judge):
    """The mean of every rating received (judge x axis), or None when there is none."""
    values = [v for ratings in ratings_by_judge.values() for v in ratings.values()]
    return sum(values) / len(values) if values else None
