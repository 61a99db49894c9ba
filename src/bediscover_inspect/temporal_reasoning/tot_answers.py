"""ToT-Arithmetic answers: reading the model's JSON-like dict and comparing it field by field with the gold.

Gold (data file ``tr/tot-arithmetic/test_id.json``, field ``gold``): a *Python* dict literal string such as
``"{'answer': '352 BC'}"`` or ``"{'H': 2.0, 'M': 13.0, 'S': 30.0}"``, read with :func:`ast.literal_eval`.

Reading a model answer (:func:`parse_tot_answer`), rules documented in the README ("ToT answer parsing"):

1. ``<think>…</think>`` blocks are removed (the scorer only ever passes ``state.output.completion``);
   typographic quotes become ASCII quotes.
2. Every balanced ``{…}`` span in the text (quotes and nesting respected, code fences irrelevant) is a
   candidate. Each is read as JSON, else as a Python literal (single quotes), else leniently: top-level
   ``key: value`` items split on commas outside quotes and brackets, bare words kept as strings
   (``{"answer": 352 BC}``, ``{"unordered_list": [Kyle, Jason]}``).
3. Among the dict candidates the one holding most of the expected keys wins; ties go to the **last** one
   (models restate the format first and answer last). No candidate with an expected key: ``"key": value``
   fragments without braces are tried. Still nothing: the answer is **invalid** (scored wrong, counted).

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
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..labels import strip_reasoning

UNORDERED_KEYS: frozenset[str] = frozenset({"unordered_list"})
"""Gold keys whose list value is compared as a multiset (instruction: "an unordered list of …")."""

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
_WS = re.compile(r"\s+")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_FRAGMENT = r"(?<![\w])[\"']?{key}[\"']?\s*[:=]\s*(\[[^\]]*\]|\"[^\"]*\"|'[^']*'|[^,\n}}\"'\s][^,\n}}]*)"


@dataclass(frozen=True)
class ParsedTotAnswer:
    """One model answer read as a dict.

    Attributes:
        value: the dict read (``None`` when the answer is invalid).
        source: ``"json"``, ``"literal"``, ``"lenient"``, ``"fragment"`` or ``"none"`` — how it was read.
        candidates: number of ``{…}`` spans seen.
    """

    value: dict[str, Any] | None
    source: str = "none"
    candidates: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def invalid(self) -> bool:
        """No dict with an expected key could be read."""
        return self.value is None


def parse_gold(gold: str) -> dict[str, Any]:
    """Read a gold string of the data file (a Python dict literal).

    Raises:
        ValueError: not a literal, or not a non-empty dict with string keys.
    """
    value = ast.literal_eval(gold)
    if not isinstance(value, dict) or not value or not all(isinstance(k, str) for k in value):
        raise ValueError(f"gold is not a non-empty dict with string keys: {gold!r}")
    return value


def _brace_spans(text: str) -> list[str]:
    """Every balanced ``{…}`` substring (outer and nested), in order of its opening brace; one linear pass.

    Quotes are not tracked: braces inside answer strings are rare, and a stray quote in prose must not hide
    the answer.
    """
    opened: list[int] = []
    found: list[tuple[int, int]] = []
    for pos, char in enumerate(text):
        if char == "{":
            opened.append(pos)
        elif char == "}" and opened:
            found.append((opened.pop(), pos + 1))
    return [text[a:b] for a, b in sorted(found)]


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside quotes and brackets."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    current: list[str] = []
    for c in text:
        if quote:
            current.append(c)
            if c == quote:
                quote = None
            continue
        if c in "\"'" and (not current or "".join(current).strip() == "" or current[-1] in " [:,"):
            quote = c
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth = max(0, depth - 1)
        if c == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(c)
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


_KEY_START = re.compile(r"^\s*([\"']?)([A-Za-z_][\w ]*?)\1\s*:(.*)$", re.DOTALL)


def _lenient_dict(span: str) -> dict[str, Any] | None:
    """Read ``{key: value, …}`` with bare words; commas inside an unquoted value are kept with that value."""
    inner = span[1:-1]
    items: list[tuple[str, str]] = []
    for part in _split_top(inner, ","):
        match = _KEY_START.match(part)
        if match and not (match.group(1) == "" and " " in match.group(2).strip()):
            items.append((match.group(2).strip(), match.group(3)))
        elif items:
            key, value = items[-1]
            items[-1] = (key, value + "," + part)
        elif part.strip():
            return None
    if not items:
        return None
    return {key: _lenient_value(value) for key, value in items}


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
    expected = {k.lower() for k in expected_keys}
    text = strip_reasoning(completion or "").translate(_QUOTES)
    spans = _brace_spans(text)
    best: tuple[int, int, dict[str, Any], str] | None = None
    for order, span in enumerate(spans):
        value, source = _read_span(span)
        if not value:
            continue
        overlap = _key_overlap(value, expected)
        if overlap and (best is None or (overlap, order) >= (best[0], best[1])):
            best = (overlap, order, value, source)
    if best is not None:
        return ParsedTotAnswer(best[2], best[3], len(spans))
    fragment: dict[str, Any] = {}
    for key in expected_keys:
        matches = list(re.finditer(_FRAGMENT.format(key=re.escape(key)), text, re.IGNORECASE))
        if matches:
            fragment[key] = _lenient_value(matches[-1].group(1))
    if fragment:
        return ParsedTotAnswer(fragment, "fragment", len(spans))
    return ParsedTotAnswer(None, "none", len(spans))


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
