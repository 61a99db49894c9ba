"""How long a run will take: from a probe of real calls (``bediscover plan --probe N``) or a given rate
(``--rate CALLS_PER_MIN``).

The expected wall time of ``calls`` model calls is::

    wall = max(calls × mean latency / connections,  calls / rate)

with the mean latency of the probe's calls (sent one at a time, so without queueing at the server; the first
call, which includes the client's start-up, left out when there are more), the run's
``--max-connections`` (else the provider's default, Inspect's ``ModelAPI.max_connections()``) and the given rate;
a term whose figure is missing is left out, and without a probe and a rate the time is not estimated. It is an
estimate for a server that answers ``connections`` calls at once at the probed latency: a slower server under
load, retries or ``--max-samples`` below the connections make the run longer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bediscover_inspect.plan.tokenizers import Message


@dataclass(frozen=True)
class Timing:
    """What the wall time is estimated from.

    Attributes:
        latency_s: mean seconds per call of the probe, ``None`` without one.
        probe_calls: calls the probe sent (0 without one).
        connections: calls in flight at once (``--max-connections`` or the provider's default); ``None`` without
            a probe.
        rate_per_min: the given calls per minute (``--rate``), ``None`` when not given.
    """

    latency_s: float | None = None
    probe_calls: int = 0
    connections: int | None = None
    rate_per_min: float | None = None

    def wall_seconds(self, calls: int) -> float | None:
        """Seconds ``calls`` model calls take (module docstring's formula); ``None`` when neither a probe nor a rate
        was given."""
        terms = []
        if self.latency_s is not None and self.connections:
            terms.append(calls * self.latency_s / self.connections)
        if self.rate_per_min:
            terms.append(60.0 * calls / self.rate_per_min)
        return max(terms) if terms else None

    def basis(self) -> str:
        """What the estimate rests on, one line (``"not estimated …"`` without a probe and a rate)."""
        parts = []
        if self.latency_s is not None:
            parts.append(
                f"calls x {self.latency_s:.3f} s mean latency ({self.probe_calls} probed calls"
                f"{', the first left out' if self.probe_calls > 1 else ''}) / "
                f"{self.connections} connections"
            )
        if self.rate_per_min:
            parts.append(f"calls / {self.rate_per_min:g} calls per minute")
        if not parts:
            return "wall time not estimated: give --probe N (N real calls, timed) or --rate CALLS_PER_MIN"
        return "wall time = " + ("max(" + ", ".join(parts) + ")" if len(parts) > 1 else parts[0])


def duration(seconds: float | None) -> str:
    """``1h 02m``, ``3m 05s``, ``12.5 s``; ``"not estimated"`` for ``None``."""
    if seconds is None:
        return "not estimated"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


async def _time_calls(model: Any, prompts: Sequence[Sequence[Message]], config: Any) -> list[float]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    seconds = []
    for prompt in prompts:
        messages = [kinds[role](content=text) for role, text in prompt]
        start = time.monotonic()
        await model.generate(messages, config=config)
        seconds.append(time.monotonic() - start)
    return seconds


def probe(model: Any, prompts: Sequence[Sequence[Message]], config: Any, connections: int | None) -> Timing:
    """Send ``prompts`` (``[(role, text), …]`` each) to the Inspect ``model`` one after another with the generate
    ``config`` (no cache) and time them: a :class:`Timing` with their mean latency and ``connections`` (``None``:
    the provider's default). With two or more prompts the first call's time is left out of the mean: it includes
    the client's start-up (measured 2.0 s against 0.2-0.3 s for the next calls on the loopback server), which a run
    pays once, not per call.

    Raises:
        whatever the model raises for a call that fails (the CLI prints it on one line).
    """
    seconds = asyncio.run(_time_calls(model, prompts, config))
    if connections is None:
        connections = int(model.api.max_connections())
    timed = seconds[1:] or seconds
    return Timing(sum(timed) / len(timed), len(seconds), connections)
