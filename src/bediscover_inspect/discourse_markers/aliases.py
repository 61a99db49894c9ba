"""Spelling variants accepted for the discourse-marker labels (Task 1), read by :func:`labels.parse_label`.

Each table maps ``variant -> label``; spaces, ``_`` and ``-`` are interchangeable and case is free, so
``non-elaboratory`` also covers ``Non elaboratory``. No variant maps onto two labels (checked by
:func:`labels.check_aliases` on first use and in the tests). Words that also occur in ordinary explanations of
the labels (``time``, ``recent``, ``argument``, ``emphasize``) are deliberately not aliases: layer 4 of the
label rule would read them in prose.
"""

from __future__ import annotations

JUST_ALIASES: dict[str, str] = {
    "Exclusive": "Exclusionary",
    "Exclusion": "Exclusionary",
    "Exclusivity": "Exclusionary",
    "Exclusionary use": "Exclusionary",
    "Unelaborative": "Unelaboratory",
    "Unelaborated": "Unelaboratory",
    "Un-elaboratory": "Unelaboratory",
    "Non-elaboratory": "Unelaboratory",
    "Non-elaborative": "Unelaboratory",
    "Unexplanative": "Unexplanatory",
    "Unexplained": "Unexplanatory",
    "Un-explanatory": "Unexplanatory",
    "Non-explanatory": "Unexplanatory",
    "Non-explanative": "Unexplanatory",
    "Emphasis": "Emphatic",
    "Emphatically": "Emphatic",
    "Emphatical": "Emphatic",
    "Emphasizing": "Emphatic",
    "Emphasising": "Emphatic",
    "Temporally": "Temporal",
    "Temporality": "Temporal",
    "Adjectival": "Adjective",
    "Adjectivally": "Adjective",
}
"""Variants of the Just labels (Just-Manual, Just-Subtitle). "Exclusive" is the name the Just paper and the
authors' README use for Exclusionary; the others are noun / adjective / adverb
forms (``Emphasis``, ``Adjectival``), British and American spellings (``Emphasising`` / ``Emphasizing``), and
hyphenated or ``non-`` forms of the two negative labels."""

OTHERWISE_ALIASES: dict[str, str] = {
    "Argumentative": "Argumentation",
    "Argumentational": "Argumentation",
    "Argumentations": "Argumentation",
    "Consequential": "Consequence",
    "Consequences": "Consequence",
    "Exceptional": "Exception",
    "Exceptive": "Exception",
    "Exceptions": "Exception",
    "Enumerative": "Enumeration",
    "Enumerating": "Enumeration",
    "Enumerations": "Enumeration",
}
"""Variants of the Otherwise labels: adjective and plural forms (``Argumentative``, ``Consequences``).
"Argument" is not an alias: the prompts speak of Arg1/Arg2 "arguments", so an explanation uses the word for
other things; nor is "consequently", an ordinary connective."""

ALIASES: dict[str, dict[str, str]] = {
    "just-manual": JUST_ALIASES,
    "just-subtitle": JUST_ALIASES,
    "otherwise": OTHERWISE_ALIASES,
}
"""Dataset -> its ``variant -> label`` table."""
