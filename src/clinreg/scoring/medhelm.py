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
MAX_SQL_VALUE_BYTES = 1 << 24  # one string or blob a query makes or returns (SQLite's own default is 1e9)
MAX_SQL_RESULT_BYTES = 1 << 27  # the strings and blobs of all the rows fetched
MAX_SQL_HEAP_BYTES = 1 << 29  # Python 3.10, which cannot set SQLite's value length: all SQLite's memory instead
_heap = {"users": 0, "saved": 0}


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
    name = str(database["file"])
    parts = name.replace("\\", "/").split("/")
    if not name or "\x00" in name or os.path.isabs(name) or name[:1] in "/\\~" or name[1:2] == ":" or ".." in parts:
        raise SqlScoringError(f"the record's database file {name[:200]!r} is not a plain path inside the data folder")
    path = os.path.join(root, name)
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
        # The progress handler cannot stop one function call: zeroblob(800000000) is a single step. Bound the
        # length of any value SQLite makes (Python 3.11 and later), else the memory SQLite may hold (3.10).
        if hasattr(conn, "setlimit"):
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_SQL_VALUE_BYTES)
        else:
            _bound_heap(+1)
        try:
            return _fetch(conn.execute(query))
        finally:
            if not hasattr(conn, "setlimit"):
                _bound_heap(-1)
    except sqlite3.DatabaseError as exc:
        if "interrupted" in str(exc):
            return None, f"stopped after {time_limit} s"
        if "too big" in str(exc):
            return None, f"a value longer than {MAX_SQL_VALUE_BYTES} bytes"
        return None, str(exc)
    except MemoryError:  # only SQLite's heap bound (Python 3.10) raises it here
        return None, f"more than {MAX_SQL_HEAP_BYTES} bytes of memory in SQLite"
    except (sqlite3.Error, ValueError, OverflowError) as exc:  # a malformed query, or a value sqlite cannot hold
        return None, str(exc)
    finally:
        conn.close()


def _fetch(cursor):
    """(rows, error) of a query's rows, at most MAX_SQL_ROWS rows and MAX_SQL_RESULT_BYTES of strings and blobs."""
    rows, size = [], 0
    while True:
        batch = cursor.fetchmany(10_000)
        if not batch:
            return rows, None
        rows += batch
        if len(rows) > MAX_SQL_ROWS:
            return None, f"more than {MAX_SQL_ROWS} rows"
        size += sum(len(value) for row in batch for value in row if isinstance(value, (str, bytes)))
        if size > MAX_SQL_RESULT_BYTES:
            return None, f"more than {MAX_SQL_RESULT_BYTES} bytes of results"


def _bound_heap(step):
    """Python 3.10: SQLite's hard heap limit, which is the whole process's, set while any query runs, then put
    back as it was (a lower limit set by someone else is kept)."""
    import sqlite3
    import threading

    with _heap.setdefault("lock", threading.Lock()):
        setting = sqlite3.connect(":memory:")  # any connection: the limit is SQLite's, not the connection's
        try:
            if step > 0 and _heap["users"] == 0:
                _heap["saved"] = int(setting.execute("PRAGMA hard_heap_limit").fetchone()[0])
                if not 0 < _heap["saved"] <= MAX_SQL_HEAP_BYTES:
                    setting.execute(f"PRAGMA hard_heap_limit = {MAX_SQL_HEAP_BYTES}")
            _heap["users"] += step
            if step < 0 and _heap["users"] == 0:
                setting.execute(f"PRAGMA hard_heap_limit = {_heap['saved']}")
        finally:
            setting.close()


# EHRSQL as HELM scores it (ehr_sql_annotator.py, EhrSqlAnnotator.annotate; ehr_sql_metrics.py,
# EhrSqlMetric.evaluate_generation), in clinreg's words:
#   - the expected result is the gold query's rows; when the gold query returns no rows (or fails), it is the
#     values of the row's `value` object (the words filled into the question's template) instead;
#   - the answer is right when its query's rows, as a set, equal the expected result, as a set. A row is a tuple
#     and a value is not, so a question scored against its values is never right: it scores 0;
#   - with no expected result at all (unanswerable questions, gold `null`), the answer is right only when the
#     model wrote nothing: abstaining is decided on the raw output, so an empty <sql></sql> is not abstaining;
#   - a question without a gold query scores 0.
# Unlike HELM, the queries run read-only and with the record's time limit; that changes no score of a query
# that only reads and ends in time.
NO_GOLD_QUERY = ("null", "none")  # gold texts of unanswerable questions: not SQL, so never run


def expected_values(value):
    """The values of a row's `value` object, as HELM's annotator lists them. Absent keys, which a table of rows
    with different keys fills with null, are left out."""
    if not isinstance(value, dict):
        return []
    return [item for item in value.values() if item is not None]


def expected_result(gold_query, database, value=None, data_dir=None):
    """What an answer is compared with: the gold query's rows, or the row's values when those are none."""
    gold = str(gold_query or "").strip()
    rows = []
    if gold and gold.casefold() not in NO_GOLD_QUERY:
        rows = run_query(database_path(database, data_dir), gold, database.get("time_limit_seconds", 10))[0] or []
    return rows or expected_values(value)


def predicted_result(completion, database, data_dir=None):
    """(rows, error) of the query in a completion; no rows and `No query generated` when it holds none."""
    predicted = sql_text(completion)
    if not predicted:
        return [], "No query generated"
    rows, error = run_query(database_path(database, data_dir), predicted, database.get("time_limit_seconds", 10))
    return rows or [], error


def execution_match(completion, gold_query, expected, predicted):
    """EHRSQL's execution accuracy from the two results: 1.0 or 0.0 (see the rules above)."""
    if not str(gold_query or "").strip():
        return 0.0
    if expected and predicted:
        try:
            return float(set(predicted) == set(expected))
        except TypeError:  # a value that is a list or an object: HELM's metric stops with an error here
            return 0.0
    return float(not expected and not predicted and not str(completion or "").strip())


def sql_execution(completion, gold_query, database, *, value=None, data_dir=None):
    """EHRSQL's execution accuracy for one answer, as HELM scores it: 1.0 when the predicted query returns the
    gold query's rows (or, when it returns none, the row's `value`s), or when the model wrote nothing for a
    question with no expected result. The database opens read-only; each query has a time limit."""
    expected = expected_result(gold_query, database, value, data_dir)
    # Without an expected result only an empty output can be right: the database is not needed to say so.
    if not str(completion or "").strip() or not expected:
        predicted = []
    else:
        predicted = predicted_result(completion, database, data_dir)[0]
    return execution_match(completion, gold_query, expected, predicted)


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
        return sql_execution(completion, gold_value, scoring["database"], value=(context or {}).get("value"))
    raise ValueError(f"{method} is not scored without a jury")


# ------------------------------------------------------------------------------------------ LLM jury
# Every judge rates the response on every axis of the benchmark's jury. The rules for irregular replies are
# MedHELM's (HELM's model_as_judge.py, LLMAsJuryAnnotator; llm_jury_metrics.py, LLMJuryMetric, with the
# default_score of 1.0 that every MedHELM run spec passes), in clinreg's words:
#   - an empty response (nothing but white space) goes to no judge and scores the default, 1.0;
#   - a reply is read from its first `{` to its last `}`; JSON cut short of its final brace (Python's JSON
#     reader expects a `,` there) is read again with one `}` added;
#   - a reply is used only if it has every axis, each with a `score` and an `explanation`; otherwise the whole
#     reply is dropped, the axes it did rate included;
#   - every entry of a used reply counts, entries for other axes included, each score as Python's int() reads
#     it: a non-whole score is cut towards zero (4.7 counts 4; "4" counts 4), and a score off the scale counts
#     as it is (0 or 7);
#   - the score is the mean of every rating counted, over all judges; with none (no judge answered usably),
#     the default, 1.0.
# Where HELM's metric stops the run with an error (a score int() cannot read, such as "4/5", 4.5 in quotes or
# null; an entry that is not an object with a score), that reply is dropped here instead, and the problem says so.
# Nothing is hidden: each instance counts the ratings missing, the replies dropped, the ratings counted although
# irregular (not a whole number on the scale, or not one of the jury's axes) and whether the default was used.

JURY_DEFAULT_SCORE = 1.0


def jury_prompt(jury, input_text, response, reference):
    """What each judge reads: the rubric, the texts the jury is shown, the axes, the scale and the answer format."""
    low, high = jury["scale"]
    shown = {"input": ("the model's input", input_text), "response": ("the model's response", response),
             "reference": ("a reference answer", reference)}
    parts = ["You are a clinician rating a response written by an AI model.", "", " ".join(jury["rubric"].split()), ""]
    for key in jury["shows"]:
        label, text = shown[key]
        tag = _section_tag(key, str(text or ""))
        parts += [f"Here is {label}, between <{tag}> tags:", f"<{tag}>", str(text or ""), f"</{tag}>", ""]
    parts.append(f"Rate the response on each of these axes with a whole number from {low} (very poor) to {high} "
                 "(excellent):")
    parts += [f"- {axis['id']}: {axis['question']}" for axis in jury["axes"]]
    example = ", ".join(f'"{axis["id"]}": {{"score": <{low}-{high}>, "explanation": "<one sentence>"}}'
                        for axis in jury["axes"])
    parts += ["", "Reply with a single JSON object and nothing else, with one entry per axis:", "{" + example + "}"]
    return "\n".join(parts)


def _section_tag(key, text):
    """The tag around a text in the judge's prompt: the key itself, unless the text writes a tag of that name
    (it could then close its section and write prompt structure); then the key and a digest of the text, a tag
    that the text cannot hold, since it would have to contain its own digest."""
    import hashlib

    if not re.search(rf"<\s*(?:/\s*)?{re.escape(key)}", text, re.IGNORECASE):
        return key
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return next(tag for tag in (f"{key}-{digest[:16]}", f"{key}-{digest}") if f"</{tag}>" not in text)


def _reply_object(text):
    """(object, problem) of a judge's reply, read as HELM's jury annotator reads it."""
    import json

    text = str(text or "")
    start, end = text.find("{"), text.rfind("}")
    if start >= 0 and end > start:
        text = text[start:end + 1]
    try:
        try:
            return json.loads(text), None
        except json.JSONDecodeError as exc:
            if exc.msg != "Expecting ',' delimiter":
                raise
            return json.loads(text + "}"), None
    except Exception as exc:  # noqa: BLE001 -- whatever the reader raises, the reply is unreadable
        return None, f"the reply holds no readable JSON object ({type(exc).__name__}: {str(exc)[:80]})"


def _whole(score):
    """(rating, problem) of one entry's score as HELM's metric counts it: int() of the score, or a problem. A
    whole number too large for a float, which no mean can hold (HELM's metric stops there), is a problem too."""
    try:
        rating = int(score)
        float(rating)
        return rating, None
    except (TypeError, ValueError, OverflowError):
        return None, f"{repr(score)[:40]} cannot be read as a number"


def read_ratings(jury, text):
    """(ratings, problems) of one judge's reply under MedHELM's rules (above). A used reply gives a rating for
    each of its entries (each axis, and any other entry it holds) and a problem for each rating counted
    although irregular; a dropped reply gives no rating and the reasons."""
    low, high = jury["scale"]
    answer, problem = _reply_object(text)
    if problem:
        return {}, [problem]
    if not isinstance(answer, dict):
        return {}, [f"the reply is a JSON {type(answer).__name__}, not an object"]
    lacking = []
    for axis in jury["axes"]:
        entry = answer.get(axis["id"])
        if axis["id"] not in answer:
            lacking.append(f"{axis['id']}: missing")
        elif not isinstance(entry, dict):
            lacking.append(f"{axis['id']}: not an object with a score and an explanation")
        else:
            lacking += [f"{axis['id']}: no {key}" for key in ("score", "explanation") if key not in entry]
    if lacking:
        return {}, [problem + " (the reply is dropped)" for problem in lacking]
    axes = {axis["id"] for axis in jury["axes"]}
    ratings, irregular = {}, []
    for name, entry in answer.items():
        if not isinstance(entry, dict) or "score" not in entry:
            return {}, [f"{str(name)[:40]}: not an object with a score (the reply is dropped)"]
        rating, problem = _whole(entry["score"])
        if problem:
            return {}, [f"{str(name)[:40]}: {problem} (the reply is dropped)"]
        ratings[name] = rating
        if name not in axes:
            irregular.append(f"{str(name)[:40]}: not an axis of the jury; its rating {rating} counts")
        elif rating != entry["score"] or isinstance(entry["score"], bool):
            irregular.append(f"{name}: {repr(entry['score'])[:40]} is not a JSON whole number; it counts as {rating}")
        elif not low <= rating <= high:
            irregular.append(f"{name}: {rating} is outside {low}-{high}; it counts as it is")
    return ratings, irregular


def mean_rating(ratings_by_judge, default=JURY_DEFAULT_SCORE):
    """The mean of every rating received (judge x entry), or `default` when there is none (MedHELM's 1.0;
    pass default=None to tell an instance no judge rated from one that was rated)."""
    values = [v for ratings in ratings_by_judge.values() for v in ratings.values()]
    return sum(values) / len(values) if values else default


def empty_response(response):
    """Whether a response is empty as the jury sees it: nothing but white space. No judge reads it."""
    return not str(response or "").strip()


def jury_score(jury, response, replies, default=JURY_DEFAULT_SCORE):
    """One instance's jury score under MedHELM's rules, with its irregularities counted. `replies` maps each
    judge's name to its reply text, or to None when the judge gave no reply (an API error); an empty response
    needs no replies. Returns a dict: score, ratings and problems by judge, ratings_missing, replies_dropped,
    ratings_irregular and default_used."""
    axes = [axis["id"] for axis in jury["axes"]]
    expected = len(jury.get("judges") or replies) * len(axes)
    if empty_response(response):
        return {"score": default, "ratings": {}, "problems": {"response": ["empty: no judge is asked"]},
                "ratings_missing": expected, "replies_dropped": 0, "ratings_irregular": 0, "default_used": True}
    ratings, problems, irregular = {}, {}, 0
    for judge, reply in replies.items():
        if reply is None:
            ratings[judge], problems[judge] = {}, ["no reply"]
            continue
        ratings[judge], found = read_ratings(jury, reply)
        if found:
            problems[judge] = found
        if ratings[judge]:
            irregular += len(found)
    rated = sum(1 for judge_ratings in ratings.values() for axis in axes if axis in judge_ratings)
    score = mean_rating(ratings, default=None)
    return {"score": default if score is None else score, "ratings": ratings, "problems": problems,
            "ratings_missing": expected - rated, "replies_dropped": sum(1 for r in ratings.values() if not r),
            "ratings_irregular": irregular, "default_used": score is None}


def judge_replacements(jury, planned, used):
    """The judges of a jury score that stand in for another: a record's judge replacing one a provider retired
    (its `replaces`), or a run's judge replacing the record's. `planned` and `used` map each judge's name to the
    model the record names and the model the run used. Returns {name: {"replaces", "by", "why"}}; empty if none."""
    found = {}
    for judge in jury.get("judges") or []:
        name = judge["name"]
        if judge.get("replaces"):
            found[name] = {"replaces": judge["replaces"], "by": planned.get(name), "why": judge.get("replaced_because")}
        if name in used and used[name] != planned.get(name):
            before = found.get(name)
            found[name] = {"replaces": before["replaces"] if before else planned.get(name), "by": used[name],
                           "why": "replaced for this run"
                                  + (f" (the record's judge already replaces it: {before['why']})" if before else "")}
    return found

# ------------------------------------------------------------------------------------------ Rubric grading
# HealthBench's own score, as its authors compute it (openai/simple-evals healthbench_eval.py at commit
# ee3b0318d8d1d9d72755a4120879be65f7c07e9e), in clinreg's words:
#   - each instance carries its own rubric: criteria, each worth points, negative for what a reply must not do;
#   - a grader model reads the conversation (as `role: content` turns, the reply last) and one rubric item
#     (`[points] criterion`) in simple-evals' grader template, and replies with a JSON object whose
#     `criteria_met` is true or false; every criterion is graded on its own;
#   - a reply is read as simple-evals reads it (grader_reply_json); one without a true or false `criteria_met`
#     is asked again, up to GRADER_ATTEMPTS asks in all (simple-evals asks without end). A criterion still
#     unread then is *ungraded*: its instance has no score, is left out of every statistic and is counted;
#   - the instance scores the points of the criteria met, negative ones included, over its positive points (it
#     may fall below 0); the benchmark scores the mean over the instances clipped to [0, 1], with a bootstrap
#     std of that clipped mean and the number of instances, and the same for each example tag and rubric tag.
# This is not medhelm 0.8.0's health_bench_score (three judges, a negative criterion counted as 10 plus its
# points over the total of those): the two carry different names, HEALTHBENCH_METRIC and MedHELM's.
# The grader template is simple-evals' text and clinreg does not carry it: grader_template() reads it from the
# user's copy of simple-evals' healthbench_eval.py or of medhelm (whose annotator holds the same text).

HEALTHBENCH_METRIC = "healthbench_simple_evals_score"  # HealthBench's own score; MedHELM's is health_bench_score
GRADER_SETTINGS = {"model": "openai/gpt-4.1-2025-04-14", "temperature": 0.5, "max_tokens": 2048,
                   "system_message": "You are a helpful assistant."}  # simple-evals' grading sampler
GRADER_ATTEMPTS = 5  # asks per criterion before it is reported ungraded
BOOTSTRAP_RESAMPLES = 1000
TEMPLATE_NAMES = ("GRADER_TEMPLATE", "PROMPT_TEMPLATE")  # simple-evals' name, medhelm's annotator's name
TEMPLATE_FILES = ("healthbench_eval.py", "simple_evals/healthbench_eval.py",
                  "helm/benchmark/annotation/health_bench_annotator.py")


def _template_in(source, where):
    """The grader template assigned in a Python source (a string constant, or one with .strip() called)."""
    import ast

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) in TEMPLATE_NAMES for t in node.targets):
            value, strip = node.value, False
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "strip":
                value, strip = value.func.value, True
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value.strip() if strip else value.value
    raise ValueError(f"{where}: no {' or '.join(TEMPLATE_NAMES)} string in it")


def grader_template(source=None):
    """simple-evals' HealthBench grader template, read (never imported or run) from `source`: simple-evals'
    healthbench_eval.py or a folder holding it, medhelm's health_bench_annotator.py, or a medhelm wheel. Without
    a source: the environment variable CLINREG_HEALTHBENCH_GRADER_TEMPLATE, then an installed medhelm."""
    import importlib.util
    import zipfile

    source = source or os.environ.get("CLINREG_HEALTHBENCH_GRADER_TEMPLATE")
    if not source:
        try:
            spec = importlib.util.find_spec("helm.benchmark.annotation.health_bench_annotator")
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin:
            raise ValueError("no HealthBench grader template: give grader_template=PATH (simple-evals' "
                             "healthbench_eval.py, or a medhelm wheel), set CLINREG_HEALTHBENCH_GRADER_TEMPLATE, "
                             "or install medhelm")
        source = spec.origin
    path = str(source)
    if path.endswith(".whl"):
        with zipfile.ZipFile(path) as wheel:
            return _template_in(wheel.read(TEMPLATE_FILES[-1]).decode("utf-8"), path)
    if os.path.isdir(path):
        found = [os.path.join(path, f) for f in TEMPLATE_FILES if os.path.isfile(os.path.join(path, f))]
        if not found:
            raise ValueError(f"{path}: holds none of {', '.join(TEMPLATE_FILES)}")
        path = found[0]
    with open(path, encoding="utf-8") as handle:
        return _template_in(handle.read(), path)


def grader_reply_json(text):
    """A grader reply read as simple-evals' parse_json_to_dict reads it: strip the reply, remove a ```json
    fence (lower case) and white space at its very start and a closing fence at its very end, and read the rest
    as strict JSON; {} when that fails. Any JSON value comes back, not only an object."""
    import json

    cleaned = re.sub(r"^```json\s*|\s*```$", "", str(text).strip())
    try:
        return json.loads(cleaned)
    except (json.JSONDecodeError, RecursionError):
        return {}


def criterion_met(text):
    """(met, problem) of one grader reply: met is True or False when the reply, read as simple-evals reads it, is
    an object whose `criteria_met` is a JSON boolean; else None with the problem (simple-evals asks again)."""
    answer = grader_reply_json(text)
    if not isinstance(answer, dict):  # simple-evals stops with a TypeError on some of these; here they are re-asked
        return None, f"the reply is a JSON {type(answer).__name__}, not an object"
    if answer == {}:
        return None, "the reply holds no JSON object simple-evals can read"
    value = answer.get("criteria_met")
    if isinstance(value, bool):
        return value, None
    return None, f"no true or false criteria_met in the reply ({repr(value)[:40]})"


def rubric_items(rubric, context):
    """[(criterion, points, tags)] of an instance's rubric: the record's rubric column in the instance's context.
    The points stay as the data holds them (5 is shown `[5]`, 5.0 `[5.0]`, as simple-evals shows them). An item
    without the criterion key is shown whole (as JSON, less its points)."""
    import json

    items = (context or {}).get(rubric["column"]) or []
    if isinstance(items, str):
        items = json.loads(items)
    criterion, points = rubric.get("criterion_key", "criterion"), rubric.get("points_key", "points")
    return [(str(item[criterion]) if criterion in item else
             json.dumps({k: v for k, v in item.items() if k != points}, sort_keys=True), item[points],
             list(item.get("tags") or []))
            for item in items]


def rubric_sent_turns(system, turns):
    """The turns the model under test is sent, as simple-evals' ChatCompletionSampler sends them: its system
    message (here the record's instructions), when there is one, first, before any system turn of the example's own,
    then the example's turns as they are. simple-evals' grader reads exactly these (actual_queried_message_list)."""
    return ([{"role": "system", "content": system}] if system else []) + [dict(turn) for turn in turns]


def rubric_graded_turns(sent, response):
    """The conversation the grader reads: the turns sent to the model (system turns included) and its reply last."""
    return list(sent) + [{"role": "assistant", "content": response}]


def rubric_conversation(messages):
    """The conversation the grader reads: each turn `role: content`, the turns one blank line apart, the reply last."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


def rubric_grader_prompt(template, messages, criterion, points):
    """What the grader reads for one criterion: the template with the conversation, then the rubric item, put in."""
    return template.replace("<<conversation>>", rubric_conversation(messages)).replace(
        "<<rubric_item>>", f"[{points}] {criterion}")


def _points_score(points, met):
    possible = sum(p for p in points if p > 0)
    return sum(p for p, hit in zip(points, met) if hit) / possible if possible > 0 else None


def rubric_score(items, met, example_tags=()):
    """One instance's rubric result. `items` are (criterion, points, tags); `met` holds, for each, True, False or
    None (ungraded). Returns a dict: score (None when a criterion is ungraded or the rubric has no positive
    points), points_met, points_possible, criteria_met, criteria_ungraded, and metrics: the instance's values by
    simple-evals' names (overall_score, each example tag, each rubric tag with positive points), empty when
    it has no score."""
    if len(met) != len(items):
        raise ValueError(f"{len(met)} grades for {len(items)} criteria")
    points = [p for _, p, _ in items]
    possible = sum(p for p in points if p > 0)
    achieved = sum(p for p, hit in zip(points, met) if hit)
    ungraded = sum(1 for hit in met if hit is None)
    score = None if ungraded else _points_score(points, met)
    metrics = {}
    if score is not None:
        metrics["overall_score"] = score
        metrics.update({tag: score for tag in example_tags})
        tagged = {}
        for (_, p, tags), hit in zip(items, met):
            for tag in tags:
                tagged.setdefault(tag, []).append((p, hit))
        for tag, pairs in tagged.items():
            value = _points_score([p for p, _ in pairs], [hit for _, hit in pairs])
            if value is not None:
                metrics[tag] = value
    return {"score": score, "points_met": achieved, "points_possible": possible,
            "criteria_met": sum(1 for hit in met if hit), "criteria_ungraded": ungraded, "metrics": metrics}


def clipped_mean(values):
    """The mean of the values clipped to [0, 1]; NaN for none."""
    return min(1.0, max(0.0, sum(values) / len(values))) if values else float("nan")


def rubric_mean(scores):
    """The benchmark's score: the mean of the instances' scores (those with none left out), clipped to [0, 1]."""
    return clipped_mean([s for s in scores if s is not None])


def numpy_legacy_choice(seed=0):
    """A resampler drawing what numpy's global generator draws after `np.random.seed(seed)`: each call
    `resample(values, n)` returns what `np.random.choice(values, n)` would (numpy's legacy MT19937, seeded as
    `seed` seeds it, and its masked rejection of out-of-range indices), with the standard library alone."""
    import random

    state, value = [], seed & 0xFFFFFFFF
    for position in range(624):  # numpy's legacy seeding of MT19937 from one whole number (init_genrand)
        state.append(value)
        value = (1812433253 * (value ^ (value >> 30)) + position + 1) & 0xFFFFFFFF
    rng = random.Random()
    rng.setstate((3, tuple(state) + (624,), None))  # Python's Mersenne Twister, put in that state

    def resample(values, n):
        top = len(values) - 1
        mask = (1 << top.bit_length()) - 1
        drawn = []
        for _ in range(n):
            index = 0
            if top:
                index = rng.getrandbits(32) & mask
                while index > top:
                    index = rng.getrandbits(32) & mask
            drawn.append(values[index])
        return drawn

    return resample


def bootstrap_std(values, resample=None, resamples=BOOTSTRAP_RESAMPLES):
    """The population std of `resamples` clipped means of resamples (with replacement, of the same size) of the
    values, as simple-evals computes it. `resample(values, n)` draws one; by default numpy_legacy_choice(0): the
    draws simple-evals makes when numpy's global generator is seeded with 0 (simple-evals itself never seeds it,
    so its own runs cannot be repeated; this one can, with the same numbers)."""
    if not values:
        return float("nan")
    if resample is None:
        resample = numpy_legacy_choice(0)
    means = [clipped_mean(list(resample(values, len(values)))) for _ in range(resamples)]
    centre = sum(means) / len(means)
    return (sum((m - centre) ** 2 for m in means) / len(means)) ** 0.5


def healthbench_stats(results, resample=None, seed=0):
    """simple-evals' aggregate of instances' rubric results (rubric_score's dicts): for `score` and every
    per-instance metric name, in the order simple-evals meets them, its clipped mean, `NAME:n_samples` and
    `NAME:bootstrap_std`, over the instances that have it. Instances with no score are left out;
    `instances_ungraded` counts those with an ungraded criterion. One generator draws every bootstrap, one metric
    after another, as simple-evals' one global numpy generator does: by default numpy_legacy_choice(seed)."""
    resample = resample or numpy_legacy_choice(seed)
    values = {}
    for result in results:
        for name, value in result["metrics"].items():
            values.setdefault(name, []).append(value)
        if result["score"] is not None:
            values.setdefault("score", []).append(result["score"])
    stats = {}
    for name, found in values.items():
        stats[name] = clipped_mean(found)
        stats[f"{name}:n_samples"] = len(found)
        stats[f"{name}:bootstrap_std"] = bootstrap_std(found, resample)
    stats["instances_ungraded"] = sum(1 for r in results if r["criteria_ungraded"])
    stats["criteria_ungraded"] = sum(r["criteria_ungraded"] for r in results)
    return stats
