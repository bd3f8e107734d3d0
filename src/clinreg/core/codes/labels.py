"""Label-convention codes: each mapping's label scheme is total, one-to-one, contiguous from A and fits its choices."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR501": ("label-map-not-bijective", "error", "A label map is not total and one-to-one", """
        Every source value maps to exactly one letter and no two values share a letter; otherwise two different
        gold answers would be scored as the same output. Unlabeled markers must not also be mapped.

        Bad:
            map: {"yes": A, "no": B, "maybe": B}
        Good:
            map: {"yes": A, "no": B, "maybe": C}
    """),
    "CLR502": ("letters-not-contiguous", "error", "Output letters do not run contiguously from A", """
        Canonical outputs are the letters A, B, C, ... with no gaps, so that the nth choice is always the nth
        letter and a scorer can rely on it.

        Bad:
            letters: [A, B, D]
        Good:
            letters: [A, B, C]
    """),
    "CLR503": ("binary-without-positive", "error", "A two-valued scheme does not name its positive label", """
        Precision, recall and F1 need to know which of two labels is the positive class (MedHallu's `1` means
        hallucinated, not factual). A two-valued scheme names it with `positive`, and it must be one of its values.

        Bad:
            map: {"0": A, "1": B}
        Good:
            map: {"0": A, "1": B}
            positive: "1"
    """),
    "CLR504": ("unlabeled-marker-collides", "error", "An index scheme's unlabeled marker is a valid index", """
        MedMCQA marks rows without a gold answer with `cop = -1`. The marker must lie outside the valid range
        `base .. base + count - 1`, or labelled rows would be dropped.

        Bad:
            base: 0
            count: 4
            unlabeled: 0
        Good:
            base: 0
            count: 4
            unlabeled: -1
    """),
    "CLR505": ("choices-mismatch", "error", "The choices do not fit the label scheme", """
        A closed scheme (letter, index, option_id, string_set, coded, boolean) needs `choices`, with exactly one
        of `columns`, `struct`, `items` or `fixed`, and as many options as the scheme has letters. Open schemes
        (free_text, number) take no choices.

        Bad:
            choices: {columns: [opa, opb, opc]}
            label: {encoding: index, column: cop, base: 0, count: 4}
        Good:
            choices: {columns: [opa, opb, opc, opd]}
            label: {encoding: index, column: cop, base: 0, count: 4}
    """),
    "CLR506": ("number-without-tolerance", "error", "A number scheme does not say what counts as correct", """
        A numeric answer is scored within a range: give both `lower_column` and `upper_column` (MedCalc-Bench),
        or an `absolute_tolerance` / `relative_tolerance`.

        Bad:
            label: {encoding: number, column: Ground Truth Answer, lower_column: Lower Limit}
        Good:
            label: {encoding: number, column: Ground Truth Answer, lower_column: Lower Limit, upper_column: Upper Limit}
    """),
    "CLR507": ("variant-labels", "error", "Variants and the label scheme disagree on where the gold value is", """
        `variants` build several instances from one row. A variant either fixes its gold value with `label`
        (MedHallu: the factual answer is `0`, the hallucinated one `1`), which only a string_set, coded or
        boolean scheme can hold, or reads it through the scheme's `column`, which a variant may name
        (DischargeMe: `columns: {target: brief_hospital_course}` with `label: {encoding: free_text, column: target}`).
        A scheme without a `column` needs every variant to give its `label`.

        Bad:
            label: {encoding: free_text, column: answer}
            variants: [{id: factual, columns: {answer: Ground Truth}, label: "0"}]
        Good:
            label: {encoding: coded, map: {"0": A, "1": B}, positive: "1"}
            variants: [{id: factual, columns: {answer: Ground Truth}, label: "0"}, ...]
    """),
    "CLR508": ("closed-answer-instruction", "error", "A closed task's question carries its own answer instruction", """
        Each export asks for the answer in its harness's way: the plain prompt and lm-eval list the options and
        ask for a letter, Inspect's multiple-choice template and HELM's adapter add their own instruction. A
        closed task's `input_template` therefore holds the question only, and it takes no `instruction`. An
        instruction of its own ("Answer yes, no or maybe.", "Reply with the single digit.") would stand beside
        the harness's and contradict it.

        Bad:
            input_template: "Question: {{ question }}\nAnswer yes, no or maybe."
        Good:
            input_template: "Question: {{ question }}"
            choices: {fixed: ["yes", "no", "maybe"]}
    """),
    "CLR509": ("free-text-scoring", "error", "A free-text benchmark's scoring does not fit it", """
        A free-text answer has no letter to compare, so a free-text mapping declares its `scoring` (CLR510): an LLM
        jury (who judges, the axes, the scale, what the judge is shown and a rubric in clinreg's words), SQL
        execution against a named database, code-set F1, MEDEC's error flag, or rubric grading (a grader model
        checks each criterion of the instance's own rubric, HealthBench). A jury's scale is the main metric's
        range, its axes and judges are named once each; a rubric's column is one of the metadata columns and the
        main metric's range is [0, 1]; a closed or number mapping takes no scoring (each export scores those
        itself).

        Bad:
            label: {encoding: free_text, column: answer}
            metric: {name: medi_qa_accuracy, range: [1, 5]}
        Good:
            label: {encoding: free_text, column: answer}
            metric: {name: medi_qa_accuracy, range: [1, 5]}
            scoring:
              method: jury
              jury:
                rubric: The answer replies to a consumer's health question...
                axes: [{id: accuracy, question: Is what it says medically correct?}, ...]
    """),
    "CLR510": ("free-text-unscored", "warning", "A free-text benchmark does not declare its scoring", """
        Without `scoring`, the exports can score a free-text answer only by token overlap with the reference, a
        stand-in that `clinreg results import` never ranks as the benchmark's metric. Declare how the benchmark
        is scored (CLR509 lists the methods) so its results can stand beside MedHELM's. Where none of them can
        express the benchmark's scoring (a rubric per conversation, partial credit against a panel), say so in
        the mapping's `scoring_note`: the warning stays, quoting it.

        Bad:
            label: {encoding: free_text, column: answer}
        Good:
            label: {encoding: free_text, column: answer}
            scoring: {method: jury, jury: {rubric: ..., axes: [...]}}
    """),
}
