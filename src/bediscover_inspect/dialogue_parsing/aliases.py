"""Spelling variants and abbreviations accepted for the dialogue relation labels (Task 5).

A relation's label is first put in the prompt's form (upper case; runs of spaces, ``-`` and ``_`` become one
``_``: :func:`relations.canonical_label`), then looked up here; the keys are written in that form. Since a
label is only read in front of ``(x, y)``, an abbreviation cannot turn prose into an answer. The label set of
each corpus (Appendix B.5) still decides validity: ``CONFIRMATION_QUESTION(0,1)`` maps to ``CONFIRM_Q``,
valid in MSDC and invalid in STAC / Molweni. No variant maps onto two labels (checked in the tests: the keys are
distinct in their canonical form and none is a label).
"""

from __future__ import annotations

LABEL_ALIASES: dict[str, str] = {
    # QA_PAIR: the corpora's spellings (QAP, Question-answer_pair) and abbreviations
    "QAP": "QA_PAIR",
    "QA": "QA_PAIR",
    "Q_A": "QA_PAIR",
    "QAPAIR": "QA_PAIR",
    "Q_A_PAIR": "QA_PAIR",
    "QUESTION_ANSWER_PAIR": "QA_PAIR",
    "QUESTION_ANSWER": "QA_PAIR",
    "QUESTION_ANSWERING": "QA_PAIR",
    # Q_ELABORATION (corpus spelling Q-Elab)
    "Q_ELAB": "Q_ELABORATION",
    "QELAB": "Q_ELABORATION",
    "QELABORATION": "Q_ELABORATION",
    "QUESTION_ELABORATION": "Q_ELABORATION",
    # CLARIF_Q (corpus spelling Clarification_question)
    "CLARIFICATION_QUESTION": "CLARIF_Q",
    "CLARIFICATION_Q": "CLARIF_Q",
    "CLARIFICATION": "CLARIF_Q",
    "CLARIF": "CLARIF_Q",
    "CLARIFQ": "CLARIF_Q",
    "CLAR_Q": "CLARIF_Q",
    # CONFIRM_Q (MSDC; corpus spelling Confirmation_question)
    "CONFIRMATION_QUESTION": "CONFIRM_Q",
    "CONFIRMATION_Q": "CONFIRM_Q",
    "CONFIRMATION": "CONFIRM_Q",
    "CONFIRM": "CONFIRM_Q",
    "CONFIRMQ": "CONFIRM_Q",
    # the other labels: American spelling, abbreviations, other word forms
    "ACKNOWLEDGMENT": "ACKNOWLEDGEMENT",
    "ACKNOWLEDGE": "ACKNOWLEDGEMENT",
    "ACK": "ACKNOWLEDGEMENT",
    "ALT": "ALTERNATION",
    "ALTERNATIVE": "ALTERNATION",
    "BG": "BACKGROUND",
    "COMM": "COMMENT",
    "CONDITION": "CONDITIONAL",
    "COND": "CONDITIONAL",
    "CONTIN": "CONTINUATION",
    "CONT": "CONTINUATION",
    "CONTINUE": "CONTINUATION",
    "CONTR": "CONTRAST",
    "CORR": "CORRECTION",
    "ELAB": "ELABORATION",
    "EXPL": "EXPLANATION",
    "EXPLAN": "EXPLANATION",
    "NARR": "NARRATION",
    "NARRATIVE": "NARRATION",
    "PARALLELISM": "PARALLEL",
    "RES": "RESULT",
    "SEQ": "SEQUENCE",
}
"""``variant -> label`` in canonical form (upper case, ``_`` between words) for the STAC / Molweni and MSDC
relation sets (``prompts.RELATIONS``)."""
