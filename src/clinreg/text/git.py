"""Run git in a folder, its output captured as bytes (release diffs, the version-bump rule, `validate --base`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from clinreg.errors import ClinregError


def run_git(cwd: str | Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`git ARGS` run in `cwd`; a failing git is a non-zero returncode, not an exception (a missing git still
    raises FileNotFoundError, and one that runs past `timeout` seconds subprocess.TimeoutExpired)."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=timeout, check=False)


class GitError(ClinregError, RuntimeError):
    """git could not answer: not installed, not a repository, or an unknown ref (the message says which)."""

    default_code = "CLR986"


def changed_paths(cwd: str | Path, ref: str = "HEAD") -> set[str]:
    """Files under `cwd` that differ from the commit where HEAD's history meets `ref` (committed on the branch,
    staged or not), and untracked files git does not ignore; as paths relative to `cwd`."""
    try:
        base = run_git(cwd, "merge-base", ref, "HEAD")
        if base.returncode != 0:
            inside = run_git(cwd, "rev-parse", "--is-inside-work-tree").returncode == 0
            raise GitError(f"{ref} is not a commit of the repository at {cwd}" if inside
                           else f"{cwd} is not in a git repository")
        sha = base.stdout.decode().strip()
        diff = run_git(cwd, "diff", "--name-only", "--relative", "-z", sha, "--")
        new = run_git(cwd, "ls-files", "--others", "--exclude-standard", "-z")
    except FileNotFoundError:
        raise GitError("needs git, and git is not on PATH") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"cannot run git: {exc}") from None
    if diff.returncode != 0 or new.returncode != 0:
        said = (diff.stderr or new.stderr).decode(errors="replace").strip().splitlines()
        raise GitError(said[0][:200] if said and said[0] else "git failed")
    return {p for out in (diff.stdout, new.stdout) for p in out.decode(errors="surrogateescape").split("\0") if p}
