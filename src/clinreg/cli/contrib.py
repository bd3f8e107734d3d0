"""Contributor commands: `new dataset` (a record's scaffold), `issue-form` and `schema export` (generated files
checked for drift)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from clinreg.cli.common import EXIT_FINDINGS, EXIT_OK, fail, format_option, load, root_option
from clinreg.text.output import shown


def interactive() -> bool:
    """Prompt only when a person is at the keyboard; CI and pipes get flags and TODO markers."""
    stdin = sys.stdin
    return stdin is not None and not stdin.closed and stdin.isatty()  # closed or absent: no one at the keyboard


# --------------------------------------------------------------------------------------------- new dataset


@click.group("new")
def new() -> None:
    """Start a new registry record from a commented skeleton."""


def _check_tasks(tasks: list[str], known: dict) -> list[str]:
    from clinreg.text.suggest import Suggester

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
@click.option("--source", "source", type=click.Choice(["huggingface", "github", "url", "physionet", "local"]),
              default="huggingface", show_default=True, help="Where the data comes from: the source block to write.")
@click.option("--hf-repo", default=None, metavar="OWNER/NAME", help="Hugging Face hub repository of the data (--source huggingface).")
@click.option("--repo", "gh_repo", default=None, metavar="OWNER/NAME", help="GitHub repository of the data (--source github).")
@click.option("--url", default=None, metavar="URL", help="The https download (--source url) or project page (--source physionet).")
@click.option("--config", default=None, metavar="NAME", help="The hub card's config to read, when the card has several.")
@click.option("--access", type=click.Choice(["public", "gated", "private"]), default=None, help="Access tier.")
@click.option("--task", "tasks", multiple=True, metavar="TASK", help="A task id the benchmark measures (repeatable).")
@click.option("--from-hub-features", "features", type=click.Path(dir_okay=False, path_type=Path), multiple=True,
              help="JSON/YAML features (a hub card's features list, a {column: type} mapping, or a README.md) to "
                   "pre-fill the mapping. Repeatable: a hub card (licence, configs) and a column description together.")
@format_option
def new_dataset(dataset_id, root, name, source, hf_repo, gh_repo, url, config, access, tasks, features, fmt):
    """Write registry/datasets/ID.yaml: a complete, commented skeleton with TODO where answers are unknown."""
    from clinreg.contrib.features import FeaturesError, merge_cards, read_features
    from clinreg.contrib.scaffold import HUB_REPO, Answers, render_dataset
    from clinreg.core.model import ID_PATTERN  # here, not at the top: `clinreg --help` should not import pydantic
    from clinreg.core.store import DATASETS_DIR
    from clinreg.text.safeio import RefusedOverwrite, atomic_write_text

    if not re.fullmatch(ID_PATTERN, dataset_id) or len(dataset_id) > 120:
        suggestion = re.sub(r"[^a-z0-9]+", "_", dataset_id.lower()).strip("_") or "my_dataset"
        if suggestion[0].isdigit():
            suggestion = "x_" + suggestion
        raise fail(f"dataset id {dataset_id!r} is not snake_case (lowercase letters, digits and single underscores, "
                   f"at most 120 characters); try {suggestion[:120]!r}")
    reg = load(root, for_writing=True)
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
    if gh_repo is not None and not HUB_REPO.match(gh_repo):
        raise fail(f"--repo {gh_repo!r} is not a GitHub repository id such as owner/name")
    for flag, value, fits in (("--hf-repo", hf_repo, ("huggingface",)), ("--repo", gh_repo, ("github",)),
                              ("--url", url, ("url", "physionet")), ("--config", config, ("huggingface", "github"))):
        if value is not None and source not in fits:
            raise fail(f"{flag} is for --source {' or '.join(fits)}, not --source {source}")
    if url is not None and not url.startswith("https://"):
        raise fail(f"--url {url!r} is not an https URL")
    card = None
    for path in features:
        try:
            card = merge_cards(card, read_features(path))
        except FeaturesError as exc:
            raise fail(f"--from-hub-features {path.name}: {exc}", error=exc)
    if config is not None and card is not None and card.configs and config not in card.configs:
        from clinreg.text.suggest import Suggester

        close = Suggester(card.configs).closest(config)
        raise fail(f"--config {config!r} is not a config of the card ({', '.join(card.configs)})"
                   + (f"; did you mean {close!r}?" if close else ""))
    if interactive() and fmt == "text":  # JSON output is for programs: no prompts in front of it
        if name is None:
            name = click.prompt("Display name (blank for TODO)", default="", show_default=False).strip() or None
        if hf_repo is None and source == "huggingface":
            hf_repo = click.prompt("Hugging Face repo, owner/name (blank if none)", default="", show_default=False,
                                   value_proc=_hub_repo_or_blank).strip() or None
        if access is None:
            access = click.prompt("Access tier", type=click.Choice(["public", "gated", "private"]), default="public")
        if not task_list:
            task_list = click.prompt("Task ids, comma separated (`clinreg coverage --by task --format markdown` lists them)",
                                     value_proc=lambda v: _check_tasks(_split_tasks(v), known))
    if not task_list:
        raise fail("name at least one --task that the benchmark measures (`clinreg coverage --by task --format markdown` lists the ids)")
    if reg.open_release is None:  # added_in would name a published release, which never gains a record (CLR604)
        raise fail(f"no release is open, and a new record names the open release in `added_in`: open the next with "
                   f"`clinreg new release {_next_minor(reg.current_release)} --title ...`, then run this again")
    answers = Answers(id=dataset_id, name=name, repo=hf_repo or gh_repo, source=source, config=config, url=url,
                      access=access, tasks=task_list,
                      release=reg.open_release, card=card,
                      features_file=" + ".join(p.name for p in features) if features else None)
    text, guess = render_dataset(answers)
    try:
        atomic_write_text(target, text, overwrite=False)
    except RefusedOverwrite:
        raise fail(f"{rel} already exists; refusing to overwrite it")
    except OSError as exc:
        raise fail(f"cannot write {rel}: {exc.strerror or exc}")
    joined = _join_open_release(reg, dataset_id, access or "public")
    writer = _write_test_writer(reg.root, dataset_id, name, guess, text)
    todo, problems = _new_file_findings(reg.root, rel)
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("new_dataset", {"path": rel, "id": dataset_id, "added_in": answers.release,
                                         "release_open": reg.open_release is not None, "writer": writer, "todo_fields": todo,
                                         "guesses": guess.reasons if guess else [], "problems": problems}))
    else:
        click.echo(f"wrote {rel}")
        if card is not None and not card.columns:
            click.echo(f"{' and '.join(p.name for p in features)} declare(s) no features, so the mapping is not pre-filled: add "
                       "a second --from-hub-features with the columns ({column: type}, or `datasets` Features JSON)")
        elif card is not None and not (card.licence or card.configs):
            click.echo("no hub card was given, so the licence, config and splits say TODO: add a second "
                       "--from-hub-features with the card (the repository's README.md)")
        if guess:
            click.echo("guessed from the features (check each):\n" + "\n".join(f"  - {shown(r)}" for r in guess.reasons))
        if todo:
            click.echo(f"{len(todo)} field(s) still say TODO: {', '.join(todo)}")
        for p in problems:
            click.echo(f"  {p}")
        click.echo(joined)
        if writer:
            click.echo(f"wrote {writer}: the test writer, a skeleton that fails until it lays out your files ('The test writer')")
        click.echo(f"next: fill in the TODOs, then run `{_validate_mine(reg.root, rel)}` (CONTRIBUTING.md walks through each field)")


@new.command("release")
@click.argument("version", metavar="VERSION")
@root_option
@click.option("--title", required=True, help="One line on what the release is.")
@format_option
def new_release(version, root, title, fmt):
    """Open release VERSION in registry/releases.yaml: new records name it in `added_in` until it is published."""
    import datetime as dt

    from clinreg.contrib.releases import ReleaseRefused, open_release
    from clinreg.core.model import ReleaseHistory
    from clinreg.core.store import RELEASES_FILE
    from clinreg.text.safeio import atomic_write_text

    reg = load(root, for_writing=True)
    if reg.releases is None or reg.releases_file is None:
        raise fail(f"{RELEASES_FILE} is missing or does not load; `clinreg validate` says why")
    path = reg.root / RELEASES_FILE
    old = path.read_text(encoding="utf-8")
    try:
        text = open_release(old, reg.releases, version, title, dt.date.today())
    except ReleaseRefused as exc:
        raise fail(str(exc))
    import yaml

    try:
        written = ReleaseHistory.model_validate(yaml.safe_load(text))
    except Exception:  # the edit must read back as what was meant, or nothing is written
        written = None
    if (written is None or written.current != version or len(written.releases) != len(reg.releases.releases) + 1
            or written.releases[-1].version != version or written.releases[-1].status != "open"):
        raise fail(f"{RELEASES_FILE} is not laid out as expected (a block `releases:` list at the end); add the release by hand")
    try:
        atomic_write_text(path, text, overwrite=True)
    except OSError as exc:
        raise fail(f"cannot write {RELEASES_FILE}: {exc.strerror or exc}")
    row, readme = _readme_release_row(reg.root, version, title, dt.date.today())
    if fmt == "json":
        from clinreg.text.jsonout import dumps

        click.echo(dumps("new_release", {"path": RELEASES_FILE, "version": version, "status": "open"}))
    else:
        click.echo(f"opened release {version} in {RELEASES_FILE} (status: open, now current)")
        if readme:
            click.echo(f"added its row to README.md's release table (update `added` as records join):\n  {row}")
        else:
            click.echo(f"the README's release table needs its row (tests/test_readme_releases.py checks it):\n  {row}")
        click.echo(f"next: new records say `added_in: {version}`; to publish it, set `status: published`, its date and "
                   "`datasets_added` (`clinreg validate` lists the ids, CLR604)")


def _join_open_release(reg, dataset_id: str, tier: str) -> str:
    """Name the new record in the open release's `datasets_added` and count it in README's release table, so that
    both say what the tree holds; a line saying what was done, or what to do by hand."""
    import yaml
    from pydantic import ValidationError

    from clinreg.contrib.releases import ReleaseRefused, join_open_release, readme_join
    from clinreg.core.model import ReleaseHistory
    from clinreg.core.store import RELEASES_FILE
    from clinreg.text.safeio import atomic_write_text

    version = reg.open_release
    by_hand = (f"add {dataset_id} to release {version}'s datasets_added in {RELEASES_FILE} and count it in README.md's "
               "release table by hand (tests/test_readme_releases.py checks both)")
    path = reg.root / RELEASES_FILE
    try:
        old = path.read_text(encoding="utf-8")
        new = join_open_release(old, reg.releases, dataset_id)
        written = ReleaseHistory.model_validate(yaml.safe_load(new))
    except (OSError, UnicodeDecodeError, ReleaseRefused, yaml.YAMLError, ValidationError):
        return by_hand
    want = [*(reg.releases.releases[-1].datasets_added or []), dataset_id]
    if (written.releases[:-1] != reg.releases.releases[:-1] or written.releases[-1].datasets_added != want
            or written.releases[-1].model_copy(update={"datasets_added": None})
            != reg.releases.releases[-1].model_copy(update={"datasets_added": None})):
        return by_hand
    try:
        atomic_write_text(path, new, overwrite=True)
    except OSError:
        return by_hand
    done = f"added {dataset_id} to release {version}'s datasets_added in {RELEASES_FILE}"
    readme = reg.root / "README.md"
    try:
        text = readme.read_text(encoding="utf-8") if readme.is_file() and not readme.is_symlink() else None
    except (OSError, UnicodeDecodeError):
        text = None
    if text is None:
        return done
    joined = readme_join(text, version, tier, dataset_id)
    if joined is None:
        return done + f"; count it in README.md's release table row {version} by hand"
    try:
        atomic_write_text(readme, joined, overwrite=True)
    except OSError:
        return done + f"; count it in README.md's release table row {version} by hand"
    return done + " and counted it in README.md's release table"


def _readme_release_row(root: Path, version: str, title: str, today) -> tuple[str, bool]:
    """The README release table's row for the release just opened, and whether it was added to README.md."""
    from clinreg.contrib.releases import add_readme_row, readme_row
    from clinreg.core.store import load_registry
    from clinreg.text.safeio import atomic_write_text

    reg = load_registry(root)  # at the new release: every current record
    access: dict[str, int] = {}
    for ds in reg.datasets.values():
        access[ds.access.tier] = access.get(ds.access.tier, 0) + 1
    row = readme_row(version, today, title, access)
    path = root / "README.md"
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() and not path.is_symlink() else None
    except (OSError, UnicodeDecodeError):
        text = None
    new = add_readme_row(text, row) if text is not None else None
    if new is None:
        return row, False
    try:
        atomic_write_text(path, new, overwrite=True)
    except OSError:
        return row, False
    return row, True


def _next_minor(version: str | None) -> str:
    """The release after `version` that adds records: the next minor version ("X.Y.Z" when there is none)."""
    parts = (version or "").split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return "X.Y.Z"
    return f"{parts[0]}.{int(parts[1]) + 1}.0"


def _write_test_writer(root: Path, dataset_id: str, name: str | None, guess, record_text: str) -> str | None:
    """tests/distributions/ID.py in a clone of the repository (none where the tree has no such folder)."""
    from clinreg.contrib.writer import WRITERS_DIR, render_writer
    from clinreg.text.safeio import RefusedOverwrite, atomic_write_text

    folder = root / WRITERS_DIR
    if not folder.is_dir():
        return None
    import yaml

    splits = (yaml.safe_load(record_text) or {}).get("mappings", [{}])[0].get("splits", []) or []
    rel = f"{WRITERS_DIR}/{dataset_id}.py"
    try:
        atomic_write_text(root / rel, render_writer(dataset_id, name, [str(s) for s in splits]), overwrite=False)
    except RefusedOverwrite:
        return None  # a writer that is already there is the contributor's, never replaced
    except OSError as exc:
        raise fail(f"cannot write {rel}: {exc.strerror or exc}")
    return rel


def _validate_mine(root: Path, rel: str) -> str:
    """The command that shows only the contributor's findings: `--changed` in a git checkout, else the record's path."""
    from clinreg.text.git import GitError, changed_paths

    try:
        changed_paths(root)
    except GitError:
        return f"clinreg validate {rel}"
    return "clinreg validate --changed"


def _hub_repo_or_blank(value: str) -> str:
    from clinreg.contrib.scaffold import HUB_REPO

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
            todo.append(".".join(map(str, d.key_path)) if d.key_path else d.message)
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
    from clinreg.contrib.issueform import FIX_COMMAND, ISSUE_FORM_PATH, IssueFormError, drift, render_issue_form
    from clinreg.text.safeio import atomic_write_text

    reg = load(root)
    try:
        text = render_issue_form(reg)
    except IssueFormError as exc:
        raise fail(str(exc), EXIT_FINDINGS, error=exc)
    if check:
        path = output or reg.root / ISSUE_FORM_PATH
        stale = drift(reg, path)
        if fmt == "json":
            from clinreg.text.jsonout import dumps

            click.echo(dumps("issue_form_check", {"file": str(path), "in_sync": not stale, "fix": FIX_COMMAND if stale else None}))
        elif stale:
            click.echo(f"{path} is out of date with the taxonomy; run `{FIX_COMMAND}`")
        else:
            click.echo(f"{path} is up to date")
        raise click.exceptions.Exit(EXIT_FINDINGS if stale else EXIT_OK)
    if output is None:
        from clinreg.text.jsonout import dumps

        click.echo(dumps("issue_form", {"form": text}) if fmt == "json" else text, nl=fmt == "json")
        return
    try:
        atomic_write_text(output, text)
    except OSError as exc:
        raise fail(f"cannot write {output}: {exc.strerror or exc}")
    from clinreg.text.jsonout import dumps

    click.echo(dumps("issue_form", {"written": str(output)}) if fmt == "json" else f"wrote {output}")


# --------------------------------------------------------------------------------------------- schemas


@click.group()
def schema():
    """JSON Schemas generated from the data model."""


@schema.command("export")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("schemas"), show_default=True)
@click.option("--check", is_flag=True, help="Do not write; exit 1 if the files differ from the models.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def schema_export(out_dir, check, fmt):
    """Write schemas/*.json from the pydantic models (or check them with --check)."""
    from clinreg.contrib.schemas import FIX_COMMAND, export_schemas, schema_drift

    if check:
        drift = schema_drift(out_dir)
        if fmt == "json":
            from clinreg.text.jsonout import dumps

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
        from clinreg.text.jsonout import dumps

        click.echo(dumps("schema_export", {"written": [str(p) for p in written]}))
    else:
        click.echo("\n".join(f"wrote {p}" for p in written) or "schemas are up to date")
