"""`clinreg validate`, `rules` and `explain`: check a registry tree, and list and explain the codes it reports."""

from __future__ import annotations

import subprocess
from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_OK, fail, freeze_registry, load, release_option, root_option
from clinreg.text import run_git


@click.command()
@root_option
@release_option
@click.option("--base", default=None, metavar="GIT_REF",
              help="Require a version bump in records changed since this git ref.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True)
@click.option("--show-info", is_flag=True, help="Also print info-level diagnostics in text output.")
@click.option("--strict", is_flag=True,
              help="Treat stale approvals (CLR801), conflicting reviews (CLR802) and split panels (CLR803) as errors.")
@click.option("--no-cache", is_flag=True,
              help="Neither use nor update the cache of reports (under $XDG_CACHE_HOME/clinreg).")
@click.option("--changed", "changed", is_flag=False, flag_value="HEAD", default=None, metavar="[GIT_REF]",
              help="Show only the files you changed: since the last commit (HEAD), or with --changed=REF since your "
                   "branch left REF (e.g. origin/main); new files count. Errors elsewhere still show.")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def validate(root, release, base, fmt, show_info, strict, no_cache, changed, paths):
    """Check every registry file; report all problems at file:line:col with a rule code.

    With PATHS (registry files) or --changed, every rule still runs on the whole tree, but only the warnings
    and infos of those files are shown; errors show wherever they are, and the summary counts the rest.
    """
    from clinreg.core import RENDERERS, Report

    if changed is not None and paths:
        raise fail("give PATHS or --changed, not both")
    if base is None:  # --base compares with git history, which the cache key does not cover
        run = _validate_cached(root, release, use_cache=not no_cache)
        report, tree, files = run.report, run.root, run.files
        wanted = _registry_paths(run.root, run.files, paths)
    else:
        from clinreg.rules import run_rules

        reg = load(root, release)
        wanted = _registry_paths(reg.root, {f.rel for f in reg.files}, paths)
        try:
            check = run_git(reg.root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}")
        except FileNotFoundError:
            raise fail(f"--base {base}: needs git, and git is not on PATH") from None
        except (OSError, subprocess.SubprocessError) as exc:
            raise fail(f"--base {base}: cannot run git: {exc}") from None
        if check.returncode != 0:
            raise fail(f"--base {base}: not a git commit in {reg.root}")
        report = run_rules(reg, base=base)
        tree, files = reg.root, {f.rel for f in reg.files}
    if changed is not None:
        wanted = _changed_files(tree, files, changed)
    if strict:
        import dataclasses

        from clinreg.core import CODES

        report.diagnostics = [dataclasses.replace(d, severity=CODES[d.code].strict) if CODES[d.code].strict else d
                              for d in report.diagnostics]
    whole = report
    if wanted is not None:  # an error anywhere may be the change's doing (a task removed that a record names)
        report = Report(diagnostics=[d for d in report.diagnostics if d.file in wanted or d.severity == "error"],
                        files=len(wanted))
    scope = _scope(whole, wanted, changed, tree, files)
    if fmt == "text":
        click.echo(RENDERERS["text"](report, show_info=show_info))
        if scope["line"]:
            click.echo(scope["line"])
    elif fmt == "json":
        from clinreg.text import dumps

        import json

        payload = json.loads(RENDERERS["json"](report))
        if scope["data"] is not None:
            payload["scope"] = scope["data"]
        click.echo(dumps("validation", payload))
    else:
        click.echo(RENDERERS[fmt](report))
    raise click.exceptions.Exit(EXIT_FINDINGS if report.has_errors else EXIT_OK)


def _registry_paths(root: Path, known: set[str], paths) -> set[str] | None:
    """The registry-relative names of PATHS, each of which must be one of the tree's files (`known`); None for all."""
    if not paths:
        return None
    wanted = set()
    for path in paths:
        candidates = [path] if path.is_absolute() else [Path.cwd() / path, root / path]
        rel = None
        for candidate in candidates:
            try:
                resolved = candidate.resolve()
            except OSError:
                continue
            rel = resolved.relative_to(root.resolve()).as_posix() if resolved.is_relative_to(root.resolve()) else None
            if rel in known:
                break
        if rel not in known:
            raise fail(f"{path}: not a file of the registry at {root} (taxonomy/*.yaml, registry/**/*.yaml)")
        wanted.add(rel)
    return wanted


def _changed_files(tree: Path, files: set[str], ref: str) -> set[str]:
    from clinreg.text import GitError, changed_paths

    try:
        return changed_paths(tree, ref) & files
    except GitError as exc:
        raise fail(f"--changed {ref}: {exc}", error=exc) from None


def _counts(diagnostics) -> str:
    from clinreg.core import Summary

    s = Summary.of(diagnostics, 0)
    return f"{s.errors} error(s), {s.warnings} warning(s), {s.infos} info(s)"


def _scope(whole, wanted: set[str] | None, changed: str | None, tree: Path, files: set[str]) -> dict:
    """What the summary adds about scope: with PATHS or --changed, the findings left out; on a whole run in a git
    checkout with changed registry files, how many findings are in them and the command that shows only those."""
    if wanted is not None:
        rest = [d for d in whole.diagnostics if d.file not in wanted]
        since = f" (changed since {changed})" if changed is not None else ""
        shown = [d for d in rest if d.severity == "error"]
        line = (f"checked {len(wanted)} file(s){since}; in the other files: {_counts(rest)}"
                + (f", the {len(shown)} error(s) shown above" if shown
                   else "") + " (`clinreg validate` shows every file)")
        return {"line": line, "data": {"changed_since": changed, "files": sorted(wanted),
                                       "elsewhere": json_counts(rest)}}
    from clinreg.text import GitError, changed_paths

    try:
        mine = changed_paths(tree, "HEAD") & files
    except GitError:  # not a git checkout (an installed package's tree): nothing to add
        return {"line": None, "data": None}
    if not mine or len(mine) == len(files):
        return {"line": None, "data": None}
    in_mine = [d for d in whole.diagnostics if d.file in mine]
    line = (f"{_counts(in_mine)} of these are in the {len(mine)} file(s) you changed since the last commit; "
            "`clinreg validate --changed` shows only those")
    return {"line": line, "data": {"changed_since": "HEAD", "files": sorted(mine), "in_changed": json_counts(in_mine)}}


def json_counts(diagnostics) -> dict:
    from clinreg.core import Summary

    s = Summary.of(diagnostics, 0)
    return {"errors": s.errors, "warnings": s.warnings, "infos": s.infos}


def _validate_cached(root: Path | None, release: str | None, use_cache: bool):
    from clinreg.core import RootError, resolve_root
    from clinreg.errors import ClinregError
    from clinreg.rules import validate_cached

    try:
        run = validate_cached(resolve_root(root), release=release, use_cache=use_cache)
    except ClinregError as exc:  # RootError is one
        from clinreg.core import UnknownVersion  # only now: it imports pydantic, which a warm run does without

        if not isinstance(exc, (RootError, UnknownVersion)):
            raise
        raise fail(str(exc), error=exc) from None
    freeze_registry()
    return run


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def list_rules(fmt):
    """List every validation rule with its code, severity and title."""
    from clinreg.core import CODES

    rules = sorted(CODES.values(), key=lambda r: r.code)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("rules", [{"code": r.code, "name": r.name, "severity": r.severity,
                                    "strict_severity": r.severity_in(True), "family": r.family, "title": r.title}
                                   for r in rules]))
        return
    for r in rules:
        strict = f" ({r.strict} {r.strict_when})" if r.strict else ""
        click.echo(f"{r.code}  {r.severity:<7}  {r.name:<30} {r.title}{strict}")


@click.command()
@click.argument("code")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain(code, fmt):
    """Explain a rule: why it exists, with a bad and a good example."""
    from clinreg.core import CODES

    rule = CODES.get(code.upper())
    if rule is None:
        raise fail(f"no rule {code!r}; `clinreg rules` lists them")
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("rule", {"code": rule.code, "name": rule.name, "severity": rule.severity,
                                  "strict_severity": rule.severity_in(True), "family": rule.family,
                                  "title": rule.title, "explanation": rule.explanation}))
        return
    click.echo(f"{rule.code} {rule.name} ({rule.severities}, {rule.family})\n{rule.title}\n\n{rule.explanation}")
