"""Contributor and clinician commands: `new dataset`, `issue-form` and `review approve|reject|request-changes`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from clinreg.output import shown


EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

# Defined here rather than imported from clinreg.cli: cli.py imports this module while it is itself loading.
root_option = click.option(
    "--root", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="Registry tree to use (default: the working directory if it holds taxonomy/ and registry/, else the embedded registry).",
)
format_option = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)


def fail(message: str, code: int = EXIT_USAGE) -> click.exceptions.Exit:
    from clinreg.jsonout import error_line, json_requested

    message = shown(message)  # paths and values in a message may hold control characters
    click.echo(error_line(message, code) if json_requested() else f"clinreg: error: {message}", err=True)
    return click.exceptions.Exit(code)


def _load(root: Path | None, *, for_writing: bool = False):
    from clinreg.paths import RootError
    from clinreg.store import load_registry

    try:
        reg = load_registry(root)
    except (RootError, ValueError) as exc:
        raise fail(str(exc))
    if for_writing:
        from clinreg.cli import refuse_packaged  # at call time: cli.py imports this module while loading

        refuse_packaged(reg)
    return reg


def interactive() -> bool:
    """Prompt only when a person is at the keyboard; CI and pipes get flags and TODO markers."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------- new dataset


@click.group("new")
def new() -> None:
    """Start a new registry record from a commented skeleton."""


def _check_tasks(tasks: list[str], known: dict) -> list[str]:
    from clinreg.suggest import Suggester

    for task in tasks:
        if task not in known:
            close = Suggester(known).closest(task)
            hint = f"; did you mean {close!r}?" if close else " (`clinreg coverage --by task --format markdown` lists the ids)"
            raise click.BadParameter(f"unknown task {task!r}{hint}")
    return tasks


def _split_tasks(values: tuple[str, ...] | str) -> list[str]:
    items = [values] if isinstance(values, str) else list(values)
    return [t for v in items for t in re.split(r"[\s,]+", v) if t]


@new.command("dataset")
@click.argument("dataset_id", metavar="ID")
@root_option
@click.option("--name", default=None, help="Display name of the dataset.")
@click.option("--hf-repo", default=None, metavar="OWNER/NAME", help="Hugging Face hub repository of the data.")
@click.option("--access", type=click.Choice(["public", "gated", "private"]), default=None, help="Access tier.")
@click.option("--task", "tasks", multiple=True, metavar="TASK", help="A task id the benchmark measures (repeatable).")
@click.option("--from-hub-features", "features", type=click.Path(dir_okay=False, path_type=Path), multiple=True,
              help="JSON/YAML features (a hub card's features list, a {column: type} mapping, or a README.md) to "
                   "pre-fill the mapping. Repeatable: a hub card (licence, configs) and a column description together.")
@format_option
def new_dataset(dataset_id, root, name, hf_repo, access, tasks, features, fmt):
    """Write registry/datasets/ID.yaml: a complete, commented skeleton with TODO where answers are unknown."""
    from clinreg.model import ID_PATTERN  # here, not at the top: `clinreg --help` should not import pydantic
    from clinreg.safeio import RefusedOverwrite, atomic_write_text
    from clinreg.scaffold import HUB_REPO, Answers, FeaturesError, merge_cards, read_features, render_dataset
    from clinreg.store import DATASETS_DIR

    if not re.fullmatch(ID_PATTERN, dataset_id) or len(dataset_id) > 120:
        suggestion = re.sub(r"[^a-z0-9]+", "_", dataset_id.lower()).strip("_") or "my_dataset"
        if suggestion[0].isdigit():
            suggestion = "x_" + suggestion
        raise fail(f"dataset id {dataset_id!r} is not snake_case (lowercase letters, digits and single underscores, "
                   f"at most 120 characters); try {suggestion[:120]!r}")
    reg = _load(root, for_writing=True)
    rel = f"{DATASETS_DIR}/{dataset_id}.yaml"
    target = reg.root / rel
    if target.exists():
        raise fail(f"{rel} already exists; refusing to overwrite it (edit it, or choose another id)")
    known = reg.tasks()
    task_list = _split_tasks(tasks)
    try:
        _check_tasks(task_list, known)
    except click.BadParameter as exc:
        raise fail(exc.message)
    if hf_repo is not None and not HUB_REPO.match(hf_repo):
        raise fail(f"--hf-repo {hf_repo!r} is not a hub repository id such as owner/name")
    card = None
    for path in features:
        try:
            card = merge_cards(card, read_features(path))
        except FeaturesError as exc:
            raise fail(f"--from-hub-features {path.name}: {exc}")
    if interactive() and fmt == "text":  # JSON output is for programs: no prompts in front of it
        if name is None:
            name = click.prompt("Display name (blank for TODO)", default="", show_default=False).strip() or None
        if hf_repo is None:
            hf_repo = click.prompt("Hugging Face repo, owner/name (blank if none)", default="", show_default=False,
                                   value_proc=_hub_repo_or_blank).strip() or None
        if access is None:
            access = click.prompt("Access tier", type=click.Choice(["public", "gated", "private"]), default="public")
        if not task_list:
            task_list = click.prompt("Task ids, comma separated (`clinreg coverage --by task --format markdown` lists them)",
                                     value_proc=lambda v: _check_tasks(_split_tasks(v), known))
    if not task_list:
        raise fail("name at least one --task that the benchmark measures (`clinreg coverage --by task --format markdown` lists the ids)")
    answers = Answers(id=dataset_id, name=name, hf_repo=hf_repo, access=access, tasks=task_list,
                      release=reg.current_release, card=card,
                      features_file=" + ".join(p.name for p in features) if features else None)
    text, guess = render_dataset(answers)
    try:
        atomic_write_text(target, text, overwrite=False)
    except RefusedOverwrite:
        raise fail(f"{rel} already exists; refusing to overwrite it")
    except OSError as exc:
        raise fail(f"cannot write {rel}: {exc.strerror or exc}")
    todo, problems = _new_file_findings(reg.root, rel)
    if fmt == "json":
        from clinreg.jsonout import dumps

        click.echo(dumps("new_dataset", {"path": rel, "id": dataset_id, "todo_fields": todo,
                                         "guesses": guess.reasons if guess else [], "problems": problems}))
    else:
        click.echo(f"wrote {rel}")
        if card is not None and not card.columns:
            click.echo(f"{' and '.join(p.name for p in features)} declare(s) no features, so the mapping is not pre-filled; give a "
                       "{column: type} file to --from-hub-features for that")
        if guess:
            click.echo("guessed from the features (check each):\n" + "\n".join(f"  - {shown(r)}" for r in guess.reasons))
        if todo:
            click.echo(f"{len(todo)} field(s) still say TODO: {', '.join(todo)}")
        for p in problems:
            click.echo(f"  {p}")
        click.echo("next: fill in the TODOs, then run `clinreg validate` (CONTRIBUTING.md walks through each field)")


def _hub_repo_or_blank(value: str) -> str:
    from clinreg.scaffold import HUB_REPO

    value = value.strip()
    if value and not HUB_REPO.match(value):
        raise click.BadParameter("expected owner/name")
    return value


def _new_file_findings(root: Path, rel: str) -> tuple[list[str], list[str]]:
    """The TODO fields of the new record, and any other problem `validate` reports in it."""
    from clinreg.rules.engine import validate

    todo, problems = [], []
    for d in validate(root).sorted():
        if d.file != rel:
            continue
        if d.code == "CLR106":
            todo.append(d.message.split("`")[1] if "`" in d.message else d.message)
        elif d.code != "CLR701":
            problems.append(f"{d.file}:{d.line}: {d.code} [{d.severity}] {d.message}")
    return todo, problems


# --------------------------------------------------------------------------------------------- issue form


@click.command("issue-form")
@root_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the form to FILE (default: stdout).")
@click.option("--check", is_flag=True, help="Do not write; exit 1 if FILE (-o; default .github/ISSUE_TEMPLATE/propose-dataset.yml in the root) is out of date.")
@format_option
def issue_form(root, output, check, fmt):
    """Generate the "Propose a dataset" GitHub issue form, its dropdowns taken from the taxonomy."""
    from clinreg.issueform import FIX_COMMAND, ISSUE_FORM_PATH, IssueFormError, drift, render_issue_form
    from clinreg.safeio import atomic_write_text

    reg = _load(root)
    try:
        text = render_issue_form(reg)
    except IssueFormError as exc:
        raise fail(str(exc), EXIT_FINDINGS)
    if check:
        path = output or reg.root / ISSUE_FORM_PATH
        stale = drift(reg, path)
        if fmt == "json":
            from clinreg.jsonout import dumps

            click.echo(dumps("issue_form_check", {"file": str(path), "in_sync": not stale, "fix": FIX_COMMAND if stale else None}))
        elif stale:
            click.echo(f"{path} is out of date with the taxonomy; run `{FIX_COMMAND}`")
        else:
            click.echo(f"{path} is up to date")
        raise click.exceptions.Exit(EXIT_FINDINGS if stale else EXIT_OK)
    if output is None:
        from clinreg.jsonout import dumps

        click.echo(dumps("issue_form", {"form": text}) if fmt == "json" else text, nl=fmt == "json")
        return
    try:
        atomic_write_text(output, text)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}")
    from clinreg.jsonout import dumps

    click.echo(dumps("issue_form", {"written": str(output)}) if fmt == "json" else f"wrote {output}")


# --------------------------------------------------------------------------------------------- review decisions


def _review_command(name: str, decision: str, summary: str) -> click.Command:
    @click.command(name, help=f"""{summary}

    ITEM is a task id or a subcategory id. The decision is appended to the item's `review.reviewers`, and
    `status`, `date` and `content_hash` (of the item's name and definition) are updated. Only the lines of
    the item's review block change; the rest of the file stays byte for byte as it was.""")
    @click.argument("item")
    @click.option("--reviewer", required=True, metavar="NAME", help="The reviewer's name as they want it shown.")
    @click.option("--orcid", default=None, metavar="ID", help="The reviewer's ORCID iD, e.g. 0000-0002-1825-0097.")
    @click.option("--note", default=None, metavar="TEXT", help="The reviewer's comment.")
    @click.option("--date", "on_date", default=None, metavar="YYYY-MM-DD", help="Date of the decision (default: today).")
    @click.option("--kind", type=click.Choice(["task", "subcategory"]), default=None,
                  help="Only needed when a task and a subcategory share the id.")
    @root_option
    @format_option
    def command(item, reviewer, orcid, note, on_date, kind, root, fmt):
        from clinreg.signoff import SignOffError, sign_off

        from clinreg.cli import parse_date

        today = parse_date(on_date)
        reg = _load(root, for_writing=True)
        try:
            result = sign_off(reg, item, decision, reviewer, orcid=orcid, note=note, today=today, kind=kind)
        except SignOffError as exc:
            raise fail(str(exc))
        except OSError as exc:
            raise fail(f"cannot write the taxonomy file: {exc.strerror or exc}")
        if fmt == "json":
            from clinreg.jsonout import dumps

            click.echo(dumps("review_decision", result.to_dict()))
        else:
            verb = {"approved": "approved", "rejected": "rejected", "changes_requested": "changes requested for"}[decision]
            click.echo(f"{result.file}:{result.line}: {verb} {result.kind} {result.id!r} by {shown(result.reviewer['name'])} "
                       f"on {result.date.isoformat()} (review {result.reviewers} of this item)")

    command.__name__ = name.replace("-", "_")
    return command


approve = _review_command("approve", "approved", "Record a clinician's approval of a task or subcategory.")
reject = _review_command("reject", "rejected", "Record a clinician's rejection of a task or subcategory.")
request_changes = _review_command("request-changes", "changes_requested",
                                  "Record that a clinician asks for changes to a task or subcategory.")

review_commands = [approve, reject, request_changes]
