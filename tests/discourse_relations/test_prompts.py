"""The Task (3) prompt against the paper's Appendix B.3 (Table 10), and one rendered prompt pinned in full."""

from __future__ import annotations

import json

import pytest

from bediscover_inspect.discourse_relations.dataset import CORPORA, record_to_sample
from bediscover_inspect.discourse_relations.prompts import (
    DIRECTION_TEXT,
    LABELS,
    LANGUAGE_NAMES,
    SYSTEM_PROMPT,
    USER_PROMPT_TEMPLATE,
    join_context,
)

from ..conftest import PAPER_TEXT


def _paper_block() -> tuple[list[str], list[str]]:
    """Non-empty lines of Table 10's system and user prompts, from the paper text."""
    text = PAPER_TEXT.read_text(encoding="utf-8")
    block = text[text.index("B.3 Task (3) Discourse Relation Recognition") : text.index("Table 10: Prompt templates")]
    system = block[block.index("System prompt:") + len("System prompt:") : block.index("User prompt:")]
    user = block[block.index("User prompt:") + len("User prompt:") :]

    def lines(part):
        return [line.strip() for line in part.splitlines() if line.strip()]

    return lines(system), lines(user)


@pytest.mark.paper
def test_system_prompt_is_table_10_verbatim():
    paper_system, _ = _paper_block()
    ours = [line for line in SYSTEM_PROMPT.splitlines() if line.strip()]
    assert ours == paper_system
    assert len(ours) == 13  # preamble, 3 headers, goal, 7 guidelines, label line


@pytest.mark.paper
def test_user_prompt_is_table_10_verbatim_except_the_stray_quote():
    _, paper_user = _paper_block()
    # The paper's last line ends with a stray '"' (closing quote of a code string literal); it is not sent.
    assert paper_user[-1] == 'Question: What is the discourse relation between Unit1 and Unit2?"'
    paper_user[-1] = paper_user[-1][:-1]
    placeholders = {
        "language": "<LANG>",
        "corpus": "<CORPUS>",
        "framework": "<FRAMEWORK>",
        "context": "<CONTEXT>",
        "direction": "<DIRECTION>",
        "unit1": "<UNIT1>",
        "unit2": "<UNIT2>",
    }
    ours = [line for line in USER_PROMPT_TEMPLATE.format(**placeholders).splitlines() if line.strip()]
    assert ours == paper_user


def test_labels_are_the_17_of_the_system_prompt_and_of_the_official_mapping(upstream_root):
    label_line = SYSTEM_PROMPT.splitlines()[-1]
    assert label_line.rstrip(".").split(", ") == list(LABELS)
    mapping = json.loads((upstream_root / "disrpt25" / "_official" / "mapping_disrpt25.json").read_text())
    assert sorted(set(mapping.values())) == sorted(LABELS)


@pytest.mark.paper
def test_language_names_are_table_27s():
    """The codes are the corpora's; the names are Table 27's caption, which lists them in the codes' order."""
    text = PAPER_TEXT.read_text(encoding="utf-8")
    caption = text[text.index("Table 27:") :].split("\n", 1)[0]
    names = caption[caption.index("(left to right): ") + len("(left to right): ") :].rstrip(".").split(", ")
    names[-1] = names[-1].removeprefix("and ")
    codes = sorted({corpus.split(".")[0] for corpus in CORPORA})
    assert list(LANGUAGE_NAMES) == codes and len(codes) == 16
    assert [LANGUAGE_NAMES[code] for code in codes] == names


def test_direction_and_context_rules():
    assert DIRECTION_TEXT == {"1>2": "From Unit1 to Unit2.", "1<2": "From Unit2 to Unit1.", "_": "Unknown."}
    # DeDisCo's f"{c[0]} {c[1]} {c[2]}": an empty left context leaves a leading space.
    assert join_context(["", "A b .", "C ."]) == " A b . C ."


EXPECTED_DEU_PDTB_PCC_1 = """## Language:
deu

## Corpus:
pcc

## Framework:
pdtb

## Context:
Schon allein um an diese freiwillige Tätigkeit zu erinnern , ist es eine sinnvolle Veranstaltung , die im Kreis \
Potsdam-Mittelmark in diesem Jahr bereits ihre vierte Auflage erlebt hat . Neben der Präsentation ist es eine gute \
Möglichkeit , Mitglieder zu werben . Das wiederum sollten die Mitglieder der Vereine und Selbsthilfegruppen wirklich \
selbst machen . Ihr Engagement für soziale , kulturelle und sportliche Belange ist nämlich nicht nur Einsicht in die \
Notwendigkeit , sondern - das war spürbar - auch Begeisterung . Die Politik hingegen , die sich in diesem Jahr \
Aktionismus in Kampagnen mit Ehrenpreisen , Gründung von Freiwilligenagenturen und ähnlichen Initiativen verordnet \
hat , sollte sich tunlichst zurückhalten . Wer Sozialabbau betreibt ( etwa die Streichung des Gehörlosengeldes plant ) \
, Sport-Unternehmen subventioniert ( Lausitzring ) und Kultur stets nur auf Rentabilität prüft ( Volkshoch- und \
Musikschule ) , sollte nicht scheinheilig die unentgeltliche , aber ehrlich gemeinte Tätigkeit loben .

## Direction:
From Unit2 to Unit1.

## Unit1:
nicht nur Einsicht in die Notwendigkeit

## Unit2:
, sondern - das war spürbar - auch Begeisterung .

Question: What is the discourse relation between Unit1 and Unit2?"""


def test_rendered_prompt_of_a_german_pdtb_record(data_root):
    path = data_root / "dr" / "disrpt25" / "deu.pdtb.pcc" / "test_id.json"
    record = json.loads(path.read_text(encoding="utf-8"))[1]
    assert (record["lang"], record["corpus"], record["framework"]) == ("deu", "pcc", "pdtb")
    sample = record_to_sample(record, "deu.pdtb.pcc", str(path), 1)
    assert sample.id == "deu.pdtb.pcc_1"
    assert sample.input == EXPECTED_DEU_PDTB_PCC_1
    assert sample.target == "conjunction"
    assert sample.metadata == {
        "dataset": "deu.pdtb.pcc",
        "gold": "conjunction",
        "corpus": "deu.pdtb.pcc",
        "framework": "pdtb",
        "language": "deu",
        "language_name": "German",
        "direction": "1<2",
        "rel_type": "explicit",
    }


def test_language_slot_is_the_record_code_in_other_languages(data_root):
    # <LANG>, <CORPUS> and <FRAMEWORK> all carry the record's raw codes, never an English name.
    for corpus, expected in (("pcm.pdtb.disconaija", "pcm"), ("zho.rst.gcdt", "zho"), ("eus.rst.ert", "eus")):
        path = data_root / "dr" / "disrpt25" / corpus / "test_id.json"
        record = json.loads(path.read_text(encoding="utf-8"))[0]
        lines = record_to_sample(record, corpus, str(path), 0).input.splitlines()
        assert lines[:8] == [
            "## Language:",
            expected,
            "",
            "## Corpus:",
            corpus.split(".")[2],
            "",
            "## Framework:",
            corpus.split(".")[1],
        ]
        assert LANGUAGE_NAMES[expected] not in lines[1]
