"""The shared label parser's rules (labels.py docstring), on hand-written answers."""

from __future__ import annotations

import pytest

from bediscover_inspect.labels import normalise, parse_label, strip_reasoning

TBD = ["IS_INCLUDED", "INCLUDES", "SIMULTANEOUS", "BEFORE", "AFTER", "NONE"]
JUST = ["Exclusionary", "Unelaboratory", "Unexplanatory", "Emphatic", "Temporal", "Adjective"]


def test_whole_answer_and_prefixes():
    assert parse_label("BEFORE", TBD).label == "BEFORE"
    assert parse_label("**Answer:** is included.", TBD).label == "IS_INCLUDED"
    assert parse_label("Label: simultaneous", TBD).label == "SIMULTANEOUS"


def test_longest_alternative_wins_and_word_boundaries():
    assert parse_label("The relation is IS_INCLUDED.", TBD).candidates == ("IS_INCLUDED",)
    assert parse_label("beforehand, nothing", TBD).label is None  # no whole-word label


def test_rejected_label_is_not_named_and_two_named_labels_are_ambiguous():
    parsed = parse_label("Temporal. It is not Emphatic here.", JUST)
    assert parsed.label == "Temporal" and not parsed.ambiguous and parsed.rule == "single"
    assert parsed.candidates == ("Temporal", "Emphatic")
    parsed = parse_label("Temporal. It is also Emphatic here.", JUST)
    assert parsed.invalid and parsed.ambiguous and parsed.candidates == ("Temporal", "Emphatic")


def test_echo_of_label_list_is_invalid():
    parsed = parse_label("Exclusionary, Unelaboratory, Unexplanatory, Emphatic", JUST)
    assert parsed.invalid and parsed.echo and len(parsed.candidates) == 4
    # two labels are a choice plus a rejected alternative, not an echo
    assert parse_label("Emphatic rather than Temporal", JUST).label == "Emphatic"
    # three of six is half the set: echo
    assert parse_label("BEFORE, AFTER or NONE", TBD).echo


def test_aliases_and_reasoning():
    assert parse_label("Exclusive", JUST, {"Exclusive": "Exclusionary"}).label == "Exclusionary"
    assert parse_label("<think>maybe BEFORE</think>AFTER", TBD).label == "AFTER"
    assert strip_reasoning("<think>unclosed BEFORE").strip() == ""
    assert normalise("Q-Elab_Uh  'x'") == "q elab uh x"


@pytest.mark.parametrize(
    "answer",
    [
        "Emphatic. Actually, it should be Exclusionary.",
        "Emphatic, but correcting myself: Exclusionary",
        "I said Emphatic; on reflection, should be Exclusionary",
    ],
)
def test_revisions_that_say_what_it_should_be(answer):
    parsed = parse_label(answer, ["Emphatic", "Exclusionary", "Temporal"])
    assert (parsed.label, parsed.rule) == ("Exclusionary", "marker")


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("- Argumentation\n- Consequence\n- Exception", None),  # the choices listed, none chosen
        ("1. Exception\n2. Consequence", None),
        ("- Exception\n- it follows from the context", "Exception"),  # one label in the list
        ("Exception\n- Consequence would not fit", "Exception"),  # not a bulleted first line
    ],
)
def test_a_bulleted_list_of_labels_chooses_none(answer, label):
    assert parse_label(answer, ["Argumentation", "Consequence", "Exception"]).label == label
