"""A log's samples read one at a time, keeping what the suite's commands use of each: its id, epoch, target,
metadata, scores (value, answer, explanation, metadata) and error message.

An ``.eval`` log is a zip archive: ``header.json`` and one member ``samples/<id>_epoch_<epoch>.json`` per sample
(Inspect's log format; members compressed with zstandard). The archive is opened once and its sample members are read in turn, each decompressed and
parsed once, and dropped before the next: the memory a reading takes does not grow with the log. Inspect's own
``read_eval_log_samples`` re-reads the archive's directory for every sample, and ``read_eval_log`` holds every
sample, transcripts included, at once. A log on a store (``s3://…``) is first copied into a temporary file
through the event loop's one store client (:func:`bediscover_inspect._inspect_compat.download_log`), as Inspect's
``read_eval_log`` does. A ``.json`` log is one JSON document: a local one is parsed whole and its samples kept as
for an ``.eval`` member (Inspect's ``read_eval_log`` would also build every sample's full model, transcript
included: about four times the CPU); one on a store is read whole by Inspect.

``tests/shared/test_log_samples.py`` pins the format this relies on: the samples read here equal those of Inspect's
``read_eval_log`` on a log Inspect wrote.
"""

from __future__ import annotations

import json
import sys
import tempfile
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from inspect_ai.log import read_eval_log_async
from inspect_ai.scorer import Score

from bediscover_inspect._inspect_compat import download_log
from bediscover_inspect.evallogs.store import is_url, local_path

if sys.version_info < (3, 14):  # Inspect compresses members with zstandard: the stdlib reads it from 3.14
    import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401 - adds zstandard to zipfile

SAMPLES_DIR = "samples/"
"""Folder of an ``.eval`` archive that holds one JSON member per sample and epoch (Inspect's log format)."""


@dataclass(frozen=True)
class LogSample:
    """One sample (one epoch) of a log, as the suite's commands read it.

    Attributes:
        id: the sample id (``<dataset>_<record id>`` in the suite's logs).
        epoch: the epoch, from 1.
        target: the sample's target (a string, or a list of strings).
        metadata: the sample's metadata (``gold``, ``dataset`` …), as logged.
        scores: scorer name -> its :class:`inspect_ai.scorer.Score` (``value`` dict, ``answer`` …).
        error: the message of the error that ended the sample, ``None`` when it ran to its score.
        model_calls: the sample's model calls (its ``model`` events; one per generate, retries included in it).
    """

    id: str | int
    epoch: int
    target: str | list[str]
    metadata: dict[str, Any]
    scores: dict[str, Score]
    error: str | None
    model_calls: int = 0


def _of_json(data: dict[str, Any]) -> LogSample:
    """A :class:`LogSample` from a sample member's parsed JSON (Inspect's ``EvalSample`` fields)."""
    error = data.get("error")
    return LogSample(
        id=data["id"],
        epoch=int(data["epoch"]),
        target=data.get("target", ""),
        metadata=data.get("metadata") or {},
        scores={name: Score.model_validate(score) for name, score in (data.get("scores") or {}).items()},
        error=error.get("message") if isinstance(error, dict) else None,
        model_calls=sum(1 for event in data.get("events") or [] if event.get("event") == "model"),
    )


def _of_sample(sample: Any) -> LogSample:
    """A :class:`LogSample` from an ``EvalSample`` (a ``.json`` log read whole)."""
    return LogSample(
        id=sample.id,
        epoch=int(sample.epoch),
        target=sample.target,
        metadata=sample.metadata or {},
        scores=dict(sample.scores or {}),
        error=sample.error.message if sample.error is not None else None,
        model_calls=sum(1 for event in sample.events or [] if event.event == "model"),
    )


@asynccontextmanager
async def open_archive(location: str) -> AsyncIterator[zipfile.ZipFile]:
    """The ``.eval`` archive at ``location`` (a path or a store URL) opened once; a store's log copied into a
    temporary file first, through the running event loop's store client.

    Raises:
        OSError, zipfile.BadZipFile: the log cannot be read.
    """
    if not is_url(location):
        with zipfile.ZipFile(local_path(location)) as archive:
            yield archive
        return
    with tempfile.TemporaryFile() as copy:
        await download_log(location, copy)
        copy.seek(0)
        with zipfile.ZipFile(copy) as archive:
            yield archive


def sample_members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    """The sample members of an ``.eval`` archive in the archive's order; a name written twice (a re-queued
    sample) is its last entry, as Inspect reads it."""
    members = {info.filename: info for info in archive.infolist()}
    return [info for name, info in members.items() if name.startswith(SAMPLES_DIR) and name.endswith(".json")]


def member_key(info: zipfile.ZipInfo) -> tuple[str, int]:
    """The (sample id as text, epoch) of a sample member, from its name ``samples/<id>_epoch_<epoch>.json``."""
    sample_id, epoch = info.filename[len(SAMPLES_DIR) : -len(".json")].rsplit("_epoch_", 1)
    return sample_id, int(epoch)


async def read_samples_async(location: str) -> AsyncIterator[LogSample]:
    """Each sample of the log at ``location`` (a path or a store URL), one at a time, in the archive's order
    (not sorted: key them by ``(id, epoch)``); a sample logged twice (re-queued) is read once, its last record,
    as Inspect reads it. Run in the event loop that reads the rest of the command's logs, so through its one
    store client.

    Raises:
        OSError, zipfile.BadZipFile, ValueError (bad JSON or score): the log cannot be read.
    """
    if location.endswith(".json") and not is_url(location):
        with open(local_path(location), "rb") as file:
            document = json.load(file)
        for data in document.get("samples") or []:
            yield _of_json(data)
        return
    if location.endswith(".json"):
        log = await read_eval_log_async(location)
        for sample in log.samples or []:
            yield _of_sample(sample)
        return
    async with open_archive(location) as archive:
        for info in sample_members(archive):
            yield _of_json(json.loads(archive.read(info)))
