"""Spelling variants accepted for the TBD / TDD-Man relation labels (Task 2), read by :func:`labels.parse_label`.

Spaces, ``_`` and ``-`` are interchangeable and case is free when a variant is matched, but the label set is
written in capitals, so in running prose (layer 4 of the label rule) a variant counts only when written in
capitals too (``VAGUE``, ``IS INCLUDED``); after an answer marker or as the whole answer any case counts.
No variant maps onto two labels (:func:`labels.check_aliases`).
"""

from __future__ import annotations

RELATION_ALIASES: dict[str, str] = {
    "is included": "IS_INCLUDED",
    "included": "IS_INCLUDED",
    "isincluded": "IS_INCLUDED",
    "include": "INCLUDES",
    "including": "INCLUDES",
    "simultaneously": "SIMULTANEOUS",
    "simultaneity": "SIMULTANEOUS",
    "vague": "NONE",
    "no relation": "NONE",
}
"""``variant -> label`` for the six Table 9 labels. TBD's own name for an undetermined pair is VAGUE, which the
prompt calls NONE. ``included`` (IS_INCLUDED, also in ``included in``) and ``include`` (INCLUDES) are kept
apart: the passive is the included event. Deliberately no prose words such as ``during``, ``overlap`` or ``same time``."""
