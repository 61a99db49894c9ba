"""Appendix B.3 (Table 10) prompt of Task (3) discourse relation recognition, verbatim.

The paper's prompt follows DeDisCo (Ju et al. 2025, the best DISRPT 2025 relation system): a system prompt with
the role, seven guidelines and the 17 unified DISRPT 2025 labels, and a user prompt of markdown sections
``## Language:`` … ``## Unit2:`` followed by the question.

Layout choices the paper's plain-text table leaves open (documented in the README, "Deviations"):

* each ``## Header:`` is followed by its content on the next line and sections are separated by one blank
  line (DeDisCo's layout; the extracted paper text shows every line as its own paragraph);
* the paper's user prompt ends with a stray ``"`` after the question (the closing quote of a string literal
  copied from code); it is not sent;
* ``<CONTEXT>`` is the record's ``context`` list (left context, the sentence(s) of the two units, right
  context; ``read_raw.py`` of the authors) joined with single spaces, as DeDisCo's ``decoder.py`` builds it
  (``f"{context[0]} {context[1]} {context[2]}"``); empty context parts are kept as they are;
* ``<LANG>`` is the language's English name (e.g. ``German`` for ``deu``; names from
  the DISRPT 2025 corpus list and the paper's Table 27 caption); ``<CORPUS>`` is the record's
  ``corpus`` field (e.g. ``pcc``) and ``<FRAMEWORK>`` its ``framework`` field (e.g. ``pdtb``), as DeDisCo
  fills them;
* ``<DIRECTION>`` maps the ``.rels`` ``dir`` column with the authors' ``DIRECTION_MAP`` (``load_data.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

LABELS: tuple[str, ...] = (
    "contrast",
    "condition",
    "mode",
    "organization",
    "frame",
    "temporal",
    "concession",
    "reformulation",
    "comment",
    "query",
    "attribution",
    "alternation",
    "purpose",
    "explanation",
    "elaboration",
    "causal",
    "conjunction",
)
"""The 17 unified DISRPT 2025 relation labels, in the order of the Table 10 system prompt (exact strings the
official scorer ``disrpt_eval_2024.py`` compares, case-sensitively)."""

SYSTEM_PROMPT = (
    "A conversation between User and Assistant. You are a helpful assistant.\n"
    "\n"
    "## Role and Goal:\n"
    "You are an expert in discourse analysis, tasked with identifying the discourse relation between two sentence "
    "units based on the provided label. Your goal is to accurately determine the relationship between these two "
    "units.\n"
    "\n"
    "## Guidelines:\n"
    "1. You will receive Unit1 and Unit2. Unit1 appears before Unit2 in the original text.\n"
    "2. You will be informed about the language of these units.\n"
    "3. You will be informed of the corpus from which the data is drawn, which may help guide your analysis.\n"
    "4. The framework for analysis will be provided, outlining the structure used for discourse analysis.\n"
    "5. You will be given the context in which these two units appear.\n"
    "6. The direction of the relationship between these two units will be given.\n"
    "7. You will be provided with a set of labels representing possible discourse relations. Do not modify any "
    "label. Choose one label that best fits the relationship between Unit1 and Unit2, and output only the chosen "
    "label.\n"
    "\n"
    "## Labels:\n"
    "contrast, condition, mode, organization, frame, temporal, concession, reformulation, comment, query, "
    "attribution, alternation, purpose, explanation, elaboration, causal, conjunction."
)
"""Table 10 system prompt (Appendix B.3), verbatim."""

USER_PROMPT_TEMPLATE = (
    "## Language:\n{language}\n"
    "\n"
    "## Corpus:\n{corpus}\n"
    "\n"
    "## Framework:\n{framework}\n"
    "\n"
    "## Context:\n{context}\n"
    "\n"
    "## Direction:\n{direction}\n"
    "\n"
    "## Unit1:\n{unit1}\n"
    "\n"
    "## Unit2:\n{unit2}\n"
    "\n"
    "Question: What is the discourse relation between Unit1 and Unit2?"
)
"""Table 10 user prompt (Appendix B.3); placeholders ``<LANG>`` … ``<UNIT2>`` become ``{language}`` …
``{unit2}``. Every slot takes the record's own value, as DeDisCo's prompt (which Table 10 follows) does:
``<LANG>`` the ``lang`` code (``deu``), ``<CORPUS>`` the short corpus name (``pcc``), ``<FRAMEWORK>`` the
framework code (``pdtb``)."""

DIRECTION_TEXT: dict[str, str] = {
    "1>2": "From Unit1 to Unit2.",
    "1<2": "From Unit2 to Unit1.",
    "_": "Unknown.",
}
"""``.rels`` ``dir`` value -> ``<DIRECTION>`` text (authors' ``load_data.py`` ``DIRECTION_MAP``; ``_`` occurs in
tha.pdtb.tdtb)."""

LANGUAGE_NAMES: dict[str, str] = {
    "ces": "Czech",
    "deu": "German",
    "eng": "English",
    "eus": "Basque",
    "fas": "Persian",
    "fra": "French",
    "ita": "Italian",
    "nld": "Dutch",
    "pcm": "Nigerian Pidgin",
    "pol": "Polish",
    "por": "Portuguese",
    "rus": "Russian",
    "spa": "Spanish",
    "tha": "Thai",
    "tur": "Turkish",
    "zho": "Chinese",
}
"""ISO 639-3 code (first part of a DISRPT corpus name) -> English name: the 16 languages of Table 27
(names as in the DISRPT 2025 corpus list). Not sent to the model (``<LANG>`` is the code); used to accept
``languages=German`` as well as ``deu`` and for the ``language_name`` sample metadata."""


def join_context(context: Sequence[str]) -> str:
    """``<CONTEXT>``: the record's context parts joined with one space each (DeDisCo ``decoder.py``)."""
    return " ".join(context)


def user_prompt(
    language: str, corpus: str, framework: str, context: Sequence[str], direction: str, unit1: str, unit2: str
) -> str:
    """Render the Table 10 user prompt.

    Args:
        language: the record's ``lang``, an ISO 639-3 code (``deu``), rendered as it is.
        corpus: the record's short corpus name (``pcc``).
        framework: the record's framework (``pdtb``).
        context: the record's ``context`` list (left context, unit sentence(s), right context).
        direction: ``1>2``, ``1<2`` or ``_`` (:data:`DIRECTION_TEXT`).
        unit1, unit2: the record's ``u1`` / ``u2`` (raw unit text).

    Raises:
        KeyError: unknown direction (the loader validates it first).
    """
    return USER_PROMPT_TEMPLATE.format(
        language=language,
        corpus=corpus,
        framework=framework,
        context=join_context(context),
        direction=DIRECTION_TEXT[direction],
        unit1=unit1,
        unit2=unit2,
    )
