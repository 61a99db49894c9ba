"""Scoring dialogue parsing: micro P/R/F1 for link attachment and full structure over summed counts.

Paper §6.2.1: "the micro-averaged F1 scores for link attachment and full structure (link+relation)". Each
sample's ``Score.value`` holds its :class:`TurnCounts` (summed over its turns: a whole dialogue in incremental
mode, one turn in single-turn mode). Each measure is a ratio of two sums of those counts over the samples of a
group (declared in :mod:`bediscover_inspect.measures`), so a dataset's F1 is over all its relations, not a
mean of per-dialogue F1s; its standard error is a seeded bootstrap over the samples.

Where the answer is read: in incremental mode the solver parses each turn once and stores what it read
(:func:`.solver.turn_record`), and the scorer counts from the store; in single-turn mode the scorer parses
``state.output.completion`` (:func:`.relations.parse_answer`).

Counting decisions (README, "Scoring"):

* per turn, predicted and gold relations are *sets*: link = pairs (x, y), full = triples (x, y, label);
  a gold pair with two labels (STAC 2 turns, MSDC 7) is one gold link and two gold triples;
* gold backward relations (x > y: STAC 8, MSDC 56) stay in the gold; a predicted backward relation whose
  y is the new turn and whose x is an utterance of the dialogue is valid and can match them;
* an empty-gold turn (STAC 4, Molweni 19, MSDC 8) adds no gold; anything predicted there is a false positive;
* invalid relations (label outside the prompt's set, y not the new turn, x not an utterance of the
  dialogue or x == y: ``relations`` module rule 4) are counted in ``invalid_rate`` = invalid / relations
  read, never used; ``no_relation_rate`` = turns from whose answer no relation was read / turns;
* a turn whose answer echoes its prompt (``relations`` module rule 6) is invalid: every relation read from it
  counts invalid, none counts as predicted; the sample's ``echo`` value is the share of its turns that are
  echoes (0/1 for a single turn), and the ``echo`` measure is their mean over samples (in incremental mode
  a mean over dialogues);
* ``output_tokens_per_turn`` / ``reasoning_tokens_per_turn`` are sums over turns / turns; the paper's "tok."
  columns (Tables 39-41) are per turn and count every generated token, so ``output_tokens_per_turn`` is their
  counterpart (README, "Scoring"). A dialogue with a turn whose tokens the provider did not report has no token
  counts (``None``) and is left out of both sums.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from ..causes import Reply, cause_metadata, cause_note, cause_of, explained, state_reply
from ..labels import copies_prompt, final_text
from ..measures import METRICS, measures_of, scorer_metrics
from ..metrics import INVALID_ANSWER
from ..scoring import prompt_text
from ..tokens import usage_tokens
from .prompts import RELATIONS
from .relations import ParsedTurn, Relation, as_echo, format_relations, parse_gold, read_turn
from .solver import TURNS_STORE_KEY, parsed_turn, record_prompt


@dataclass(frozen=True)
class TurnCounts:
    """Micro counts of one new turn (or summed over many): the numbers every measure reduces.

    Link attachment compares the *sets* of (x, y) pairs, full structure the sets of triples (x, y, label):
    a duplicate pair with two labels (STAC 2, MSDC 7 turns) counts once for link and twice for full.
    """

    link_tp: int = 0
    link_pred: int = 0
    link_gold: int = 0
    full_tp: int = 0
    full_pred: int = 0
    full_gold: int = 0
    relations_read: int = 0
    relations_invalid: int = 0
    no_relation: int = 0
    turns: int = 0
    output_tokens: int | None = 0
    reasoning_tokens: int | None = 0

    def __add__(self, other: TurnCounts) -> TurnCounts:
        """Field-wise sum; a token count not reported on either side (``None``) stays not reported."""
        sums: list[Any] = [
            None if a is None or b is None else a + b for a, b in zip(astuple(self), astuple(other), strict=True)
        ]
        return TurnCounts(*sums)

    def as_dict(self) -> dict[str, int | None]:
        """``{count key: count}`` in :data:`COUNT_KEYS` order."""
        return {name: getattr(self, name) for name in COUNT_KEYS}


COUNT_KEYS: tuple[str, ...] = tuple(f.name for f in fields(TurnCounts))
"""Fields of :class:`TurnCounts`, in order: the count keys of every ``Score.value``."""


def count_turn(
    predicted: ParsedTurn,
    gold: Sequence[Relation],
    output_tokens: int | None = 0,
    reasoning_tokens: int | None = 0,
) -> TurnCounts:
    """Counts of one turn: predicted valid relations against the gold relations of that turn.

    An empty-gold turn (no parent; STAC 4, Molweni 19, MSDC 8) adds nothing to the gold side; any relation
    predicted there is a false positive. Gold backward relations count like any other. An unanswered turn
    (``ParsedTurn()``) reads no relation.
    """
    pred_full = set(predicted.valid)
    gold_full = set(gold)
    pred_link = {r.link for r in pred_full}
    gold_link = {r.link for r in gold_full}
    return TurnCounts(
        link_tp=len(pred_link & gold_link),
        link_pred=len(pred_link),
        link_gold=len(gold_link),
        full_tp=len(pred_full & gold_full),
        full_pred=len(pred_full),
        full_gold=len(gold_full),
        relations_read=predicted.read,
        relations_invalid=len(predicted.invalid),
        no_relation=1 if predicted.read == 0 else 0,
        turns=1,
        output_tokens=output_tokens,
        reasoning_tokens=reasoning_tokens,
    )


def f1_of(tp: float, pred: float, gold: float) -> float:
    """F1 from counts, ``2 tp / (pred + gold)`` (equal to ``2PR / (P + R)``); 0 when nothing is predicted or gold."""
    return 2 * tp / (pred + gold) if pred + gold else 0.0


MEASURES = tuple(METRICS[m.name] for m in measures_of("dialogue_parsing_scorer"))
"""The scorer's measure metrics, in the order of its metric list (:data:`bediscover_inspect.measures.SCORERS`:
link-F1 first, the log's headline); each overall and per ``dataset``."""


# --------------------------------------------------------------------------------------- scorer


def score_value(
    counts: TurnCounts, echoes: int = 0, cut_off: int = 0, reasoning_only: int = 0
) -> dict[str, float | None]:
    """``Score.value``: the counts (a token count the provider did not report for some turn: ``None``), the
    sample's ``echo``, ``cut_off`` and ``reasoning_only`` shares (``echoes`` echoed turns, ``cut_off`` turns stopped
    at the budget, ``reasoning_only`` turns with their text only in the reasoning, each over the turns; 0 without
    turns), then its own link and full F1 (for the viewer; no metric reads them)."""

    def share(n: int) -> float:
        return n / counts.turns if counts.turns else 0.0

    return {key: None if count is None else float(count) for key, count in counts.as_dict().items()} | {
        "echo": share(echoes),
        "cut_off": share(cut_off),
        "reasoning_only": share(reasoning_only),
        "link_f1": f1_of(counts.link_tp, counts.link_pred, counts.link_gold),
        "full_f1": f1_of(counts.full_tp, counts.full_pred, counts.full_gold),
    }


def _turn_detail(turn: int, gold: str, parsed: ParsedTurn, reply: Mapping[str, Any]) -> dict[str, Any]:
    """One turn's entry of ``Score.metadata["turns"]``; ``reply``: the turn's ``cut_off``, ``reasoning_only``,
    ``stop_reason``, ``max_tokens``, ``output_tokens`` (a :func:`.solver.turn_record`, or the same keys)."""
    cause = _turn_cause(parsed, reply)
    return {
        "turn": turn,
        "gold": gold,
        "predicted": format_relations(parsed.valid),
        "invalid": list(parsed.invalid),
        "echo": parsed.echo,
        "cut_off": bool(reply.get("cut_off", False)),
        "reasoning_only": bool(reply.get("reasoning_only", False)),
        "cause": cause,
        "stop_reason": reply.get("stop_reason"),
        "max_tokens": reply.get("max_tokens"),
        "output_tokens": reply.get("output_tokens"),
    }


def _turn_cause(parsed: ParsedTurn, reply: Mapping[str, Any]) -> str | None:
    """Why a turn gave no valid relation (:data:`bediscover_inspect.causes.CAUSES`), ``None`` when it gave one."""
    facts = Reply("", cut_off=bool(reply.get("cut_off")), reasoning_only=bool(reply.get("reasoning_only")))
    return cause_of(facts, not parsed.valid, parsed.echo, parsed.markup)


def single_turn_score(state: TaskState) -> Score:
    """Score of one single-turn sample: its completion read here (:func:`.relations.read_turn`, against the
    sample's prompt), against the record's gold."""
    j = int(state.metadata["turn"])
    reply = state_reply(state)
    relations, n_edus = RELATIONS[state.metadata["dataset"]], int(state.metadata["n_edus"])
    parsed = read_turn(reply.text, prompt_text(state), j, relations, n_edus, reply.cut_off)
    counts = count_turn(parsed, parse_gold(state.metadata["gold"]), *usage_tokens(state.output))
    detail = _turn_detail(j, state.metadata["gold"], parsed, vars(reply))
    return Score(
        value=score_value(counts, int(parsed.echo), int(reply.cut_off), int(reply.reasoning_only)),
        answer=detail["predicted"] or INVALID_ANSWER,
        explanation=explained(cause_note(reply, detail["cause"]), reply.completion),
        metadata={"turns": [detail], **cause_metadata(reply, detail["cause"])},
    )


def dialogue_score(state: TaskState) -> Score:
    """Score of one incremental sample: every turn counted from the solver's stored parse (an echo of the
    turn's prompt, :func:`.solver.record_prompt`, is invalid: :func:`.relations.as_echo`); a turn without a
    record (the dialogue was stopped by a limit) is unanswered."""
    stored: list[dict[str, Any]] = state.store.get(TURNS_STORE_KEY, [])
    records = {int(record["turn"]): record for record in stored}
    prompts = {int(record["turn"]): record_prompt(record, i, state.messages) for i, record in enumerate(stored)}
    total = TurnCounts()
    echoes = cut_off = reasoning_only = 0
    details: list[dict[str, Any]] = []
    for turn in state.metadata["turns"]:
        j = int(turn["turn"])
        record = records.get(j)
        parsed = parsed_turn(record) if record is not None else ParsedTurn()
        if record is not None and copies_prompt(final_text(record["completion"]).text, prompts[j]):
            parsed = as_echo(parsed)
        echoes += parsed.echo
        cut_off += bool(record is not None and record.get("cut_off"))
        reasoning_only += bool(record is not None and record.get("reasoning_only"))
        tokens = (record["output_tokens"], record["reasoning_tokens"]) if record is not None else (0, 0)
        total = total + count_turn(parsed, parse_gold(turn["gold"]), *tokens)
        details.append(_turn_detail(j, turn["gold"], parsed, record or {}) | {"answered": record is not None})
    answer = " ".join(detail["predicted"] for detail in details if detail["predicted"])
    budgets = {record.get("max_tokens") for record in stored}
    return Score(
        value=score_value(total, echoes, cut_off, reasoning_only),
        answer=answer or INVALID_ANSWER,
        explanation=turn_table(details),
        metadata={
            "turns": details,
            "cut_off_turns": cut_off,
            "reasoning_only_turns": reasoning_only,
            "max_tokens": budgets.pop() if len(budgets) == 1 else None,
        },
    )


def turn_table(details: Sequence[dict[str, Any]]) -> str:
    """The per-turn detail of a dialogue as a markdown table (the sample's explanation in ``inspect view``): turn,
    gold relations, relations read, what could not be read, and whether the turn was answered at all."""
    lines = ["| turn | gold | predicted | unreadable | answered |", "|---|---|---|---|---|"]
    for detail in details:
        invalid = "; ".join(str(item) for item in detail["invalid"]).replace("|", "\\|")
        unreadable = "; ".join(
            part for part in (_reply_note(detail), "echo of the prompt" if detail.get("echo") else "", invalid) if part
        )
        lines.append(
            f"| {detail['turn']} | {detail['gold']} | {detail['predicted'] or '—'} | {unreadable} | "
            f"{'yes' if detail.get('answered', True) else 'no'} |"
        )
    return "\n".join(lines)


def _reply_note(detail: Mapping[str, Any]) -> str:
    """``cut off at 300 tokens`` / ``text only in the reasoning`` for a turn whose reply caused its loss."""
    if detail.get("cause") == "cut_off":
        tokens = detail.get("output_tokens")
        return f"cut off at {'?' if tokens is None else tokens} tokens"
    return "text only in the reasoning" if detail.get("cause") == "reasoning_only" else ""


@scorer(metrics=scorer_metrics("dialogue_parsing_scorer"))
def dialogue_parsing_scorer() -> Scorer:
    """Score one sample: a single turn, or a whole dialogue from the incremental solver's per-turn records.

    ``Score.value`` holds the sample's :class:`TurnCounts` (:data:`COUNT_KEYS`), its ``echo`` share of turns and
    its own ``link_f1`` / ``full_f1`` (:func:`score_value`); ``Score.answer`` is the predicted structure (valid relations, space-separated;
    :data:`~bediscover_inspect.metrics.INVALID_ANSWER` when no relation could be read);
    ``Score.metadata["turns"]`` lists per turn ``turn``, ``gold``, ``predicted``, ``invalid``, ``echo`` and, in incremental
    mode, ``answered``, which the incremental explanation shows as a table (:func:`turn_table`); a single turn's
    explanation is its completion.
    """

    async def score(state: TaskState, target: Target) -> Score:
        return dialogue_score(state) if "turns" in state.metadata else single_turn_score(state)

    return score
