"""The codes `check-data` reports (CLR90x) when it compares a local mirror with its record."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR901": ("data-unreadable", "error", "A split of the local copy cannot be read", """
        The mirror folder exists, but a declared split cannot be read from it: a file that is missing or does
        not parse, or, for a hub record without a read step, a config name that the folder's README does not
        declare. (A read step's join that does not fit the data is CLR908.)

        Bad:
            source: {type: huggingface, repo: qiaojin/PubMedQA, config: labeled, splits: [train]}
        Good:
            source: {type: huggingface, repo: qiaojin/PubMedQA, config: pqa_labeled, splits: [train]}
    """),
    "CLR902": ("split-missing", "error", "A declared split is not in the local copy", """
        Every split named in `source.splits` or a mapping's `splits` must be declared by the data's README
        (`configs: ... data_files: - split: NAME`), or the build cannot read it.

        Bad:
            splits: [test]        # the README declares only train
        Good:
            splits: [train]
    """),
    "CLR903": ("column-missing", "error", "A column the record reads is not in the data", """
        The label column, choice columns, range, reference, metadata and variant columns, `fields_read`, and
        the template's variables must all be columns of every split the mapping reads (dotted names reach
        into struct columns).

        Bad:
            label: {encoding: letter, column: answer, letters: [A, B, C, D]}   # the data calls it answer_idx
        Good:
            label: {encoding: letter, column: answer_idx, letters: [A, B, C, D]}
    """),
    "CLR904": ("label-outside-scheme", "error", "A sampled label value is outside the label scheme", """
        Every gold value in the checked rows must be one the scheme accepts (compared as strings: 1 is "1").
        `clinreg build` stops on such rows unless `--on-bad-label skip` skips and counts them.

        Bad:
            map: {"yes": A, "no": B}            # the data also holds "maybe"
        Good:
            map: {"yes": A, "no": B, "maybe": C}
    """),
    "CLR905": ("empty-records", "warning", "The data holds records whose every column is empty", """
        Some files end with empty records (MEDEC's test CSV ends with `,,,,,,,,` lines). They have no label, so
        `clinreg build` stops on them by default; `--on-bad-label skip` skips them and reports the count.

        Bad:
            a split whose last rows are all null, built without --on-bad-label skip
        Good:
            clinreg build medec --data-dir DIR --on-bad-label skip
    """),
    "CLR906": ("template-fails", "error", "The input template fails on a sampled row", """
        The template is rendered in a sandbox that sees only the row's columns (plus `row` and the variant's
        names); an undefined name, a sandbox violation or the size and time caps stop it.

        Bad:
            input_template: "{{ row.Question.__class__ }}"
        Good:
            input_template: "{{ Question }}"
    """),
    "CLR907": ("gold-leak", "error", "An open-ended instance holds its reference answer in its input", """
        For generation tasks the reference text is what the model must write. If the input already holds it, the
        benchmark measures copying. What counts as held, whitespace folded:
        - a reference of 40 characters or more: the whole reference, or (when longer than 200 characters) any
          span of 200 characters of it, anywhere in the input;
        - a shorter reference: only a whole copy, since a short text ("CORRECT", a drug name) is found by chance:
          the entire input, or, for a reference of three words or more, a whole line or sentence of the input
          (case and final punctuation ignored). A one- or two-word answer such as "yes" leaks only as the
          entire input.
        Remove the reference from the input with a `remove` read step. Where a few references are legitimately
        extractive, list their rows with the reason in `gold_in_input_rows`; every other row is still checked.
        Where the input is the reference by design for every row, say why in `gold_in_input`.
        Closed tasks are exempt: their options are listed in the input on purpose.

        Bad:
            input_template: "{{ text }}"        # the discharge note still holds its brief hospital course
        Good:
            steps: [{remove: {column: text, values: [brief_hospital_course, discharge_instructions]}}]
            gold_in_input_rows: [{split: test, rows: [17], why: "The summary quotes the question's own last line."}]
    """),
    "CLR908": ("join-fails", "error", "A read step's join does not fit the data", """
        A `join` declares how its keys pair rows: `one_to_one` and `many_to_one` allow one row of the table per
        key, `one_to_one` one row of the split per key, and `unmatched: error` (the default) a match for every
        row. The local copy breaks one of these; the message names the key and the rows. Fix the keys or the
        cardinality, or declare `unmatched: drop` (counted) or `keep` where unmatched rows are expected.

        Bad:
            - join: {table: targets, keys: [hadm_id], cardinality: one_to_one}   # two targets share a hadm_id
        Good:
            - join: {table: targets, keys: [hadm_id], cardinality: one_to_many, many: first}
    """),
    "CLR909": ("letters-options-mismatch", "error", "Rows hold more options than the label scheme has letters", """
        A closed label scheme names the letters a gold answer may be (`letters`, an index's `count`, a map's
        letters), and the prompt offers every option of the row with its letter. When the sampled rows hold more
        options than that, the prompt names letters no gold can be, and the options past the last letter can
        never be right: the scheme's letters or the options column are wrong.

        Bad:
            label: {encoding: letter, column: label, letters: [A, B, C, D]}   # the options struct holds 10
        Good:
            label: {encoding: letter, column: label, letters: [A, B, C, D, E, F, G, H, I, J]}
    """),
    "CLR910": ("record-not-buildable", "error", "The record cannot drive a build", """
        A build reads the record before it reads the data: the mapping and split asked for must exist, every
        pattern and filter must compile, and every adapter, file pattern and option the record names must be one
        clinreg knows. The message names the part of the record that stops the build.

        Bad:
            clinreg build med_qa --mapping no_such_mapping
            steps: [{extract: {column: text, pattern: "(unclosed"}}]
        Good:
            clinreg build med_qa --mapping med_qa
            steps: [{extract: {column: text, pattern: "Answer: (?P<answer>[A-E])"}}]
    """),
    "CLR911": ("lock-missing", "error", "A command needs the lock file and there is none", """
        `clinreg lock` records, per mapping, the source read and the hash of its instances. Commands that check
        a build against it (`build --locked`, the Croissant export) need that file to exist first.

        Bad:
            clinreg build med_qa --locked          # no registry/lock.json yet
        Good:
            clinreg lock && clinreg build med_qa --locked
    """),
    "CLR912": ("export-not-expressible", "error", "The export's format cannot express what the record does", """
        A format with a fixed set of metrics and a single prompt per instance (a medhelm configurable
        benchmark) cannot run every record: a multi-turn conversation, a number scored by its accepted range,
        execution-based scoring (EHRSQL), a per-instance rubric (HealthBench), or a cell its reader would take
        for a missing value. The export writes nothing and names what it cannot express; the HELM export runs
        such a record with HELM's own classes.

        Bad:
            clinreg export medhelm ehr_sql -o out      # the score comes from running the SQL
        Good:
            clinreg export helm ehr_sql -o out
    """),
    "CLR914": ("split-duplicates", "warning", "An evaluation split holds duplicate instances", """
        Two instances of one evaluation split read the same (exact: equal text once normalised: Unicode NFKC,
        case folded, punctuation and whitespace ignored) or nearly the same (Jaccard similarity of their word
        5-grams of at least 0.8). A duplicated question is scored twice, so it weighs twice in the score.
        Instances of one source row (variants) are not compared with each other. A warning: the data is as
        its authors distribute it; `check-data --strict` makes it an error.

        Bad:
            test row 4: "What is the first-line treatment of X?" / test row 9: "what is the first line treatment of x"
        Good:
            every instance of the split reads differently (or the record's notes say why the copies are kept)
    """),
    "CLR915": ("split-overlap", "warning", "An evaluation split overlaps another split of the record", """
        An instance of an evaluation split reads the same as, or nearly the same as (Jaccard of word 5-grams at
        least 0.8), an instance of another split of the same record, often its training split: a model trained
        or tuned on that split has seen the question. The message counts the pairs and names the rows. A
        warning, since the data is as distributed; `check-data --strict` makes it an error.

        Bad:
            test row 12 reads as train row 40 (VQA-RAD: every test image is in the distributed train split)
        Good:
            no instance of the evaluation split reads like one of the record's other splits
    """),
}

# The overlap findings are facts of the data as distributed: warnings, unless `check-data --strict` is asked.
STRICT = {code: ("error", "under check-data --strict") for code in ("CLR914", "CLR915")}
