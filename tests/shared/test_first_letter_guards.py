"""The answer readers' patterns that open with a first-character look-ahead (a cheap test before their look-behind)
match exactly what they match without it, on texts holding every word of the pattern: a word added to a pattern
whose first letter the look-ahead leaves out fails here instead of never matching."""

from __future__ import annotations

import re

import pytest

from bediscover_inspect import labels
from bediscover_inspect.sentence_ordering import parsing

GUARD = re.compile(r"^(?:\(\?:\(\?=\[[^\]]*\]\)\|\(\?=\[ \\t\]\)\^\)|\(\?=\[[^\]]*\]\))")
"""The look-ahead a guarded pattern opens with: ``(?=[…])``, or the answer marker's ``(?:(?=[…])|(?=[ \\t])^)``."""

GUARDED = {
    "ANSWER_MARKER": labels.ANSWER_MARKER,
    "CONCLUSION": labels.CONCLUSION,
    "REJECTION_CUE": labels.REJECTION_CUE,
    "ORDER_MARKER": parsing.ORDER_MARKER,
    "TENTATIVE": parsing.TENTATIVE,
}


def texts_with_every_word(pattern: re.Pattern[str]) -> list[str]:
    """Texts holding each word of ``pattern``'s source alone, at a line's start, after a sentence, marked up and
    followed by an answer, and all the words in their order (so that phrases of several words occur)."""
    in_order = re.findall(r"[A-Za-z]{2,}(?:'t)?", pattern.pattern.replace("['’]", "'"))  # "isn['’]t": "isn't"
    words = list(dict.fromkeys(in_order))
    shapes = ("{w}", "{w}: b", "So the {w} is b.", "**{w}**: b", "## {w} = b", "x {W} b", "x\n  {w}: b")
    texts = [shape.format(w=w, W=w.upper()) for w in words for shape in shapes]
    return [*texts, " ".join(in_order), "\n".join(f"{w}: b" for w in words)]


@pytest.mark.parametrize("name", GUARDED)
def test_the_first_letter_look_ahead_changes_no_match(name):
    guarded = GUARDED[name]
    source, count = GUARD.subn("", guarded.pattern)
    assert count == 1, f"{name} does not open with a first-character look-ahead"
    plain = re.compile(source, guarded.flags)
    found = 0
    for text in texts_with_every_word(guarded):
        expected = [(m.span(), m.groups()) for m in plain.finditer(text)]
        assert [(m.span(), m.groups()) for m in guarded.finditer(text)] == expected, (name, text)
        found += len(expected)
    assert found >= 10, (name, found)  # the texts do reach the pattern's words


def test_a_word_outside_the_look_ahead_is_caught():
    """The check above fails for a pattern whose look-ahead misses a word's first letter."""
    broken = re.compile(r"(?=[tsh])(?<![^\W_])(?:therefore|thus|so|hence|accordingly)(?![^\W_])", re.IGNORECASE)
    plain = re.compile(GUARD.sub("", broken.pattern), broken.flags)
    texts = texts_with_every_word(broken)
    assert any(plain.findall(t) != broken.findall(t) for t in texts)
