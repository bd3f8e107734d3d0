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
        `open_rejection_blocks: false`), is `split`. It stays split until a reviewer changes their decision
        or a maintainer adjudicates, recording the decision and its reason. `validate --strict` fails on this.

        Bad:
            review_policy: {min_approvals: 2}
            reviewers: [{name: A, decision: approved, ...}, {name: B, decision: rejected, ...}]
        Good:
            clinreg review adjudicate ITEM --decision rejected --reason "..." --maintainer NAME
    """),
}

# Severity under `validate --strict` (used on pull requests), and when.
STRICT = {code: ("error", "under validate --strict") for code in ("CLR801", "CLR802", "CLR803")}
