"""Schema codes: unknown keys, wrong types, missing fields, bad enum values, TODO markers and schema headers."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR101": ("unknown-key", "error", "A key the schema does not define", """
        Every registry type forbids unknown keys, so a typo never passes silently. The hint suggests the closest
        allowed key.

        Bad:
            licence: {spdx: MIT, notes: from the card}
        Good:
            licence: {spdx: MIT, note: from the card}
    """),
    "CLR102": ("wrong-type", "error", "A value of the wrong type", """
        The value is a list where a mapping is expected, a number where a string is expected, and so on.

        Bad:
            splits: test
        Good:
            splits: [test]
    """),
    "CLR103": ("missing-field", "error", "A required field is missing", """
        The named field must be present. `schemas/*.json` and the field descriptions there say what it holds.

        Bad:
            access: {}
        Good:
            access: {tier: public}
    """),
    "CLR104": ("bad-enum-value", "error", "A value outside the allowed set", """
        Fields such as `access.tier`, `source.type`, `label.encoding` and `review.status` accept a fixed set of
        values. The hint suggests the closest one.

        Bad:
            access: {tier: gate}
        Good:
            access: {tier: gated}
    """),
    "CLR105": ("invalid-value", "error", "A value that breaks a schema constraint", """
        The value has the right type but breaks a constraint: an empty list where one item is required, a
        number below its minimum, a string that is too short.

        Bad:
            mappings: []
        Good:
            mappings:
              - id: pubmed_qa
                ...
    """),
    "CLR107": ("schema-header", "warning", "The file has no yaml-language-server schema line", """
        The first line `# yaml-language-server: $schema=...` lets editors validate the file as you type.

        Bad:
            id: pubmed_qa
        Good:
            # yaml-language-server: $schema=../../schemas/dataset.schema.json
            id: pubmed_qa
    """),
    "CLR106": ("todo-marker", "warning", "A field still holds a TODO marker", """
        `clinreg new dataset` writes `TODO` where it could not guess a value. Each one must be filled in before
        the record is merged; until then it is a warning that names the field.

        Bad:
            licence: {spdx: TODO}
        Good:
            licence: {spdx: CC-BY-4.0, note: Stated in the repository README.}
    """),
    "CLR108": ("incomplete-card", "warning", "A dataset record lacks some of its benchmark card fields", """
        A reader choosing a benchmark looks up its card: what it measures, when to use it and what not to use it
        for, its languages, first release, status, maintainer and an independence note. `clinreg site` renders
        the card from these fields. A fact no source gives is still written, as `value: unknown` with a
        `reason` (`not assessed` for independence), so a missing field always means "not yet filled in".

        Bad:
            description: Research questions from PubMed abstracts.
            access: {tier: public}
        Good:
            description: Research questions from PubMed abstracts.
            measures: Whether a model draws the yes, no or maybe conclusion an abstract's authors drew.
            use_when: ...
            not_for: ...
            languages: {value: [en], source: PubMedQA paper, section 3}
            first_released: {value: "2019", source: PubMedQA paper (EMNLP-IJCNLP 2019)}
            status: {value: active, source: HELM schema_medhelm.yaml lists it}
            maintainer: {value: unknown, reason: No source read names one.}
            independence: {value: not assessed, reason: No source read says who runs the models.}
    """),
}
