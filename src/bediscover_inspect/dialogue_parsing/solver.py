"""The incremental ("auto-regressive") dialogue parser: an agent loop over the turns of one dialogue.

Paper §6.2.1: the model "predicts relations for each new utterance and appends the generated structure as
context for subsequent predictions". For each new turn j = 1, 2, … of the sample's dialogue the solver

1. builds the Table 12 user prompt from the context window (the last 17 EDUs before j, as in the data) and
   the structure *predicted so far* for the heads inside that window (:func:`relations.window_structure`,
   the data's own layout), never the gold one;
2. calls the active model with only ``[system prompt, that user prompt]`` — so prompt size per turn is
   bounded by the window, however long the dialogue — with the task's reasoning switch;
3. parses the final completion (:func:`relations.parse_answer`) and keeps its valid relations as turn j's
   structure for later turns. Invalid ones (unknown label, head not j, parent not an utterance of the
   dialogue) are logged but never shown to the model again.

Every turn's prompt and completion are appended to ``state.messages`` (for the log viewer; they are not
sent back to the model), each turn's parsed relations go to the transcript as an info event, and the
per-turn record list (:data:`TURNS_STORE_KEY`) is kept in the sample store for the scorer, growing turn by
turn, so a dialogue stopped by a token, message or time limit is scored on the turns it answered (the rest count
as unanswered). ``state.output`` is the last turn's output. The messages kept for the viewer count toward
``--message-limit``: a system message plus two per turn.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bediscover_inspect.dialogue_parsing.prompts import RELATIONS, SYSTEM_PROMPTS, user_prompt
from bediscover_inspect.dialogue_parsing.relations import (
    format_relations,
    parse_answer,
    window_start,
    window_structure,
)
from bediscover_inspect.generation import thinking_kwargs, usage_tokens

TURNS_STORE_KEY = "dialogue_parsing_turns"
"""Sample-store key of the per-turn records: ``[{turn, completion, predicted, invalid, output_tokens,
reasoning_tokens}, …]`` (one per new turn, in order). Each turn's prompt is not repeated here: it is the user
message of that turn in ``state.messages`` and the input of its model event (issue 8: the store is logged too)."""


def turn_prompt(edus: list[str], predicted: dict[int, str], new_turn: int) -> str:
    """User prompt for ``new_turn`` from the dialogue's EDU lines and the structure predicted so far.

    Args:
        edus: EDU lines ``i. speaker: text`` (index = position).
        predicted: head -> its predicted relations as one string (``""`` when none).
        new_turn: index j (>= 1).
    """
    context = "\n".join(edus[window_start(new_turn) : new_turn])
    return user_prompt(context, window_structure(predicted, new_turn), edus[new_turn])


@solver
def incremental_parser(reasoning: bool = False) -> Solver:
    """Parse a dialogue turn by turn, feeding the model its own earlier predictions (module docstring).

    Args:
        reasoning: the task's ``reasoning`` parameter (thinking switch per :func:`generation.thinking_kwargs`).

    Sample metadata needed: ``dataset``, ``edus``, ``turns`` (see ``dataset.dialogue_to_sample``).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        config = GenerateConfig(**thinking_kwargs(state.model.api, reasoning, model.config))
        dataset = state.metadata["dataset"]
        edus: list[str] = state.metadata["edus"]
        system = ChatMessageSystem(content=SYSTEM_PROMPTS[dataset])
        state.messages = [system]
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
            output = await model.generate([system, user], config=config)
            parsed = parse_answer(output.completion, j, RELATIONS[dataset], len(edus))
            predicted[j] = format_relations(parsed.valid)
            out_tokens, reasoning_tokens = usage_tokens(output)
            record = {
                "turn": j,
                "completion": output.completion,
                "predicted": predicted[j],
                "invalid": list(parsed.invalid),
                "output_tokens": out_tokens,
                "reasoning_tokens": reasoning_tokens,
            }
            records.append(record)
            state.messages.append(user)
            state.messages.append(output.message)
            transcript().info(
                {"turn": j, "predicted": predicted[j], "invalid": list(parsed.invalid)},
                source=f"dialogue_parsing turn {j}",
            )
        if output is not None:
            state.output = output
        return state

    return solve
