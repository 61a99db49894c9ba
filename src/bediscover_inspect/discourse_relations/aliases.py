"""Spelling variants accepted for the 17 unified DISRPT 2025 labels (Task 3), read by :func:`labels.parse_label`.

The answer is compared with the gold by exact string, so a variant is mapped onto the label's exact spelling.
Spaces, ``_`` and ``-`` are interchangeable and case is free. No variant maps onto two labels
(:func:`labels.check_aliases`). Only forms of the label word itself are variants (British / American
spelling, adjective, noun, verb and plural forms); a different relation name that the DISRPT mapping folds into
a label (``antithesis``, ``restatement``) is not a spelling and is not accepted. Forms that are everyday words
in an explanation and not a form of the label (``alternative``, ``explain``, ``elaborate``) are left out.
"""

from __future__ import annotations

RELATION_ALIASES: dict[str, str] = {
    "contrastive": "contrast",
    "contrasting": "contrast",
    "contrasts": "contrast",
    "conditional": "condition",
    "conditions": "condition",
    "modes": "mode",
    "organisation": "organization",
    "organizational": "organization",
    "organisational": "organization",
    "organizations": "organization",
    "organisations": "organization",
    "frames": "frame",
    "framing": "frame",
    "temporally": "temporal",
    "temporality": "temporal",
    "concessive": "concession",
    "concessions": "concession",
    "reformulations": "reformulation",
    "reformulating": "reformulation",
    "reformulates": "reformulation",
    "reformulated": "reformulation",
    "comments": "comment",
    "commentary": "comment",
    "commenting": "comment",
    "queries": "query",
    "querying": "query",
    "attributive": "attribution",
    "attributional": "attribution",
    "attributions": "attribution",
    "alternations": "alternation",
    "alternating": "alternation",
    "purposive": "purpose",
    "purposes": "purpose",
    "explanatory": "explanation",
    "explanations": "explanation",
    "explanative": "explanation",
    "explains": "explanation",
    "explaining": "explanation",
    "elaborative": "elaboration",
    "elaborations": "elaboration",
    "elaborates": "elaboration",
    "elaborating": "elaboration",
    "cause": "causal",
    "causes": "causal",
    "causation": "causal",
    "causality": "causal",
    "causally": "causal",
    "cause effect": "causal",
    "conjunctive": "conjunction",
    "conjunctions": "conjunction",
}
"""``variant -> label`` for the Table 10 label set (``prompts.LABELS``)."""
