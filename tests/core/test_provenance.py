"""Provenance in a clinician's words: the placement tag as a sentence, dataset ids as display names."""

from __future__ import annotations

from clinreg.core.provenance import PLACEMENT_WORDS, plain_note, with_names

NAMES = {"clear": "CLEAR", "head_qa": "HeadQA", "med_qa": "MedQA"}


def test_the_placement_tag_becomes_a_sentence_and_leaves_the_note_tidy():
    note, placement = plain_note("Placement is inferred from the run entries (subcategory_assignment: inferred); "
                                 "see the subcategory note.", NAMES)
    assert note == "Placement is inferred from the run entries; see the subcategory note."
    assert placement == PLACEMENT_WORDS["inferred"] == "Placed in this subcategory by clinreg (inferred), not by MedHELM."
    note, placement = plain_note("The table places it here (subcategory_assignment: stated). More.", NAMES)
    assert (note, placement) == ("The table places it here. More.", "Placed in this subcategory by MedHELM itself.")
    assert plain_note("No tag here.", NAMES) == ("No tag here.", None)
    assert plain_note(None, NAMES) == (None, None)


def test_ids_become_display_names_but_not_inside_paths_or_file_names():
    text = "the schema gives for clear (classifying); merged with head_qa and med_qa. See clear.yaml and data/clear/x."
    assert with_names(text, NAMES) == ("the schema gives for CLEAR (classifying); merged with HeadQA and MedQA. "
                                       "See clear.yaml and data/clear/x.")
    assert with_names("medical_qa and med_qa_v2 stay", NAMES) == "medical_qa and med_qa_v2 stay"
