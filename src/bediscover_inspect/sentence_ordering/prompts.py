"""Appendix B.4 (Table 11) prompt of Task (4) sentence ordering, verbatim.

The paper's table numbers every line ``<s 1>`` (a typo); the user prompt here numbers the shuffled sentences
``<s 1> … </s 1>`` to ``<s n> … </s n>``, 1-based, one per line. :func:`marker_sequence` is the one place an
order is written as markers (the gold target, and the answer as parsed in the scorer).
"""

from __future__ import annotations

from collections.abc import Sequence

SYSTEM_PROMPT = (
    "A conversation between User and Assistant. The User provides a list of shuffled sentences. Each sentence is "
    "enclosed within sentence tags, e.g., <s 1> Sentence one. </s 1>. The Assistant reorders the sentences to form "
    "a coherent paragraph. Return only the sequence of sentence tags in the correct order, for example: <s 2> <s 1> "
    "<s 3>. Do not include any sentence content. Do not repeat or modify any sentence tags."
)
"""Table 11 system prompt."""

SENTENCE_LINE = "<s {n}> {sentence} </s {n}>"
"""Table 11 user-prompt line for the n-th shuffled sentence (n is 1-based)."""


def user_prompt(shuffled_sentences: Sequence[str]) -> str:
    """Table 11 user prompt: one ``<s n> sentence </s n>`` line per shuffled sentence, n = 1 … len."""
    return "\n".join(SENTENCE_LINE.format(n=i, sentence=s) for i, s in enumerate(shuffled_sentences, start=1))


def marker_sequence(indices: Sequence[int]) -> str:
    """Table 11's answer format for 0-based shuffled indices: ``[1, 0, 2] -> "<s 2> <s 1> <s 3>"``, ``[] -> ""``."""
    return " ".join(f"<s {i + 1}>" for i in indices)
