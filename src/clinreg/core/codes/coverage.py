"""Coverage codes: every subcategory has tasks and datasets; uncovered tasks and thin subcategories."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR401": ("subcategory-without-tasks", "error", "A subcategory has no tasks", """
        A subcategory is defined by the work it covers; without tasks no dataset can be placed in it.

        Bad:
            - id: recording_procedures
              tasks: []
        Good:
            - id: recording_procedures
              tasks:
                - id: write_operative_notes
                  ...
    """),
    "CLR402": ("subcategory-without-datasets", "error", "No dataset measures any task of a subcategory", """
        MedHELM evaluates every subcategory with at least one benchmark. A subcategory with no dataset mapped to
        any of its tasks has no evidence at all.

        Bad:
            (no mapping in registry/datasets/ lists a task of `recording_procedures`)
        Good:
            mappings:
              - id: mtsamples_procedures
                tasks: [write_operative_notes]
    """),
    "CLR403": ("task-without-datasets", "info", "A task has no dataset", """
        Reported for information: the taxonomy has many more tasks than there are benchmarks, and these are
        the gaps a new dataset could fill.

        Bad:
            (no mapping lists `reconcile_medication_lists`)
        Good:
            mappings:
              - tasks: [reconcile_medication_lists]
    """),
    "CLR404": ("thin-subcategory", "info", "A subcategory rests on a single dataset", """
        MedHELM's authors warn that per-subcategory results rest on thin ground: 15 of the 22 subcategories
        have one benchmark. A score for such a subcategory is a score for one dataset.

        Bad:
            managing_research_enrollment: n2c2_ct_matching only
        Good:
            providing_clinical_knowledge_support: head_qa, medbullets, med_qa, med_mcqa, ...
    """),
    "CLR405": ("task-total", "warning", "The taxonomy's task count differs from its declared total", """
        `taxonomy.yaml` may declare `task_total` (121 for MedHELM). When the files hold a different number,
        tasks were lost or added by mistake.

        Bad:
            task_total: 121    # but the category files hold 120 tasks
        Good:
            task_total: 121    # and the category files hold 121
    """),
    "CLR406": ("subcategory-task-count", "warning", "A subcategory holds another number of tasks than its source gives",
               """
        `tasks_expected` records how many tasks a published source (MedHELM's overview figure, S15) gives the
        subcategory. Coverage is tasks covered over tasks held, so a subcategory holding more or fewer tasks than
        the source gives has the wrong denominator. Merge, move or draft tasks until the numbers agree, or say in
        the subcategory's note why they cannot (derived tasks alone exceeding the count).

        Bad:
            tasks_expected: {count: 4, citation: {text: MedHELM overview figure (S15)}}
            tasks: [... seven tasks ...]
        Good:
            tasks_expected: {count: 4, citation: {text: MedHELM overview figure (S15)}}
            tasks: [... four tasks ...]
    """),
}
