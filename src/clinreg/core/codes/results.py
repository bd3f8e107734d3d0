"""The codes `results import` and `leaderboard` report (CLR96x)."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR961": ("results-unreadable", "warning", "A results file cannot be read", """
        The file is missing, too large, not UTF-8, not valid JSON, CSV or zip, or nests too deeply. Results
        files are untrusted input: sizes are capped and nothing is read past the cap.

        Bad:
            clinreg results import leaderboard.xlsx
        Good:
            clinreg results import leaderboard.csv
    """),
    "CLR962": ("results-shape", "warning", "A results file does not have the shape its format requires", """
        A HELM leaderboard CSV starts with a `Model` column; a HELM run folder holds run_spec.json and
        stats.json; an lm-eval file has a `results` object; an Inspect log has `eval` and `results`; a clinreg
        results file has `clinreg_results` and a list of `scores`, each with every required field.

        Bad:
            {"results": [0.5, 0.7]}
        Good:
            {"results": {"clinreg_med_qa": {"exact_match,none": 0.7}}}
    """),
    "CLR963": ("benchmark-unknown", "warning", "A column, task or run group maps to no benchmark of the registry", """
        Leaderboard columns are matched to mappings through `helm_names` (ignoring case); lm-eval and Inspect
        task names through the mapping id (optionally prefixed `clinreg_`); HELM runs through their run groups.
        A name that matches nothing is reported rather than dropped, so no score disappears silently.

        Bad:
            Model,MedQA (USMLE) - EM
        Good:
            Model,MedQA - EM
    """),
    "CLR964": ("benchmark-ambiguous", "warning", "A truncated column name matches several benchmarks", """
        HELM's front end cuts long headers to 27 characters and `...`. clinreg matches such a header by prefix;
        when the prefix fits more than one benchmark, it refuses to pick one.

        Bad:
            Model,MTSamples...
        Good:
            Model,MTSamples Procedures - Jury Score
    """),
    "CLR965": ("metric-mismatch", "warning", "The score is not on the benchmark's main metric", """
        The leaderboard ranks each benchmark by the main metric its mapping declares (`metric.name`). A score
        on another metric (MedHELM v1 reported BERTScore for open tasks, later the jury score) is refused,
        because it would be rescaled with the wrong range.

        Bad:
            Model,MedAlign - BERTScore (F1)
        Good:
            Model,MedAlign - Jury Score
    """),
    "CLR966": ("value-invalid", "warning", "A score is not a finite number inside the metric's range", """
        Scores must be plain finite numbers (no NaN or infinity) within the mapping's `metric.range`; instance
        counts must be whole numbers of at least 1. A blank cell or `-` means the model has no score.

        Bad:
            GPT-4o,NaN
        Good:
            GPT-4o,0.812
    """),
    "CLR967": ("score-duplicate", "warning", "A model has two scores for the same benchmark", """
        Each model has at most one score per benchmark across all the sources given together; a second one is
        refused rather than silently preferred.

        Bad:
            clinreg leaderboard run1.csv run1-copy.csv
        Good:
            clinreg leaderboard run1.csv
    """),
    "CLR968": ("range-missing", "warning", "A benchmark with scores declares no metric range", """
        The macro average puts every benchmark on a common 0-1 scale using the mapping's `metric.range`
        (a jury score in [1, 5] becomes (x - 1) / 4). Without a declared range the scale would be guessed.

        Bad:
            metric: {name: exact_match}
        Good:
            metric: {name: exact_match, range: [0, 1]}
    """),
}

# Every results code is a warning by default (the source or score is left out of the import) and an error,
# which stops the command with nothing written, under --strict or when nothing at all could be imported.
STRICT = {code: ("error", "under --strict or when nothing could be imported") for code in ENTRIES}
