"""Version codes: record versions are semver, releases are ordered, and changed records bump their version."""

# code: (name, severity, title, explanation with a bad and a good example)
ENTRIES: dict[str, tuple[str, str, str, str]] = {
    "CLR601": ("not-semver", "error", "A version is not a semantic version", """
        Record versions, taxonomy versions and release versions are semantic versions (MAJOR.MINOR.PATCH), so
        that tools can compare them.

        Bad:
            version: v1.2
        Good:
            version: 1.2.0
    """),
    "CLR602": ("release-history", "error", "The release history is out of order or does not contain `current`", """
        Releases are listed oldest first, with increasing versions and non-decreasing dates, and `current` is
        the newest of them. A record's `removed_in` comes after its `added_in`.

        Bad:
            current: 1.3.0
            releases: [{version: 1.1.0, ...}, {version: 1.0.0, ...}]
        Good:
            current: 1.1.0
            releases: [{version: 1.0.0, ...}, {version: 1.1.0, ...}]
    """),
    "CLR603": ("version-not-bumped", "error", "A record changed since --base without a version bump", """
        With `validate --base REF`, every dataset record whose content differs from REF must have a higher
        `version` than it had at REF, so that users pinning a record version notice the change. Comment and
        formatting changes do not count: only the parsed content is compared.

        Bad:
            version: 1.0.0   (unchanged, but licence.spdx changed since origin/main)
        Good:
            version: 1.0.1
    """),
    "CLR604": ("published-release-changed", "error", "A published release would hold other records than it did", """
        A published release never changes: `--release X` must show what X held on the day it came out. Each
        published release lists the records it added in `datasets_added`; a record whose `added_in` names a
        published release must be in that list, and every id in the list must be a record added in that
        release. New records go in the open release (`status: open`, the newest one), which
        `clinreg new release X.Y.Z --title ...` opens. Only the newest release may be open.

        Bad:
            added_in: 1.4.0     # 1.4.0 is published and its datasets_added does not list this record
        Good:
            added_in: 1.8.0     # the open release: {version: 1.8.0, status: open, ...}
    """),
}
