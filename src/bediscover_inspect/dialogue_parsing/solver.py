"""The incremental ("auto-regressive") dialogue parser: an agent loop over the turns of one dialogue.

Paper §6.2.1: the model "predicts relations for each new utterance and appends the generated structure as
context for subsequent predictions". For each new turn j = 1, 2, … of the sample's dialogue the solver

1. builds the Table 12 user prompt from the context window (the last 17 EDUs before j, as in the data) and
   the structure *predicted so far* for the heads inside that window (:func:`relations.predicted_structure`:
   the data's order of heads, relations separated by one space, a head without relation leaving no empty
   slot), never the gold one;
2. calls the active model with only ``[system prompt, that user prompt]`` — the system message(s) the solver
   chain put before the sample's input (the task's first solver inserts the dataset's Table 12 prompt), so prompt
   size per turn is bounded by the window, however long the dialogue — with the task's reasoning switch;
3. reads the final completion (by the reader's rule for a reply cut off at the budget,
   :mod:`bediscover_inspect.labels`; :func:`relations.read_turn`: the relations of :func:`relations.parse_answer`,
   none valid when the answer echoes this turn's prompt) and keeps its valid relations as turn j's structure
   for later turns. Invalid ones (unknown label, head not j, parent not an utterance of the dialogue, an
   echo's) are logged but never shown to the model again.

The answer of a turn is parsed here and only here: the per-turn records (:data:`TURNS_STORE_KEY`, see
:func:`turn_record`) keep what was read and the turn's prompt, and the scorer counts from them
(:func:`parsed_turn`) and tells an echo of the prompt from an answer (:func:`record_prompt`). The record list
lives in the sample store and grows turn by turn, so a dialogue stopped by a token, message or time limit is
scored on the turns it answered (the rest count as unanswered).

Every turn's prompt and completion are appended to ``state.messages`` (for the log viewer; they are not
sent back to the model) and each turn's parsed relations go to the transcript as an info event.
``state.output`` is the last turn's output. The messages kept for the viewer count toward ``--message-limit``:
a system message plus two per turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import JsonValue

from ..causes import Reply, budget_sent, read_reply
from ..thinking import thinking_kwargs
from ..tokens import usage_tokens
from .prompts import RELATIONS, user_prompt
from .relations import ParsedTurn, Relation, format_relations, predicted_structure, read_turn, window_start

TURNS_STORE_KEY = "dialogue_parsing_turns"
"""Sample-store key of the per-turn records (:func:`turn_record`), one per answered turn, in order."""


def turn_prompt(edus: list[str], predicted: dict[int, str], new_turn: int) -> str:
    """User prompt for ``new_turn`` from the dialogue's EDU lines and the structure predicted so far.

    Args:
        edus: EDU lines ``i. speaker: text`` (index = position).
        predicted: head -> its predicted relations as one string (``""`` when none).
        new_turn: index j (>= 1).
    """
    context = "\n".join(edus[window_start(new_turn) : new_turn])
    return user_prompt(context, predicted_structure(predicted, new_turn), edus[new_turn])


def turn_record(
    turn: int, prompt: str, output: ModelOutput, parsed: ParsedTurn, reply: Reply | None = None
) -> dict[str, Any]:
    """The store record of one answered turn (JSON-serialisable, as the store is logged).

    Keys: ``turn`` (j), ``prompt`` (the user prompt of the turn, :func:`turn_prompt`), ``completion`` (the final
    text, as the provider returned it), ``echo`` (the completion echoes the prompt: relations module rule 6),
    ``relations`` (the valid relations read, ``[x, y, label]`` each, in order), ``invalid`` (raw text of each
    invalid relation read), ``read`` (relation patterns read), ``output_tokens`` and ``reasoning_tokens`` (the
    call's usage), and the turn's reply (:class:`~bediscover_inspect.causes.Reply`; of ``output`` with reasoning
    off when not given): ``cut_off``, ``reasoning_only``, ``unfinished`` (cut off inside its reasoning: nothing
    read), ``stop_reason`` and ``max_tokens``.
    """
    output_tokens, reasoning_tokens = usage_tokens(output)
    reply = reply if reply is not None else read_reply(output)
    return {
        "turn": turn,
        "prompt": prompt,
        "completion": output.completion,
        "cut_off": reply.cut_off,
        "reasoning_only": reply.reasoning_only,
        "unfinished": reply.unfinished,
        "stop_reason": reply.stop_reason,
        "max_tokens": reply.max_tokens,
        "echo": parsed.echo,
        "relations": [[relation.x, relation.y, relation.label] for relation in parsed.valid],
        "invalid": list(parsed.invalid),
        "read": parsed.read,
        "output_tokens": output_tokens,
        "reasoning_tokens": reasoning_tokens,
    }


def parsed_turn(record: dict[str, Any]) -> ParsedTurn:
    """The parse of a turn as :func:`turn_record` stored it (the inverse of its ``relations``/``invalid``/``read``)."""
    return ParsedTurn(
        valid=tuple(Relation(int(x), int(y), str(label)) for x, y, label in record["relations"]),
        invalid=tuple(record["invalid"]),
        read=int(record["read"]),
        echo=bool(record.get("echo", False)),
    )


def record_prompt(record: dict[str, Any], index: int, messages: Sequence[ChatMessage]) -> str:
    """The user prompt of the ``index``-th stored turn record: its ``prompt``, or — a record written before the
    prompt was kept in it — the ``index``-th user message of ``state.messages`` (the solver appends one user
    message per answered turn, in the order of the records).

    Raises:
        ValueError: the record has no ``prompt`` and the messages hold no ``index``-th user message (names the
            turn).
    """
    if "prompt" in record:
        return str(record["prompt"])
    users = [message for message in messages if isinstance(message, ChatMessageUser)]
    if index >= len(users):
        raise ValueError(
            f"dialogue turn {record.get('turn')}: the stored record has no 'prompt' and the sample's messages "
            f"hold no user message for it ({len(users)} user messages, record {index})"
        )
    return users[index].text


@solver
def incremental_parser(reasoning: bool = False) -> Solver:
    """Parse a dialogue turn by turn, feeding the model its own earlier predictions (module docstring).

    Args:
        reasoning: the task's ``reasoning`` parameter (thinking switch per :func:`bediscover_inspect.thinking.thinking_kwargs`).

    Each turn is sent as the system message(s) already in ``state.messages`` (the task's
    :func:`bediscover_inspect.messages.system_prompt` solver runs first) plus that turn's user prompt.

    Sample metadata needed: ``dataset``, ``edus``, ``turns`` (see ``dataset.dialogue_to_sample``).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        config = GenerateConfig(**thinking_kwargs(state.model.api, reasoning, model.config))
        budget = budget_sent()
        dataset = state.metadata["dataset"]
        edus: list[str] = state.metadata["edus"]
        system = [message for message in state.messages if isinstance(message, ChatMessageSystem)]
        state.messages = list(system)
        predicted: dict[int, str] = {}
        # the store holds the list this loop appends to: a dialogue stopped by a token, message or time limit
        # keeps the turns it answered (the scorer counts the others as unanswered)
        records: list[dict[str, Any]] = []
        state.store.set(TURNS_STORE_KEY, records)
        output = None
        for turn in state.metadata["turns"]:
            j = int(turn["turn"])
            prompt = turn_prompt(edus, predicted, j)
            user = ChatMessageUser(content=prompt)
            output = await model.generate([*system, user], config=config)
            reply = read_reply(output, reasoning, budget)
            parsed = read_turn(reply.text, prompt, j, RELATIONS[dataset], len(edus), reply.cut_off)
            predicted[j] = format_relations(parsed.valid)
            records.append(turn_record(j, prompt, output, parsed, reply))
            state.messages.append(user)
            state.messages.append(output.message)
            info: dict[str, JsonValue] = {"turn": j, "predicted": predicted[j], "invalid": list(parsed.invalid)}
            if parsed.echo:
                info["echo"] = True
            transcript().info(
                info,
                source=f"dialogue_parsing turn {j}",
            )
        if output is not None:
            state.output = output
        return state

    return solve
