"""Reading a data file's records (a JSON list, or JSON lines) and checking their fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import DataFormatError


def read_records(local: str, limit: int | None = None) -> tuple[dict[str, Any], ...]:
    """Parse a ``.json`` list or ``.jsonl`` file into records; with ``limit``, only its first ``limit`` records.

    The prefix of a JSON list is streamed with ijson (the yajl2 C backend), so a paper subset of a large file
    (e.g. 242 of a DISRPT corpus's 2,586 relations) never materialises the rest. Not memoised: a process-wide
    cache kept every parsed file alive for the whole eval (38 MB for the DISRPT paper subset), to save
    a rebuild of at most 0.6 s.
    """
    try:
        return _parse_records(local, limit)
    except UnicodeDecodeError as ex:
        raise DataFormatError(
            f"{local}: not UTF-8 text (byte {ex.object[ex.start : ex.end]!r} at offset {ex.start})"
        ) from ex


def _parse_records(local: str, limit: int | None) -> tuple[dict[str, Any], ...]:
    """The records of the data file ``local`` (the first ``limit`` when given), each an object, their ``id``
    fields distinct.

    Raises:
        DataFormatError: not valid JSON, no records, a record that is no object, an ``id`` repeated (the message
            names the file and the line or record).
    """
    if local.endswith(".jsonl"):
        records = _jsonl_records(local, limit)
    elif limit is not None:
        records = _first_json_records(local, limit)
    else:
        records = _json_records(local)
    if not records and limit != 0:
        raise DataFormatError(f"{local}: the file holds no records")
    _check_records(local, records)
    return tuple(records)


def _jsonl_records(local: str, limit: int | None) -> list[Any]:
    """The records of a JSON-lines file, one per non-blank line (the first ``limit``)."""
    records: list[Any] = []
    with open(local, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if limit is not None and len(records) >= limit:
                break
            if not line.strip():
                continue
            try:
                records.append(json.loads(line.rstrip("\r\n")))
            except json.JSONDecodeError as ex:
                raise DataFormatError(f"{local}, line {line_no}: not valid JSON ({ex.msg}: column {ex.colno})") from ex
    return records


def _first_json_records(local: str, limit: int) -> list[Any]:
    """The first ``limit`` records of a JSON list, read incrementally (the rest of the file is never parsed)."""
    import ijson

    records: list[Any] = []
    try:
        with open(local, "rb") as handle:
            for record in ijson.items(handle, "item", use_float=True):
                if len(records) >= limit:
                    break
                records.append(record)
    except ijson.JSONError as ex:
        # yajl's message continues with an excerpt and a caret on the next lines: keep its first line
        reason = str(ex).strip().splitlines()[0] if str(ex).strip() else type(ex).__name__
        raise DataFormatError(f"{local}: not valid JSON after {len(records)} complete records ({reason})") from ex
    return records


def _json_records(local: str) -> list[Any]:
    """The records of a file holding one JSON list."""
    try:
        loaded = json.loads(Path(local).read_text(encoding="utf-8"))
    except json.JSONDecodeError as ex:
        raise DataFormatError(f"{local}: not valid JSON ({ex.msg}: line {ex.lineno} column {ex.colno})") from ex
    if not isinstance(loaded, list):
        raise DataFormatError(f"{local}: expected a JSON list of records, got {type(loaded).__name__}")
    return loaded


def _check_records(local: str, records: list[Any]) -> None:
    """Every record is an object, and no (integer or string) ``id`` repeats."""
    first_index: dict[Any, int] = {}
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise DataFormatError(f"{local}, record {index}: expected an object, got {type(record).__name__}")
        record_id = record.get("id")
        if not isinstance(record_id, (int, str)) or isinstance(record_id, bool):
            continue
        if record_id in first_index:
            raise DataFormatError(
                f"{local}, record {index}: field 'id' repeats {record_id!r} of record {first_index[record_id]}"
            )
        first_index[record_id] = index


def require_field(record: dict[str, Any], field: str, file: str, index: int, kind: type | tuple[type, ...]) -> Any:
    """Return ``record[field]`` if present and of type ``kind`` (a JSON ``true`` is not an ``int`` here).

    Raises:
        DataFormatError: naming the file, the record (index and ``id``) and the field.
    """
    if field not in record:
        raise DataFormatError(f"{file}, record {index} (id={record.get('id')!r}): missing field {field!r}")
    value = record[field]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in kinds):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise DataFormatError(
            f"{file}, record {index} (id={record.get('id')!r}): field {field!r} should be {names}, "
            f"got {type(value).__name__}"
        )
    return value
