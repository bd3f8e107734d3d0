"""`new dataset` as library calls: check what the contributor asked for, write the record's skeleton and its test
writer, join the open release, and say what was written, what is left TODO and what was refused."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clinreg.contrib.features import HubCard
from clinreg.contrib.new_release import ReleaseJoin
from clinreg.errors import ClinregError

SOURCES = ("huggingface", "github", "url", "physionet", "local")
TASKS_HINT = "`clinreg coverage --by task --format markdown` lists the ids"


class DatasetRefused(ClinregError, ValueError):
    """The record cannot be written as asked; the message says why. Raised before anything is written, except
    where the test writer fails after the record was written (the message names the file)."""

    default_code = "CLR984"


@dataclass
class DatasetRequest:
    """What the contributor asked `new dataset` for: flags and prompts alike."""

    id: str
    name: str | None = None
    source: str = "huggingface"
    hf_repo: str | None = None
    gh_repo: str | None = None
    url: str | None = None
    config: str | None = None
    access: str | None = None
    tasks: list[str] = field(default_factory=list)
    features: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class DatasetCreated:
    """What `create_dataset` wrote and left: the record, the test writer, the release joined, the TODO fields."""

    path: str  # the record, relative to the root
    id: str
    added_in: str
    joined: ReleaseJoin
    writer: str | None  # the test writer written, relative to the root (None: no such folder, or one was there)
    todo_fields: list[str]
    problems: list[str]  # other findings of `validate` in the new record
    guesses: list[str]  # what was guessed from the features, each to check
    card: HubCard | None
    features: list[Path]
    validate_command: str  # the command that shows only the contributor's findings

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "id": self.id, "added_in": self.added_in, "release_open": True,
                "writer": self.writer, "todo_fields": self.todo_fields, "guesses": self.guesses,
                "problems": self.problems}

    def lines(self) -> list[str]:
        """What was written and what is left, for people."""
        from clinreg.text.output import shown

        out = [f"wrote {self.path}"]
        card, names = self.card, " and ".join(p.name for p in self.features)
        if card is not None and not card.columns:
            out.append(f"{names} declare(s) no features, so the mapping is not pre-filled: add a second "
                       "--from-hub-features with the columns ({column: type}, or `datasets` Features JSON)")
        elif card is not None and not (card.licence or card.configs):
            out.append("no hub card was given, so the licence, config and splits say TODO: add a second "
                       "--from-hub-features with the card (the repository's README.md)")
        if self.guesses:
            out.append("guessed from the features (check each):\n" + "\n".join(f"  - {shown(r)}" for r in self.guesses))
        if self.todo_fields:
            out.append(f"{len(self.todo_fields)} field(s) still say TODO: {', '.join(self.todo_fields)}")
        out.extend(f"  {p}" for p in self.problems)
        out.append(self.joined.line())
        if self.writer:
            out.append(f"wrote {self.writer}: the test writer, a skeleton that fails until it lays out your files "
                       "('The test writer')")
        out.append(f"next: fill in the TODOs, then run `{self.validate_command}` (CONTRIBUTING.md walks through each "
                   "field)")
        return out


def id_problem(dataset_id: str) -> str | None:
    """Why `dataset_id` cannot name a record (with a snake_case suggestion), or None when it can."""
    from clinreg.core.model import ID_PATTERN

    if re.fullmatch(ID_PATTERN, dataset_id) and len(dataset_id) <= 120:
        return None
    suggestion = re.sub(r"[^a-z0-9]+", "_", dataset_id.lower()).strip("_") or "my_dataset"
    if suggestion[0].isdigit():
        suggestion = "x_" + suggestion
    return (f"dataset id {dataset_id!r} is not snake_case (lowercase letters, digits and single underscores, "
            f"at most 120 characters); try {suggestion[:120]!r}")


def split_tasks(values: tuple[str, ...] | list[str] | str) -> list[str]:
    """Task ids given as repeated flags, or comma- or space-separated in one value."""
    items = [values] if isinstance(values, str) else list(values)
    return [t for v in items for t in re.split(r"[\s,]+", v) if t]


def unknown_task(tasks: list[str], known: dict) -> str | None:
    """Why the first task id that is not a task of the registry is refused (with a did-you-mean), or None."""
    from clinreg.text.suggest import Suggester

    for task in tasks:
        if task not in known:
            close = Suggester(known).closest(task)
            return f"unknown task {task!r}" + (f"; did you mean {close!r}?" if close else f" ({TASKS_HINT})")
    return None


def record_path(dataset_id: str) -> str:
    from clinreg.core.store import DATASETS_DIR

    return f"{DATASETS_DIR}/{dataset_id}.yaml"


def check_request(reg, request: DatasetRequest) -> HubCard | None:
    """Check a request against the registry before anything is asked or written; the hub card its features files
    make (None without any). Raises DatasetRefused."""
    from clinreg.contrib.features import FeaturesError, merge_cards, read_features
    from clinreg.contrib.scaffold import HUB_REPO

    rel = record_path(request.id)
    if (reg.root / rel).exists():
        raise DatasetRefused(f"{rel} already exists; refusing to overwrite it (edit it, or choose another id)")
    problem = unknown_task(request.tasks, reg.tasks())
    if problem:
        raise DatasetRefused(problem)
    for flag, value in (("--hf-repo", request.hf_repo), ("--repo", request.gh_repo)):
        if value is not None and not HUB_REPO.match(value):
            kind = "a hub" if flag == "--hf-repo" else "a GitHub"
            raise DatasetRefused(f"{flag} {value!r} is not {kind} repository id such as owner/name")
    for flag, value, fits in (("--hf-repo", request.hf_repo, ("huggingface",)),
                              ("--repo", request.gh_repo, ("github",)), ("--url", request.url, ("url", "physionet")),
                              ("--config", request.config, ("huggingface", "github"))):
        if value is not None and request.source not in fits:
            raise DatasetRefused(f"{flag} is for --source {' or '.join(fits)}, not --source {request.source}")
    if request.url is not None and not request.url.startswith("https://"):
        raise DatasetRefused(f"--url {request.url!r} is not an https URL")
    card = None
    for path in request.features:
        try:
            card = merge_cards(card, read_features(path))
        except FeaturesError as exc:
            raise DatasetRefused(f"--from-hub-features {path.name}: {exc}") from None
    if request.config is not None and card is not None and card.configs and request.config not in card.configs:
        from clinreg.text.suggest import Suggester

        close = Suggester(card.configs).closest(request.config)
        raise DatasetRefused(f"--config {request.config!r} is not a config of the card ({', '.join(card.configs)})"
                             + (f"; did you mean {close!r}?" if close else ""))
    return card


def create_dataset(reg, request: DatasetRequest, card: HubCard | None) -> DatasetCreated:
    """Write the record's skeleton (never over an existing file), join the open release and write the test writer.
    Raises DatasetRefused when no task is named, no release is open, or the record cannot be written."""
    from clinreg.contrib.new_release import join_release, next_minor
    from clinreg.contrib.scaffold import Answers, render_dataset
    from clinreg.text.safeio import RefusedOverwrite, atomic_write_text

    if not request.tasks:
        raise DatasetRefused(f"name at least one --task that the benchmark measures ({TASKS_HINT})")
    if reg.open_release is None:  # added_in would name a published release, which never gains a record (CLR604)
        raise DatasetRefused(f"no release is open, and a new record names the open release in `added_in`: open the "
                             f"next with `clinreg new release {next_minor(reg.current_release)} --title ...`, then run "
                             "this again")
    features = list(request.features)
    answers = Answers(id=request.id, name=request.name, repo=request.hf_repo or request.gh_repo, source=request.source,
                      config=request.config, url=request.url, access=request.access, tasks=request.tasks,
                      release=reg.open_release, card=card,
                      features_file=" + ".join(p.name for p in features) if features else None)
    text, guess = render_dataset(answers)
    rel = record_path(request.id)
    try:
        atomic_write_text(reg.root / rel, text, overwrite=False)
    except RefusedOverwrite:
        raise DatasetRefused(f"{rel} already exists; refusing to overwrite it") from None
    except OSError as exc:
        raise DatasetRefused(f"cannot write {rel}: {exc.strerror or exc}") from None
    joined = join_release(reg, request.id, request.access or "public")
    writer = _write_test_writer(reg.root, request.id, request.name, text)
    todo, problems = _new_file_findings(reg.root, rel)
    return DatasetCreated(rel, request.id, reg.open_release, joined, writer, todo, problems,
                          guess.reasons if guess else [], card, features, _validate_mine(reg.root, rel))


def _write_test_writer(root: Path, dataset_id: str, name: str | None, record_text: str) -> str | None:
    """tests/distributions/ID.py in a clone of the repository (none where the tree has no such folder)."""
    import yaml

    from clinreg.contrib.writer import WRITERS_DIR, render_writer
    from clinreg.text.safeio import RefusedOverwrite, atomic_write_text

    if not (root / WRITERS_DIR).is_dir():
        return None
    splits = (yaml.safe_load(record_text) or {}).get("mappings", [{}])[0].get("splits", []) or []
    rel = f"{WRITERS_DIR}/{dataset_id}.py"
    try:
        atomic_write_text(root / rel, render_writer(dataset_id, name, [str(s) for s in splits]), overwrite=False)
    except RefusedOverwrite:
        return None  # a writer that is already there is the contributor's, never replaced
    except OSError as exc:
        raise DatasetRefused(f"cannot write {rel}: {exc.strerror or exc}") from None
    return rel


def _validate_mine(root: Path, rel: str) -> str:
    """The command that shows only the contributor's findings: `--changed` in a git checkout, else the record's path."""
    from clinreg.text.git import GitError, changed_paths

    try:
        changed_paths(root)
    except GitError:
        return f"clinreg validate {rel}"
    return "clinreg validate --changed"


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
