r"""Relation triples ``RELATION(x, y)``: reading model answers and gold strings, and the window structure.

Terms (SDRT dialogue parsing): an EDU / turn is one numbered utterance ``j. speaker: text``; a relation
``LABEL(x, y)`` attaches the *head* y (the new turn) to its *parent* x. Link attachment compares the pairs
(x, y); full structure compares the triples (x, y, label) (paper §6.2.1: micro-averaged F1).

Answer parsing rule (the only one used, for the solver's own structure and for scoring alike):

1. only the final completion is read, and of it only the text after the last ``</think>``, cut at an unclosed
   ``<think>`` (:func:`labels.final_text`); markdown emphasis, ``#`` and back-ticks are dropped; an answer that
   holds markup (an HTML closing tag or a control character: :func:`labels.has_markup`, the rule of every task)
   is read as usual but every relation read from it is **invalid** (``markup``);
2. every ``LABEL ( x , y )`` with integer x, y is a *relation* (spaces, case, ``-`` / ``_`` / spaces inside
   the label are free; the label is the last one to three words of letters, ``_`` and ``-`` before the
   bracket, the longest tail of them that names a label of the set, else the last word). A *block* is a run of relations with nothing
   but white space, ``,`` ``;`` ``/`` ``|`` ``+`` ``&``, dashes, bullets (``-``, ``•``, ``1.``),
   brackets, quotes or ``and`` between them (a full stop ends a block). Which relations are the answer, first rule that applies:

   * ``marker`` — the block that starts at the last relation marked by an answer marker (the shared
     :data:`labels.ANSWER_MARKER`: ``Answer:``, ``Final answer:``, ``Structure:``, ``The structure is``,
     ``Relations:``, ``Corrected:``, ``Actually,``, ``\\boxed{``, ``A:`` …) or by a concluding sentence (the first
     relation after a conclusion cue in its sentence, :data:`labels.CONCLUSION`: ``So, the new turn attaches as
     QA_PAIR(3,5).``): corrections come last;
   * ``whole`` / ``leading`` — the block at the start of the answer (only white space, bullets, list
     numbers, quotes or brackets before it): ``whole`` when nothing but punctuation follows it, ``leading``
     when prose follows (an explanation after the answer is not read);
   * ``prose`` — otherwise every relation in the text, except a rejected one (right after ``not``, ``no``,
     ``rather than``, ``instead of`` …: :func:`labels.rejected`).

   A model that continues a few-shot pattern — after the first relation, a line that starts a new question
   (:data:`labels.CONTINUATION`) — is read up to that line. Relations outside the chosen ones are *ignored*: neither read nor invalid, only counted (``ignored``);
3. the label is mapped to the prompt's name: upper case, runs of ``-``, ``_`` and spaces to one ``_``, then
   :data:`LABEL_ALIASES` (``dialogue_parsing.aliases``: ``QAP`` -> ``QA_PAIR``, ``Q-Elab`` ->
   ``Q_ELABORATION``, ``Clarification_question`` -> ``CLARIF_Q``, ``ACK`` -> ``ACKNOWLEDGEMENT`` …);
4. a relation read is **invalid** (counted, never used, never fed back into a later prompt) when its label is not
   in the dataset's relation set (Appendix B.5 prompt), when y is not the new turn j, or when its parent x is
   not a *valid parent* of j. For a dialogue with utterances ``0 … n−1`` (``n_edus`` = n) the valid parents
   of the new turn j are exactly ``{0, …, n−1} \\ {j}``:

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
5. valid relations are deduplicated (a set per turn), in order of first mention;
6. **echo** — an answer that copies its turn's prompt (:func:`labels.copies_prompt`: at least half of the
   prompt's lines of 20 characters or more, verbatim) is no answer (:func:`read_turn`): every relation read
   from it is invalid (the relations of the prompt's structure would otherwise count), none is fed back to a
   later prompt, and the turn counts toward the ``echo`` rate.

Parsing is linear in the answer's length: the numbers are found by a pattern anchored on ``(`` (no
backtracking across the text), the label is read backwards from each match on the reversed text
(:func:`_relation_matches`), and the gaps checked between relations and markers are disjoint; a
100,000-character answer of any kind parses in milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from bediscover_inspect.labels import (
    conclusion_ends,
    continuation_start,
    copies_prompt,
    final_text,
    has_markup,
    in_conclusion,
    marked,
    marker_ends,
    rejected,
    rejection_ends,
)

from .aliases import LABEL_ALIASES as _LABEL_ALIASES

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
"""Markdown dropped before reading (emphasis, code, headers)."""

_ENUMERATOR = r"(?<!\d)\d{1,3}[.)](?=\s)"
_BLOCK_GAP = re.compile(rf"(?:[\s,;/|+&\-–—•·()\[\]{{}}'\"“”‘’]|(?<![^\W_])and(?![^\W_])|{_ENUMERATOR})*")
"""What may stand between two relations of one block (``fullmatch`` on the gap); a full stop ends a block."""

_END_GAP = re.compile(r"[\s,;.!()\[\]{}'\"“”‘’]*")
"""What may follow the last relation of a ``whole`` answer."""

_LEAD_GAP = re.compile(rf"(?:[\s\-–—•·()\[\]{{}}'\"“”‘’:>]|{_ENUMERATOR})*")
"""What may stand before a leading block (white space, bullets, list numbers, brackets, quotes)."""

LABEL_ALIASES: dict[str, str] = _LABEL_ALIASES
"""Label spellings -> the prompt's names (``dialogue_parsing.aliases.LABEL_ALIASES``, re-exported here)."""


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
    """Prompt-style spelling of a label: upper case, runs of ``-`` / ``_`` / spaces -> one ``_``, aliases
    mapped (module rule 3)."""
    name = re.sub(r"[\s\-_]+", "_", raw.strip().upper()).strip("_")
    return LABEL_ALIASES.get(name, name)


@dataclass(frozen=True)
class ParsedTurn:
    """Relations read from one answer for one new turn.

    Attributes:
        valid: deduplicated valid relations, in order of first mention.
        invalid: the raw text of every invalid relation read (wrong label, wrong head, parent not an
            utterance of the dialogue or the head itself), cut to :data:`MAX_INVALID_CHARS` characters.
        read: number of relations read as the answer (valid with duplicates + invalid).
        rule: which relations were the answer (module rule 2): ``"marker"``, ``"whole"``, ``"leading"``,
            ``"prose"``, or ``None`` when there was no relation at all.
        ignored: relations found in the text but not part of the answer (prose around a marked or leading
            block, rejected ones).
        cut_off: the completion ends inside an unclosed ``<think>`` (:func:`labels.final_text`), or the reply
            stopped at the budget.
        echo: the answer copies its turn's prompt (module rule 6): nothing valid, every relation read invalid.
        markup: the answer holds markup (module rule 1): nothing valid, every relation read invalid.
    """

    valid: tuple[Relation, ...] = ()
    invalid: tuple[str, ...] = field(default_factory=tuple)
    read: int = 0
    rule: str | None = None
    ignored: int = 0
    cut_off: bool = False
    echo: bool = False
    markup: bool = False


def _label_of(words: list[str], allowed: set[str]) -> tuple[str, int]:
    """Longest tail of ``words`` (3, 2, then 1 word) that names an allowed label, else the last word's name,
    with the number of words taken.

    The pattern may catch words before the label ("is QA_PAIR(0,2)"), so the label is a tail of them: a known
    label if any tail is one (``Q Elab`` -> ``Q_ELABORATION`` rather than ``ELABORATION``).
    """
    for size in (3, 2, 1):
        if len(words) >= size:
            candidate = canonical_label(" ".join(words[-size:]))
            if candidate in allowed:
                return candidate, size
    return canonical_label(words[-1]), 1


@dataclass(frozen=True)
class _Found:
    start: int  # offset of the label chosen from the words before the bracket
    end: int
    raw: str
    label: str
    x_digits: str
    y_digits: str


def _relation_matches(text: str) -> Iterator[tuple[int, int, str, str, str]]:
    r"""Every ``LABEL(x, y)`` of ``text``: ``(start of the label words, end, raw label words, x digits,
    y digits)``, left to right.

    Same matches as the single pattern ``((?:W[ \t]){0,2}W)\s*\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)``
    with ``W = [A-Za-z][A-Za-z_-]*``, but in linear time: a bracket with numbers and no label before it is
    not a relation (``(1, 2)`` alone is not read).
    """
    reversed_text = text[::-1]
    length = len(text)
    for numbers in NUMBERS_PATTERN.finditer(text):
        label = LABEL_BEFORE_PATTERN.match(reversed_text, length - numbers.start())
        if label is None:
            continue
        yield length - label.end(1), numbers.end(), label.group(1)[::-1], numbers.group(1), numbers.group(2)


def _found(text: str, allowed: set[str]) -> list[_Found]:
    out = []
    for start, end, words, x_digits, y_digits in _relation_matches(text):
        split = words.split()
        label, size = _label_of(split, allowed)
        tail = sum(len(w) for w in split[-size:]) + size - 1  # words are separated by one space or tab
        label_start = start + len(words) - tail
        out.append(_Found(label_start, end, text[label_start:end], label, x_digits, y_digits))
    return out


def _block(text: str, found: list[_Found], first: int) -> int:
    """Index one past the last relation of the block that starts at ``found[first]``."""
    last = first
    while last + 1 < len(found) and _BLOCK_GAP.fullmatch(text, found[last].end, found[last + 1].start):
        last += 1
    return last + 1


def _answer_relations(text: str, found: list[_Found]) -> tuple[list[_Found], str | None]:
    """The relations that are the answer, and the rule that chose them (module rule 2)."""
    if not found:
        return [], None
    ends = marker_ends(text)
    cues = conclusion_ends(text)
    last_marked = None
    previous_end = 0
    for i, relation in enumerate(found):
        if marked(text, ends, relation.start, previous_end) or in_conclusion(text, cues, relation.start, previous_end):
            last_marked = i
        previous_end = relation.end
    if last_marked is not None:
        return found[last_marked : _block(text, found, last_marked)], "marker"
    if _LEAD_GAP.fullmatch(text, 0, found[0].start):
        stop = _block(text, found, 0)
        whole = stop == len(found) and _END_GAP.fullmatch(text, found[-1].end) is not None
        return found[:stop], "whole" if whole else "leading"
    cues = rejection_ends(text)
    kept = [r for i, r in enumerate(found) if not rejected(text, cues, r.start, found[i - 1].end if i else 0)]
    return kept, "prose"


def _edu_id(digits: str) -> int | None:
    r"""The integer of ``-?\d+``, or ``None`` when it has more than :data:`MAX_ID_DIGITS` digits (never
    converted, so Python's int-conversion limit cannot raise)."""
    return int(digits) if len(digits.lstrip("-")) <= MAX_ID_DIGITS else None


def valid_parent(x: int | None, new_turn: int, n_edus: int) -> bool:
    """Whether ``x`` may be the parent of ``new_turn`` in a dialogue of ``n_edus`` utterances (module rule 4):
    an utterance of the dialogue other than the new turn, ``0 <= x < n_edus`` and ``x != new_turn``."""
    return x is not None and 0 <= x < n_edus and x != new_turn


def parse_answer(
    completion: str, new_turn: int, relations: Sequence[str], n_edus: int, cut_off: bool = False
) -> ParsedTurn:
    """Read the relations that are the answer (module rules 1-5); never raises on any string, linear time.

    Args:
        completion: the model's final text for this turn (not its reasoning).
        new_turn: index j of the new turn; a valid relation has y == j.
        relations: the dataset's relation set (``prompts.RELATIONS[dataset]``).
        n_edus: number of utterances of the dialogue (ids ``0 … n_edus - 1``); a valid parent x is one of
            them other than j (:func:`valid_parent`).
        cut_off: the reply stopped at the budget (:attr:`bediscover_inspect.causes.Reply.cut_off`): the ``prose``
            rule reads nothing, only stated relations count (:mod:`bediscover_inspect.labels`, "Cut off at the
            budget").
    """
    final = final_text(completion)
    text = _MARKUP.sub("", final.text)
    allowed = set(relations)
    found = _found(text, allowed)
    stop = continuation_start(text, found[0].end) if found else None
    in_answer = found if stop is None else [r for r in found if r.end <= stop]
    chosen, rule = _answer_relations(text if stop is None else text[:stop], in_answer)
    if cut_off and rule == "prose":  # relations an unfinished analysis names on its way are no answer
        chosen, rule = [], None
    markup = has_markup(final.text)
    valid: list[Relation] = []
    seen: set[Relation] = set()
    invalid: list[str] = []
    for item in chosen:
        x, y = _edu_id(item.x_digits), _edu_id(item.y_digits)
        if markup or item.label not in allowed or y != new_turn or not valid_parent(x, new_turn, n_edus):
            raw = item.raw
            invalid.append(raw if len(raw) <= MAX_INVALID_CHARS else raw[:MAX_INVALID_CHARS] + "…")
            continue
        assert x is not None and y is not None
        relation = Relation(x, y, item.label)
        if relation not in seen:
            seen.add(relation)
            valid.append(relation)
    ignored = len(found) - len(chosen)
    return ParsedTurn(tuple(valid), tuple(invalid), len(chosen), rule, ignored, final.cut_off or cut_off, markup=markup)


def as_echo(parsed: ParsedTurn) -> ParsedTurn:
    """The parse of an answer that echoes its prompt (module rule 6): its valid relations join the invalid ones
    (as ``LABEL(x,y)``), ``echo`` is set; ``read`` is unchanged. Idempotent."""
    return replace(parsed, valid=(), invalid=parsed.invalid + tuple(str(r) for r in parsed.valid), echo=True)


def read_turn(
    completion: str, prompt: str, new_turn: int, relations: Sequence[str], n_edus: int, cut_off: bool = False
) -> ParsedTurn:
    """:func:`parse_answer` (``cut_off``: the reply stopped at the budget), then module rule 6: :func:`as_echo`
    when the answer part of ``completion`` (:func:`labels.final_text`) copies ``prompt`` (the turn's user prompt,
    :func:`labels.copies_prompt`). Never raises; linear in the completion's length for a given prompt."""
    parsed = parse_answer(completion, new_turn, relations, n_edus, cut_off)
    return as_echo(parsed) if copies_prompt(final_text(completion).text, prompt) else parsed


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

    See :func:`predicted_structure` for the layout the incremental parser sends (no empty slots).
    """
    return " ".join(per_head.get(y, "") for y in range(max(1, new_turn - window), new_turn))


def predicted_structure(per_head: dict[int, str], new_turn: int, window: int = CONTEXT_WINDOW) -> str:
    """The ``structure`` field the incremental parser sends: :func:`window_structure` without empty slots.

    The same heads in the same order, but a head with no relation (the model predicted none, or none of its
    relations was valid) adds nothing, so the relations are separated by exactly one space
    (``ELABORATION(0,1) QA_PAIR(0,3)``, never ``ELABORATION(0,1)  QA_PAIR(0,3)``), and a window with no
    relation at all gives ``""``. The data files' single-turn prompts keep their own layout
    (:func:`window_structure`): they are the authors' text and are sent as they are.

    Args:
        per_head: head index -> its predicted relations as one string (``""`` when none).
        new_turn: index j of the new turn.
    """
    heads = range(max(1, new_turn - window), new_turn)
    return " ".join(per_head[y] for y in heads if per_head.get(y, "").strip())
