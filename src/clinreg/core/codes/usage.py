"""Usage codes: a command cannot do what it was asked (an input it cannot read, a name it does not know, an output
in the way). Raised as clinreg errors, shown in one line (exit 2), and in `--format json` with the code."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR981": ("registry-root", "error", "The registry root is missing or is not a registry tree", """
        Commands read the registry at `--root`, else the working directory when it holds taxonomy/ and
        registry/, else the registry shipped inside the package. A root that does not exist, or that lacks
        those folders, is refused rather than read as an empty registry.

        Bad:
            clinreg validate --root ~/src/clinreg/registry
        Good:
            clinreg validate --root ~/src/clinreg
    """),
    "CLR982": ("unknown-version", "error", "A release or MedHELM edition the registry does not hold", """
        `--release X` shows the registry as it stood at release X of registry/releases.yaml, and `--medhelm E`
        keeps the benchmarks of edition E of registry/medhelm_editions.yaml. A version that is not a semantic
        version, or that the files do not list, is refused; the message names the known ones.

        Bad:
            clinreg coverage --release 9.9.9
        Good:
            clinreg coverage --release 1.0.0
    """),
    "CLR983": ("output-in-the-way", "error", "An output exists and the command may not replace it", """
        Commands never overwrite a file or folder they were not told to: an existing output needs `--force`,
        and a folder that the command did not write itself (`clinreg site`, the exports) is never replaced.

        Bad:
            clinreg export lm-eval med_qa -o exported/      # exported/ already holds files
        Good:
            clinreg export lm-eval med_qa -o exported/ --force
    """),
    "CLR984": ("unknown-name", "error", "A command names something the registry does not hold", """
        A dataset, category, diff side or other name given on the command line must be one the registry (or
        the git repository holding it) knows; the message suggests the closest known name.

        Bad:
            clinreg export croissant no_such_record
        Good:
            clinreg export croissant med_qa
    """),
    "CLR985": ("input-unreadable", "error", "An input file given to a command cannot be read", """
        A file named on the command line (an alias table, a features description, a lock file, MedHELM's wheel
        or source tree) is missing, not a regular file, too large, or not in the format the command reads.
        Reading stops before anything is written.

        Bad:
            clinreg new dataset foo --from-hub-features README.md
        Good:
            clinreg new dataset foo --from-hub-features dataset_info.json
    """),
    "CLR986": ("git-failed", "error", "git could not answer", """
        `validate --changed`, `diff` and the contribution commands ask git which files changed or what a ref
        held. git must be installed, the registry must be inside a git checkout, and a ref must exist.

        Bad:
            clinreg validate --changed origin/no-such-branch
        Good:
            clinreg validate --changed origin/main
    """),
    "CLR987": ("release-refused", "error", "The open release cannot be edited", """
        `clinreg new dataset` adds the new record to the open release of registry/releases.yaml. A release
        history whose last release is already published, or one the command cannot parse, is left alone; the
        message says what to add by hand.

        Bad:
            releases: [{version: 1.0.0, date: 2025-06-01, status: published}]   # no open release
        Good:
            releases: [..., {version: 1.1.0, status: open, datasets_added: []}]
    """),
    "CLR988": ("not-strict-json", "error", "A value JSON cannot hold reached a JSON output", """
        `--format json` and every JSON file clinreg writes are strict JSON: NaN and Infinity are not numbers
        there, and most parsers refuse them. A score or statistic that is not a finite number is refused at
        the output rather than written.

        Bad:
            {"score": NaN}
        Good:
            {"score": null}
    """),
}
