"""The label-choice rule of ``labels.py`` on completions written the way reasoning models answer, per task.

Each test is one kind of misread, with several completions per kind and per task (discourse markers, TBD /
TDD-Man relations, DISRPT).
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bediscover_inspect.discourse_markers import aliases as dm_aliases
from bediscover_inspect.discourse_markers.prompts import JUST_LABELS, OTHERWISE_LABELS
from bediscover_inspect.discourse_relations import aliases as dr_aliases
from bediscover_inspect.discourse_relations.prompts import LABELS as DISRPT
from bediscover_inspect.labels import check_aliases, final_text, normalise, parse_label, strip_reasoning
from bediscover_inspect.temporal_reasoning import aliases as tr_aliases
from bediscover_inspect.temporal_reasoning.prompts import RELATION_LABELS as TBD

JUST_AL = dm_aliases.JUST_ALIASES
OTHERWISE_AL = dm_aliases.OTHERWISE_ALIASES
TBD_AL = tr_aliases.RELATION_ALIASES
DISRPT_AL = dr_aliases.RELATION_ALIASES

TASKS = {
    "just": (JUST_LABELS, JUST_AL),
    "otherwise": (OTHERWISE_LABELS, OTHERWISE_AL),
    "tbd": (TBD, TBD_AL),
    "disrpt": (DISRPT, DISRPT_AL),
}


def read(task: str, completion: str):
    labels, aliases = TASKS[task]
    return parse_label(completion, labels, aliases)


def check(task: str, completion: str, label: str | None, rule: str | None = None) -> None:
    parsed = read(task, completion)
    assert parsed.label == label, (completion, parsed)
    if rule is not None:
        assert parsed.rule == rule, (completion, parsed)
    assert parsed.invalid is (label is None)


# --- reasoning left in the text -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "Okay, e1 could be BEFORE e2, or SIMULTANEOUS.\n</think>\n\nAFTER", "AFTER"),
        ("tbd", "Let me think. INCLUDES? NONE?</think>BEFORE", "BEFORE"),
        ("just", "The word could be Temporal here, 'just now'.\n</think>\nEmphatic", "Emphatic"),
        ("otherwise", "Answer: Exception would be my first guess.</think>\n\n**Consequence**", "Consequence"),
        ("disrpt", "Label: contrast? No...\n</think>\n\nelaboration", "elaboration"),
        ("disrpt", "elaboration</think>", None),  # all of it is reasoning: nothing to read
        ("just", "I choose Temporal.</think>   ", None),
    ],
)
def test_closing_think_without_opening_tag_reads_only_the_text_after_it(task, completion, label):
    check(task, completion, label)


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "<think>BEFORE</think>draft: NONE</think>AFTER", "AFTER"),
        ("tbd", "<think>a</think>INCLUDES<think>no wait</think>IS_INCLUDED", "IS_INCLUDED"),
        ("disrpt", "<THINK>comment</THINK>\nquery", "query"),
        ("otherwise", "Enumeration</think>\n<think>hmm</think>\nArgumentation", "Argumentation"),
    ],
)
def test_only_the_text_after_the_last_closing_think_is_read(task, completion, label):
    check(task, completion, label)


@pytest.mark.parametrize(
    ("task", "completion"),
    [
        ("tbd", "<think>The first event is BEFORE the second, so the answer"),
        ("just", "<think>\nEmphatic or Temporal... the label is Temporal because"),
        ("disrpt", "<think>Relation: elaboration"),
        ("otherwise", "<think>a</think>\n<think>Exception"),
    ],
)
def test_unclosed_think_is_a_cut_off_answer(task, completion):
    parsed = read(task, completion)
    assert parsed.invalid and parsed.cut_off and parsed.candidates == ()


def test_final_text_splits_at_the_last_closing_tag():
    assert final_text("a</think>b</think>c") == final_text("c")
    assert final_text("x <think>y").text == "x " and final_text("x <think>y").cut_off
    assert strip_reasoning(None) == "" and strip_reasoning("no tags") == "no tags"
    assert strip_reasoning("A</Think >B") == "B"


# --- label choice: the stated choice is read ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "Not SIMULTANEOUS: e2 ends first. Relation: BEFORE", "BEFORE"),
        ("tbd", "INCLUDES seems plausible at first, but e1 is inside e2.\nFinal answer: IS_INCLUDED", "IS_INCLUDED"),
        ("tbd", "Looking at AFTER and BEFORE: the verbs say e1 comes first.\n\n**Answer:** BEFORE", "BEFORE"),
        ("tbd", "SIMULTANEOUS and NONE are both possible. The correct label is NONE.", "NONE"),
        ("just", "One could argue for Temporal; I would rather call it Emphatic.", "Emphatic"),
        ("just", "Exclusionary fits partly. Label: Unexplanatory", "Unexplanatory"),
        ("just", "Temporal is tempting, but I choose Exclusionary.", "Exclusionary"),
        ("otherwise", "Consequence? Enumeration? I'd go with Enumeration.", "Enumeration"),
        ("otherwise", "Argumentation is close, though the answer is \\boxed{Exception}.", "Exception"),
        ("disrpt", "One could argue for elaboration; I would rather call it comment.", "comment"),
        (
            "disrpt",
            "Could be contrast or concession.\n\nThe relation between Unit1 and Unit2 is concession.",
            "concession",
        ),
        ("disrpt", "Some causal flavour, but Answer: explanation", "explanation"),
        ("disrpt", "The first unit sets a frame? No.\n\n**purpose**", "purpose"),
    ],
)
def test_last_marked_choice_wins_over_earlier_mention(task, completion, label):
    check(task, completion, label, "marker")


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "Answer: BEFORE\n\nOn second thought, e2 starts first.\nAnswer: AFTER", "AFTER"),
        ("tbd", "Relation: INCLUDES\nCorrected: IS_INCLUDED", "IS_INCLUDED"),
        ("tbd", "BEFORE\n\nWait, no, AFTER: the report comes later.", "AFTER"),
        ("just", "Label: Temporal\n\nActually, it's Emphatic: 'just amazing'.", "Emphatic"),
        ("otherwise", "Answer: Consequence\nCorrection: Argumentation", "Argumentation"),
        ("disrpt", "Label: elaboration\n\nOn reflection: Label: reformulation", "reformulation"),
        ("disrpt", "elaboration, or rather comment", "comment"),
    ],
)
def test_correction_after_a_first_draft_wins(task, completion, label):
    check(task, completion, label, "marker")


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "Before deciding, note that both events overlap in time, one inside the other: INCLUDES", "INCLUDES"),
        ("tbd", "After the strike began, the talks started. None of this is simultaneous. AFTER", "AFTER"),
        ("tbd", "e1 happened before e2, according to the text.", None),
        ("disrpt", "The frame of the argument is set by Unit1, and Unit2 adds detail: elaboration.", "elaboration"),
        ("disrpt", "In this mode of speech the writer gives a reason, so: causal", "causal"),
        ("disrpt", "The purpose of this sentence is unclear; the relation is conjunction", "conjunction"),
        ("otherwise", "The consequence of Arg1 failing does not matter here; this is Enumeration.", "Enumeration"),
    ],
)
def test_label_word_used_as_ordinary_word_is_not_the_answer(task, completion, label):
    check(task, completion, label)


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("disrpt", "**Comment:** Unit2 adds detail to Unit1.\n\n**Label:** elaboration", "elaboration"),
        ("disrpt", "**Comment**: Unit2 adds detail.\nelaboration is what I see here.", "elaboration"),
        ("disrpt", "### Elaboration\nUnit2 restates Unit1: reformulation", "reformulation"),
        ("disrpt", "## Query\n\nThe second unit asks nothing.", None),
        ("just", "### Temporal\n'just' here means only: Exclusionary", "Exclusionary"),
        ("tbd", "# BEFORE\nThe report came AFTER the meeting.", "AFTER"),
        ("disrpt", "**Comment:**\nThe relation is attribution", "attribution"),
    ],
)
def test_markdown_header_word_is_not_an_answer(task, completion, label):
    check(task, completion, label)


@pytest.mark.parametrize(
    ("task", "completion"),
    [
        ("just", "either Temporal or Emphatic"),
        ("just", "It could be Temporal, or maybe Emphatic."),
        ("tbd", "BEFORE or AFTER, hard to say."),
        ("tbd", "Answer: BEFORE or AFTER"),
        ("tbd", "Relation: BEFORE/AFTER"),
        ("otherwise", "Label: Consequence or Argumentation"),
        ("disrpt", "Either contrast or concession."),
        ("disrpt", "Answer: cause, or maybe purpose"),
    ],
)
def test_hedge_is_invalid_and_ambiguous(task, completion):
    parsed = read(task, completion)
    assert parsed.invalid and parsed.ambiguous and parsed.rule is None
    assert len(parsed.candidates) == 2


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        (
            "tbd",
            "Choose one of the following six labels: [IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, "
            "NONE].\nAnswer: AFTER",
            "AFTER",
        ),
        (
            "just",
            "Labels: Exclusionary, Unelaboratory, Unexplanatory, Emphatic, Temporal, Adjective\n\n"
            "Final answer: Adjective",
            "Adjective",
        ),
        ("otherwise", "Argumentation, Consequence, Exception, Enumeration.\n**Answer: Exception**", "Exception"),
        (
            "disrpt",
            "## Labels:\ncontrast, condition, mode, organization, frame, temporal, concession, reformulation, "
            "comment, query, attribution, alternation, purpose, explanation, elaboration, causal, "
            "conjunction.\n\nLabel: temporal",
            "temporal",
        ),
    ],
)
def test_echo_of_the_label_list_followed_by_a_marked_answer_reads_the_marked_answer(task, completion, label):
    parsed = read(task, completion)
    assert parsed.label == label and parsed.rule == "marker" and not parsed.echo


@pytest.mark.parametrize(
    ("task", "completion"),
    [
        ("tbd", "IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, NONE"),
        ("just", "Exclusionary: 'Just' is used to exclude. Emphatic: adds emphasis. Temporal: recently."),
        ("otherwise", "Consequence, Argumentation, Enumeration"),
        ("disrpt", "contrast, condition, mode, organization, frame, temporal, concession, reformulation, comment"),
    ],
)
def test_echo_without_a_choice_is_invalid_and_flagged(task, completion):
    parsed = read(task, completion)
    assert parsed.invalid and parsed.echo and parsed.ambiguous


@pytest.mark.parametrize(
    ("completion", "label"),
    [
        ("After reading both sentences: BEFORE", "BEFORE"),
        ("The meeting came after the vote, so e1 is AFTER e2", "AFTER"),
        ("None of the events overlap; e1 ends before e2: BEFORE", "BEFORE"),
        ("Simultaneous reporting is common; here it is INCLUDES", "INCLUDES"),
        ("after", "AFTER"),  # the whole answer: any case
        ("Answer: simultaneous", "SIMULTANEOUS"),  # a marked answer: any case
        ("before\nbecause e1 is reported first", "BEFORE"),  # a lone first line: any case
        ("it happened before, and after that nothing", None),  # prose in lower case names no label
    ],
)
def test_case_is_evidence_for_capitalised_labels(completion, label):
    check("tbd", completion, label)


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "AFTER\n\nThe report (e1) describes the attack (e2) that came BEFORE it.", "AFTER"),
        ("just", "Emphatic.\nHere 'just' strengthens 'amazing', not Temporal.", "Emphatic"),
        (
            "otherwise",
            "*Consequence*\n\nIf Arg1 fails, Arg2 follows; Argumentation would need a warning.",
            "Consequence",
        ),
        (
            "disrpt",
            "elaboration\n\nExplanation: Unit2 explains nothing; it adds detail, unlike contrast.",
            "elaboration",
        ),
    ],
)
def test_lone_label_on_the_first_line(task, completion, label):
    check(task, completion, label, "first_line")


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "  **IS_INCLUDED**.  ", "IS_INCLUDED"),
        ("tbd", "`is included`", "IS_INCLUDED"),
        ("tbd", "The answer is: vague", "NONE"),
        ("just", '"Temporal"', "Temporal"),
        ("otherwise", "Answer: Enumerative.", "Enumeration"),
        ("disrpt", "\\boxed{organisation}", "organization"),
        ("disrpt", "Final answer: Explanatory", "explanation"),
    ],
)
def test_whole_answer_is_a_label(task, completion, label):
    check(task, completion, label, "whole")


def test_single_named_label_in_prose():
    check("disrpt", "Unit2 gives the reason for Unit1, which makes it causal in nature.", "causal", "single")
    check("just", "In this sentence the particle is Emphatic in function.", "Emphatic", "single")
    check("tbd", "I believe e1 IS_INCLUDED in e2, and not SIMULTANEOUS.", "IS_INCLUDED", "single")
    check("otherwise", "No idea, sorry.", None)


# --- spelling variants ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("disrpt", "explanatory", "explanation"),
        ("disrpt", "Unit2 elaborates on Unit1.", "elaboration"),
        ("disrpt", "organisation", "organization"),
        ("disrpt", "Organisational", "organization"),
        ("disrpt", "conditional", "condition"),
        ("disrpt", "Label: contrastive", "contrast"),
        ("disrpt", "concessive", "concession"),
        ("disrpt", "Cause", "causal"),
        ("disrpt", "cause-effect", "causal"),
        ("disrpt", "purposive", "purpose"),
        ("just", "Emphasising", "Emphatic"),
        ("just", "emphasizing", "Emphatic"),
        ("just", "Non-explanatory", "Unexplanatory"),
        ("just", "un elaboratory", "Unelaboratory"),
        ("just", "Exclusive", "Exclusionary"),
        ("otherwise", "argumentative", "Argumentation"),
        ("otherwise", "Exceptions", "Exception"),
        ("tbd", "IS-INCLUDED", "IS_INCLUDED"),
        ("tbd", "is included", "IS_INCLUDED"),
        ("tbd", "Relation: simultaneously", "SIMULTANEOUS"),
        ("tbd", "VAGUE", "NONE"),
        ("tbd", "No_Relation", "NONE"),
    ],
)
def test_spelling_variants_are_read(task, completion, label):
    check(task, completion, label)


@pytest.mark.parametrize("task", sorted(TASKS))
def test_no_alias_maps_onto_two_labels(task):
    labels, aliases = TASKS[task]
    lookup = check_aliases(labels, aliases)
    for alias, label in aliases.items():
        assert label in labels
        assert lookup[normalise(alias)] == label
    # normalised spellings are distinct: none stands for two labels, none is another label's own name
    seen: dict[str, str] = {}
    for spelling, label in [(label, label) for label in labels] + list(aliases.items()):
        key = normalise(spelling)
        assert seen.setdefault(key, label) == label, (spelling, seen[key], label)


def test_check_aliases_rejects_an_alias_onto_two_labels():
    with pytest.raises(ValueError, match="two labels"):
        check_aliases(["BEFORE", "AFTER"], {"before": "AFTER"})
    with pytest.raises(ValueError, match="two labels"):
        check_aliases(["A_B", "C"], {"a-b": "A_B", "A B": "C"})
    with pytest.raises(ValueError, match="not one of the labels"):
        check_aliases(["A"], {"b": "B"})
    with pytest.raises(ValueError, match="two labels"):
        parse_label("x", ["A", "B"], {"a": "B"})


# --- linear time, never raises ---------------------------------------------------------------------------------

LARGE = 100_000


@pytest.mark.parametrize(
    ("task", "completion", "label"),
    [
        ("tbd", "BEFORE " * (LARGE // 7), "BEFORE"),
        ("tbd", "Answer: " * (LARGE // 8) + "AFTER", "AFTER"),
        ("tbd", "not " * (LARGE // 4) + "NONE", None),
        ("disrpt", "the mode of " * (LARGE // 12), None),
        ("disrpt", "**comment:** " * (LARGE // 13) + "Label: query", "query"),
        ("disrpt", " " * LARGE + "elaboration", "elaboration"),
        ("disrpt", "I would rather " * (LARGE // 15) + "call it comment", "comment"),
        ("just", "# Temporal\n" * (LARGE // 11), None),
        ("just", "**Temporal**\n" * (LARGE // 13) + "**Emphatic**", "Emphatic"),
        ("otherwise", "</think>" * (LARGE // 8) + "Exception", "Exception"),
        ("otherwise", "Consequence or " * (LARGE // 15) + "Exception", None),
        ("otherwise", "x" * LARGE, None),
    ],
)
def test_label_parsing_is_linear_in_the_answer_length(task, completion, label):
    """Each 100,000-character answer parses to the right value in well under a second (a quadratic step would
    take minutes); the bound is loose so a slow machine does not fail it."""
    started = time.perf_counter()
    parsed = read(task, completion)
    assert time.perf_counter() - started < 5.0
    assert len(completion) >= LARGE - 15 and parsed.label == label


_WORDS = [w for labels, aliases in TASKS.values() for w in (*labels, *aliases)] + [
    "<think>",
    "</think>",
    "Answer:",
    "Label:",
    "**",
    "###",
    "not",
    "or",
    "either",
    "I choose",
    "\\boxed{",
    "}",
    "\n",
    "the",
    "of",
    "Corrected:",
    ":",
    ",",
    "/",
]


@settings(max_examples=500, deadline=None, database=None)
@given(
    words=st.lists(st.one_of(st.sampled_from(_WORDS), st.text(max_size=8)), max_size=30),
    task=st.sampled_from(sorted(TASKS)),
)
def test_fuzz_rule_invariants(words, task):
    labels, _ = TASKS[task]
    parsed = read(task, " ".join(words))
    assert parsed.label is None or parsed.label in labels
    assert parsed.invalid == (parsed.rule is None)
    assert not parsed.ambiguous or (parsed.invalid and len(parsed.candidates) >= 2)
    assert not parsed.echo or parsed.ambiguous
    if parsed.label is not None:
        assert parsed.label in parsed.candidates
