"""Answer forms written for the reading tests: each builds a completion from the gold answer, another answer and
the label set, and says what a careful reader reads from it (``"gold"`` or ``"invalid"``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Form:
    """One answer shape: ``write(gold, other, labels)`` -> completion; ``expect`` is ``"gold"`` or ``"invalid"``."""

    name: str
    write: Callable[[str, str, Sequence[str]], str]
    expect: str


def _listed(labels: Sequence[str]) -> str:
    return ", ".join(labels)


def _options(labels: Sequence[str]) -> str:
    return "Options:\n" + "\n".join(f"- {label}" for label in labels)


LABEL_FORMS: tuple[Form, ...] = (
    Form(
        "conclusion after reasoning",
        lambda g, o, ls: (
            f"The candidates are {_listed(ls)}. {o} needs a different context here, and the rest fit "
            f"even less.\nTherefore, the best reading here is {g}."
        ),
        "gold",
    ),
    Form(
        "conclusion, bold label",
        lambda g, o, ls: (
            f"Going through {_listed(ls)} one by one, only one matches the passage.\n\nSo, in the end, "
            f"this instance is **{g}**."
        ),
        "gold",
    ),
    Form(
        "last sentence states the result",
        lambda g, o, ls: (
            f"Each of {_listed(ls)} was weighed against the text; {o} came close.\nThe final result is **{g}**."
        ),
        "gold",
    ),
    Form(
        "bold label, colon, explanation",
        lambda g, o, ls: (
            f"The function of the marker in this passage is **{g}**: the writer uses it that way, "
            f"which rules out readings such as {o}."
        ),
        "gold",
    ),
    Form("answer line after an option list", lambda g, o, ls: f"{_options(ls)}\nA: {g}", "gold"),
    Form(
        "few-shot continuation",
        lambda g, o, ls: (
            f"A: {g}\n\nQ: What is the function in the next passage?\n{_options(ls)}\nA: {o}\n\n"
            f"Q: And in this one?\nA: {o}"
        ),
        "gold",
    ),
    Form(
        "few-shot continuation, answer marker",
        lambda g, o, ls: f"Answer: {g}\n\nQuestion: Which label fits the following text?\nAnswer: {o}",
        "gold",
    ),
    Form(
        "analysis that never commits",
        lambda g, o, ls: (
            f"This could be considered {g}, since it stresses the point; however, it might also be "
            f"read as {o}, and without more context it is hard to say."
        ),
        "invalid",
    ),
    Form(
        "tentative conclusion",
        lambda g, o, ls: f"So, it could be {g}. However, {o} is also possible.",
        "invalid",
    ),
)
"""Label-choice answers (discourse markers, temporal relations, DISRPT)."""


def _markers(order: Sequence[int]) -> str:
    return " ".join(f"<s {k}>" for k in order)


ORDER_FORMS: tuple[tuple[str, Callable[[Sequence[int]], str], str], ...] = (
    (
        "conclusion after reasoning",
        lambda order: (
            f"<s {order[-1]}> cannot open the paragraph, and <s {order[0]}> sets the scene.\n"
            f"So, the paragraph reads {_markers(order)}."
        ),
        "gold",
    ),
    (
        "answer line after the sentence list",
        lambda order: (
            "Sentences:\n"
            + "\n".join(f"<s {k}> (sentence {k}) </s {k}>" for k in sorted(order))
            + f"\nA: {_markers(order)}"
        ),
        "gold",
    ),
    (
        "few-shot continuation",
        lambda order: (
            f"{_markers(order)}\n\nQuestion: Reorder these sentences.\n<s 1> First. </s 1>\n"
            f"<s 2> Second. </s 2>\nAnswer: <s 2> <s 1>"
        ),
        "gold",
    ),
    (
        "analysis that never commits",
        lambda order: f"It could open with <s {order[0]}> or <s {order[1]}>; without more context it is hard to say.",
        "invalid",
    ),
)
"""Sentence-order answers, built from the gold order (1-based numbers)."""


MARKUP_FORMS: tuple[Form, ...] = (
    Form("bold answer field in HTML", lambda g, o, ls: f"<b>Answer:</b> {g}", "invalid"),
    Form("answer in an HTML paragraph", lambda g, o, ls: f"<p>Answer: {g}</p>", "invalid"),
    Form(
        "answer in nested HTML",
        lambda g, o, ls: f"<div><p>Having compared {o} with the rest, the label is <strong>{g}</strong>.</p></div>",
        "invalid",
    ),
    Form("answer among control characters", lambda g, o, ls: f"\x00\x02Answer:\x07 {g}\x1b[0m", "invalid"),
    Form("answer in XML answer tags", lambda g, o, ls: f"<answer>{g}</answer>", "gold"),
    Form(
        "answer after quoted event tags",
        lambda g, o, ls: f"The event <EVENT e1>left</EVENT> is not {o} here.\nAnswer: {g}",
        "gold",
    ),
)
"""Label answers in markup (the rule of every task: :func:`bediscover_inspect.labels.has_markup`); XML answer
tags and the documents' own event tags are no markup."""


HEDGED_ORDER_FORMS: tuple[tuple[str, Callable[[Sequence[int]], str], str], ...] = (
    (
        "analysis with modals, never commits",
        lambda order: (
            f"<s {order[1]}> might come before <s {order[0]}>, though <s {order[2]}> could also open the paragraph; "
            "without more context it is hard to say."
        ),
        "invalid",
    ),
    (
        "tentative order, not sure",
        lambda order: f"Perhaps <s {order[0]}> opens it, and <s {order[1]}> may follow <s {order[2]}>. I am not sure.",
        "invalid",
    ),
    (
        "analysis, then the order stated",
        lambda order: (
            f"<s {order[1]}> might come before <s {order[0]}>, though <s {order[2]}> could also open it.\n"
            f"Having weighed both, the order is {_markers(order)}."
        ),
        "gold",
    ),
    (
        "analysis, then the order in the last sentence",
        lambda order: (
            f"<s {order[1]}> could come first, and <s {order[0]}> might open it too. "
            f"The paragraph reads {_markers(order)}."
        ),
        "gold",
    ),
    (
        "analysis, then a concluding sentence",
        lambda order: (
            f"<s {order[1]}> might open it, or <s {order[0]}> could. So, the paragraph reads {_markers(order)}."
        ),
        "gold",
    ),
    (
        "committed order in prose",
        lambda order: "First " + ", then ".join(f"<s {k}>" for k in order) + ".",
        "gold",
    ),
    (
        "reordered sentences quoted with a modal inside",
        lambda order: "\n".join(f"<s {k}> This step may matter for case {k}. </s {k}>" for k in order),
        "gold",
    ),
    (
        "order first, tentative explanation after",
        lambda order: (
            f"{_markers(order)}\n\n<s {order[1]}> could follow <s {order[0]}> because it picks up its last idea."
        ),
        "gold",
    ),
    ("order in an HTML paragraph", lambda order: f"<p>{_markers(order)}</p>", "invalid"),
)
"""Sentence-order answers that analyse before (or without) committing, and one in markup."""
