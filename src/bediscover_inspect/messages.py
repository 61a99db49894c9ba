"""A sample's input messages: the task's system prompt, then its user prompt (Appendix B)."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser


def prompt_messages(system_prompt: str, user_prompt: str) -> list[ChatMessage]:
    """A sample's input: the task's system prompt, then the user prompt (both verbatim, Appendix B).

    Every task builds its ``Sample.input`` this way, so the system prompt is in the sample from the start:
    inserting it in front of the messages while the sample runs makes Inspect log a state diff that rewrites
    the whole first message. Each sample gets its own two messages (own ids; editing one sample's input changes
    no other).
    """
    return [ChatMessageSystem(content=system_prompt), ChatMessageUser(content=user_prompt)]
