"""Codes raised while reading a YAML file: syntax, encoding, unsafe constructs and resource limits."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR001": ("yaml-syntax", "error", "The file is not valid YAML", """
        The file could not be parsed: a syntax error, a tab used for indentation, a second document, or a key
        that is itself a mapping. Nothing else in the file is checked until it parses.

        Bad:
            tasks:
                    - answer_medical_knowledge_questions   # a tab
        Good:
            tasks:
              - answer_medical_knowledge_questions
    """),
    "CLR002": ("empty-file", "error", "The file is empty", """
        An empty file (or one holding only comments) defines nothing and is almost always a mistake, such as a
        scaffold that was never filled in.

        Bad:
            # yaml-language-server: $schema=../../schemas/dataset.schema.json
        Good:
            # yaml-language-server: $schema=../../schemas/dataset.schema.json
            id: pubmed_qa
            ...
    """),
    "CLR003": ("duplicate-key", "error", "A key appears twice in one mapping", """
        YAML parsers silently keep the last of two equal keys, so the first value is lost without a word.
        clinreg treats a duplicate key as an error and names the line of the first one.

        Bad:
            licence: {spdx: MIT}
            licence: {spdx: unknown}
        Good:
            licence: {spdx: MIT}
    """),
    "CLR004": ("unsafe-tag", "error", "A YAML tag other than the plain types", """
        Tags such as `!!python/object` ask a loader to build arbitrary objects, and custom tags mean nothing to
        clinreg. Registry files hold plain strings, numbers, booleans, lists and mappings only.

        Bad:
            description: !!python/object/apply:os.system ["rm -rf /"]
        Good:
            description: Plain text.
    """),
    "CLR005": ("yaml11-implicit-type", "error", "An unquoted value that YAML turns into a non-string", """
        YAML 1.1 reads unquoted `yes`, `no`, `on`, `off` as booleans, `012` as the octal number 10 and `1:30` as
        the number 90. PubMedQA's yes/no/maybe labels are exactly this trap. Where a string is meant (ids, label
        values, choices), quote it.

        Bad:
            map: {yes: A, no: B, maybe: C}
        Good:
            map: {"yes": A, "no": B, "maybe": C}
    """),
    "CLR006": ("encoding", "error", "The file is not UTF-8 text", """
        Registry files are UTF-8 text. Binary content (a NUL byte), UTF-16, bytes that are not UTF-8 and control
        characters are rejected at the first one. So are the line breaks that YAML counts but git and GitHub do
        not (a CR without LF, U+0085, U+2028, U+2029): they would shift every reported line number, and could
        hide a key on what a reviewer sees as one line. A UTF-8 byte-order mark is accepted and ignored; CRLF line
        endings are accepted.

        Bad:
            name: Caf\\xe9   (Latin-1 bytes)
        Good:
            name: Café     (saved as UTF-8)
    """),
    "CLR007": ("resource-limit", "error", "The file exceeds a size, depth or alias limit", """
        Registry files come from outside contributors and are read in CI, so clinreg bounds what one file may
        cost: 1 MiB, 40 levels of nesting, 16 aliases, 200,000 values after alias expansion, and 1,000
        characters for a plain value that YAML reads as a number or date. Alias bombs ("billion laughs") stop at
        the first limit they cross.

        Bad:
            a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]
            b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
            c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]   # ...and so on
        Good:
            Write each value out; registry files need no anchors or aliases.
    """),
    "CLR008": ("merge-key", "error", "A YAML merge key (<<)", """
        Merge keys hide where a value comes from and behave differently across YAML versions. clinreg rejects
        them; write the keys out.

        Bad:
            base: &base {metric: {name: exact_match}}
            mapping: {<<: *base, id: x}
        Good:
            mapping: {id: x, metric: {name: exact_match}}
    """),
    "CLR009": ("unreadable-file", "error", "A file that cannot be read or leads outside the tree", """
        A link that points outside the registry root, a broken link, or a file the process cannot read. Links
        out of the tree would let a pull request make CI read any file on the machine.

        Bad:
            registry/datasets/x.yaml -> /etc/passwd
        Good:
            registry/datasets/x.yaml is a regular file inside the tree.
    """),
    "CLR010": ("comment-cuts-value", "error", "A comment that cuts an unquoted value short", """
        YAML starts a comment at a `#` that follows a space, also in the middle of an unquoted value, and drops
        it without a word: the note below reads "Added to MedHELM on 2025-08-07 (HELM PR". clinreg flags a
        comment after an unquoted value when it looks like part of the text: the `#` starts a word (`#3781`),
        the value leaves a bracket open, or a single space separates it from a mapping value or from text.
        Quote the value to keep the text; for a real comment, put two spaces before the `#` (yamllint's
        `comments: min-spaces-from-content`).

        Bad:
            notes:
              - Added to MedHELM on 2025-08-07 (HELM PR #3781).
        Good:
            notes:
              - "Added to MedHELM on 2025-08-07 (HELM PR #3781)."
    """),
}
