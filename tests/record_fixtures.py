"""Small hub-layout data folders and dataset records written into tmp_path for the build tests."""

from __future__ import annotations

import copy
import csv
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from clinreg.core.model import Dataset
from clinreg.instances.build import BuildReport, build_instances
from clinreg.sources.origin import folder_name

EXTENSIONS = {"parquet": "parquet", "jsonl": "jsonl", "csv": "csv"}


def hub_folder(data_dir: Path, repo: str, splits: dict[str, Any], fmt: str = "parquet",
               config: str = "default") -> Path:
    """A folder laid out like a hub repo: data/<split>.<ext> plus a README whose front matter declares them."""
    folder = data_dir / repo.replace("/", "__")
    (folder / "data").mkdir(parents=True, exist_ok=True)
    entries = []
    for split, rows in splits.items():
        path = folder / "data" / f"{split}.{EXTENSIONS[fmt]}"
        write_rows(path, rows, fmt)
        entries.append(f"  - split: {split}\n    path: data/{split}.{EXTENSIONS[fmt]}")
    front = f"---\nconfigs:\n- config_name: {config}\n  data_files:\n" + "\n".join(entries) + "\n---\n\n# fixture\n"
    (folder / "README.md").write_text(front, encoding="utf-8")
    return folder


def write_rows(path: Path, rows: Any, fmt: str) -> None:
    if fmt == "parquet":
        table = rows if isinstance(rows, pa.Table) else pa.Table.from_pylist(rows)
        pq.write_table(table, path)
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


BASE_RECORD: dict[str, Any] = {
    "id": "fixture",
    "name": "Fixture",
    "version": "1.0.0",
    "added_in": "1.0.0", "in_medhelm": True,
    "description": "A test fixture.",
    "access": {"tier": "public"},
    "licence": {"spdx": "MIT"},
    "citation": {"text": "A paper"},
    "source": {"type": "huggingface", "repo": "owner/fixture", "config": None, "splits": ["test"], "revision": None},
    "mappings": [],
}


def record_dict(mapping: dict[str, Any], *, id: str = "fixture", repo: str = "owner/fixture",
                splits: list[str] | None = None, **top: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE_RECORD)
    data["id"] = id
    data["source"]["repo"] = repo
    data["source"]["splits"] = splits or ["test"]
    full = {
        "id": id, "tasks": ["answer_questions"], "splits": splits or ["test"], "input_template": "{{ question }}",
        "metric": {"name": "exact_match"},
    }
    full.update(mapping)
    data["mappings"] = [full]
    data.update(top)
    return data


def record(mapping: dict[str, Any], **kwargs: Any) -> Dataset:
    return Dataset.model_validate(record_dict(mapping, **kwargs))


def build(rec: Dataset, data_dir: Path, **kwargs: Any) -> tuple[list, BuildReport]:
    report = BuildReport()
    instances = list(build_instances(rec, data_dir=data_dir, report=report, **kwargs))
    return instances, report


def write_root(base: Path, records: list[dict[str, Any]]) -> Path:
    """A registry root (taxonomy/ and registry/datasets/) holding the given records."""
    root = base / "reg"
    (root / "taxonomy").mkdir(parents=True, exist_ok=True)
    (root / "registry" / "datasets").mkdir(parents=True, exist_ok=True)
    for data in records:
        text = "# yaml-language-server: $schema=../../schemas/dataset.schema.json\n" + yaml.safe_dump(data,
                                                                                                      sort_keys=False)
        (root / "registry" / "datasets" / f"{data['id']}.yaml").write_text(text, encoding="utf-8")
    return root


DISTRIBUTIONS = Path(__file__).resolve().parent / "distributions"


def distribution_writer(record: Any, writers: Path = DISTRIBUTIONS) -> tuple[ModuleType, Callable[[Path], Any]]:
    """A record's as-distributed writer module (`<writers>/<id>.py`) and the function of it that lays out the files
    the record reads: `write_hub` where the record names a hub repo and the module has one (the hub's parquet
    copy), else `write`."""
    path = writers / f"{record.id}.py"
    if not path.is_file():
        pytest.fail(f"no as-distributed writer tests/distributions/{record.id}.py: every record needs one "
                    "(CONTRIBUTING.md, 'The test writer'; `clinreg new dataset` writes a skeleton)")
    spec = importlib.util.spec_from_file_location(f"distribution_{record.id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    hub = getattr(module, "write_hub", None) if record.source.type == "huggingface" else None
    return module, hub or module.write


def distribution_mirror(base: Path, records: list[str]) -> Path:
    """A mirror holding the named records' files as distributed (the writers of tests/distributions)."""
    from clinreg.core.store import load_registry

    reg = load_registry(DISTRIBUTIONS.parents[1])
    for record_id in records:
        _, write = distribution_writer(reg.datasets[record_id])
        write(base / folder_name(reg.datasets[record_id]))
    return base
