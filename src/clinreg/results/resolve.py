"""The one resolver of a results source as given on a command line: a published release id (as `clinreg results
published` lists them) or a path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# When a command takes a name as a published release id:
#   "when-missing": when no such path exists: every command that takes a results source (`results import`,
#                   `results export`, `leaderboard SOURCES`, `leaderboard diff`); a name that is neither is an error
#                   with a did-you-mean;
#   "always":       always an id (`leaderboard --with`);
#   "never", "when-bare": kept for library callers (always a path; an id only when bare, with no "/", "\" or ".").
IdPolicy = Literal["never", "when-bare", "when-missing", "always"]


@dataclass(frozen=True)
class ResolvedSource:
    """What a name given as a results source is: the file or folder to read, and the published release it names.

    `problem` is set, and `path` None, for a name taken as an id that names no published release. `suggestion` is
    the closest published id, if one is close, for such a name and for a path taken as a path that is not there."""

    given: str
    path: Path | None
    release_id: str | None = None
    problem: str | None = None
    suggestion: str | None = None

    def message(self, did_you_mean: bool = False) -> str | None:
        """The problem, with the closest published id when asked and there is one."""
        if self.problem is None or not (did_you_mean and self.suggestion):
            return self.problem
        return f"{self.problem}; did you mean {self.suggestion!r}?"


def published_ids() -> list[str]:
    from clinreg.results.published import RELEASES

    return [r["id"] for r in RELEASES]


def takes_as_id(given: str, policy: IdPolicy) -> bool:
    """Whether `policy` reads `given` as a published release id rather than as a path."""
    if policy == "always":
        return True
    if policy == "never" or Path(given).exists():
        return False
    return policy == "when-missing" or not any(c in given for c in "/\\.")


def resolve_source(given: str, policy: IdPolicy = "when-missing") -> ResolvedSource:
    """Resolve one name as `policy` says: a path, or a published release id and its shipped file."""
    from clinreg.results.published import published_file

    if not takes_as_id(given, policy):
        # A path that is not there may be a published id misspelt, or given where the command reads paths only.
        return ResolvedSource(given, Path(given), suggestion=None if Path(given).exists() else _closest(given))
    path = published_file(given)
    if path is not None:
        return ResolvedSource(given, path, release_id=given)
    known = f"(known: {', '.join(published_ids())}; see `clinreg results published`)"
    problem = (f"no published release {given!r} {known}" if policy == "always" else
               f"{given!r} is no file or folder, and no published release {known}")
    return ResolvedSource(given, None, problem=problem, suggestion=_closest(given))


def _closest(given: str) -> str | None:
    from clinreg.text.suggest import Suggester

    return Suggester(published_ids()).closest(given)
