"""Reference codes: every task, category and release id resolves, and nothing is left orphaned."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR305": ("unrecognised-file", "warning", "A YAML file outside the registry layout", """
        Only `taxonomy/taxonomy.yaml`, `taxonomy/<category>.yaml`, `registry/datasets/<id>.yaml` and
        `registry/releases.yaml` are read. Any other YAML file is ignored, which is usually a misplaced record.

        Bad:
            registry/pubmed_qa.yaml
        Good:
            registry/datasets/pubmed_qa.yaml
    """),
    "CLR301": ("unknown-task", "error", "A mapping names a task that is not in the taxonomy", """
        Each mapping's `tasks` are ids of tasks in `taxonomy/*.yaml`. A dangling id would silently drop the
        benchmark from coverage.

        Bad:
            tasks: [answer_medical_knowledge_question]
        Good:
            tasks: [answer_medical_knowledge_questions]
    """),
    "CLR302": ("unknown-category", "error", "taxonomy.yaml lists a category that has no file", """
        Every id in `taxonomy/taxonomy.yaml`'s `categories` needs a file `taxonomy/<id>.yaml`.

        Bad:
            categories: [clinical_decision_suport]
        Good:
            categories: [clinical_decision_support]
    """),
    "CLR303": ("unknown-release", "error", "A record names a release that is not in releases.yaml", """
        `added_in` and `removed_in` name versions listed in `registry/releases.yaml`, so that
        `--release X` can rebuild the registry as it stood at X.

        Bad:
            added_in: 1.4.0     # no such release
        Good:
            added_in: 1.3.0
    """),
    "CLR304": ("orphan", "error",
               "A file or part of the tree that nothing refers to, or a required file that is missing", """
        A category file that `taxonomy.yaml` does not list is never shown in reports; a tree without
        `taxonomy/taxonomy.yaml` or `registry/releases.yaml` cannot be checked.

        Bad:
            taxonomy/extra_category.yaml   (not in taxonomy.yaml's categories)
        Good:
            categories: [..., extra_category]
    """),
    "CLR306": ("unknown-compare-with", "error", "compare_with names a dataset that is not in the registry", """
        Each `compare_with` entry names another dataset record by its id, with the reason to compare them. A
        dangling id would be a dead link on the record's card page; a record cannot be compared with itself.

        Bad:
            compare_with: [{id: medqa, reason: Both are licensing-exam questions.}]
        Good:
            compare_with: [{id: med_qa, reason: Both are licensing-exam questions.}]
    """),
    "CLR307": ("unknown-edition-benchmark", "error",
               "A MedHELM edition names a benchmark or edition that does not exist", """
        `registry/medhelm_editions.yaml` lists, per MedHELM edition, the dataset ids it runs; a record's MedHELM
        membership follows from it. An id with no record would silently drop a benchmark from the edition's
        coverage, and `default` must name one of the released editions (never one with `status: unreleased`, a
        development branch's commit). Edition ids are unique.

        Bad:
            benchmarks: [med_qa, medqa_usmle]    # no registry/datasets/medqa_usmle.yaml
        Good:
            benchmarks: [med_qa]
    """),
    "CLR308": ("in-medhelm-disagrees", "error", "A record's in_medhelm disagrees with MedHELM's editions", """
        Whether MedHELM runs a benchmark is read from `registry/medhelm_editions.yaml`: every view follows
        its `default` edition, or the one `--medhelm EDITION` names. A record's own `in_medhelm` stays, so
        that a record read alone still says it, but it must agree with the default edition: change the
        editions file, and the records follow.

        Bad:
            in_medhelm: true     # the default edition (helm-63754d05) does not list this record
        Good:
            in_medhelm: false
    """),
}
