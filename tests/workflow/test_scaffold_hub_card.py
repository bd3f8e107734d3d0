"""`new dataset` from a hub card and a column description together: MedXpertQA, scaffolded on a copy of the registry
without its record, needs only the facts a person must look up, and then validates clean as the record it replaces.

The registry's own `medxpert_qa_text` record is the oracle: its source and mapping are what the guess must give.
The card and the column description in hub_cards/medxpertqa/ were written by hand, in the Hub's documented card
header and `datasets` Features formats, from what that record states (the Hub cannot be reached here); so this
test checks that the scaffold reads those formats and that its guesses agree with each other and with a record a
person wrote, not that it reads MedXpertQA's real card, which may hold more. (hub_cards/README.md says so too.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from clirunner import invoke

from clinreg.cli.main import main
from test_contributor_record import copy_of_the_registry

CARDS = Path(__file__).parent / "hub_cards" / "medxpertqa"
REL = "registry/datasets/medxpert_qa_text.yaml"
# What no card or column list can say: each needs a person to read a source.
HUMAN_FIELDS = ["description", "measures", "use_when", "not_for", "languages.reason", "first_released.reason",
                "status.reason", "maintainer.reason", "independence.reason", "licence.note", "citation.text",
                "source.revision"]


def _cli(*args) -> tuple[int, str]:
    result = invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory):
    root = copy_of_the_registry(tmp_path_factory.mktemp("clone"))
    oracle = yaml.safe_load((root / REL).read_text(encoding="utf-8"))
    (root / REL).unlink()  # the contributor's starting point: no record yet
    code, out = _cli("new", "dataset", "medxpert_qa_text", "--root", root, "--name", "MedXpertQA",
                     "--hf-repo", "TsinghuaC3I/MedXpertQA", "--access", "public", "--config", "Text",
                     "--task", "answer_medical_knowledge_questions",
                     "--from-hub-features", CARDS / "README.md", "--from-hub-features", CARDS / "features.json")
    assert code == 0, out
    return root, oracle, out


def test_the_guess_is_the_records_source_and_mapping(scaffolded):
    root, oracle, _ = scaffolded
    record = yaml.safe_load((root / REL).read_text(encoding="utf-8"))
    source, mapping, want = record["source"], record["mappings"][0], oracle["mappings"][0]
    # From the card: the licence, the config, its splits and their files.
    assert record["licence"]["spdx"] == oracle["licence"]["spdx"] == "MIT"
    assert (source["config"], source["splits"], source["read"]) == (oracle["source"]["config"],
                                                                    oracle["source"]["splits"],
                                                                   oracle["source"]["read"])
    # From the columns: ten options in a struct, and the letter beside them, scored by exact match.
    assert mapping["choices"] == want["choices"] == {"struct": "options"}
    assert mapping["label"] == want["label"]
    assert mapping["metric"]["name"] == want["metric"]["name"] == "exact_match"
    assert "scoring" not in mapping  # a closed task has no jury block to fill in or delete
    assert mapping["input_template"] == want["input_template"]


def test_only_the_fields_a_person_must_look_up_say_todo(scaffolded):
    root, _, out = scaffolded
    assert f"{len(HUMAN_FIELDS)} field(s) still say TODO: {', '.join(HUMAN_FIELDS)}" in out
    text = (root / REL).read_text(encoding="utf-8")
    assert "# choices:" not in text  # the options are not both reported and left commented out


def test_filling_the_human_fields_validates_clean(scaffolded):
    root, oracle, _ = scaffolded
    record = yaml.safe_load((root / REL).read_text(encoding="utf-8"))
    for name in {f.split(".")[0] for f in HUMAN_FIELDS} - {"source"}:
        record[name] = oracle[name]
    record["source"]["revision"] = oracle["source"]["revision"]
    (root / REL).write_text("# yaml-language-server: $schema=../../schemas/dataset.schema.json\n"
                            + yaml.safe_dump(record, sort_keys=False, allow_unicode=True), encoding="utf-8")
    code, out = _cli("validate", "--root", root, "--strict", REL)
    assert code == 0, out
    assert "0 error(s), 0 warning(s), 0 info(s) in 1 file(s)" in out.splitlines(), out
