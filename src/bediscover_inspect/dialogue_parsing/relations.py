r"""Relation triples ``RELATION(x, y)``: reading model answers and gold strings, window structure, turn counts.

Terms (SDRT dialogue parsing): an EDU / turn is one numbered utterance ``j. speaker: text``; a relation
``LABEL(x, y)`` attaches the *head* y (the new turn) to its *parent* x. Link attachment compares the pairs
(x, y); full structure compares the triples (x, y, label) (paper §6.2.1: micro-averaged F1).

Answer parsing rule (the only one used, for the solver's own structure and for scoring alike):

1. only the final completion is read; ``<think>…</think>`` blocks are removed (:func:`labels.strip_reasoning`),
   markdown emphasis and back-ticks are dropped;
2. every ``LABEL ( x , y )`` with integer x, y is a *relation read* (spaces, case, ``-`` / ``_`` / spaces
   inside the label are free; the label is the last one to three words of letters, ``_`` and ``-`` before
   the bracket);
3. the label is mapped to the prompt's name: upper case, ``-`` and spaces to ``_``, then :data:`LABEL_ALIASES`
   (``QAP`` -> ``QA_PAIR``, ``Q-Elab`` -> ``Q_ELABORATION``, ``Clarification_question`` -> ``CLARIF_Q`` …);
4. a relation is **invalid** (counted, never used, never fed back into a later prompt) when its label is not
   in the dataset's relation set (Appendix B.5 prompt), when y is not the new turn j, or when its parent x is
   not a *valid parent* of j. For a dialogue with utterances ``0 … n−1`` (``n_edus`` = n) the valid parents
   of the new turn j are exactly ``{0, …, n−1} \ {j}``:

   * ``0 ≤ x < j`` — any utterance before the new turn. Not only the 17-utterance context window: the
     window is a prompt-size choice, not a constraint of the annotation (19 MSDC gold parents lie before
     it), and an older utterance can still appear in the prompt through the structure's relations;
   * ``j < x ≤ n−1`` — a *backward* relation to a later utterance that exists in the dialogue. The prompt
     says there are none, but the gold has them (STAC 8, MSDC 56, all to x = j+1 or j+2), so a predicted
     one is valid and can match them (README "Backward gold relations"). An x past the dialogue's last
     utterance (``j + 50`` in a short dialogue, ``10**6``, a 5,000-digit number), a negative x and x = j
     are invalid. Numbers of more than :data:`MAX_ID_DIGITS` digits are never converted to ``int`` (so
     Python's 4,300-digit limit cannot raise) and are invalid.

   In incremental mode n is the number of utterances of the sample's dialogue; in single-turn mode it is
   the same number, taken from the dialogue's last record in the file (``Sample.metadata["n_edus"]``);
5. valid relations are deduplicated (a set per turn), in order of first mention.

Parsing is linear in the answer's length: the numbers are found by a pattern anchored on ``(`` (no
backtracking across the text), and the label is read backwards from each match on the reversed text
(:func:`_relation_matches`); a 100,000-character answer of any kind parses in milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from bediscover_inspect.labels import strip_reasoning

NUMBERS_PATTERN = re.compile(r"\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)")
"""The ``( x , y )`` part of a relation. It starts with a literal ``(`` and its only repetitions are runs of one
character class each, so a failed attempt costs at most the run after one ``(`` and the search is linear."""

LABEL_BEFORE_PATTERN = re.compile(r"\s*((?:[A-Za-z_\-]*[A-Za-z][ \t]){0,2}[A-Za-z_\-]*[A-Za-z])")
"""The label in front of a ``(``, matched on the *reversed* text from the bracket backwards: optional white
space, then one to three words (each ``[A-Za-z][A-Za-z_-]*`` read forwards) separated by one space or tab.
It is only tried at a bracket that :data:`NUMBERS_PATTERN` matched (``re.match``, one position), so its
cost is the length of the label and the white space before the bracket, which belong to no other match."""

MAX_ID_DIGITS = 9
"""An EDU id of more digits than this is invalid without being converted (dialogues have < 200 EDUs)."""

MAX_INVALID_CHARS = 200
"""An invalid relation's raw text is kept up to this many characters (then ``…``), to bound the log."""

_MARKUP = re.compile(r"[*`#]")

LABEL_ALIASES: dict[str, str] = {
    "QAP": "QA_PAIR",
    "QA": "QA_PAIR",
    "Q_A_PAIR": "QA_PAIR",
    "QUESTION_ANSWER_PAIR": "QA_PAIR",
    "QUESTION_ANSWER": "QA_PAIR",
    "Q_ELAB": "Q_ELABORATION",
    "QELAB": "Q_ELABORATION",
    "QUESTION_ELABORATION": "Q_ELABORATION",
    "CLARIFICATION_QUESTION": "CLARIF_Q",
    "CLARIFICATION_Q": "CLARIF_Q",
    "CLARIFICATION": "CLARIF_Q",
    "CONFIRMATION_QUESTION": "CONFIRM_Q",
    "CONFIRMATION_Q": "CONFIRM_Q",
    "CONFIRMATION": "CONFIRM_Q",
    "ACKNOWLEDGMENT": "ACKNOWLEDGEMENT",
    "ACK": "ACKNOWLEDGEMENT",
    "ELAB": "ELABORATION",
    "CONTIN": "CONTINUATION",
}
"""Label spellings of the upstream corpora (SOURCE.md §4: QAP, Q-Elab, Question-answer_pair,
Clarification_question, Confirmation_question) and common model variants -> the prompt's names."""


@dataclass(frozen=True, order=True)
class Relation:
    """One triple: ``label(x, y)`` with parent EDU ``x`` and head EDU ``y`` (0-based global indices)."""

    x: int
    y: int
    label: str

    @property
    def link(self) -> tuple[int, int]:
        """The attachment (x, y) without its label."""
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"{self.label}({self.x},{self.y})"


def canonical_label(raw: str) -> str:
    """Prompt-style spelling of a label: upper case, ``-`` / spaces -> ``_``, aliases mapped (module rule 3)."""
    name = re.sub(r"[\s\-]+", "_", raw.strip().upper()).strip("_")
    return LABEL_ALIASES.get(name, name)


@dataclass(frozen=True)
class ParsedTurn:
    """Relations read from one answer for one new turn.

    Attributes:
        valid: deduplicated valid relations, in order of first mention.
        invalid: the raw text of every invalid relation read (wrong label, wrong head, parent not an
            utterance of the dialogue or the head itself), cut to :data:`MAX_INVALID_CHARS` characters.
        read: number of relation patterns found (valid with duplicates + invalid).
    """

    valid: tuple[Relation, ...] = ()
    invalid: tuple[str, ...] = field(default_factory=tuple)
    read: int = 0


def _label_of(words: list[str], allowed: set[str]) -> str:
    """Longest tail of ``words`` (3, 2, then 1 word) that names an allowed label, else the last word's name.

    The pattern may catch words before the label ("is QA_PAIR(0,2)"), so the label is the shortest sensible
    tail: a known label if any tail is one.
    """
    for size in (3, 2, 1):
        if len(words) >= size:
            candidate = canonical_label(" ".join(words[-size:]))
            if candidate in allowed:
                return candidate
    return canonical_label(words[-1])


def _relation_matches(text: str) -> Iterator[tuple[str, str, str, str]]:
    r"""Every ``LABEL(x, y)`` of ``text``: ``(raw text, raw label words, x digits, y digits)``, left to right.

    Same matches as the former single pattern ``((?:W[ \t]){0,2}W)\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)``
    with ``W = [A-Za-z][A-Za-z_-]*``, but in linear time: a bracket with numbers and no label before it is
    not a relation (``(1, 2)`` alone is not read).
    """
    reversed_text = text[::-1]
    length = len(text)
    for numbers in NUMBERS_PATTERN.finditer(text):
        label = LABEL_BEFORE_PATTERN.match(reversed_text, length - numbers.start())
        if label is None:
            continue
        raw = text[length - label.end(1) : numbers.end()]
        yield raw, label.group(1)[::-1], numbers.group(1), numbers.group(2)


def _edu_id(digits: str) -> int | None:
    r"""The integer of ``-?\d+``, or ``None`` when it has more than :data:`MAX_ID_DIGITS` digits (never
    converted, so Python's int-conversion limit cannot raise)."""
    return int(digits) if len(digits.lstrip("-")) <= MAX_ID_DIGITS else None


def valid_parent(x: int | None, new_turn: int, n_edus: int) -> bool:
    """Whether ``x`` may be the parent of ``new_turn`` in a dialogue of ``n_edus`` utterances (module rule 4):
    an utterance of the dialogue other than the new turn, ``0 <= x < n_edus`` and ``x != new_turn``."""
    return x is not None and 0 <= x < n_edus and x != new_turn


def parse_answer(completion: str, new_turn: int, relations: Sequence[str], n_edus: int) -> ParsedTurn:
    """Read the relations of one answer (module rule 1-5); never raises on any string, in linear time.

    Args:
        completion: the model's final text for this turn (not its reasoning).
        new_turn: index j of the new turn; a valid relation has y == j.
        relations: the dataset's relation set (``prompts.RELATIONS[dataset]``).
        n_edus: number of utterances of the dialogue (ids ``0 … n_edus - 1``); a valid parent x is one of
            them other than j (:func:`valid_parent`).
    """
    text = _MARKUP.sub("", strip_reasoning(completion or ""))
    allowed = set(relations)
    valid: list[Relation] = []
    seen: set[Relation] = set()
    invalid: list[str] = []
    read = 0
    for raw, words, x_digits, y_digits in _relation_matches(text):
        read += 1
        label = _label_of(words.split(), allowed)
        x, y = _edu_id(x_digits), _edu_id(y_digits)
        if label not in allowed or y != new_turn or not valid_parent(x, new_turn, n_edus):
            invalid.append(raw if len(raw) <= MAX_INVALID_CHARS else raw[:MAX_INVALID_CHARS] + "…")
            continue
        assert x is not None and y is not None
        relation = Relation(x, y, label)
        if relation not in seen:
            seen.add(relation)
            valid.append(relation)
    return ParsedTurn(tuple(valid), tuple(invalid), read)


def parse_gold(gold: str) -> tuple[Relation, ...]:
    """Relations of a data ``gold`` / ``structure`` string (``LABEL(x,y)`` separated by spaces; may be empty).

    Raises:
        ValueError: a space-separated token is not ``LABEL(x,y)`` (callers wrap it in a DataFormatError).
    """
    out: list[Relation] = []
    for token in gold.split():
        match = re.fullmatch(r"([A-Z_]+)\((\d+),(\d+)\)", token)
        if match is None:
            raise ValueError(f"not a relation LABEL(x,y): {token!r}")
        out.append(Relation(int(match.group(2)), int(match.group(3)), match.group(1)))
    return tuple(out)


def format_relations(relations: Iterable[Relation]) -> str:
    """``LABEL(x,y)`` strings joined by single spaces (the data's ``gold`` spelling)."""
    return " ".join(str(r) for r in relations)


CONTEXT_WINDOW = 17
"""Preceding EDUs shown per new turn (data file: ``context`` = the last 17 EDUs; Seq2Seq-DDP ``[-18:]``)."""


def window_start(new_turn: int, window: int = CONTEXT_WINDOW) -> int:
    """First EDU index of the context window of turn ``new_turn``: ``max(0, new_turn - window)``."""
    return max(0, new_turn - window)


def window_structure(per_head: dict[int, str], new_turn: int, window: int = CONTEXT_WINDOW) -> str:
    """The ``structure`` field for ``new_turn``: the relation strings of every head inside the window.

    Reproduces the data files exactly (checked on all 9,889 records but Molweni 5032_09, a data glitch):
    heads ``max(1, new_turn - window) … new_turn - 1`` in order, each head's relations joined by spaces
    (its ``gold`` / answer string), heads joined by one space, so a head with no relation leaves a double
    space. EDU 0 never heads a relation (no instance).

    Args:
        per_head: head index -> its relations as one string (gold or predicted so far).
        new_turn: index j of the new turn.
    """
    return " ".join(per_head.get(y, "") for y in range(max(1, new_turn - window), new_turn))


@dataclass(frozen=True)
class TurnCounts:
    """Micro counts of one new turn (or summed over many).

    Link attachment compares the *sets* of (x, y) pairs, full structure the sets of triples (x, y, label):
    a duplicate pair with two labels (STAC 2, MSDC 7 turns) counts once for link and twice for full.
    """

    link_tp: int = 0
    link_pred: int = 0
    link_gold: int = 0
    full_tp: int = 0
    full_pred: int = 0
    full_gold: int = 0
    relations_read: int = 0
    relations_invalid: int = 0
    no_relation: int = 0
    turns: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: "TurnCounts") -> "TurnCounts":
        return TurnCounts(*(a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True)))

    def as_tuple(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in COUNT_KEYS)

    def as_dict(self) -> dict[str, int]:
        """Plain dict (for ``Score.metadata["counts"]``)."""
        return {name: getattr(self, name) for name in COUNT_KEYS}


COUNT_KEYS: tuple[str, ...] = (
    "link_tp", "link_pred", "link_gold", "full_tp", "full_pred", "full_gold",
    "relations_read", "relations_invalid", "no_relation", "turns", "output_tokens", "reasoning_tokens",
)
"""Fields of :class:`TurnCounts`, in order."""


def count_turn(
    predicted: ParsedTurn, gold: Sequence[Relation], output_tokens: int = 0, reasoning_tokens: int = 0
) -> TurnCounts:
    """Counts of one turn: predicted valid relations against the gold relations of that turn.

    An empty-gold turn (no parent; STAC 4, Molweni 19, MSDC 8) adds nothing to the gold side; any relation
    predicted there is a false positive. Gold backward relations count like any other.
    """
    pred_full = set(predicted.valid)
    gold_full = set(gold)
    pred_link = {r.link for r in pred_full}
    gold_link = {r.link for r in gold_full}
    return TurnCounts(
        link_tp=len(pred_link & gold_link),
        link_pred=len(pred_link),
        link_gold=len(gold_link),
        full_tp=len(pred_full & gold_full),
        full_pred=len(pred_full),
        full_gold=len(gold_full),
        relations_read=predicted.read,
        relations_invalid=len(predicted.invalid),
        no_relation=1 if predicted.read == 0 else 0,
        turns=1,
        output_tokens=output_tokens,
        reasoning_tokens=reasoning_tokens,
    )
