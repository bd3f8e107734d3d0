"""Canonical JSON lines: the fast writer matches json.dumps byte for byte, and every line is a valid Instance."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from clinreg.instances.batch import InstanceBatch
from clinreg.instances.canonical import canonical_json, canonical_lines
from clinreg.instances.schema import Instance

texts = st.text(max_size=30)
PROVENANCE = {"instance_schema": 2, "record": "ds", "record_version": "1.0.0", "registry_release": "1.3.0",
              "clinreg_version": "0.1.0", "canary": "c", "source": {"kind": "mirror", "repo": None, "revision": None,
                                                                    "content_sha256": "ab"}}
meta_values = st.one_of(st.none(), st.booleans(), st.integers(), texts, st.lists(texts, max_size=3),
                        st.floats(allow_nan=False, allow_infinity=False))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.sampled_from(["v1", "v2"])), texts, st.lists(texts, max_size=4),
                          st.one_of(st.none(), st.sampled_from(list("ABCD"))), st.lists(texts, max_size=3),
                          st.dictionaries(texts, meta_values, max_size=3)), max_size=5),
       texts, st.lists(texts, min_size=1, max_size=2))
def test_fast_lines_equal_canonical_json(rows, split, tasks):
    batch = InstanceBatch("ds", "map", tasks, split or "test", provenance=PROVENANCE)
    for i, (variant, text, choices, answer, refs, meta) in enumerate(rows):
        batch.variant.append(variant)
        batch.source_index.append(i)
        batch.prompt.append(text)
        batch.input.append(text.split("|")[0])
        batch.choices.append(choices)
        batch.gold.append({"kind": "choice" if answer else "text", "letter": answer, "index": None if answer is None else "ABCD".index(answer),
                           "value": text, "lower": None, "upper": None})
        batch.references.append(refs)
        batch.context.append(meta)
    lines = list(canonical_lines([batch]))
    assert lines == [canonical_json(row) + "\n" for row in batch.rows()]
    for line in lines:
        Instance.model_validate(json.loads(line))


def test_instance_schema_exports():
    schema = Instance.model_json_schema()
    assert schema["title"] == "Instance"
    assert {"id", "prompt", "input", "choices", "answer", "gold", "references", "context", "provenance",
            "source_index"} <= set(schema["required"])
    assert all(prop.get("description") for prop in schema["properties"].values())
