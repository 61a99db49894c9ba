"""Shared answer parsing for the label-choice tasks (discourse markers, temporal relations, DISRPT).

The rule, the same for every task (documented in the README, "Answer parsing"):

1. Only the final completion is read (``state.output.completion``); reasoning arrives in separate content
   blocks, and any ``<think>…</think>`` block left inside the text is removed first.
2. Text is normalised: lower case, ``_`` / ``-`` / ``'`` / runs of spaces become one space, markdown
   emphasis and brackets are dropped. Labels and their aliases are normalised the same way.
3. If the whole normalised answer is one label (or alias) — optionally prefixed by ``label:`` / ``answer:``
   — that label is the answer.
4. Otherwise every label and alias is searched as a whole word (no letter on either side). No hit: the
   answer is **invalid** (scored wrong and counted). One distinct label: that label. Several distinct
   labels: the one mentioned **first** is taken and the answer is flagged ``ambiguous`` (models mostly put
   their choice first and then mention the alternatives they rejected).
5. An answer naming at least three distinct labels and at least half of the label set is an **echo** of the
   prompt's label list or definitions, not a choice: it is invalid (flagged ``echo``). Small models do this
   often, and taking the first label of the echoed list would credit whatever label the prompt lists first.

Aliases are the spelling variants models really produce (e.g. ``Exclusive`` for ``Exclusionary``); each
task passes its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping, Sequence

THINK_BLOCK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s_\-’'`]+")
_NOISE = re.compile(r"[*#\"“”\[\]{}()<>|]")
_PREFIX = re.compile(r"^(final answer|answer|label|relation|function|the answer is)\s*[:=]?\s*")


def strip_reasoning(text: str) -> str:
    """Remove ``<think>…</think>`` blocks (an unclosed one runs to the end) from a completion."""
    return THINK_BLOCK.sub(" ", text or "")


def normalise(text: str) -> str:
    """Lower-case, drop markdown / brackets / quotes, and collapse ``_ - '`` and whitespace into one space."""
    text = _NOISE.sub(" ", text.lower())
    return _SEPARATORS.sub(" ", text).strip()


@dataclass(frozen=True)
class ParsedLabel:
    """Result of parsing one answer.

    Attributes:
        label: canonical label (as spelled in the label set) or ``None`` when invalid.
        candidates: distinct labels found, in order of first mention.
        ambiguous: more than one distinct label was found (the first was taken).
        echo: the answer repeats (at least half of) the label set instead of choosing: invalid (rule 5).
    """

    label: str | None
    candidates: tuple[str, ...] = field(default_factory=tuple)
    ambiguous: bool = False
    echo: bool = False

    @property
    def invalid(self) -> bool:
        """No label could be read from the answer."""
        return self.label is None


@lru_cache(maxsize=64)
def _matcher(labels: tuple[str, ...], aliases: tuple[tuple[str, str], ...]) -> tuple[dict[str, str], re.Pattern[str]]:
    lookup: dict[str, str] = {normalise(label): label for label in labels}
    for alias, label in aliases:
        if label not in labels:
            raise ValueError(f"alias {alias!r} points to {label!r}, which is not one of the labels {list(labels)}")
        lookup.setdefault(normalise(alias), label)
    # longest first, so that "is included" wins over "included" and "q elaboration" over "elaboration"
    alternatives = sorted(lookup, key=len, reverse=True)
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(re.escape(a) for a in alternatives) + r")(?![a-z0-9])")
    return lookup, pattern


def parse_label(
    completion: str, labels: Sequence[str], aliases: Mapping[str, str] | None = None
) -> ParsedLabel:
    """Read one label out of a model answer (rule in the module docstring).

    Args:
        completion: the model's final text (never the reasoning).
        labels: the canonical label set of the dataset (Appendix B prompts).
        aliases: ``variant -> canonical label`` spellings also accepted.

    Returns:
        :class:`ParsedLabel`; never raises on any string.

    Raises:
        ValueError: an alias points outside ``labels`` (a programming error, not a model error).
    """
    lookup, pattern = _matcher(tuple(labels), tuple(sorted((aliases or {}).items())))
    text = normalise(strip_reasoning(completion))
    whole = _PREFIX.sub("", text).strip(" .,:;!?")
    if whole in lookup:
        return ParsedLabel(lookup[whole], (lookup[whole],), False)
    found: list[str] = []
    for match in pattern.finditer(text):
        label = lookup[match.group(1)]
        if label not in found:
            found.append(label)
    if not found:
        return ParsedLabel(None, (), False)
    if is_echo(len(found), len(set(labels))):
        return ParsedLabel(None, tuple(found), True, echo=True)
    return ParsedLabel(found[0], tuple(found), len(found) > 1)


def is_echo(n_found: int, n_labels: int) -> bool:
    """Rule 5: ``n_found`` distinct labels out of ``n_labels`` is an echo of the list (≥ 3 and ≥ half)."""
    return n_found >= 3 and 2 * n_found >= n_labels
