"""Identity codes: ids are unique and snake_case, and each record lives in the file named after it."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR201": ("duplicate-id", "error", "An id is defined twice", """
        Category, subcategory, task and dataset ids are unique across the registry, and mapping ids are unique
        within their record; references would otherwise be ambiguous.

        Bad:
            tasks:
              - id: summarise_radiology_findings
              - id: summarise_radiology_findings
        Good:
            tasks:
              - id: summarise_radiology_findings
              - id: compare_radiology_studies
    """),
    "CLR202": ("id-format", "error", "An id is not snake_case", """
        Ids are lowercase snake_case ASCII (`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`), so they work as file names, HELM run
        group names and URL fragments without quoting.

        Bad:
            id: MedQA-USMLE
        Good:
            id: med_qa
    """),
    "CLR203": ("duplicate-item-id", "error", "A subcategory, task or mapping id is defined twice", """
        Subcategory and task ids are unique across the whole taxonomy, and mapping ids within their record.
        (Duplicate category and dataset ids are CLR201.)

        Bad:
            - id: answer_medical_knowledge_questions    # in two subcategories
        Good:
            - id: answer_medical_knowledge_questions    # once
    """),
    "CLR204": ("file-name", "error", "A record's file name does not match its id", """
        `registry/datasets/<id>.yaml` and `taxonomy/<category id>.yaml`: the file name is the id, so a record is
        easy to find and two records can never claim one file.

        Bad:
            registry/datasets/PubMedQA.yaml   with   id: pubmed_qa
        Good:
            registry/datasets/pubmed_qa.yaml  with   id: pubmed_qa
    """),
}
