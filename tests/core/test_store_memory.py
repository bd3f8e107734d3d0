"""The validate path keeps less per record than the library's load_registry, and reports exactly the same."""

from __future__ import annotations

import pytest

from clinreg.core.store import load_registry
from clinreg.rules.cache import validate_cached
from clinreg.rules.engine import validate
from trees import GOOD_TREE, replace_in, write_tree

DATASET = "registry/datasets/qa_set.yaml"


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def scalar_findings_tree(tmp_path):
    """CLR106 and CLR704 in a record that loads, and CLR702 in one that fails the schema (the key is not in it)."""
    good = replace_in(GOOD_TREE[DATASET], "description: Yes/no/maybe questions.", "description: TODO write this")
    good = replace_in(good, "citation: {text: A paper}", "citation: {text: A paper, url: 'http://example.org/x'}")
    broken = replace_in(good, "id: qa_set\nname", "id: qa_broken\nname")
    broken = replace_in(broken, "  splits: [test]\n  revision",
                        "  splits: [test]\n  trust_remote_code: true\n  revision")
    return write_tree(tmp_path / "reg", {DATASET: good, "registry/datasets/qa_broken.yaml": broken})


def test_scalar_rules_report_alike_whether_scanned_at_load_or_by_the_rules(scalar_findings_tree):
    library = validate(scalar_findings_tree)  # load_registry keeps every file's scalars; the rules scan them
    cli = validate_cached(scalar_findings_tree, use_cache=False).report  # scanned while loading, then let go
    codes = [d.code for d in library.sorted()]
    assert {"CLR106", "CLR702", "CLR704"} <= set(codes)
    assert [d.file for d in library.diagnostics if d.code == "CLR702"] == ["registry/datasets/qa_broken.yaml"]
    # the broken one is not scanned for it
    assert [d.file for d in library.diagnostics if d.code == "CLR106"] == [DATASET]
    assert library.sorted() == cli.sorted()


def test_validate_path_models_share_frozen_fields_sets(tmp_path):
    root = write_tree(tmp_path / "reg")
    reg = load_registry(root, keep_data=False, _compact=True)  # what validate_cached loads
    datasets = list(reg.datasets.values())
    assert len(datasets) >= 2
    models = [m for ds in datasets for m in (ds, ds.access, ds.licence, ds.citation, ds.source, *ds.mappings)]
    assert all(type(m.__pydantic_fields_set__) is frozenset for m in models)  # nested models too
    assert "tier" in datasets[0].access.model_fields_set
    by_value: dict = {}
    for m in models:  # equal sets are one object
        assert by_value.setdefault(m.model_fields_set, m.model_fields_set) is m.model_fields_set
    assert datasets[0].citation.model_fields_set is datasets[1].citation.model_fields_set  # both give only `text`
    assert reg.dataset_files[datasets[0].id].doc.scalar_items == []


@pytest.mark.parametrize("options", [{}, {"keep_data": False}])
def test_library_models_stay_ordinary(tmp_path, options):
    """load_registry's public options leave models as pydantic makes them; only validation's private
    `_compact` mode shares their field sets and lets the scalars go."""
    root = write_tree(tmp_path / "reg")
    reg = load_registry(root, **options)
    ds = next(iter(reg.datasets.values()))
    assert type(ds.__pydantic_fields_set__) is set
    ds.description = "Changed by a library caller."  # an assignment records the field name in the set
    assert "description" in ds.model_fields_set
    assert ds.model_copy(update={"name": "Copy"}).name == "Copy"
    assert reg.dataset_files[ds.id].doc.scalar_items, "the library keeps every file's scalars"
