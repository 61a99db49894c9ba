"""Prompts of Task (5) Dialogue Discourse Parsing, verbatim from the paper's Appendix B.5 (Table 12).

The paper prints one system prompt "for STAC and Molweni datasets" that names the genre as
"a boardgame dialogue history / Ubuntu chat log", and a second one for MSDC ("a Minecraft game history",
with CONFIRM_Q and SEQUENCE instead of BACKGROUND and PARALLEL). We read the slash as the two variants of
that one template, so STAC gets "boardgame dialogue history" and Molweni "Ubuntu chat log"; every other
word is the paper's. The user prompt is the paper's template with its four fields filled in.
"""

from __future__ import annotations

_SYSTEM_TEMPLATE = (
    "A conversation between User and Assistant. The User provides a {genre} (context and structure), along "
    "with a new turn. The assistant identifies the **discourse structure** of the new turn in relation to the "
    "context. The structure should be represented in the format: RELATION(S_ID1, S_ID2), where RELATION is the "
    "discourse relation, S_ID2 is the ID of the new turn, and S_ID1 is the ID of the sentence in the context "
    "that it relates to. S_ID2 is bigger than S_ID1 since dialogue flow is unidirectional and there is no "
    "backward relation. Use the following discourse relations: [{relations}]. If multiple relations exist, "
    "separate them with spaces. Provide only the structure without any additional text."
)

STAC_MOLWENI_RELATIONS: tuple[str, ...] = (
    "ACKNOWLEDGEMENT",
    "ALTERNATION",
    "BACKGROUND",
    "CLARIF_Q",
    "COMMENT",
    "CONDITIONAL",
    "CONTINUATION",
    "CONTRAST",
    "CORRECTION",
    "ELABORATION",
    "EXPLANATION",
    "NARRATION",
    "PARALLEL",
    "QA_PAIR",
    "Q_ELABORATION",
    "RESULT",
)
"""The 16 relations of the STAC / Molweni system prompt (Appendix B.5, Table 12), in the prompt's order."""

MSDC_RELATIONS: tuple[str, ...] = (
    "ACKNOWLEDGEMENT",
    "ALTERNATION",
    "CLARIF_Q",
    "COMMENT",
    "CONDITIONAL",
    "CONFIRM_Q",
    "CONTINUATION",
    "CONTRAST",
    "CORRECTION",
    "ELABORATION",
    "EXPLANATION",
    "NARRATION",
    "QA_PAIR",
    "Q_ELABORATION",
    "RESULT",
    "SEQUENCE",
)
"""The 16 relations of the MSDC system prompt (Appendix B.5, Table 12), in the prompt's order."""

RELATIONS: dict[str, tuple[str, ...]] = {
    "stac": STAC_MOLWENI_RELATIONS,
    "molweni": STAC_MOLWENI_RELATIONS,
    "msdc": MSDC_RELATIONS,
}
"""Dataset -> the relation set its prompt lists; a predicted label outside it is an invalid relation."""

SYSTEM_PROMPT_STAC = _SYSTEM_TEMPLATE.format(
    genre="boardgame dialogue history", relations=", ".join(STAC_MOLWENI_RELATIONS)
)
"""System prompt for STAC (Table 12, first prompt, "boardgame dialogue history" variant)."""

SYSTEM_PROMPT_MOLWENI = _SYSTEM_TEMPLATE.format(genre="Ubuntu chat log", relations=", ".join(STAC_MOLWENI_RELATIONS))
"""System prompt for Molweni (Table 12, first prompt, "Ubuntu chat log" variant)."""

SYSTEM_PROMPT_MSDC = _SYSTEM_TEMPLATE.format(genre="Minecraft game history", relations=", ".join(MSDC_RELATIONS))
"""System prompt for MSDC (Table 12, second prompt)."""

SYSTEM_PROMPTS: dict[str, str] = {
    "stac": SYSTEM_PROMPT_STAC,
    "molweni": SYSTEM_PROMPT_MOLWENI,
    "msdc": SYSTEM_PROMPT_MSDC,
}
"""Dataset -> system prompt."""

USER_PROMPT_TEMPLATE = (
    "## Context:\n\n{context}\n\n"
    "## Structure:\n\n{structure}\n\n"
    "## New turn:\n\n{new_turn}\n\n"
    "Question: What is the discourse structure of the new turn in relation to the context? "
    "Provide the answer in the format: RELATION(S_ID1, S_ID2)."
)
"""User prompt (Table 12), laid out as the paper's text gives it (each line followed by a blank line; the
context's own utterances are one a line): ``context`` = numbered utterances ``i. speaker: text`` one a line, ``structure`` =
space-separated ``RELATION(x,y)`` of the window, ``new_turn`` = ``j. speaker: text``."""


def user_prompt(context: str, structure: str, new_turn: str) -> str:
    """The Table 12 user prompt for one new turn (fields as in the data file, see :data:`USER_PROMPT_TEMPLATE`)."""
    return USER_PROMPT_TEMPLATE.format(context=context, structure=structure, new_turn=new_turn)
