"""Provenance in a clinician's words: the placement as a sentence, dataset ids as display names."""

from __future__ import annotations

from clinreg.core.provenance import PLACEMENT_WORDS, plain_note, with_names

NAMES = {"clear": "CLEAR", "head_qa": "HeadQA", "med_qa": "MedQA"}


def test_the_placement_becomes_a_sentence_and_the_note_is_tidied():
    note, placement = plain_note("Placement is inferred from the run entries ; see the subcategory note.", NAMES,
                                 "inferred")
    assert note == "Placement is inferred from the run entries; see the subcategory note."
    assert placement == PLACEMENT_WORDS["inferred"] == ("Placed in this subcategory by clinreg (inferred), not by "
                                                        "MedHELM.")
    assert plain_note("The table places it here. More.", NAMES, "stated") == (
        "The table places it here. More.", "Placed in this subcategory by MedHELM itself.")
    assert plain_note("No assignment.", NAMES) == ("No assignment.", None)
    assert plain_note(None, NAMES) == (None, None)
    assert plain_note(None, NAMES, "stated") == (None, "Placed in this subcategory by MedHELM itself.")


def test_a_placement_is_a_typed_field_not_a_tag_in_a_note():
    from clinreg.core.store import load_registry

    tasks = load_registry().tasks()
    assigned = {t.task.provenance.subcategory_assignment for t in tasks.values()}
    assert {"inferred", "stated"} <= assigned
    assert not [i for i, t in tasks.items() if "subcategory_assignment" in (t.task.provenance.note or "")]


def test_ids_become_display_names_but_not_inside_paths_or_file_names():
    text = "the schema gives for clear (classifying); merged with head_qa and med_qa. See clear.yaml and data/clear/x."
    assert with_names(text, NAMES) == ("the schema gives for CLEAR (classifying); merged with HeadQA and MedQA. "
                                       "See clear.yaml and data/clear/x.")
    assert with_names("medical_qa and med_qa_v2 stay", NAMES) == "medical_qa and med_qa_v2 stay"
