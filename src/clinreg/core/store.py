"""Read a registry tree (taxonomy, dataset records, releases) into typed models with source locations."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, get_args

from pydantic import BaseModel, ValidationError

from clinreg.core.diagnostics import Diagnostic, make
from clinreg.core.model import (
    FILE_MODELS, Category, Dataset, Edition, MedhelmEditions, ReleaseHistory, Subcategory, Task, Taxonomy,
)
from clinreg.core.paths import resolve_root
from clinreg.core.scalars import scan_file
from clinreg.core.schema_errors import schema_diagnostics
from clinreg.core.semver import parse_semver
from clinreg.core.treewalk import (  # noqa: F401  (the layout's names, used by callers of the store)
    DATASETS_DIR,
    EDITIONS_FILE,
    REGISTRY_DIR,
    RELEASES_FILE,
    TAXONOMY_DIR,
    TAXONOMY_FILE,
    TreeRead,
    discover_files,
    file_kind,
)
from clinreg.core.yamlsrc import DEFAULT_LIMITS, Limits, Problem, YamlDoc, parse_yaml, read_yaml_file
from clinreg.errors import ClinregError



@dataclass
class SourceFile:
    """One YAML file of the tree: its path relative to the root, what it is, its parse, and its model."""

    rel: str
    path: Path
    kind: str  # taxonomy | category | dataset | releases | editions
    doc: YamlDoc
    model: BaseModel | None = None
    # CLR702/CLR704/CLR106 diagnostics by code, when the loader already scanned the file's scalars
    # (core/scalars.py); None when the rules are to scan `doc.scalar_items` themselves.
    scalar_findings: dict | None = None

    def where(self, *path: Any) -> tuple[int, int]:
        return self.doc.where(path)

    def where_key(self, *path: Any) -> tuple[int, int]:
        return self.doc.where_key(path)


@dataclass
class TaskEntry:
    task: Task
    subcategory: Subcategory
    category: Category
    file: SourceFile
    path: tuple  # path of the task inside its category file


@dataclass
class Registry:
    """A loaded registry tree. Models exist only for files that parsed and validated."""

    root: Path
    files: list[SourceFile] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    taxonomy: Taxonomy | None = None
    taxonomy_file: SourceFile | None = None
    categories: dict[str, tuple[Category, SourceFile]] = field(default_factory=dict)
    datasets: dict[str, Dataset] = field(default_factory=dict)
    dataset_files: dict[str, SourceFile] = field(default_factory=dict)
    releases: ReleaseHistory | None = None
    releases_file: SourceFile | None = None
    release: str | None = None  # the release this view is filtered to, if any
    # records the release filter left out (added later or removed)
    later_datasets: set[str] = field(default_factory=set)
    editions: MedhelmEditions | None = None  # registry/medhelm_editions.yaml
    editions_file: SourceFile | None = None
    edition: str | None = None  # the MedHELM edition this view's membership follows (the file's default unless chosen)
    edition_filtered: bool = False  # True when the view keeps only that edition's benchmarks (`--medhelm EDITION`)
    declared_in_medhelm: dict[str, bool] = field(default_factory=dict)  # what each record's own `in_medhelm` says

    @property
    def dataset_paths(self) -> dict[str, Path]:
        return {k: f.path for k, f in self.dataset_files.items()}

    def ordered_categories(self) -> list[tuple[Category, SourceFile]]:
        order = list(self.taxonomy.categories) if self.taxonomy else []
        known = [self.categories[c] for c in order if c in self.categories]
        extra = [v for k, v in sorted(self.categories.items()) if k not in order]
        return known + extra

    def subcategories(self) -> Iterator[tuple[Subcategory, Category, SourceFile, tuple]]:
        for category, sf in self.ordered_categories():
            for i, sub in enumerate(category.subcategories):
                yield sub, category, sf, ("subcategories", i)

    def tasks(self) -> dict[str, TaskEntry]:
        out: dict[str, TaskEntry] = {}
        for sub, category, sf, path in self.subcategories():
            for j, task in enumerate(sub.tasks):
                out.setdefault(task.id, TaskEntry(task, sub, category, sf, path + ("tasks", j)))
        return out

    @property
    def current_release(self) -> str | None:
        return self.release or (self.releases.current if self.releases else None)

    @property
    def medhelm_edition(self) -> Edition | None:
        """The edition that "in MedHELM" means in this view (None for a tree without an editions file)."""
        if self.editions is None or self.edition is None:
            return None
        return self.editions.get(self.edition)

    @property
    def open_release(self) -> str | None:
        """The release being prepared (the newest, with `status: open`), which new records name in `added_in`."""
        if self.releases is None or not self.releases.releases or self.releases.releases[-1].status != "open":
            return None
        return self.releases.releases[-1].version


_SCHEMA_FILES = {
    "taxonomy": "taxonomy.schema.json",
    "category": "category.schema.json",
    "dataset": "dataset.schema.json",
    "releases": "releases.schema.json",
    "editions": "medhelm_editions.schema.json",
}


def discover(root: Path, diagnostics: list[Diagnostic]) -> list[tuple[str, Path]]:
    """Every *.yaml / *.yml file under taxonomy/ and registry/, refusing links that lead outside the root."""
    found: list[tuple[str, Path]] = []
    for code, rel, message, hint in discover_files(root, found):
        diagnostics.append(make(code, rel, 1, 1, message, hint))
    return found


@contextmanager
def gc_paused():
    """Loading builds many small acyclic containers; the cyclic collector would rescan them again and again,
    making a large registry's load time grow faster than its size. Reference counting still frees them.

    On the way out, what was made in the pause goes straight to the oldest generation (a freeze followed by
    an unfreeze), instead of being scanned by the next young-generation pass, which would cost as much as
    all the collections the pause avoided. Nothing stays frozen: a later full collection still frees any
    cycle made here. A caller that froze objects itself keeps its freeze, and then this step is skipped.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def load_registry(root: str | Path | None = None, *, release: str | None = None, limits: Limits = DEFAULT_LIMITS,
                  read: TreeRead | None = None, keep_data: bool = True, _compact: bool = False) -> Registry:
    """Load a registry tree. Problems become diagnostics; this never raises for bad content.

    `read` is the tree as clinreg.rules.cache already listed and read it, so that no file is read twice. With
    `keep_data=False`, a file's parsed values (`doc.data`) are dropped once its model is built: validation
    needs only the models and the locations, and a large tree then fits in less memory.

    `_compact` is validation's own mode (clinreg.rules.cache): besides dropping the data, it scans each file's
    scalars for CLR702/CLR704/CLR106 as the file loads and lets them go, and gives every model a shared,
    frozen set of given field names. Its models are then read-only: assigning a field, `model_copy(update=)`
    or `model_dump(exclude_unset=True)` fail on them.
    """
    root_path = resolve_root(root) if read is None else read.root
    with gc_paused():
        reg = _load(root_path, limits, read, keep_data and not _compact, _compact)
    follow_edition(reg, None)
    if release is not None:
        filter_to_release(reg, release)
    return reg


def _load(root_path: Path, limits: Limits, read: TreeRead | None = None, keep_data: bool = True,
          compact: bool = False) -> Registry:
    reg = Registry(root=root_path)
    if read is None:
        found, contents = discover(root_path, reg.diagnostics), {}
    else:
        found, contents = read.found, read.contents
        for code, rel, message, hint in read.problems:
            reg.diagnostics.append(make(code, rel, 1, 1, message, hint))
    for rel, path in found:
        kind = file_kind(rel)
        if kind is None:
            reg.diagnostics.append(make("CLR305", rel, 1, 1,
                                        "this file is not part of the registry layout and is ignored",
                                        "taxonomy/<category>.yaml, registry/datasets/<id>.yaml, "
                                        "registry/releases.yaml"))
            continue
        if rel in contents and limits == DEFAULT_LIMITS:
            raw, problem = contents.pop(rel)  # dropped once parsed: a large tree's bytes need not all stay in memory
            doc = (parse_yaml(raw, limits) if raw is not None
                   else YamlDoc(problems=[Problem(problem[0], 1, 1, problem[1])]))
        else:
            doc = read_yaml_file(path, limits)
        sf = SourceFile(rel, path, kind, doc)
        reg.files.append(sf)
        _check_file(reg, sf, keep_data, compact)
        if compact:  # scan the scalars now and let them go: a large tree then fits in less memory
            sf.scalar_findings = scan_file(sf)
            doc.scalar_items = []
    return reg


def _check_file(reg: Registry, sf: SourceFile, keep_data: bool, compact: bool) -> None:
    """Report a parsed file's problems, and build and attach its model."""
    doc, rel, kind = sf.doc, sf.rel, sf.kind
    for p in doc.problems:
        reg.diagnostics.append(make(p.code, rel, p.line, p.column, p.message, p.hint, key_path=p.key_path))
    if doc.problems:
        return
    if doc.data is None:
        reg.diagnostics.append(make("CLR002", rel, 1, 1, "the file is empty", "see schemas/ for what it should hold"))
        return
    if not isinstance(doc.data, dict):
        line, col = doc.where(())
        reg.diagnostics.append(make("CLR102", rel, line, col,
                                    f"the file must hold a mapping of keys, not a {_yaml_type(doc.data)}"))
        return
    if not doc.first_line.startswith("# yaml-language-server: $schema="):
        reg.diagnostics.append(make("CLR107", rel, 1, 1,
                                    "the file does not start with a `# yaml-language-server: $schema=` line",
                                    f"add `# yaml-language-server: $schema={_schema_ref(rel, kind)}` as the first "
                                    "line"))
    model_cls = FILE_MODELS[kind]
    try:
        sf.model = model_cls.model_validate(doc.data)
    except ValidationError as exc:
        reg.diagnostics.extend(schema_diagnostics(exc, doc, rel, model_cls))
        return
    if not keep_data:
        doc.data = None
    if compact:
        _share_fields_sets(sf.model)
    _attach(reg, sf)


# Equal `model_fields_set`s, one frozen copy each (see _share_fields_sets).
_FIELDS_SETS: dict[frozenset, frozenset] = {}
# Per model class, the fields whose annotation can hold a model (directly, in a list or dict, or in a union).
_MODEL_FIELDS: dict[type, tuple[str, ...]] = {}


def _can_hold_model(annotation: Any) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_can_hold_model(arg) for arg in get_args(annotation))


def _share_fields_sets(model: BaseModel) -> None:
    """Swap each model's set of explicitly given field names for one shared frozen copy.

    pydantic keeps a set per model instance, and on a record of a dozen models those sets are a third of its
    memory; the same few sets recur in every record. Only validation's read-only models get this
    (`load_registry(_compact=True)`): assigning a field of such a model would fail, since pydantic adds the
    name to the set.
    """
    stack: list = [model]
    shared, plans = _FIELDS_SETS, _MODEL_FIELDS
    while stack:
        item = stack.pop()
        names = frozenset(item.__pydantic_fields_set__)
        object.__setattr__(item, "__pydantic_fields_set__", shared.setdefault(names, names))
        cls = type(item)
        plan = plans.get(cls)
        if plan is None:
            plan = plans[cls] = tuple(name for name, info in cls.model_fields.items()
                                      if _can_hold_model(info.annotation))
        values = item.__dict__
        for name in plan:
            value = values[name]
            if value is None:
                continue
            if type(value) is list:
                stack.extend(v for v in value if isinstance(v, BaseModel))
            elif type(value) is dict:
                stack.extend(v for v in value.values() if isinstance(v, BaseModel))
            elif isinstance(value, BaseModel):
                stack.append(value)


def _schema_ref(rel: str, kind: str) -> str:
    depth = rel.count("/")
    return "../" * depth + "schemas/" + _SCHEMA_FILES[kind]


def _yaml_type(value: Any) -> str:
    return {list: "list", str: "string", int: "number", float: "number",
            bool: "boolean"}.get(type(value), type(value).__name__)


def _attach(reg: Registry, sf: SourceFile) -> None:
    model = sf.model
    if isinstance(model, Taxonomy):
        reg.taxonomy, reg.taxonomy_file = model, sf
    elif isinstance(model, ReleaseHistory):
        reg.releases, reg.releases_file = model, sf
    elif isinstance(model, MedhelmEditions):
        reg.editions, reg.editions_file = model, sf
    elif isinstance(model, Category):
        if model.id in reg.categories:
            line, col = sf.where("id")
            first = reg.categories[model.id][1].rel
            reg.diagnostics.append(make("CLR201", sf.rel, line, col,
                                        f"category id {model.id!r} is also defined in {first}"))
        else:
            reg.categories[model.id] = (model, sf)
    elif isinstance(model, Dataset):
        if model.id in reg.datasets:
            line, col = sf.where("id")
            first = reg.dataset_files[model.id].rel
            reg.diagnostics.append(make("CLR201", sf.rel, line, col,
                                        f"dataset id {model.id!r} is also defined in {first}"))
        else:
            reg.datasets[model.id] = model
            reg.dataset_files[model.id] = sf


class UnknownVersion(ClinregError, ValueError):
    """A `--release` or `--medhelm` edition that the tree does not hold, or that is not a version at all."""

    default_code = "CLR982"


def filter_to_release(reg: Registry, release: str) -> None:
    """Keep only records that were in the registry at `release` (added_in <= release < removed_in)."""
    target = parse_semver(release)
    if target is None:
        raise UnknownVersion(f"--release {release!r} is not a semantic version such as 1.0.0")
    if reg.releases is not None and release not in {r.version for r in reg.releases.releases}:
        known = ", ".join(r.version for r in reg.releases.releases)
        newest = max((parse_semver(r.version) for r in reg.releases.releases if parse_semver(r.version)), default=None)
        newer = (f"; it is newer than every release (`clinreg new release {release} --title ...` opens it)"
                 if newest is not None and target > newest else "")
        raise UnknownVersion(f"release {release!r} is not in registry/releases.yaml (known: {known}){newer}")
    for ds_id in list(reg.datasets):
        ds = reg.datasets[ds_id]
        added = parse_semver(ds.added_in)
        removed = parse_semver(ds.removed_in) if ds.removed_in else None
        if (added is not None and added > target) or (removed is not None and removed <= target):
            del reg.datasets[ds_id]
            del reg.dataset_files[ds_id]
            reg.later_datasets.add(ds_id)
    reg.release = release


def follow_edition(reg: Registry, edition: str | None, *, only: bool = False) -> None:
    """Make each record's `in_medhelm` say whether `edition` (default: the editions file's `default`) runs it (an
    unreleased edition marks only what a released edition also runs), and with `only` keep just that edition's
    records (`--medhelm EDITION`). A tree without an editions file keeps what
    its records say (`in_medhelm`, from before the editions); naming an edition there, or an unknown one, is an
    UnknownVersion error with the known ids."""
    if reg.editions is None:
        if edition is not None:
            raise UnknownVersion(f"--medhelm {edition!r}: this tree has no {EDITIONS_FILE}")
        return
    chosen = edition or reg.editions.default
    found = reg.editions.get(chosen)
    if found is None:
        if edition is None:
            return  # the file's default names no edition: validate reports it (CLR307); records keep their word
        known = ", ".join(e.id for e in reg.editions.editions)
        raise UnknownVersion(f"--medhelm {edition!r} is not an edition in {EDITIONS_FILE} (known: {known})")
    members = set(found.benchmarks)
    # "In MedHELM" means a set MedHELM published: under an unreleased edition (a development branch's commit), a
    # benchmark that no released edition runs stays "not in MedHELM", though `only` keeps it.
    published = members if found.released else {b for b in members if reg.editions.editions_of(b)}
    reg.edition = chosen
    if not reg.declared_in_medhelm:
        reg.declared_in_medhelm = {ds_id: ds.in_medhelm for ds_id, ds in reg.datasets.items()}
    for ds_id, ds in list(reg.datasets.items()):
        object.__setattr__(ds, "in_medhelm", ds_id in published)  # also on validation's read-only models
        if only and ds_id not in members:
            del reg.datasets[ds_id]
            del reg.dataset_files[ds_id]
    reg.edition_filtered = only
