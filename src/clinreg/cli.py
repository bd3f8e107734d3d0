"""The `clinreg` command line: thin click commands that parse options, call the library and render."""

from __future__ import annotations

import errno
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import click

# pydantic scans every installed distribution for plugins the first time a model is built. clinreg's
# models use no plugins, and the scan is a large share of a short command's start-up time.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from clinreg import __version__
from clinreg.output import shown, to_json

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

root_option = click.option(
    "--root", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Registry tree to use (default: the working directory if it holds taxonomy/ and registry/, else the embedded registry).",
)
release_option = click.option("--release", default=None, metavar="X", help="Show the registry as it stood at release X.")


def fail(message: str, code: int = EXIT_USAGE) -> "click.exceptions.Exit":
    from clinreg.jsonout import error_line, json_requested

    message = shown(message)  # paths and values in a message may hold control characters
    click.echo(error_line(message, code) if json_requested() else f"clinreg: error: {message}", err=True)
    return click.exceptions.Exit(code)


def load(root: Path | None, release: str | None = None):
    """Load a registry, turning a bad root or release into a one-line usage error (exit 2)."""
    from clinreg.paths import RootError
    from clinreg.store import load_registry

    try:
        reg = load_registry(root, release=release)
    except (RootError, ValueError) as exc:
        raise fail(str(exc))
    _freeze()
    return reg


def _freeze() -> None:
    """The loaded registry lives until the command ends: the collector need not scan it again until then.
    Unfrozen when the command's context closes, so an in-process caller (CliRunner) keeps nothing frozen."""
    import gc

    if gc.get_freeze_count() == 0:
        gc.freeze()
        click.get_current_context().call_on_close(gc.unfreeze)


def refuse_packaged(reg) -> None:
    """Stop (exit 2) before a command writes into the registry shipped inside an installed wheel."""
    if reg.root.resolve() == (Path(__file__).resolve().parent / "_registry").resolve():
        raise fail("the registry shipped inside the installed package is read-only; run this in a checkout of a "
                   "registry tree, or pass --root DIR")


def parse_date(value: str | None):
    """A `--date` option as a date (None when not given), or a usage error (exit 2)."""
    if value is None:
        return None
    import datetime as dt

    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise fail(f"--date {value!r} is not a date such as 2025-06-01")


def refuse_load_errors(reg, what: str) -> None:
    """Stop (exit 1) with the located errors when files failed to load: a partial report would mislead."""
    errors = [d for d in reg.diagnostics if d.severity == "error"]
    if errors:
        from clinreg.diagnostics import Report, render_text
        from clinreg.jsonout import json_requested

        if json_requested():  # stderr stays one JSON line: name the first error in it
            first = errors[0]
            raise fail(f"the registry has {len(errors)} error(s) that prevent {what}, first {first.file}:{first.line}: "
                       f"{first.code} {first.message}; run `clinreg validate`", EXIT_FINDINGS)
        click.echo(render_text(Report(errors, len(reg.files))), err=True)
        raise fail(f"the registry has errors that prevent {what}; run `clinreg validate`", EXIT_FINDINGS)


def emit(text: str, output: Path | None = None, force: bool = True) -> None:
    if output is None:
        click.echo(text)
        return
    from clinreg.safeio import RefusedOverwrite, atomic_write_text

    try:
        atomic_write_text(output, text if text.endswith("\n") else text + "\n", overwrite=force)
    except RefusedOverwrite as exc:
        raise fail(str(exc))
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}")
    click.echo(f"wrote {output}", err=True)


class ClinregGroup(click.Group):
    """The top-level group: an output that cannot be written ends in one line and exit code 2, never a traceback."""

    def main(self, *args, **kwargs):
        from clinreg.output import NotStrictJSON

        if sys.stdout is None:  # started with stdout closed (`>&-`): writing must fail loudly, not vanish
            sys.stdout = _ClosedStream()
        try:
            return super().main(*args, **kwargs)  # click itself ends quietly (exit 1) when the reader of a pipe left
        except OSError as exc:  # writing stdout failed (disk full, a closed descriptor), or an unexpected I/O error
            where = exc.filename if exc.filename else "standard output"
            _output_failed(f"{where}: {exc.strerror or exc}")
        except NotStrictJSON as exc:
            _output_failed(str(exc))


class _ClosedStream(io.TextIOBase):
    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed")

    def isatty(self) -> bool:
        return False


def _output_failed(message: str) -> "NoReturn":
    # Whatever is still buffered for stdout can never be written: point stdout at /dev/null so that the
    # interpreter's own flush at exit does not print a second error.
    try:
        if sys.stdout is not None and sys.stdout.fileno() == 1:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # a test runner's stdout has no file descriptor
        pass
    try:
        sys.stderr.write(f"clinreg: error: {shown(message)}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    sys.exit(EXIT_USAGE)


@click.group(cls=ClinregGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="clinreg")
def main() -> None:
    """A registry of clinical evaluation tasks (MedHELM's taxonomy) and the datasets that measure them."""


@main.command()
@root_option
@release_option
@click.option("--base", default=None, metavar="GIT_REF", help="Require a version bump in records changed since this git ref.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True)
@click.option("--show-info", is_flag=True, help="Also print info-level diagnostics in text output.")
@click.option("--strict", is_flag=True, help="Treat stale approvals (CLR801) and conflicting reviews (CLR802) as errors.")
@click.option("--no-cache", is_flag=True, help="Neither use nor update the cache of reports (under $XDG_CACHE_HOME/clinreg).")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def validate(root, release, base, fmt, show_info, strict, no_cache, paths):
    """Check every registry file; report all problems at file:line:col with a rule code.

    With PATHS (registry files), every rule still runs on the whole tree, but only the diagnostics of those
    files are shown and decide the exit code.
    """
    from clinreg.diagnostics import RENDERERS, Report

    if base is None:  # --base compares with git history, which the cache key does not cover
        run = _validate_cached(root, release, use_cache=not no_cache)
        report, wanted = run.report, _registry_paths(run.root, run.files, paths)
    else:
        from clinreg.rules.engine import run_rules

        reg = load(root, release)
        wanted = _registry_paths(reg.root, {f.rel for f in reg.files}, paths)
        try:
            check = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], cwd=reg.root,
                                   capture_output=True, timeout=60)
        except FileNotFoundError:
            raise fail(f"--base {base}: needs git, and git is not on PATH")
        except (OSError, subprocess.SubprocessError) as exc:
            raise fail(f"--base {base}: cannot run git: {exc}")
        if check.returncode != 0:
            raise fail(f"--base {base}: not a git commit in {reg.root}")
        report = run_rules(reg, base=base)
    if strict:
        import dataclasses

        from clinreg.rules.review import STRICT_CODES

        report.diagnostics = [dataclasses.replace(d, severity="error") if d.code in STRICT_CODES else d
                              for d in report.diagnostics]
    if wanted is not None:
        report = Report(diagnostics=[d for d in report.diagnostics if d.file in wanted], files=len(wanted))
    if fmt == "text":
        click.echo(RENDERERS["text"](report, show_info=show_info))
    elif fmt == "json":
        from clinreg.jsonout import wrap

        click.echo(wrap("validation", RENDERERS["json"](report)))
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
                rel = candidate.resolve().relative_to(root.resolve()).as_posix()
            except (ValueError, OSError):
                continue
            if rel in known:
                break
        if rel not in known:
            raise fail(f"{path}: not a file of the registry at {root} (taxonomy/*.yaml, registry/**/*.yaml)")
        wanted.add(rel)
    return wanted


def _validate_cached(root: Path | None, release: str | None, use_cache: bool):
    from clinreg.cache import validate_cached
    from clinreg.paths import RootError, resolve_root

    try:
        run = validate_cached(resolve_root(root), release=release, use_cache=use_cache)
    except (RootError, ValueError) as exc:
        raise fail(str(exc))
    _freeze()
    return run


def _coverage_inputs(root, release, access):
    from clinreg.coverage import TIERS

    tiers = None
    if access:
        tiers = [a.strip() for a in access.split(",") if a.strip()]
        bad = [a for a in tiers if a not in TIERS]
        if bad or not tiers:
            raise fail(f"--access {access}: expected a comma-separated list of {', '.join(TIERS)}")
    reg = load(root, release)
    refuse_load_errors(reg, "a coverage report")
    return reg, tiers


@main.command()
@root_option
@release_option
@click.option("--by", type=click.Choice(["category", "subcategory", "task"]), default="subcategory", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "markdown", "csv", "html"]), default="table", show_default=True)
@click.option("--access", default=None, metavar="TIERS", help="Count only datasets with these access tiers, e.g. public,gated.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write to FILE instead of stdout.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
def coverage(root, release, by, fmt, access, output, force):
    """Coverage per subcategory: tasks, datasets, access tiers, instances and thin spots."""
    from clinreg.coverage import coverage_data

    reg, tiers = _coverage_inputs(root, release, access)
    data = coverage_data(reg, access=tiers)
    if fmt == "json":
        from clinreg.jsonout import dumps

        text = dumps("coverage", data)
    elif fmt == "table":
        from clinreg.reports.table import render_table

        terminal = output is None and sys.stdout.isatty()
        # A terminal gets its own width; a pipe or a file gets unwrapped lines that grep and cut can read.
        width = shutil.get_terminal_size().columns if terminal else None
        text = render_table(data, by=by, width=width, color=terminal)
    else:
        from clinreg.reports import formats

        text = formats.render(fmt, data, by=by)
    if fmt == "csv" and output is not None:  # the table stays plain CSV; its metadata goes beside it
        from clinreg.reports.csvout import render_coverage_csv_metadata

        sidecar = output.with_name(output.name + ".meta.json")
        if sidecar.exists() and not force:
            raise fail(f"{sidecar} exists; refusing to overwrite it (use --force)")
        emit(text, output, force=force)
        emit(render_coverage_csv_metadata(data, by), sidecar, force=True)
        return
    emit(text, output, force=force)


@main.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def list_rules(fmt):
    """List every validation rule with its code, severity and title."""
    import clinreg.rules.engine  # noqa: F401
    from clinreg.rules.base import RULES

    rules = sorted(RULES.values(), key=lambda r: r.code)
    if fmt == "json":
        from clinreg.jsonout import dumps

        click.echo(dumps("rules", [{"code": r.code, "name": r.name, "severity": r.severity, "family": r.family,
                                    "title": r.title} for r in rules]))
        return
    for r in rules:
        click.echo(f"{r.code}  {r.severity:<7}  {r.name:<30} {r.title}")


@main.command()
@click.argument("code")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain(code, fmt):
    """Explain a rule: why it exists, with a bad and a good example."""
    import clinreg.rules.engine  # noqa: F401
    from clinreg.rules.base import RULES

    rule = RULES.get(code.upper())
    if rule is None:
        raise fail(f"no rule {code!r}; `clinreg rules` lists them")
    if fmt == "json":
        from clinreg.jsonout import dumps

        click.echo(dumps("rule", {"code": rule.code, "name": rule.name, "severity": rule.severity, "family": rule.family,
                                  "title": rule.title, "explanation": rule.explanation}))
        return
    click.echo(f"{rule.code} {rule.name} ({rule.severity}, {rule.family})\n{rule.title}\n\n{rule.explanation}")


@main.group()
def schema():
    """JSON Schemas generated from the data model."""


@schema.command("export")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("schemas"), show_default=True)
@click.option("--check", is_flag=True, help="Do not write; exit 1 if the files differ from the models.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def schema_export(out_dir, check, fmt):
    """Write schemas/*.json from the pydantic models (or check them with --check)."""
    from clinreg.schemas import FIX_COMMAND, export_schemas, schema_drift

    if check:
        drift = schema_drift(out_dir)
        if fmt == "json":
            from clinreg.jsonout import dumps

            click.echo(dumps("schema_check", {"drift": drift, "fix": FIX_COMMAND if drift else None}))
        elif drift:
            click.echo(f"out of date: {', '.join(drift)}; run `{FIX_COMMAND}`")
        else:
            click.echo("schemas are up to date")
        raise click.exceptions.Exit(EXIT_FINDINGS if drift else EXIT_OK)
    try:
        written = export_schemas(out_dir)
    except OSError as exc:
        raise fail(f"cannot write to {out_dir}: {exc.strerror or exc}")
    if fmt == "json":
        from clinreg.jsonout import dumps

        click.echo(dumps("schema_export", {"written": [str(p) for p in written]}))
    else:
        click.echo("\n".join(f"wrote {p}" for p in written) or "schemas are up to date")


def _register_commands() -> None:
    """Commands that live in their own modules; each keeps its heavy imports inside its functions."""
    from clinreg import cli_build, cli_export, cli_reports, cli_workflow

    for command in (cli_build.build, cli_build.check_data, cli_build.lock, cli_export.export, cli_reports.review,
                    cli_reports.diff, cli_workflow.new, cli_workflow.issue_form):
        main.add_command(command)
    for command in cli_workflow.review_commands:
        cli_reports.review.add_command(command)

    from clinreg import cli_results

    main.add_command(cli_results.results)
    main.add_command(cli_results.leaderboard)


_register_commands()
