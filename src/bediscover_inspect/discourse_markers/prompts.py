"""Prompts of Task (1), discourse marker understanding: the paper's Appendix B.1 (Table 8), verbatim.

Every string below is copied from Table 8 of the paper, including its typographic quotes (‘just’,
“…”) and its typo "is used used as an adjective" (Adjective definition). The paper's text lists each
paragraph of a prompt on its own line separated by a blank line; the templates keep exactly that layout
(paragraphs joined by ``"\\n\\n"``). ``<TEXT>`` is the placeholder of the paper, filled by
:func:`bediscover_inspect.discourse_markers.dataset.render_text`.

The Otherwise system prompt's ``[Arg1]. Otherwise, [Arg2].`` is part of the paper's wording (a schema of the
input) and is sent literally.
"""

from __future__ import annotations

TEXT_PLACEHOLDER = "<TEXT>"
"""Placeholder of the passage in the user prompts (Table 8)."""

PROMPT_STYLES: tuple[str, ...] = ("basic", "def", "def+exp")
"""The three prompting formats of §4 ("Basic", "Def", "Def+Exp"), in the paper's column order (Table 2)."""

JUST_LABELS: tuple[str, ...] = ("Exclusionary", "Unelaboratory", "Unexplanatory", "Emphatic", "Temporal", "Adjective")
"""Label set of Just-Manual and Just-Subtitle, as listed in the Just system prompt (Table 8) and spelled in
``dm/just/test_id.json``."""

OTHERWISE_LABELS: tuple[str, ...] = ("Argumentation", "Consequence", "Exception", "Enumeration")
"""Label set of Otherwise, as listed in the Otherwise system prompt (Table 8) and spelled in
``dm/otherwise/test_id.json``."""

LABELS: dict[str, tuple[str, ...]] = {
    "just-manual": JUST_LABELS,
    "just-subtitle": JUST_LABELS,
    "otherwise": OTHERWISE_LABELS,
}
"""Dataset -> label set offered in its system prompt (Table 8)."""


def _paragraphs(*lines: str) -> str:
    return "\n\n".join(lines)


JUST_SYSTEM_PROMPT = (
    "A conversation between User and Assistant. The User provides one sentence that contains a discourse marker "
    "‘just’. The assistant identifies the **discourse function** of the marker. Choose one of the following six "
    "labels: [Exclusionary, Unelaboratory, Unexplanatory, Emphatic, Temporal, Adjective]. Choose ONLY ONE label. "
    "Keep the answer short."
)
"""Table 8, system prompt "for Just dataset"."""

OTHERWISE_SYSTEM_PROMPT = (
    "A conversation between User and Assistant. The User provides two arguments linked with a discourse marker "
    "‘otherwise’: [Arg1]. Otherwise, [Arg2]. The assistant identifies the **discourse function** of the marker. "
    "Choose one of the following four labels: [Argumentation, Consequence, Exception, Enumeration]. Choose ONLY "
    "ONE label. Keep the answer short."
)
"""Table 8, system prompt "for Otherwise dataset"."""

_JUST_DEFINITIONS: tuple[tuple[str, str], ...] = (
    (
        "Exclusionary: ‘Just’ is used to exclude other possibilities or options.",
        "Example: “I’m just looking for a job, not a career.”",
    ),
    (
        "Unelaboratory: ‘Just’ is used to deny further elaboration on an event or concept.",
        "Example: “I just don’t like it.”",
    ),
    (
        "Unexplanatory: ‘Just’ is used to deny that there is an explanation or to offer a weak explanation with no "
        "stronger one available.",
        "Example: “The lights just turn on and off.”",
    ),
    ("Emphatic: ‘Just’ is used to add emphasis to an already strong word or phrase.", "Example: “It’s just amazing!”"),
    (
        "Temporal: ‘Just’ is used to indicate that something happened very recently, or close to another event.",
        "Example: “I just saw him a minute ago.”",
    ),
    (
        "Adjective: ‘Just’ is used used as an adjective to describe a person or idea, especially a law or policy, as "
        "fair, appropriate, or lawful.",
        "Example: “She is a just ruler.”",
    ),
)

_OTHERWISE_DEFINITIONS: tuple[tuple[str, str], ...] = (
    (
        "Consequence: If the situation in Arg1 doesn’t occur, the situation in Arg2 would arise.",
        "Example: [I like you too.] Otherwise, [we wouldn’t be friends.]",
    ),
    (
        "Argumentation: Arg2 is undesirable and can be possibly avoided by following Arg1.",
        "Example: [We have to operate immediately.] Otherwise, [she will die.]",
    ),
    (
        "Enumeration: It doesn’t take the failure of Arg1 to consider Arg2 as another option.",
        "Example: [You can choose to go to the beach.] Otherwise, [you can stay at home and read a book.]",
    ),
    (
        "Exception: Arg1 is an exception to Arg2.",
        "Example: [He is usually very punctual.] Otherwise, [he would have arrived on time.]",
    ),
)

_JUST_INSTRUCTION = (
    "Given these, identify the function of ‘just’ in the following sentence. Respond with the function label."
)
_OTHERWISE_INSTRUCTION = (
    "Given these, identify the function of ‘Otherwise’ between [Arg1] and [Arg2] in the following sentence. "
    "Respond with the function label."
)

JUST_BASIC_PROMPT = _paragraphs(
    TEXT_PLACEHOLDER, "Question: What is the function of the discourse marker ‘just’ in the sentence above?"
)
"""Table 8, user prompt "Basic" for Just."""

JUST_DEF_PROMPT = _paragraphs(
    "Here are the main functions of ‘just’ along with their definition:",
    *(definition for definition, _ in _JUST_DEFINITIONS),
    _JUST_INSTRUCTION,
    TEXT_PLACEHOLDER,
)
"""Table 8, user prompt "Def" for Just."""

JUST_DEF_EXP_PROMPT = _paragraphs(
    "Here are the main functions of ‘just’ along with their definition and examples:",
    *(line for pair in _JUST_DEFINITIONS for line in pair),
    _JUST_INSTRUCTION,
    TEXT_PLACEHOLDER,
)
"""Table 8, user prompt "Def+Exp" for Just."""

OTHERWISE_BASIC_PROMPT = _paragraphs(
    TEXT_PLACEHOLDER,
    "Question: What is the function of the discourse marker ‘Otherwise’ between [Arg1] and [Arg2]?",
)
"""Table 8, user prompt "Basic" for Otherwise."""

OTHERWISE_DEF_PROMPT = _paragraphs(
    "Here are the main functions of ‘Otherwise’ along with their definition:",
    *(definition for definition, _ in _OTHERWISE_DEFINITIONS),
    _OTHERWISE_INSTRUCTION,
    TEXT_PLACEHOLDER,
)
"""Table 8, user prompt "Def" for Otherwise."""

OTHERWISE_DEF_EXP_PROMPT = _paragraphs(
    "Here are the main functions of ‘Otherwise’ along with their definition and examples. Arg1 and Arg2 are "
    "placed within square brackets:",
    *(line for pair in _OTHERWISE_DEFINITIONS for line in pair),
    _OTHERWISE_INSTRUCTION,
    TEXT_PLACEHOLDER,
)
"""Table 8, user prompt "Def+Exp" for Otherwise."""

SYSTEM_PROMPTS: dict[str, str] = {"just": JUST_SYSTEM_PROMPT, "otherwise": OTHERWISE_SYSTEM_PROMPT}
"""Dataset family (``just`` / ``otherwise``) -> system prompt."""

USER_PROMPTS: dict[tuple[str, str], str] = {
    ("just", "basic"): JUST_BASIC_PROMPT,
    ("just", "def"): JUST_DEF_PROMPT,
    ("just", "def+exp"): JUST_DEF_EXP_PROMPT,
    ("otherwise", "basic"): OTHERWISE_BASIC_PROMPT,
    ("otherwise", "def"): OTHERWISE_DEF_PROMPT,
    ("otherwise", "def+exp"): OTHERWISE_DEF_EXP_PROMPT,
}
"""``(dataset family, prompt style) -> user prompt template`` with one ``<TEXT>`` placeholder."""


def user_prompt(family: str, prompt: str, text: str) -> str:
    """The user message for one passage.

    Args:
        family: ``"just"`` or ``"otherwise"``.
        prompt: one of :data:`PROMPT_STYLES`.
        text: the rendered passage (replaces ``<TEXT>``).

    Raises:
        ValueError: unknown family or prompt style (the message names the valid choices).
    """
    if family not in SYSTEM_PROMPTS:
        raise ValueError(f"dataset family must be one of {sorted(SYSTEM_PROMPTS)}, got {family!r}")
    if prompt not in PROMPT_STYLES:
        raise ValueError(f"prompt must be one of {list(PROMPT_STYLES)}, got {prompt!r}")
    return USER_PROMPTS[(family, prompt)].replace(TEXT_PLACEHOLDER, text)
