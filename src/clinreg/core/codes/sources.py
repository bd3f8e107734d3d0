"""Source codes: pinned revisions, no remote code, https URLs, local paths inside the root, licences and access."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR701": ("unpinned-revision", "warning", "A hub revision or GitHub commit is not a pinned 40-hex commit", """
        A branch name (or no revision) means the data can change under you; builds are reproducible only at a
        pinned commit. When the commit is not known, say why in `revision_note`; the warning then quotes it.

        Bad:
            revision: main
        Good:
            revision: 515060458a945c633debc6fd5baac7764416b724
    """),
    "CLR702": ("remote-code", "error", "A source enables remote code", """
        Dataset loading scripts run arbitrary code on the machine that builds the data, which in CI means code
        from a pull request. clinreg never runs them; the schema accepts `trust_remote_code` only as `false`.
        This rule also catches the key written anywhere else in a record.

        Bad:
            source: {type: huggingface, repo: x/y, splits: [test], trust_remote_code: true}
        Good:
            source: {type: huggingface, repo: x/y, splits: [test]}
    """),
    "CLR703": ("path-escape", "error", "A local path leaves the registry root", """
        Paths in records are relative and stay inside their folder: no absolute paths, no `..`, no links that
        lead out. A pull request must not be able to make CI read files elsewhere on the machine. This holds for
        a SQL benchmark's `scoring.database.file` too, which stays inside the data folder.

        Bad:
            source: {type: local, description: x, path: ../../etc}
        Good:
            source: {type: local, description: x, path: fixtures/clear}
    """),
    "CLR704": ("url", "error", "A URL is not https, or sits in a field that takes none", """
        URLs are accepted only in `url` fields and only with https, so that a record never points a builder at
        plain http, `file://` or another scheme.

        Bad:
            source: {type: url, url: http://example.org/data.csv}
        Good:
            source: {type: url, url: https://example.org/data.csv}
    """),
    "CLR705": ("licence-unknown", "warning", "The licence is unknown or non-standard", """
        Users need to know whether they may use the data. `unknown` and `other` are allowed, but draw a warning
        that quotes the record's reason; without a `note` they are errors (CLR708).

        Bad:
            licence: {spdx: unknown, note: Private data.}   (allowed, with this warning)
        Good:
            licence: {spdx: unknown, note: Private institutional data; no licence is published.}
    """),
    "CLR706": ("access-instructions", "error", "A gated or private dataset does not say how to get access", """
        Gated and private data cannot be fetched by `clinreg build`; the record must tell a user how to obtain
        it (credentialing, a data use agreement, or who holds it).

        Bad:
            access: {tier: gated}
        Good:
            access: {tier: gated, instructions: Credentialed PhysioNet account and the MIMIC-IV DUA.}
    """),
    "CLR707": ("citation-source", "error", "A published or derived task does not say where it comes from", """
        A `published` task claims a public source names it: cite the source and quote the name. A `derived`
        task was worded by clinreg from a benchmark's description: cite where the description is published and
        list the benchmarks. Either claim must be checkable.

        Bad:
            provenance: {kind: derived, citation: {text: HELM schema}}
        Good:
            provenance: {kind: derived, benchmarks: [medcalc_bench], citation: {text: HELM schema, url: "https://..."}}
    """),
    "CLR708": ("licence-unexplained", "error", "An unknown or non-standard licence with no note saying why", """
        `unknown` and `other` are allowed only with a `note` that says why (what was searched, or what the
        terms are); otherwise a user cannot tell a licence nobody looked for from one nobody publishes.

        Bad:
            licence: {spdx: unknown}
        Good:
            licence: {spdx: unknown, note: Private institutional data; no licence is published.}
    """),
    "CLR709": ("derived-from-unmapped", "warning", "A derived task names a benchmark no record maps", """
        A `derived` task lists the benchmarks whose descriptions its wording follows. A benchmark that no
        dataset record maps may be a typo, or a record not yet added; the task's wording is then unchecked.

        Bad:
            provenance: {kind: derived, benchmarks: [medcalc_bench_v2], citation: {...}}
        Good:
            provenance: {kind: derived, benchmarks: [medcalc_bench], citation: {...}}
    """),
}
