"""Prompts of Task (2) temporal reasoning, verbatim from the paper (Appendix B.2, Table 9).

Two decisions the paper's text leaves open, documented in the README ("Prompt"):

* The user prompt's question keeps the paper's spelling ``Quesiton:`` — Table 9 defines the benchmark and the
  published numbers were produced with it; we reproduce, not correct.
* The template's ``<EVENT> <EVENT ID>`` slots are filled with the record's ``types`` entries, which the data
  spells exactly as those two slots: ``"EVENT e4"`` (tag name, space, event id). The event's own word is
  visible in the document through its ``<EVENT e4>…</EVENT>`` mark.

Line breaks: the paper's text shows each prompt line as its own paragraph; we join the system prompt's two lines
with one newline, and separate the user prompt's document and question with a blank line.
"""

from __future__ import annotations

from .aliases import RELATION_ALIASES as _RELATION_ALIASES

RELATION_LABELS: tuple[str, ...] = ("IS_INCLUDED", "INCLUDES", "SIMULTANEOUS", "BEFORE", "AFTER", "NONE")
"""The six labels offered by the Table 9 prompt, in its order (TBD uses all six; TDD-Man's gold has no NONE)."""

RELATION_ALIASES = _RELATION_ALIASES
"""The relation labels' spelling variants (``temporal_reasoning.aliases.RELATION_ALIASES``, re-exported here)."""

RELATION_SYSTEM_PROMPT = (
    "A conversation between User and Assistant. The User provides a document with two target EVENT, each marked "
    "with <EVENT e>…</EVENT>. The assistant identifies the **temporal relation** between the two events.\n"
    "Choose one of the following six labels: [IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, NONE]. "
    "Answer NONE if unsure. Keep the answer short and concise."
)
"""Table 9 system prompt for TBD and TDD-Man (verbatim)."""

RELATION_USER_TEMPLATE = (
    "Given the document:\n"
    "{document}\n"
    "\n"
    "Quesiton: What is the temporal relation of {source} with respect to {target}? "
    "Choose one of the following labels: [IS_INCLUDED, INCLUDES, SIMULTANEOUS, BEFORE, AFTER, NONE]."
)
"""Table 9 user prompt for TBD and TDD-Man (verbatim, typo "Quesiton" kept); ``source``/``target`` = ``types``."""

TOT_SYSTEM_PROMPT = (
    "A conversation between User and Assistant. The User asks a question that requires temporal arithmetic "
    "reasoning. The Assistant must reason using the logic and semantics of time to answer. Strictly follow the "
    "instructions when answering. Keep the answer short and concise."
)
"""Table 9 system prompt for ToT-Arithmetic (verbatim)."""

TOT_USER_TEMPLATE = "{question}\n{instruction}"
"""Table 9 user prompt ``<QUESTION>`` for ToT-Arithmetic: the record's question, then its answer-format
``instruction`` (the authors' file splits the original ToT question into these two fields)."""


def relation_user_prompt(document: str, source: str, target: str) -> str:
    """The TBD / TDD-Man user prompt for one pair.

    Args:
        document: the text shown (full document or the event sentences), events marked ``<EVENT eN>…</EVENT>``.
        source: first ``types`` entry, e.g. ``"EVENT e4"``; target: second entry.
    """
    return RELATION_USER_TEMPLATE.format(document=document, source=source, target=target)


def tot_user_prompt(question: str, instruction: str) -> str:
    """The ToT-Arithmetic user prompt: ``question``, newline, ``instruction``."""
    return TOT_USER_TEMPLATE.format(question=question.strip(), instruction=instruction.strip())
