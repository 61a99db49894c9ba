"""The two errors a data file can raise: missing (with the ways to provide it) and malformed (naming file, record
and field). Under ``inspect eval`` (``evals/<task>.py`` or ``bediscover_inspect/<task>``) either one is printed as one
line on stderr in every display mode (:func:`bediscover_inspect.tasks.inspect_entry`); both are also Inspect
``PrerequisiteError``s, which Inspect shows without a traceback when it meets one itself."""

from __future__ import annotations

from .._inspect_compat import PrerequisiteError as _UserFacingError


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
