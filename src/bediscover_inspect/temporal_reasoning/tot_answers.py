"""ToT-Arithmetic answers: reading the model's JSON-like dict and comparing it field by field with the gold.

Gold (data file ``tr/tot-arithmetic/test_id.json``, field ``gold``): a *Python* dict literal string such as
``"{'answer': '352 BC'}"`` or ``"{'H': 2.0, 'M': 13.0, 'S': 30.0}"``, read with :func:`ast.literal_eval`.

Reading a model answer (:func:`parse_tot_answer`), rules documented in the README ("ToT answer parsing"):

1. Only the text after the last ``</think>`` is read, cut at an unclosed ``<think>``
   (:func:`labels.final_text`; the scorer only ever passes ``state.output.completion``); typographic quotes
   become ASCII quotes.
2. Balanced ``{…}`` spans in the text (nesting respected, quotes not tracked, code fences irrelevant) are the
   candidates — but only spans nested at most :data:`MAX_SPAN_DEPTH` levels inside other balanced spans
   (depth 0 = outermost; a stray unmatched ``{`` does not count as a level), and of those at most
   :data:`MAX_CANDIDATES`: the shallowest, and within a depth the last ones by opening brace. An answer dict
   sits at depth 0 or 1 (``{"result": {"answer": …}}``); the bounds keep the work linear in the text length
   (without them, 20 000 nested braces meant 20 000 overlapping copies of the text, a minute of parsing).
   Each candidate is read as JSON, else as a Python literal (single quotes), else leniently: top-level
   ``key: value`` items split on commas outside quotes and brackets, bare words kept as strings
   (``{"answer": 352 BC}``, ``{"unordered_list": [Kyle, Jason]}``).
3. **Template placeholders and markup are no answer.** A field whose value still holds a ``<…>`` slot copied
   from the instruction (``{"answer": <year> <era>}``, ``{"unordered_list": [<name1>, <name2>]}``, ``"<date>"``;
   see :func:`is_placeholder`) is dropped from its candidate, as if absent; ``notes`` says ``placeholder``. An
   answer that holds markup anywhere — an HTML closing tag or a control character (``<p>Answer: BEFORE</p>``,
   ``\x00Answer: BEFORE``; the rule of every task, :func:`labels.has_markup`) — is **invalid**; ``notes`` says
   ``markup``.
4. Among the dict candidates the one holding most of the expected keys wins; ties go to the **last** one
   (models restate the format first and answer last). No candidate with an expected key: ``"key": value``
   fragments without braces are tried (placeholder values skipped too; a value is a ``[…]`` list, a
   quoted string, else the text up to the next ``,``, line break or ``}``). Still nothing: the answer is
   **invalid** (scored wrong, counted); ``notes`` says ``placeholder`` when only such values were found.
5. **A cut-off answer is invalid.** When the text ends inside an unclosed ``{`` whose own level (outside the
   balanced spans nested in it) holds an expected key, and the value of the last such key is unfinished —
   an opening quote or ``[`` never closed, or a bare value running to the end of the text on its line
   (``{"answer": "352 B``, ``{"H": 2.0, "M": 1``, ``{"unordered_list": ["Kyle", "Ja``) — the model was cut
   off while writing its answer: the answer is **invalid** and ``notes`` says ``cut_off``, whatever was read
   before it (it supersedes earlier dicts, as a later answer does). A brace left open after a finished value
   (``{"answer": "352 BC"``, or a bare value followed by a line break) is read as a fragment (rule 4).

A model that continues a few-shot pattern — after the first expected key, a line that starts a new question
(:data:`labels.CONTINUATION`: ``Question:``, ``Q:`` …) — is read up to that line: the answer to the question asked
is the first. An answer that is invalid and copies the prompt (:func:`labels.copies_prompt`) is an ``echo``.

Comparison (:func:`tot_correct`): the answer is right when every gold field is present and equal; extra fields
(an ``explanation``) are ignored. Keys match case-insensitively. Scalars: numbers compare numerically
(``2``, ``2.0``, ``"2"`` and ``"+2"`` are equal); strings after lower-casing, dropping surrounding quotes,
treating ``_`` as a space, collapsing whitespace and dropping a trailing full stop. Lists: ``unordered_list``
compares as a multiset (the instructions say "unordered"), every other list in order; a string answer where a
list is expected is split on commas.
"""

from __future__ import annotations

import ast
import json
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..labels import continuation_start, final_text, has_markup

UNORDERED_KEYS: frozenset[str] = frozenset({"unordered_list"})
"""Gold keys whose list value is compared as a multiset (instruction: "an unordered list of …")."""

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
_WS = re.compile(r"\s+")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_BRACE = re.compile(r"[{}]")
_SLOT = re.compile(r"<[A-Za-z_][\w .,/-]{0,40}>")
_KEY = re.compile(r"([\"']?)([A-Za-z_][\w ]*)\1")

MAX_SPAN_DEPTH = 2
"""Deepest nesting level of a ``{…}`` candidate (0 = outermost): top level, nested once, nested twice."""

MAX_CANDIDATES = 256
"""At most this many candidate spans are read: the shallowest, within a depth the last by opening brace."""

_FRAGMENT_KEY = r"(?<![\w])[\"']?{key}[\"']?\s*[:=]\s*"


@dataclass(frozen=True)
class ParsedTotAnswer:
    """One model answer read as a dict.

    Attributes:
        value: the dict read (``None`` when the answer is invalid).
        source: ``"json"``, ``"literal"``, ``"lenient"``, ``"fragment"`` or ``"none"`` — how it was read.
        candidates: number of ``{…}`` candidate spans read (rule 2 bounds them).
    """

    value: dict[str, Any] | None
    source: str = "none"
    candidates: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)
    """``"placeholder"``: a template placeholder value was seen and ignored (rule 3); ``"markup"``: the answer
    holds markup (rule 3), so it is invalid; ``"cut_off"``: the text ends inside an unfinished answer value
    (rule 5), so the answer is invalid."""

    @property
    def invalid(self) -> bool:
        """No dict with an expected key could be read."""
        return self.value is None


def parse_gold(gold: str) -> dict[str, Any]:
    """Read a gold string of the data file (a Python dict literal).

    Raises:
        ValueError: not a literal (any error of :func:`ast.literal_eval` — ``SyntaxError``, ``TypeError`` for
            an unhashable key such as ``{[1]: 2}``, ``MemoryError``, ``RecursionError`` — is re-raised as a
            ``ValueError``), or not a non-empty dict with string keys.
    """
    try:
        value = ast.literal_eval(gold)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as ex:
        raise ValueError(f"gold is not a Python literal: {type(ex).__name__}: {ex}") from None
    if not isinstance(value, dict) or not value or not all(isinstance(k, str) for k in value):
        raise ValueError(f"gold is not a non-empty dict with string keys: {gold!r}")
    return value


def _brace_pairs(text: str) -> tuple[list[tuple[int, int]], list[int]]:
    """Balanced ``{…}`` pairs ``(start, end)`` sorted by start, and the offsets of the ``{`` never closed."""
    opened: list[int] = []
    pairs: list[tuple[int, int]] = []
    for match in _BRACE.finditer(text):
        pos = match.start()
        if text[pos] == "{":
            opened.append(pos)
        elif opened:
            pairs.append((opened.pop(), pos + 1))
    pairs.sort()
    return pairs, opened


def _brace_spans(text: str) -> list[str]:
    """The candidate ``{…}`` substrings, in order of their opening brace (rule 2 of the module docstring).

    Balanced pairs nested at most :data:`MAX_SPAN_DEPTH` levels inside other balanced pairs; beyond
    :data:`MAX_CANDIDATES` of them, the shallowest are kept, and within a depth the last ones. Every character
    lies in at most ``MAX_SPAN_DEPTH + 1`` kept spans, so the copies total at most three times the text.
    Quotes are not tracked: braces inside answer strings are rare, and a stray quote in prose must not hide
    the answer.
    """
    pairs, _ = _brace_pairs(text)
    kept: list[tuple[int, int, int]] = []  # (depth, start, end)
    enclosing: list[int] = []  # end positions of the balanced pairs around the current one (they nest)
    for start, end in pairs:
        while enclosing and enclosing[-1] <= start:
            enclosing.pop()
        if len(enclosing) <= MAX_SPAN_DEPTH:
            kept.append((len(enclosing), start, end))
        enclosing.append(end)
    if len(kept) > MAX_CANDIDATES:  # shallowest first, then the last ones
        kept = sorted(kept, key=lambda k: (k[0], -k[1]))[:MAX_CANDIDATES]
        kept.sort(key=lambda k: k[1])
    return [text[a:b] for _, a, b in kept]


def _unfinished_value(text: str, start: int) -> bool:
    """Whether the value starting at ``start`` (after ``key:``) runs unfinished to the end of ``text``."""
    rest = text[start:].lstrip()
    if not rest:
        return True
    if rest[0] in "\"'":
        return rest.find(rest[0], 1) < 0
    if rest[0] == "[":
        return "]" not in rest
    return not any(c in rest for c in ",\n")


def _key_pattern(expected_keys: list[str] | tuple[str, ...]) -> re.Pattern[str]:
    """``key:`` / ``"key" =`` for any of the expected keys."""
    keys = "|".join(re.escape(k) for k in expected_keys)
    return re.compile(rf"(?<![\w])[\"']?(?:{keys})[\"']?\s*[:=]", re.IGNORECASE)


def is_cut_off(text: str, expected_keys: list[str] | tuple[str, ...]) -> bool:
    """Rule 5 of the module docstring: the text ends inside an unfinished value of an expected key, within an
    unclosed ``{``. Linear in the text's length."""
    pairs, unclosed = _brace_pairs(text)
    if not unclosed:
        return False
    last_open = unclosed[-1]
    # every brace after the last unclosed one is balanced; the top-level ones among them are disjoint
    covered: list[tuple[int, int]] = []
    for start, end in pairs:
        if start > last_open and (not covered or start >= covered[-1][1]):
            covered.append((start, end))
    pattern = _key_pattern(expected_keys)
    last_value: int | None = None
    starts = [c[0] for c in covered]
    for match in pattern.finditer(text, last_open):
        i = bisect_right(starts, match.start()) - 1
        if i >= 0 and match.start() < covered[i][1]:
            continue  # inside a balanced span nested in the open one
        last_value = match.end()
    return last_value is not None and _unfinished_value(text, last_value)


def is_placeholder(value: Any) -> bool:
    """True for a value still holding a template slot: a string with a ``<word…>`` slot (``<year> <era>``,
    ``<num_days>``, ``"<date>"``) or a list with such an item (``[<name1>, <name2>]``). No gold has one."""
    if isinstance(value, str):
        return _SLOT.search(value) is not None
    if isinstance(value, (list, tuple)):
        return any(is_placeholder(item) for item in value)
    return False


def is_markup(value: Any) -> bool:
    """True for a value holding markup (:func:`labels.has_markup`: an HTML closing tag such as ``BEFORE</p>``, or a
    control character), or a list with such an item (rule 3). No gold has one."""
    if isinstance(value, str):
        return has_markup(value)
    if isinstance(value, (list, tuple)):
        return any(is_markup(item) for item in value)
    return False


class _Stops:
    """Offsets of the characters that end a fragment value (``]``, quotes, ``,``, line break, ``}``), found once:
    each value's end is then a bisect, so reading every fragment is linear in the text."""

    def __init__(self, text: str) -> None:
        self.at: dict[str, list[int]] = {c: [m.start() for m in re.finditer(re.escape(c), text)] for c in "]\"',\n}"}

    def next(self, chars: str, start: int) -> int | None:
        """Offset of the first of ``chars`` at or after ``start``, ``None`` if there is none."""
        found = [p[i] for p in (self.at[c] for c in chars) if (i := bisect_left(p, start)) < len(p)]
        return min(found) if found else None


def _fragment_values(text: str, key: str, stops: _Stops) -> list[str]:
    """The raw values of ``key: value`` fragments in ``text``, left to right (rule 4): a ``[…]`` list, a quoted
    string, else a bare value up to the next ``,``, line break or ``}``. A value is consumed with its key, so
    fragments never overlap."""
    pattern = re.compile(_FRAGMENT_KEY.format(key=re.escape(key)), re.IGNORECASE)
    values: list[str] = []
    pos = 0
    while (match := pattern.search(text, pos)) is not None:
        start = match.end()
        pos = max(start, match.start() + 1)
        if start >= len(text):
            break
        first = text[start]
        end: int | None = None
        if first in "[\"'":
            close = stops.next("]" if first == "[" else first, start + 1)
            end = close + 1 if close is not None else None
        if end is None and first not in ",\n}\"'" and not first.isspace():
            stop = stops.next(",\n}", start)
            end = stop if stop is not None else len(text)
        if end is not None:
            values.append(text[start:end])
            pos = end
    return values


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside quotes and brackets."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    current: list[str] = []
    blank = True  # current holds only whitespace (kept as a flag: re-joining it per quote was quadratic)
    for c in text:
        if quote:
            current.append(c)
            if c == quote:
                quote = None
            continue
        if c in "\"'" and (blank or current[-1] in " [:,"):
            quote = c
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth = max(0, depth - 1)
        if c == sep and depth == 0:
            parts.append("".join(current))
            current = []
            blank = True
        else:
            current.append(c)
            blank = blank and c.isspace()
    parts.append("".join(current))
    return parts


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _lenient_value(text: str) -> Any:
    text = text.strip().rstrip(",").strip()
    for reader in (json.loads, ast.literal_eval):
        try:
            return reader(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            pass
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip()
        return [] if not inner else [_unquote(item) for item in _split_top(inner, ",") if item.strip()]
    return _unquote(text)


def _key_start(part: str) -> tuple[str, str] | None:
    """``(key, value text)`` when ``part`` starts with ``key:`` / ``"key":`` (a bare key has no space)."""
    colon = part.find(":")
    if colon < 0:
        return None
    match = _KEY.fullmatch(part[:colon].strip())  # on the stripped text: no backtracking over whitespace runs
    if not match or (match.group(1) == "" and " " in match.group(2).strip()):
        return None
    return match.group(2).strip(), part[colon + 1 :]


def _lenient_dict(span: str) -> dict[str, Any] | None:
    """Read ``{key: value, …}`` with bare words; commas inside an unquoted value are kept with that value."""
    inner = span[1:-1]
    items: list[tuple[str, list[str]]] = []
    for part in _split_top(inner, ","):
        start = _key_start(part)
        if start is not None:
            items.append((start[0], [start[1]]))
        elif items:
            items[-1][1].append(part)
        elif part.strip():
            return None
    if not items:
        return None
    return {key: _lenient_value(",".join(pieces)) for key, pieces in items}


def _read_span(span: str) -> tuple[dict[str, Any] | None, str]:
    for name, reader in (("json", json.loads), ("literal", ast.literal_eval)):
        try:
            value = reader(span)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return {str(k): v for k, v in value.items()}, name
    try:
        return _lenient_dict(span), "lenient"
    except (ValueError, RecursionError):
        return None, "none"


def _key_overlap(value: Mapping[str, Any], expected: set[str]) -> int:
    return len({k.strip().lower() for k in value} & expected)


def parse_tot_answer(completion: str, expected_keys: list[str] | tuple[str, ...]) -> ParsedTotAnswer:
    """Read the answer dict out of a model completion (rules in the module docstring). Never raises.

    Args:
        completion: the model's final text (``state.output.completion``; never the reasoning).
        expected_keys: the gold dict's keys (the instruction names them), e.g. ``["H", "M", "S"]``.

    Returns:
        :class:`ParsedTotAnswer`; ``value`` is ``None`` when no dict with an expected key was found.
    """
    text = _answer_text(completion, expected_keys)
    if has_markup(text):
        return ParsedTotAnswer(None, "none", 0, ("markup",))
    spans = _brace_spans(text)
    if expected_keys and is_cut_off(text, expected_keys):
        return ParsedTotAnswer(None, "none", len(spans), ("cut_off",))
    best, placeholder = _best_dict(spans, {k.lower() for k in expected_keys})
    notes = ("placeholder",) if placeholder else ()
    if best is not None:
        return ParsedTotAnswer(best[0], best[1], len(spans), notes)
    fragment, placeholder = _fragment(text, expected_keys)
    if placeholder:
        notes = ("placeholder",)
    if fragment:
        return ParsedTotAnswer(fragment, "fragment", len(spans), notes)
    return ParsedTotAnswer(None, "none", len(spans), notes)


def _answer_text(completion: str, expected_keys: list[str] | tuple[str, ...]) -> str:
    """The answer part of a completion (:func:`~bediscover_inspect.labels.final_text`), curly quotes made straight,
    cut where a new question of the model's own starts after the first expected key."""
    text = final_text(completion).text.translate(_QUOTES)
    first = _key_pattern(expected_keys).search(text) if expected_keys else None
    stop = continuation_start(text, first.end()) if first is not None else None
    return text[:stop] if stop is not None else text


def _best_dict(spans: Sequence[str], expected: set[str]) -> tuple[tuple[dict[str, Any], str] | None, bool]:
    """The dict of the brace ``spans`` with the most ``expected`` keys answered (the last one among equals), with
    its source, or ``None``; and whether any dict read held a placeholder value."""
    best: tuple[int, int, dict[str, Any], str] | None = None
    placeholder = False
    for order, span in enumerate(spans):
        value, source = _read_span(span)
        if not value:
            continue
        answered = {k: v for k, v in value.items() if not is_placeholder(v)}
        placeholder = placeholder or any(is_placeholder(v) for v in value.values())
        overlap = _key_overlap(answered, expected)
        if overlap and (best is None or (overlap, order) >= (best[0], best[1])):
            best = (overlap, order, answered, source)
    return (None if best is None else (best[2], best[3])), placeholder


def _fragment(text: str, expected_keys: Sequence[str]) -> tuple[dict[str, Any], bool]:
    """The ``key: value`` fragments of ``text`` for the expected keys (each key's last value that is no
    placeholder), and whether a placeholder value was passed over."""
    fragment: dict[str, Any] = {}
    placeholder = False
    stops = _Stops(text)
    for key in expected_keys:
        for raw in reversed(_fragment_values(text, key, stops)):
            value = _lenient_value(raw)
            if not is_placeholder(value):
                fragment[key] = value
                break
            placeholder = True
    return fragment, placeholder


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    if isinstance(value, str):
        text = value.strip().rstrip(".").strip()
        if _NUMBER.match(text):
            try:
                number = float(text)
            except (ValueError, OverflowError):
                return None
            return number if math.isfinite(number) else None
    return None


def normalise_scalar(value: Any) -> str | float:
    """A scalar in comparable form: a float for anything numeric, else the normalised string (see module doc)."""
    number = _as_number(value)
    if number is not None:
        return number
    text = _unquote(str(value)).lower().replace("_", " ")
    text = _WS.sub(" ", text).strip()
    return text[:-1].rstrip() if text.endswith(".") else text


def _scalars_equal(gold: Any, pred: Any) -> bool:
    a, b = normalise_scalar(gold), normalise_scalar(pred)
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-6)
    return a == b


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, str):
        inner = value.strip()
        if inner.startswith("[") and inner.endswith("]"):
            inner = inner[1:-1]
        return [_unquote(v) for v in inner.split(",") if v.strip()]
    return [value]


def field_correct(key: str, gold: Any, pred: Any) -> bool:
    """One field: lists in order (multiset for :data:`UNORDERED_KEYS`), scalars by :func:`normalise_scalar`."""
    if isinstance(gold, (list, tuple)):
        got = _as_list(pred)
        if len(got) != len(gold):
            return False
        if key.lower() in UNORDERED_KEYS:
            norm_gold = sorted(map(str, map(normalise_scalar, gold)))
            norm_pred = sorted(map(str, map(normalise_scalar, got)))
            return norm_gold == norm_pred
        return all(_scalars_equal(g, p) for g, p in zip(gold, got))
    if isinstance(pred, (list, tuple, dict)):
        return False
    return _scalars_equal(gold, pred)


def tot_correct(gold: Mapping[str, Any], pred: Mapping[str, Any] | None) -> bool:
    """True when every gold field is present in ``pred`` (keys case-insensitive) and equal; never raises."""
    if pred is None:
        return False
    by_key = {str(k).strip().lower(): v for k, v in pred.items()}
    for key, gold_value in gold.items():
        if key.lower() not in by_key:
            return False
        if not field_correct(key, gold_value, by_key[key.lower()]):
            return False
    return True
