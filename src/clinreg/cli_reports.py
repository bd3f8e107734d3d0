"""The `review` and `diff` commands: the taxonomy as a document for clinicians, and what changed between registries."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli import emit, fail, load, parse_date, refuse_load_errors, refuse_packaged, root_option

output_option = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                             help="Write to FILE instead of stdout.")
force_option = click.option("--force", is_flag=True, help="Overwrite an existing output file.")


@click.group("review", invoke_without_command=True)
@root_option
@click.option("--category", default=None, metavar="C", help="Only this category id.")
@click.option("--pending", is_flag=True, help="Only tasks that need review: proposed, stale, revised or conflicting.")
@click.option("--format", "fmt", type=click.Choice(["html", "markdown", "json"]), default=None,
              help="Default: markdown on a terminal, html (the offline review form) into a file or a pipe.")
@output_option
@force_option
@click.pass_context
def review(ctx, root, category, pending, fmt, output, force):
    """The taxonomy for clinical review: definitions, examples, provenance, review status and datasets.

    Without a subcommand, render the review document: Markdown to read on a terminal; with -o FILE or into a
    pipe, the HTML page, an offline form where a clinician chooses a decision and writes a note per task, then
    saves a decisions file from the browser for `clinreg review import`. It also prints compactly, with a notes
    box per task and page numbers.
    """
    if ctx.invoked_subcommand is not None:
        return
    if fmt is None:
        import sys

        fmt = "markdown" if output is None and sys.stdout.isatty() else "html"
    from clinreg.reports.review import UnknownCategory, review_document

    reg = load(root)
    refuse_load_errors(reg, "a review document")
    try:
        document = review_document(reg, category=category, pending=pending)
    except UnknownCategory as exc:
        raise fail(str(exc))
    if fmt == "json":
        from clinreg.jsonout import dumps

        text = dumps("review_document", document)
    elif fmt == "markdown":
        from clinreg.reports.markdown import render_review_markdown

        text = render_review_markdown(document)
    else:
        from clinreg.reports.html import render_review_html

        text = render_review_html(document)
    emit(text, output, force=force)


@review.command("status")
@root_option
@click.option("--pending", "only", flag_value="pending", help="Only items that need a clinician: proposed, stale, revised or conflicting.")
@click.option("--stale", "only", flag_value="stale", help="Only approvals that no longer cover the current content.")
@click.option("--conflicts", "only", flag_value="conflicts", help="Only items whose reviewers' current decisions disagree.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def review_status(root, only, fmt):
    """The review state of every task and subcategory, derived from its history of decisions.

    Exit 0 always: listing is not a check (use `validate --strict` to fail on stale approvals and conflicts).
    """
    from clinreg.reports.review import status_rows

    reg = load(root)
    refuse_load_errors(reg, "a review status")
    rows = status_rows(reg, only)
    if fmt == "json":
        from clinreg.jsonout import dumps

        click.echo(dumps("review_status", {"filter": only, "items": rows}))
        return
    from clinreg.reports.table import safe_text

    for row in rows:
        line = f"{row['file']}: {row['kind']} {row['id']}  {row['state'].replace('_', ' ')}  (version {row['version']})"
        if row["decisions"]:
            line += "; " + ", ".join(f"{d['name']}: {d['decision'].replace('_', ' ')}" for d in row["decisions"])
        click.echo(safe_text(line))
        prev = row["previous"]
        if prev and prev["reviewed"]:
            for key in ("name", "definition", "example", "placement"):
                old, new = prev["reviewed"].get(key), prev["now"].get(key)
                if (old or "") != (new or ""):
                    click.echo(safe_text(f"    {key}: {prev['decision'].replace('_', ' ')} {old or '(none)'!r}, now {new or '(none)'!r}"))
    click.echo(f"{len(rows)} item(s)" + (f" ({only})" if only else ""))


@review.command("export")
@root_option
@click.option("--format", "fmt", type=click.Choice(["xlsx", "csv"]), default="xlsx", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="The spreadsheet to write.")
@force_option
def review_export(root, fmt, output, force):
    """A spreadsheet for clinicians: one row per task (id, tier, subcategory, wording, example, version and
    hash), with decision, comment, reviewer and orcid columns to fill in and give back to `review import`."""
    from clinreg.reviewio import export_rows, render_csv, write_xlsx
    from clinreg.safeio import RefusedOverwrite, atomic_write_text

    reg = load(root)
    refuse_load_errors(reg, "a review spreadsheet")
    rows = export_rows(reg)
    if not force and output.exists():
        raise fail(f"{output} exists; refusing to overwrite it (use --force)")
    try:
        if fmt == "csv":
            atomic_write_text(output, render_csv(rows), overwrite=force)
        else:
            try:
                import openpyxl  # noqa: F401
            except ImportError:
                raise fail("--format xlsx needs openpyxl: install clinreg with the `review` extra "
                           "(pip install 'clinreg[review]'), or use --format csv")
            write_xlsx(rows, output)
    except RefusedOverwrite as exc:
        raise fail(str(exc))
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}")
    click.echo(f"wrote {output} ({len(rows)} tasks)", err=True)


@review.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@root_option
@click.option("--reviewer", default=None, metavar="NAME", help="Reviewer for spreadsheet rows whose reviewer cell is blank.")
@click.option("--orcid", default=None, metavar="ID", help="ORCID iD for rows whose orcid cell is blank.")
@click.option("--date", "on_date", default=None, metavar="YYYY-MM-DD", help="Date of the decisions (default: today).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def review_import(file, root, reviewer, orcid, on_date, fmt):
    """Apply the decisions in FILE: a .json saved by the review form, or an exported .xlsx/.csv filled in.

    The whole file is checked first; any problem (unknown task, bad decision, formula, oversized or wrongly
    typed cell) is reported with its row or cell and nothing is written (exit 2). Then each decision is
    recorded through the same locked, byte-exact writer as `review approve`. A decision whose content hash
    no longer matches its task (the wording changed since it was read) is refused and named, nothing is
    written for that task, the other decisions are applied, and the exit code is 1.
    """
    from clinreg.reviewio import ReviewFileError, apply_decisions, read_decisions

    today = parse_date(on_date)
    reg = load(root)
    refuse_load_errors(reg, "an import of review decisions")
    refuse_packaged(reg)
    try:
        decisions = read_decisions(file, reg, reviewer=reviewer, orcid=orcid)
    except ReviewFileError as exc:
        for problem in exc.problems[:50]:
            click.echo(f"clinreg: error: {problem}", err=True)
        if len(exc.problems) > 50:
            click.echo(f"clinreg: error: ... and {len(exc.problems) - 50} more", err=True)
        click.echo("clinreg: nothing was imported", err=True)
        raise click.exceptions.Exit(2)
    result = apply_decisions(reg, decisions, today=today)
    if fmt == "json":
        from clinreg.jsonout import dumps

        click.echo(dumps("review_import", result.to_dict()))
    else:
        for a in result.applied:
            click.echo(f"{a['file']}:{a['line']}: {a['decision'].replace('_', ' ')} {a['kind']} {a['id']!r} by "
                       f"{a['reviewer']} (now {a['state'].replace('_', ' ')})")
        for r in result.refused:
            click.echo(f"clinreg: refused: {r['where']}: {r['reason']}", err=True)
        click.echo(f"{len(result.applied)} decision(s) recorded, {len(result.refused)} refused", err=True)
    raise click.exceptions.Exit(1 if result.refused else 0)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@root_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@output_option
@force_option
def diff(old, new, root, fmt, output, force):
    """What changed from OLD to NEW: datasets and tasks added, removed, renamed, moved or edited, and coverage.

    OLD and NEW are each a registry folder, a release listed in registry/releases.yaml (the current tree as it
    stood then), or a git ref of the repository holding --root; they are tried in that order.
    """
    import tempfile

    from clinreg.diff import SideError, diff_registries, open_side

    with tempfile.TemporaryDirectory(prefix="clinreg-diff-") as tmp:
        sides = []
        for spec in (old, new):
            try:
                reg, side = open_side(spec, root, Path(tmp))
            except (SideError, ValueError) as exc:
                raise fail(str(exc))
            except OSError as exc:
                raise fail(f"{spec}: cannot read it: {exc.strerror or exc}")
            errors = [d for d in reg.diagnostics if d.severity == "error"]
            if errors:
                click.echo(f"clinreg: warning: {spec} has {len(errors)} registry error(s); the diff shows what could be "
                           f"read (first: {errors[0].file}:{errors[0].line}: {errors[0].message})", err=True)
            sides.append((reg, side))
        data = diff_registries(sides[0][0], sides[1][0], sides[0][1], sides[1][1])
    if fmt == "json":
        from clinreg.jsonout import dumps

        text = dumps("diff", data)
    else:
        from clinreg.reports.markdown import render_diff_markdown

        text = render_diff_markdown(data)
    emit(text, output, force=force)
