"""Relation triples ``RELATION(x, y)``: reading model answers and gold strings, window structure, turn counts.

Terms (SDRT dialogue parsing): an EDU / turn is one numbered utterance ``j. speaker: text``; a relation
``LABEL(x, y)`` attaches the *head* y (the new turn) to its *parent* x. Link attachment compares the pairs
(x, y); full structure compares the triples (x, y, label) (paper §6.2.1: micro-averaged F1).

Answer parsing rule (the only one used, for the solver's own structure and for scoring alike):

1. only the final completion is read; ``<think>…</think>`` blocks are removed (:func:`labels.strip_reasoning`),
   markdown emphasis and back-ticks are dropped;
2. every ``LABEL ( x , y )`` with integer x, y is a *relation read* (spaces, case, ``-`` / ``_`` / spaces
   inside the label are free);
3. the label is mapped to the prompt's name: upper case, ``-`` and spaces to ``_``, then :data:`LABEL_ALIASES`
   (``QAP`` -> ``QA_PAIR``, ``Q-Elab`` -> ``Q_ELABORATION``, ``Clarification_question`` -> ``CLARIF_Q`` …);
4. a relation is **invalid** (counted, never used) when its label is not in the dataset's relation set
   (Appendix B.5 prompt), when y is not the new turn, or when x == y. Backward relations (x > y) are valid:
   the gold data has them (STAC 8, MSDC 56), so they can match;
5. valid relations are deduplicated (a set per turn), in order of first mention.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from bediscover_inspect.labels import strip_reasoning

RELATION_PATTERN = re.compile(
    r"((?:[A-Za-z][A-Za-z_\-]*[ \t]){0,2}[A-Za-z][A-Za-z_\-]*)\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)"
)
"""``LABEL(x, y)``: up to three words of letters / ``_`` / ``-`` (``QA PAIR``), then two integers in brackets."""

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
        invalid: the raw text of every invalid relation read (wrong label, wrong head, self-loop).
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


def parse_answer(completion: str, new_turn: int, relations: Sequence[str]) -> ParsedTurn:
    """Read the relations of one answer (module rule 1-5); never raises on any string.

    Args:
        completion: the model's final text for this turn (not its reasoning).
        new_turn: index j of the new turn; a valid relation has y == j.
        relations: the dataset's relation set (``prompts.RELATIONS[dataset]``).
    """
    text = _MARKUP.sub("", strip_reasoning(completion or ""))
    allowed = set(relations)
    valid: list[Relation] = []
    invalid: list[str] = []
    read = 0
    for match in RELATION_PATTERN.finditer(text):
        read += 1
        label = _label_of(match.group(1).split(), allowed)
        x, y = int(match.group(2)), int(match.group(3))
        if label not in allowed or y != new_turn or x == y or x < 0:
            invalid.append(match.group(0).strip())
            continue
        relation = Relation(x, y, label)
        if relation not in valid:
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
