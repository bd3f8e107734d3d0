"""Review codes: an approval must cover the current content, and reviewers' current decisions must agree."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR801": ("stale-review", "warning", "An approved item changed after it was approved", """
        An approval covers a hash of the item's name, definition, example and placement (the task's subcategory
        or the subcategory's category). When any of them changes later, the approval no longer covers the item
        and it needs re-review. `validate --strict` (used on pull requests) fails on this.

        Bad:
            example: (edited after approval)
            review: {status: approved, reviewers: [{..., decision: approved, content_hash: sha256:1f2e...}]}
        Good:
            Run `clinreg review approve ITEM --reviewer NAME` again after the edit is reviewed.
    """),
    "CLR802": ("conflicting-review", "warning", "Reviewers' current decisions on an item disagree", """
        Each reviewer's latest decision on the item's current content counts. When two of them disagree (one
        approves, another rejects or asks for changes), no decision wins silently: the item is `conflicting`
        until a reviewer changes their decision. `validate --strict` fails on this.

        Bad:
            reviewers: [{name: A, decision: approved, ...}, {name: B, decision: rejected, ...}]
        Good:
            Reviewers agree, or one records a new decision: clinreg review approve ITEM --reviewer B
    """),
    "CLR803": ("split-review", "warning", "The review panel splits on an item", """
        With a panel policy (`review_policy` in taxonomy/taxonomy.yaml), an item whose reviewers' current
        decisions disagree, and which the policy does not settle (enough approvals while
        `open_rejection_blocks: false`, or as many rejections as `min_approvals`), is `split` (disputed). The
        message says what the panel has and still needs, e.g. "2 approvals of the 2 needed; 1 request for
        changes is open". It stays split until a reviewer changes their decision or a maintainer adjudicates,
        recording the decision and its reason. `validate --strict` fails on this.

        Bad:
            review_policy: {min_approvals: 2}
            reviewers: [{name: A, decision: approved, ...}, {name: B, decision: rejected, ...}]
        Good:
            clinreg review adjudicate ITEM --decision reject --reason "..." --maintainer NAME
    """),
    "CLR804": ("review-file-unreadable", "error", "A filled-in review file cannot be read", """
        `clinreg review import` reads the decisions file a reviewer filled in: the CSV, JSON or spreadsheet
        that `clinreg review export` wrote. A file of another format, a spreadsheet that is not an OpenDocument
        file, or one without the exported header row, cannot be read at all; nothing is recorded.

        Bad:
            clinreg review import decisions.xlsx      # saved as Excel; the form was .ods
        Good:
            clinreg review import decisions.ods       # saved in the format it was exported as
    """),
    "CLR805": ("review-file-entry", "error", "A row of a filled-in review file cannot be used", """
        Each row of a decisions file names one item and gives one decision. A row naming an item the registry
        does not hold, a decision that is not one of approved, rejected or changes_requested, a missing reviewer,
        or an item that changed since the form was exported, is reported with its row and field; nothing from
        the file is recorded until every row can be.

        Bad:
            item,decision,reviewer
            no_such_task,approve,A. Reviewer
        Good:
            item,decision,reviewer
            clinical_note_generation,approved,A. Reviewer
    """),
    "CLR806": ("decision-refused", "error", "A review decision cannot be recorded", """
        A decision names an item of the taxonomy and a reviewer. It is refused when the item is unknown, the
        reviewer's details are missing, the same decision on the same content is already recorded, the content
        it was made on has changed since, or the file that holds the item cannot be edited.

        Bad:
            clinreg review approve no_such_task --reviewer "A. Reviewer"
        Good:
            clinreg review approve clinical_note_generation --reviewer "A. Reviewer"
    """),
}

# Severity under `validate --strict` (used on pull requests), and when.
STRICT = {code: ("error", "under validate --strict") for code in ("CLR801", "CLR802", "CLR803")}
