"""Read-step codes: every split a mapping builds is read from declared files, inside the mirror, by declared steps."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR711": ("read-missing", "warning", "A source that is not a hub repo has no `read` step", """
        Files from GitHub, PhysioNet, a URL or a private holder only build when the record says how they become
        rows: which files make each split, in which format, joined or transformed how. Without `source.read` the
        builder can only hand the folder to `datasets`, which needs a hub-style README that real downloads lack.
        Where the layout is not public (a test set its authors hold back), say so in `source.read_note`: the
        warning stays, quoting it, and the record lists and places the benchmark without building it.

        Bad:
            source: {type: physionet, project: MIMIC-RRS, files: [test.findings.tok, test.impression.tok]}
        Good:
            source:
              type: physionet
              project: MIMIC-RRS
              files: [test.findings.tok, test.impression.tok]
              read:
                splits:
                  test: {format: lines, files: {findings: test.findings.tok, impression: test.impression.tok}}
    """),
    "CLR712": ("read-split-missing", "error", "A mapping builds a split that `source.read` does not declare", """
        With a `read` step, the record itself says which files make each split; a mapping's split must be one
        of them. (Split names are the record's own, not a README's.)

        Bad:
            read: {splits: {test: {files: test.json}}}
            mappings: [{id: x, splits: [validation], ...}]
        Good:
            read: {splits: {test: {files: test.json}, validation: {files: valid.json}}}
    """),
    "CLR713": ("read-bad-reference", "error", "A read step names a missing table, or a file outside the mirror", """
        A `join` must name a table of `read.tables`, and every file pattern must be a relative path that stays
        inside the mirror folder (no absolute path, no `..`). A `where:` key must be a `{name}` of its pattern.

        Bad:
            steps: [{join: {table: targets, keys: [hadm_id], cardinality: one_to_one}}]   # no table `targets`
            files: ../../etc/passwd
        Good:
            tables: {targets: {files: test_phase_1/discharge_target.csv.gz}}
    """),
    "CLR714": ("read-slow-pattern", "error", "An extract pattern nests one repetition inside another", """
        Python's regular expressions backtrack: a repetition inside a repetition, such as `(\\w+\\s*)+`, can take
        exponential time on a text that almost matches, and would stall `clinreg build`. Write the pattern
        without the nesting, give each round a delimiter its variable parts cannot match (`(?:,\\s*\\w+)*` passes),
        or, on Python 3.11 and later, make the inner part possessive (`\\w++`) or atomic (`(?>...)`). The builder
        also stops any match that runs past a time limit.

        Bad:
            extract: {column: note, patterns: ['(?P<plan>(\\w+\\s*)+)PLAN']}
        Good:
            extract: {column: note, patterns: ['(?s)^(?P<note>.*?)PLAN:']}
    """),
    "CLR715": ("read-file-not-in-paths", "error", "A GitHub source reads a file that its `paths` does not list", """
        A GitHub source lists in `paths` the repository files a copy must hold, so that `clinreg fetch` and a
        reviewer know what to download; its `read` step says how they become rows. Every file (or archive) the
        read step reads must be one of `paths`, or match one of its globs. `paths` may list more (EHRSQL's
        database file, read by the scorer rather than the read step).

        Bad:
            paths: [data/test.csv]
            read: {splits: {test: {files: data/valid.csv}}}
        Good:
            paths: [data/test.csv, data/valid.csv]
    """),
}
