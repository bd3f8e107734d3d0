"""`clinreg review`: the taxonomy as a document and a form for clinicians, review status, the spreadsheet round
trip, and recording a clinician's decision (`approve`, `reject`, `request-changes`)."""

from __future__ import annotations

from pathlib import Path

import click

from clinreg.cli.common import (
    emit, fail, force_option, format_option, load, medhelm_option, output_option, parse_date, refuse_load_errors,
    refuse_packaged, root_option,
)


@click.group("review", invoke_without_command=True)
@root_option
@click.option("--category", default=None, metavar="C", help="Only this category id.")
@click.option("--pending", is_flag=True, help="Only tasks that need review: proposed, stale, revised or conflicting.")
@click.option("--format", "fmt", type=click.Choice(["html", "markdown", "json"]), default=None,
              help="Default: markdown on a terminal, html (the offline review form) into a file or a pipe.")
@medhelm_option
@output_option
@force_option
@click.pass_context
def review(ctx, root, category, pending, fmt, medhelm, output, force):
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
    from clinreg.reports import render_review, review_document

    reg = load(root, medhelm=medhelm)
    refuse_load_errors(reg, "a review document")
    document = review_document(reg, category=category, pending=pending)  # an unknown category: the guard's exit 2
    emit(render_review(document, fmt), output, force=force)


@review.command("status")
@root_option
@click.option("--pending", "only", flag_value="pending",
              help="Only items that need a clinician: proposed, stale, revised or conflicting.")
@click.option("--stale", "only", flag_value="stale", help="Only approvals that no longer cover the current content.")
@click.option("--conflicts", "only", flag_value="conflicts",
              help="Only items whose reviewers' current decisions disagree.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.option("--show-hashes", is_flag=True, help="Show each item's version (its content hash) in the table.")
def review_status(root, only, fmt, show_hashes):
    """The review state of every task and subcategory, derived from its history of decisions.

    Exit 0 always: listing is not a check (use `validate --strict` to fail on stale approvals and conflicts).
    """
    from clinreg.reports import render_status, status_rows

    reg = load(root)
    refuse_load_errors(reg, "a review status")
    click.echo(render_status(status_rows(reg, only), only, fmt, show_hashes))


@review.command("export")
@root_option
@click.option("--format", "fmt", type=click.Choice(["xlsx", "csv"]), default="xlsx", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The spreadsheet to write.")
@click.option("--category", default=None, metavar="C", help="Only this category id's subcategories and tasks.")
@force_option
def review_export(root, fmt, output, category, force):
    """A spreadsheet for clinicians: one row per task (id, tier, subcategory, wording, example, version and
    hash), with decision, comment, reviewer and orcid columns to fill in and give back to `review import`."""
    from clinreg.review import SheetRefused, describe_rows, export_rows, write_review_sheet

    reg = load(root)
    refuse_load_errors(reg, "a review spreadsheet")
    rows = export_rows(reg, category)
    try:
        write_review_sheet(rows, output, fmt, force)
    except SheetRefused as exc:
        raise fail(str(exc)) from None
    click.echo(f"wrote {output} ({describe_rows(rows)})", err=True)


@review.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@root_option
@click.option("--reviewer", metavar="NAME", help="Reviewer for spreadsheet rows whose reviewer cell is blank.")
@click.option("--orcid", default=None, metavar="ID", help="ORCID iD for rows whose orcid cell is blank.")
@click.option("--date", "on_date", default=None, metavar="YYYY-MM-DD", help="Date of the decisions (default: today).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def review_import(file, root, reviewer, orcid, on_date, fmt):
    """Apply the decisions in FILE: a .json saved by the review form, or the exported sheet filled in and saved
    as .xlsx, .ods (LibreOffice's own format) or .csv.

    The whole file is checked first; any problem (unknown task, bad decision, formula, oversized or wrongly
    typed cell) is reported with its row or cell and nothing is written (exit 2). Then each decision is
    recorded through the same locked, byte-exact writer as `review approve`. A decision whose content hash
    no longer matches its task (the wording changed since it was read) is refused and named, nothing is
    written for that task, the other decisions are applied, and the exit code is 1.
    """
    from clinreg.review import ReviewFileError, apply_decisions, read_decisions

    today = parse_date(on_date)
    reg = load(root)
    refuse_load_errors(reg, "an import of review decisions")
    refuse_packaged(reg)
    try:
        decisions = read_decisions(file, reg, reviewer=reviewer, orcid=orcid)
    except ReviewFileError as exc:
        if fmt == "json":  # stderr stays one JSON line: the first problem, and every one as a located diagnostic
            raise fail(f"{exc.problems[0]} ({len(exc.problems)} problem(s); nothing was imported)", error=exc,
                       diagnostics=exc.diagnostics) from None
        from clinreg.reports import problem_lines

        click.echo("\n".join([*problem_lines("error", exc.problems), "clinreg: nothing was imported"]), err=True)
        raise click.exceptions.Exit(2) from None
    result = apply_decisions(reg, decisions, today=today)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("review_import", result.to_dict()))
    else:
        from clinreg.reports import import_lines

        out, err = import_lines(result)
        for line in out:
            click.echo(line)
        for line in err:
            click.echo(line, err=True)
    raise click.exceptions.Exit(1 if result.refused else 0)


# --------------------------------------------------------------------------------------------- decisions


def _review_command(name: str, decision: str, summary: str) -> click.Command:
    @click.command(name, help=f"""{summary}

    ITEM is a task id or a subcategory id. The decision is appended to the item's `review.reviewers`, and
    `status`, `date` and `content_hash` (of the item's name and definition) are updated. Only the lines of
    the item's review block change; the rest of the file stays byte for byte as it was.""")
    @click.argument("item")
    @click.option("--reviewer", required=True, metavar="NAME", help="The reviewer's name as they want it shown.")
    @click.option("--orcid", default=None, metavar="ID", help="The reviewer's ORCID iD, e.g. 0000-0002-1825-0097.")
    @click.option("--note", default=None, metavar="TEXT", help="The reviewer's comment.")
    @click.option("--date", "on_date", metavar="YYYY-MM-DD", help="Date of the decision (default: today).")
    @click.option("--kind", type=click.Choice(["task", "subcategory"]), default=None,
                  help="Only needed when a task and a subcategory share the id.")
    @root_option
    @format_option
    def command(item, reviewer, orcid, note, on_date, kind, root, fmt):
        result = _sign_off(root, on_date, item, decision, reviewer, orcid=orcid, note=note, kind=kind)
        if fmt == "json":
            from clinreg.text import dumps

            click.echo(dumps("review_decision", result.to_dict()))
        else:
            from clinreg.reports import decision_line

            click.echo(decision_line(result, decision))

    command.__name__ = name.replace("-", "_")
    return command


def _sign_off(root, on_date, item, decision, name, **kwargs):
    """Record one decision in the taxonomy file (a reviewer's or a maintainer's adjudication); a refused item or an
    unwritable file is a one-line usage error."""
    from clinreg.review import SignOffError, sign_off

    today = parse_date(on_date)
    reg = load(root, for_writing=True)
    try:
        return sign_off(reg, item, decision, name, today=today, **kwargs)
    except SignOffError as exc:
        raise fail(str(exc), error=exc) from None
    except OSError as exc:
        raise fail(f"cannot write the taxonomy file: {exc.strerror or exc}") from None


approve = _review_command("approve", "approved", "Record a clinician's approval of a task or subcategory.")
reject = _review_command("reject", "rejected", "Record a clinician's rejection of a task or subcategory.")
request_changes = _review_command("request-changes", "changes_requested",
                                  "Record that a clinician asks for changes to a task or subcategory.")

review_commands = [approve, reject, request_changes]
for _command in review_commands:
    review.add_command(_command)


@review.command("adjudicate")
@click.argument("item")
@click.option("--decision", required=True, help="The maintainer's decision, which closes the item.",
              type=click.Choice(["approve", "reject", "request changes", "request-changes", "approved", "rejected",
                                 "changes_requested"], case_sensitive=False))
@click.option("--reason", required=True, metavar="TEXT", help="Why: recorded with the decision, shown with the item.")
@click.option("--maintainer", required=True, metavar="NAME", help="The maintainer who decides.")
@click.option("--date", "on_date", default=None, metavar="YYYY-MM-DD", help="Date of the decision (default: today).")
@click.option("--kind", type=click.Choice(["task", "subcategory"]), default=None,
              help="Only needed when a task and a subcategory share the id.")
@root_option
@format_option
def adjudicate(item, decision, reason, maintainer, on_date, kind, root, fmt):
    """Close a split item (the review panel disagrees, or two reviewers conflict) with a maintainer's decision.

    The decision is appended to the item's history marked `adjudication: true`, with the reason as its note.
    It decides the item while it covers the current content; it is not counted as a reviewer's vote (in
    `review agreement`, for example). An item that is not split is refused.
    """
    from clinreg.core import decision_value

    decision = decision_value(decision)
    result = _sign_off(root, on_date, item, decision, maintainer, note=reason, kind=kind, adjudication=True)
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("review_adjudication", result.to_dict()))
    else:
        from clinreg.reports import adjudication_line

        click.echo(adjudication_line(result, decision))


review_commands.append(adjudicate)


@review.command("agreement")
@root_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def review_agreement(root, fmt):
    """How far the review panel agrees, overall, per category and per subcategory.

    Items are tasks and subcategories; each reviewer's latest decision on an item's current wording is their
    value (approved, changes requested, rejected) and a reviewer who has not decided is missing. Reports the
    reviewers and the items each reviewed, percent agreement, Krippendorff's alpha (nominal, corrected for chance;
    n/a, with why, where no two decisions compare or all are one value), the split items; unreviewed groups in one line.
    """
    from clinreg.reports import render_agreement
    from clinreg.reports import review_agreement as agreement

    reg = load(root)
    refuse_load_errors(reg, "a review agreement")
    click.echo(render_agreement(agreement(reg), fmt))
