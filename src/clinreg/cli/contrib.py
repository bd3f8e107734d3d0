"""Contributor commands: `new dataset` (a record's scaffold), `issue-form` and `schema export` (generated files
checked for drift)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_OK, fail, format_option, load, root_option


def interactive() -> bool:
    """Prompt only when a person is at the keyboard; CI and pipes get flags and TODO markers."""
    stdin = sys.stdin
    return stdin is not None and not stdin.closed and stdin.isatty()  # closed or absent: no one at the keyboard


# --------------------------------------------------------------------------------------------- new dataset


@click.group("new")
def new() -> None:
    """Start a new registry record from a commented skeleton."""


@new.command("dataset")
@click.argument("dataset_id", metavar="ID")
@root_option
@click.option("--name", default=None, help="Display name of the dataset.")
@click.option("--source", "source", type=click.Choice(["huggingface", "github", "url", "physionet", "local"]),
              default="huggingface", show_default=True, help="Where the data comes from: the source block to write.")
@click.option("--hf-repo", default=None, metavar="OWNER/NAME",
              help="Hugging Face hub repository of the data (--source huggingface).")
@click.option("--repo", "gh_repo", default=None, metavar="OWNER/NAME",
              help="GitHub repository of the data (--source github).")
@click.option("--url", default=None, metavar="URL",
              help="The https download (--source url) or project page (--source physionet).")
@click.option("--config", default=None, metavar="NAME",
              help="The hub card's config to read, when the card has several.")
@click.option("--access", type=click.Choice(["public", "gated", "private"]), default=None, help="Access tier.")
@click.option("--task", "tasks", multiple=True, metavar="TASK", help="A task id the benchmark measures (repeatable).")
@click.option("--from-hub-features", "features", type=click.Path(dir_okay=False, path_type=Path), multiple=True,
              help="JSON/YAML features (a hub card's features list, a {column: type} mapping, or a README.md) to "
                   "pre-fill the mapping. Repeatable: a hub card (licence, configs) and a column description together.")
@format_option
def new_dataset(dataset_id, root, name, source, hf_repo, gh_repo, url, config, access, tasks, features, fmt):
    """Write registry/datasets/ID.yaml: a complete, commented skeleton with TODO where answers are unknown."""
    from clinreg.contrib import DatasetRefused, DatasetRequest, check_request, create_dataset, id_problem, split_tasks

    problem = id_problem(dataset_id)
    if problem:
        raise fail(problem)
    reg = load(root, for_writing=True)
    request = DatasetRequest(dataset_id, name, source, hf_repo, gh_repo, url, config, access, split_tasks(tasks),
                             list(features))
    try:
        card = check_request(reg, request)
    except DatasetRefused as exc:
        raise fail(str(exc)) from None
    if interactive() and fmt == "text":  # JSON output is for programs: no prompts in front of it
        _ask(request, reg.tasks())
    try:
        created = create_dataset(reg, request, card)
    except DatasetRefused as exc:
        raise fail(str(exc)) from None
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("new_dataset", created.to_dict()))
    else:
        click.echo("\n".join(created.lines()))


def _ask(request, known: dict) -> None:
    """Prompt for the answers the flags left out (a person is at the keyboard)."""
    from clinreg.contrib import HUB_REPO, split_tasks, unknown_task

    def hub_repo_or_blank(value: str) -> str:
        value = value.strip()
        if value and not HUB_REPO.match(value):
            raise click.BadParameter("expected owner/name")
        return value

    def tasks_or_retry(value: str) -> list[str]:
        problem = unknown_task(split_tasks(value), known)
        if problem:
            raise click.BadParameter(problem)
        return split_tasks(value)

    if request.name is None:
        request.name = click.prompt("Display name (blank for TODO)", default="", show_default=False).strip() or None
    if request.hf_repo is None and request.source == "huggingface":
        request.hf_repo = click.prompt("Hugging Face repo, owner/name (blank if none)", default="", show_default=False,
                                       value_proc=hub_repo_or_blank).strip() or None
    if request.access is None:
        request.access = click.prompt("Access tier", type=click.Choice(["public", "gated", "private"]),
                                      default="public")
    if not request.tasks:
        request.tasks = click.prompt("Task ids, comma separated (`clinreg coverage --by task --format markdown` lists "
                                     "them)", value_proc=tasks_or_retry)


@new.command("release")
@click.argument("version", metavar="VERSION")
@root_option
@click.option("--title", required=True, help="One line on what the release is.")
@format_option
def new_release(version, root, title, fmt):
    """Open release VERSION in registry/releases.yaml: new records name it in `added_in` until it is published."""
    import datetime as dt

    from clinreg.contrib import ReleaseRefused, open_next_release

    reg = load(root, for_writing=True)
    try:
        opened = open_next_release(reg, version, title, dt.date.today())
    except ReleaseRefused as exc:
        raise fail(str(exc)) from None
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("new_release", {"path": opened.path, "version": version, "status": "open"}))
        return
    click.echo(f"opened release {version} in {opened.path} (status: open, now current)")
    if opened.readme_edited:
        click.echo(f"added its row to README.md's release table (update `added` as records join):\n  {opened.row}")
    else:
        click.echo("the README's release table needs its row (tests/test_readme_releases.py checks it):\n  "
                   + opened.row)
    click.echo(f"next: new records say `added_in: {version}`; to publish it, set `status: published`, its date and "
               "`datasets_added` (`clinreg validate` lists the ids, CLR604)")


# --------------------------------------------------------------------------------------------- issue form


@click.command("issue-form")
@root_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the form to FILE (default: stdout).")
@click.option("--check", is_flag=True,
              help="Do not write; exit 1 if FILE (-o; default .github/ISSUE_TEMPLATE/propose-dataset.yml in the root) "
                   "is out of date.")
@format_option
def issue_form(root, output, check, fmt):
    """Generate the "Propose a dataset" GitHub issue form, its dropdowns taken from the taxonomy."""
    from clinreg.contrib import ISSUE_FORM_PATH, IssueFormError, drift, render_issue_form
    from clinreg.contrib.issueform import FIX_COMMAND
    from clinreg.text import atomic_write_text

    reg = load(root)
    try:
        text = render_issue_form(reg)
    except IssueFormError as exc:
        raise fail(str(exc), EXIT_FINDINGS, error=exc) from None
    if check:
        path = output or reg.root / ISSUE_FORM_PATH
        stale = drift(reg, path)
        if fmt == "json":
            from clinreg.text import dumps

            click.echo(dumps("issue_form_check",
                             {"file": str(path), "in_sync": not stale, "fix": FIX_COMMAND if stale else None}))
        elif stale:
            click.echo(f"{path} is out of date with the taxonomy; run `{FIX_COMMAND}`")
        else:
            click.echo(f"{path} is up to date")
        raise click.exceptions.Exit(EXIT_FINDINGS if stale else EXIT_OK)
    if output is None:
        from clinreg.text import dumps

        click.echo(dumps("issue_form", {"form": text}) if fmt == "json" else text, nl=fmt == "json")
        return
    try:
        atomic_write_text(output, text)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}") from None
    from clinreg.text import dumps

    click.echo(dumps("issue_form", {"written": str(output)}) if fmt == "json" else f"wrote {output}")


# --------------------------------------------------------------------------------------------- schemas


@click.group()
def schema():
    """JSON Schemas generated from the data model."""


@schema.command("export")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("schemas"),
              show_default=True)
@click.option("--check", is_flag=True, help="Do not write; exit 1 if the files differ from the models.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def schema_export(out_dir, check, fmt):
    """Write schemas/*.json from the pydantic models (or check them with --check)."""
    from clinreg.contrib import export_schemas, schema_drift
    from clinreg.contrib.schemas import FIX_COMMAND

    if check:
        drift = schema_drift(out_dir)
        if fmt == "json":
            from clinreg.text import dumps

            click.echo(dumps("schema_check", {"drift": drift, "fix": FIX_COMMAND if drift else None}))
        elif drift:
            click.echo(f"out of date: {', '.join(drift)}; run `{FIX_COMMAND}`")
        else:
            click.echo("schemas are up to date")
        raise click.exceptions.Exit(EXIT_FINDINGS if drift else EXIT_OK)
    try:
        written = export_schemas(out_dir)
    except OSError as exc:
        raise fail(f"cannot write to {out_dir}: {exc.strerror or exc}") from None
    if fmt == "json":
        from clinreg.text import dumps

        click.echo(dumps("schema_export", {"written": [str(p) for p in written]}))
    else:
        click.echo("\n".join(f"wrote {p}" for p in written) or "schemas are up to date")
