"""Reading a sentence order out of a model answer (Task 4).

Only the final completion is read, and of it only the text after the last ``</think>``, cut at an unclosed
``<think>`` (:func:`labels.final_text`). An answer that holds markup — an HTML closing tag or a control character
(:func:`labels.has_markup`, the rule of every task; the sentence tags ``</s 3>`` are no markup) — is **invalid**.
Then, first rule that applies:

1. ``markers`` — the paper's format (Appendix B.4, §6.1 "text-to-marker"): the sequence of opening markers in
   order of appearance, anywhere in the answer — or, when an answer marker stands right before a marker (the
   label rule's markers of :data:`labels.ANSWER_MARKER`, e.g. ``Answer:``, ``Actually,``, ``Corrected:``, and
   ``order`` / ``ordering`` / ``sequence`` with ``:``, ``=`` or ``is``: ``the correct order is <s 2> …``), only
   the markers after the last such answer marker: an order the answer states last replaces one it considered
   first. A marker is ``s`` and a number inside ``<…>``, ``[…]`` or
   ``(…)``, case-insensitive, spaces and one ``_`` or ``-`` allowed: ``<s 3>``, ``<s3>``, ``<S 3>``,
   ``[s 3]``, ``(s3)``, ``<s_3>``; closing tags ``</s 3>`` are ignored, so an answer that echoes tagged
   sentences still yields its order.
2. A **whole-answer** order in another format. The whole answer — after dropping code fences, ``*`` / back-tick
   markdown, a leading ``Answer:`` / ``Order:`` / ``The correct order is`` / ``Sentence order:`` and the like,
   and a final full stop — must be a list of at least two items and nothing else:

   * ``json`` — a JSON array of items (numbers or item strings), or a JSON object with one key whose value is
     such an array: ``[3, 1, 2]``, ``["s3", "s1", "s2"]``, ``{"order": [3, 1, 2]}``;
   * ``arrows`` — items joined by ``->``, ``=>``, ``→`` or ``>``: ``3 -> 1 -> 2``, ``s3 > s1 > s2``;
   * ``bracketed`` — items in one pair of ``[…]`` or ``(…)`` that is not JSON: ``[s3, s1, s2]``, ``(3 1 2)``;
   * ``sentence_words`` — items spelled ``Sentence k``: ``Sentence 3, Sentence 1, Sentence 2``;
   * ``tags`` — bare tags ``s3 s1 s2`` / ``S3, S1, S2`` (``s`` and a number, no brackets);
   * ``numbers`` — plain numbers: ``3 1 2``, ``3, 1, 2``, one per line.

   Items are separated by commas, semicolons, white space or the arrows above, and all items of one answer are
   of one kind (numbers, tags or ``Sentence k``; quotes around an item are allowed). A list written one item
   per line may number its lines ``1.`` ``2.`` … (counting up from 1, in order); those position numbers are
   not items.
   A concluding sentence (opened by a conclusion cue, :data:`labels.CONCLUSION`: ``So, the paragraph reads
   <s 2> <s 1> <s 3>.``) marks the markers after its cue as an answer marker does. Two markers joined by ``or``
   (``<s 2> or <s 1> could open it``) are a hedge: the answer is **invalid**. Markers read from prose (no
   answer marker, no conclusion cue) must be a committed statement: when a sentence holding one of them is
   tentative (:data:`TENTATIVE`: ``might``, ``could``, ``may``, ``perhaps``, ``possibly``, ``maybe``,
   ``not sure``, ``hard to say`` …: ``<s 2> might come before <s 1>, though <s 3> could also open it``), the
   answer is an analysis that never commits and is **invalid** — unless its last sentence holding markers is
   not tentative and holds two or more of them (``… The paragraph reads <s 3> <s 2> <s 1>.``), or the answer
   opens with such a sentence (``<s 3> <s 2> <s 1>`` then a tentative explanation): then that sentence's markers
   are the order. A model that continues a few-shot
   pattern (a new question line, :data:`labels.CONTINUATION`, after the first marker) is read up to that line.
3. Otherwise the answer is **invalid**: no ids (the empty sequence is scored, 0 everywhere, LUMR 1) and counted.

**Echo.** An answer that reads as the order given (``<s 1> <s 2> …``) and copies at least half of the prompt's
sentences is an echo of the prompt, not an identity order: the scorer counts it invalid, with its own rate
``echo`` (:func:`echoes_sentences`).

Digits inside prose are never read: a format of rule 2 holds only when the whole answer is the list. Numbers are
1-based, as in the prompt, and become 0-based shuffled indices. A sequence that is not a permutation (a
duplicate, a missing or an out-of-range number) is never repaired: it is returned as read and scored as given.
The ``format`` of the result says which rule read the answer, so a scorer can report how often the paper's
format was followed (format compliance).

Every step is linear in the answer's length: one marker scan, one substitution and one split, and at most one
``json.loads``.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

from ..labels import ANSWER_MARKER, conclusion_ends, continuation_start, copies_prompt, final_text, has_markup

MARKER = re.compile(r"(?<![/\w])[<\[(]\s*s\s*(?:[-_]\s*)?(\d{1,4})\s*[>\])]", re.IGNORECASE)
"""Opening sentence marker ``<s n>`` and its lenient variants (closing ``</s n>`` excluded)."""

FORMATS: tuple[str, ...] = ("markers", "json", "arrows", "bracketed", "sentence_words", "tags", "numbers")
"""Every value :attr:`ParsedOrder.format` can take besides ``None``; ``markers`` is the paper's."""

PAPER_FORMAT = "markers"
"""The format of Appendix B.4 (``<s n>`` markers)."""

ORDER_MARKER = re.compile(
    r"(?=[os])(?<![^\W_])(?:order(?:ing)?|sequence)(?![^\W_])[ \t]*(?:(?:\*\*|__)[ \t]*)?(?::|=|is(?![^\W_]))",
    re.IGNORECASE,
)
"""An answer marker for an order (``The correct order is``, ``Sequence:``); see rule 1."""

_ORDER_GAP = re.compile(r"[\s*_`'\"“”‘’:=\-–—]*")
"""What may stand between an answer marker and the first ``<s n>`` marker it marks (white space, markdown,
quotes, ``:``, ``=``, dashes)."""

_FENCE = re.compile(r"```[A-Za-z]*")
_MARKDOWN = re.compile(r"[*`]")
_PREFIX = re.compile(
    r"^\s*(?:(?:the|my|final|correct|proposed|predicted|reordered|coherent|right)\s+){0,3}"
    r"(?:answer|order(?:ing)?|sequence|sentence\s+order|order\s+of\s+(?:the\s+)?sentences|output|result)"
    r"(?:\s+is)?\s*[:=]?\s*",
    re.IGNORECASE,
)
_JOIN = re.compile(r"(?<![^\W_])(sentence|s)[ \t_\-]*(?=\d)", re.IGNORECASE)
_SEPARATOR = re.compile(r"\s*(?:,|;|->|=>|→|>)\s*|\s+")
_ARROW = re.compile(r"->|=>|→|>")
_ITEM = re.compile(r"[\"'“”‘’]?(sentence|s)?(\d{1,4})[\"'“”‘’]?", re.IGNORECASE)
_ENUMERATED = re.compile(r"\s*(\d{1,4})[.)]\s+(\S(?:.*\S)?)\s*")
_KIND_FORMAT = {"sentence": "sentence_words", "s": "tags", "": "numbers"}


@dataclass(frozen=True)
class ParsedOrder:
    """One answer read as a sentence order (rules in the module docstring).

    Attributes:
        ids: 0-based shuffled indices in the order given, as read (duplicates and out-of-range numbers kept;
            ``-1`` for a ``0`` written by the model).
        format: the rule that read it (one of :data:`FORMATS`; ``"markers"`` is the paper's), ``None`` when
            invalid.
        cut_off: the completion ends inside an unclosed ``<think>`` (:func:`labels.final_text`).
        markup: invalid because the answer holds markup (:func:`labels.has_markup`).
    """

    ids: tuple[int, ...] = ()
    format: str | None = None
    cut_off: bool = False
    markup: bool = False

    @property
    def invalid(self) -> bool:
        """No order could be read."""
        return not self.ids

    @property
    def paper_format(self) -> bool:
        """The answer used the paper's ``<s n>`` markers."""
        return self.format == PAPER_FORMAT


def _clean(text: str) -> str:
    text = _MARKDOWN.sub("", _FENCE.sub(" ", text)).strip()
    text = _PREFIX.sub("", text, count=1).strip()
    return text[:-1].rstrip() if text.endswith(".") else text


def _items(tokens: list[str]) -> tuple[list[int], str] | None:
    """1-based items of one kind -> (0-based ids, kind), or ``None`` if a token is no item or kinds mix."""
    ids: list[int] = []
    kinds: set[str] = set()
    for token in tokens:
        match = _ITEM.fullmatch(token)
        if match is None:
            return None
        kinds.add((match.group(1) or "").lower())
        ids.append(int(match.group(2)) - 1)
    if len(ids) < 2 or len(kinds) != 1:
        return None
    return ids, kinds.pop()


def _json_order(text: str) -> list[int] | None:
    if not text.startswith(("[", "{")):
        return None
    try:
        value: Any = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if isinstance(value, dict) and len(value) == 1:
        value = next(iter(value.values()))
    if not isinstance(value, list) or not all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in value):
        return None
    read = _items([_JOIN.sub(r"\1", str(v)).strip() for v in value])
    return read[0] if read is not None else None


def _unenumerate(text: str) -> str:
    """Drop ``1.`` ``2.`` … position numbers of a one-item-per-line list (they must count up from 1)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return text
    rests = []
    for position, line in enumerate(lines, start=1):
        match = _ENUMERATED.fullmatch(line)
        if match is None or int(match.group(1)) != position:
            return text
        rests.append(match.group(2))
    return "\n".join(rests)


def _whole_answer_order(text: str) -> tuple[list[int], str] | None:
    """Rule 2 of the module docstring: ``(ids, format)`` or ``None``."""
    text = _clean(text)
    if not text:
        return None
    from_json = _json_order(text)
    if from_json is not None:
        return from_json, "json"
    bracketed = len(text) >= 2 and (text[0], text[-1]) in {("[", "]"), ("(", ")")}
    if bracketed:
        text = text[1:-1].strip()
    text = _JOIN.sub(r"\1", _unenumerate(text))
    read = _items(_SEPARATOR.split(text))
    if read is None:
        return None
    ids, kind = read
    if _ARROW.search(text):
        return ids, "arrows"
    if bracketed:
        return ids, "bracketed"
    return ids, _KIND_FORMAT[kind]


_REACH = 200  # a concluding sentence's first marker lies at most this many characters after its cue
_OR_GAP = re.compile(r"[\s,*_`'\"“”‘’]*or(?![^\W_])[\s,*_`'\"“”‘’]*", re.IGNORECASE)


def _last_marked_order(text: str) -> int:
    """Where the markers to read start: after the last answer marker that a ``<s n>`` marker follows (only
    :data:`_ORDER_GAP` between them), or the last conclusion cue whose sentence holds a marker, else 0 (rule 1)."""
    start = 0
    for pattern in (ANSWER_MARKER, ORDER_MARKER):
        for match in pattern.finditer(text):
            gap = _ORDER_GAP.match(text, match.end())
            if gap is not None and MARKER.match(text, gap.end()) and match.end() > start:
                start = match.end()
    for cue in conclusion_ends(text):
        first = MARKER.search(text, cue, cue + _REACH)
        if first is not None and cue > start and not _BREAK.search(text, cue, first.start()):
            start = cue
    return start


_BREAK = re.compile(r"[.!?\n]")

TENTATIVE = re.compile(
    r"(?=[mcpunhd])(?<![^\W_])(?:might|could|may|perhaps|possibly|maybe|unclear|uncertain|not[ \t]+(?:sure|certain|clear)"
    r"|hard[ \t]+to[ \t]+(?:say|tell)|difficult[ \t]+to[ \t]+(?:say|tell))(?![^\W_])",
    re.IGNORECASE,
)
"""A word that makes a sentence tentative (rule 2: prose markers in such a sentence state no order)."""


_CLOSING = re.compile(r"</\s*s\s*(?:[-_]\s*)?\d{1,4}\s*>", re.IGNORECASE)
_LINE_LEAD = re.compile(r"[ \t]*(?:[-*•+][ \t]+|\d{1,3}[.)][ \t]+)?")


def _content_spans(text: str, found: list[re.Match[str]]) -> list[tuple[int, int]]:
    """Spans of sentence text that the answer quotes after a marker, in order and disjoint: up to the closing tag
    ``</s n>`` that follows the marker before the next one, or, for a marker that opens its line (after a bullet
    or list number) with no other marker on the line, the rest of the line."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    spans = []
    for i, marker in enumerate(found):
        limit = found[i + 1].start() if i + 1 < len(found) else len(text)
        closing = _CLOSING.search(text, marker.end(), limit)
        if closing is not None:
            spans.append((marker.end(), closing.start()))
            continue
        line = bisect_right(newlines, marker.start())
        line_start = newlines[line - 1] + 1 if line > 0 else 0
        line_end = newlines[line] if line < len(newlines) else len(text)
        if limit >= line_end and _LINE_LEAD.fullmatch(text, line_start, marker.start()):
            spans.append((marker.end(), line_end))
    return spans


def _committed(text: str, found: list[re.Match[str]]) -> list[re.Match[str]]:
    """The markers read from prose (rule 2): all of them when no sentence holding one is tentative; else the
    markers of the last such sentence if it is not tentative and holds two or more, else those of the first if the
    answer opens with it and it is not tentative and holds two or more; else none. A tentative word
    inside quoted sentence text (:func:`_content_spans`) does not count. One scan each for sentence breaks and
    tentative words, then a bisect per marker and per word."""
    cues = [m.start() for m in TENTATIVE.finditer(text)]
    if not found or not cues:
        return found
    spans = _content_spans(text, found)
    starts = [a for a, _ in spans]
    cues = [c for c in cues if not (0 <= (k := bisect_right(starts, c) - 1) and c < spans[k][1])]
    breaks = [m.start() for m in _BREAK.finditer(text)]
    sentences: dict[int, list[re.Match[str]]] = {}
    for marker in found:
        sentences.setdefault(bisect_right(breaks, marker.start()), []).append(marker)

    def tentative(index: int) -> bool:
        start = breaks[index - 1] if index > 0 else 0
        end = breaks[index] if index < len(breaks) else len(text)
        i = bisect_left(cues, start)
        return i < len(cues) and cues[i] < end

    if not any(tentative(index) for index in sentences):
        return found
    for index in (max(sentences), min(sentences)):  # the last sentence states the order, or the answer opens with it
        opens = index == max(sentences) or not text[: found[0].start()].strip()
        if opens and not tentative(index) and len(sentences[index]) >= 2:
            return sentences[index]
    return []


def echoes_sentences(text: str, ids: tuple[int, ...], prompt: str) -> bool:
    """Whether an answer read as ``ids`` is an echo of the prompt's tagged sentences: the order read is the order
    given (``0, 1, …, n-1``) and the answer copies at least half of the prompt's sentence lines
    (:func:`labels.copies_prompt`, sentences of 20 characters or more)."""
    return ids == tuple(range(len(ids))) and len(ids) > 1 and copies_prompt(text, _TAGS.sub(" ", prompt))


_TAGS = re.compile(r"</?s[ \t]*\d{1,4}>", re.IGNORECASE)


def parse_order(completion: str | None) -> ParsedOrder:
    """Read the sentence order of one answer (rules in the module docstring); never raises, linear time.

    Args:
        completion: the model's final text (``state.output.completion``, never the reasoning).

    Returns:
        :class:`ParsedOrder`: 0-based ids as read, the format that read them (``None`` and no ids when invalid).
    """
    final = final_text(completion)
    text = final.text
    if has_markup(text):
        return ParsedOrder((), None, final.cut_off, markup=True)
    first = MARKER.search(text)
    stop = continuation_start(text, first.end()) if first is not None else None
    if stop is not None:
        text = text[:stop]
    start = _last_marked_order(text)
    found = list(MARKER.finditer(text, start))
    if any(_OR_GAP.fullmatch(text, a.end(), b.start()) for a, b in zip(found, found[1:])):
        return ParsedOrder((), None, final.cut_off)  # a hedge between two orders: no order stated
    if start == 0:
        found = _committed(text, found)
    markers = [int(m.group(1)) - 1 for m in found]
    if markers:
        return ParsedOrder(tuple(markers), PAPER_FORMAT, final.cut_off)
    whole = _whole_answer_order(text)
    if whole is not None:
        return ParsedOrder(tuple(whole[0]), whole[1], final.cut_off)
    return ParsedOrder((), None, final.cut_off)
