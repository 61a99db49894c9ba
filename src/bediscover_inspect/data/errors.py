"""The two errors a data file can raise: missing (with the ways to provide it) and malformed (naming file, record
and field). Under ``inspect eval`` (``evals/<task>.py`` or ``bediscover_inspect/<task>``) either one is printed as one
line on stderr in every display mode (:func:`bediscover_inspect.tasks.inspect_entry`); both are also Inspect
``PrerequisiteError``s, which Inspect shows without a traceback when it meets one itself."""

from __future__ import annotations

try:  # Inspect's CLI prints a PrerequisiteError as its message alone, without a traceback (inspect-ai 0.3.x)
    from inspect_ai._util.error import PrerequisiteError as _UserFacingError
except ImportError:  # pragma: no cover - a future Inspect without it: a plain traceback, same message
    _UserFacingError = Exception  # type: ignore[misc,assignment]


class DataFileMissingError(FileNotFoundError, _UserFacingError):
    """A benchmark file is not under the data root and cannot be downloaded.

    Also an Inspect ``PrerequisiteError``, so ``inspect eval`` shows just the message and exits 1.
    """

    def __init__(self, message: str, what: str | None = None, hint: str | None = None) -> None:
        FileNotFoundError.__init__(self, message)
        self.message = message
        self.what = what or message
        """The file and why it is missing (without the options), for a message listing several files."""
        self.hint = hint or ""
        """Where it was looked for and how to provide it."""


class DataFormatError(ValueError, _UserFacingError):
    """A data file or one of its records does not have the expected shape (names file, record, field).

    Also an Inspect ``PrerequisiteError``, so ``inspect eval`` shows just the message and exits 1.
    """

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        self.message = message
