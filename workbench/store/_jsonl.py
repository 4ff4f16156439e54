"""Reading a JSONL export back: every record checked as the command line checks its values.

One JSON object per line, the first a header naming the format and its version (an export from
a newer workbench with more keys still reads: keys not listed are ignored). Each value comes back
as the store keeps it (a tag as ``check_tag`` gives it, a decision in lower case, a reason
stripped, ...); the first bad value is an error naming the file and line, and nothing is imported.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from ..errors import ReaderError
from ..readers.bounds import Limits, read_regular
from ._annotations import check_colour, check_decision, check_reason, check_tag, check_text
from ._errors import AnnotationInputError
from ._export import JSONL_FORMAT, JSONL_VERSION
from ._papers import check_id
from ._stages import check_stage

__all__ = ["read_jsonl"]


def _str(value) -> str:
    if not isinstance(value, str):
        raise AnnotationInputError(f"{value!r}: expected text")
    return value


def _str_or_none(value) -> str | None:
    return None if value is None else _str(value)


def _int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AnnotationInputError(f"{value!r}: expected a whole number")
    return value


def _int_or_none(value) -> int | None:
    return None if value is None else _int(value)


def _str_list(value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnnotationInputError(f"{value!r}: expected a list of strings ([] for none)")
    return value


def _name(value) -> str:
    """A reviewer's name, as ``--reviewer NAME`` gives it: white space collapsed, not empty."""
    if not isinstance(value, str) or not value.strip():
        raise AnnotationInputError(f"{value!r}: expected a reviewer's name")
    return " ".join(value.split())


def _uid(value) -> str:
    if not isinstance(value, str) or not value or len(value) > 64 or any(c.isspace() for c in value):
        raise AnnotationInputError(f"{value!r}: expected the note's uid (up to 64 characters, "
                                   "no spaces)")
    return value


def _time(value) -> str:
    """A time stamp as the store writes them (``2024-05-01T09:30:00.123456Z``); ISO 8601."""
    try:
        datetime.fromisoformat(_str(value))
    except (AnnotationInputError, ValueError) as err:
        raise AnnotationInputError(
            f"{value!r}: expected an ISO 8601 time such as '2024-05-01T09:30:00.123456Z'") from err
    return value


def _context(value) -> dict:
    """How a decision was made, as an export writes it (rank, score, model, ..., bulk, sampled)."""
    if not isinstance(value, dict):
        raise AnnotationInputError(f"{value!r}: expected the decision's context (rank, score, model, ...)")
    rank, score = value.get("rank"), value.get("score")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 1):
        raise AnnotationInputError(f"rank {rank!r}: expected a whole number >= 1, or null")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
        raise AnnotationInputError(f"score {score!r}: expected a number, or null")
    return {"rank": rank, "score": None if score is None else float(score),
            "model": _str_or_none(value.get("model")), "model_version": _str_or_none(value.get("model_version")),
            "bulk": int(bool(value.get("bulk"))), "sampled": int(bool(value.get("sampled")))}


def _topic_label(value) -> str | None:
    if value is None:
        return None
    return " ".join(_str(value).split()) or None


# Per record type: (key, check, required). Each check returns the value as the store keeps it
# (a tag as ``check_tag`` gives it, a decision in lower case, a reason stripped, ...) or raises.
# Keys not listed are ignored, so a file from a newer workbench with more keys still imports.
_FIELDS = {
    "header": (("format", _str, True), ("version", _int, True)),
    "topic": (("topic", _int, True), ("label", _str_or_none, False),
              ("name", _topic_label, False), ("words", _str_list, False)),
    "tag": (("name", check_tag, True), ("description", _str_or_none, False),
            ("colour", check_colour, False), ("created_by", _str_or_none, False),
            ("created_at", lambda v: None if v is None else _time(v), False)),
    "paper": (("id", check_id, True), ("title", _str_or_none, False),
              ("abstract", _str_or_none, False), ("authors", _str_list, False),
              ("year", _int_or_none, False), ("doi", _str_or_none, False),
              ("venue", _str_or_none, False), ("url", _str_or_none, False),
              ("keywords", _str_list, False), ("collection", _str_or_none, False),
              ("source", _str_or_none, False), ("topic", _int_or_none, False)),
    "tagged": (("paper", check_id, True), ("tag", check_tag, True), ("reviewer", _name, True),
               ("at", _time, True)),
    "note": (("paper", check_id, True), ("uid", _uid, True), ("text", check_text, True),
             ("reviewer", _name, True), ("created_at", _time, True),
             ("updated_at", _time, True)),
    "decision": (("paper", check_id, True), ("reviewer", _name, True),
                 ("decision", check_decision, True), ("reason", check_reason, False),
                 ("at", _time, True), ("stage", check_stage, False), ("context", _context, False)),
    "final": (("paper", check_id, True), ("stage", check_stage, True), ("decision", check_decision, True),
              ("reason", check_reason, False), ("by", _name, True), ("at", _time, True)),
}


def _record(obj, where: str) -> tuple[str, dict]:
    """``(type, record)`` with every value checked and kept as the store keeps it."""
    kind = obj.get("type") if isinstance(obj, dict) else None
    if kind not in _FIELDS:
        raise AnnotationInputError(
            f"{where}: record type {kind!r} is unknown; expected one of {', '.join(_FIELDS)}")
    missing = [k for k, _, required in _FIELDS[kind] if required and k not in obj]
    if missing:
        raise AnnotationInputError(f"{where}: {kind} record lacks {', '.join(missing)}")
    record = dict(obj)
    for key, check, _ in _FIELDS[kind]:
        if key in obj:
            try:
                record[key] = check(obj[key])
            except AnnotationInputError as err:
                raise AnnotationInputError(f"{where}: {kind} record, {key}: {err}; nothing was "
                                           "imported, fix this line and import again") from err
    return kind, record


def _parsed(line: str, where: str):
    """One line's JSON value; :class:`AnnotationInputError` naming ``where`` for what no export
    writes: broken JSON, nesting that exhausts the decoder, a number of more digits than ``int``
    takes (4,300), half of a surrogate pair (``\\ud800`` alone: no text, and no store can keep it)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as err:
        raise AnnotationInputError(f"{where}: not JSON ({err.msg}); expected one JSON object per line") from err
    except RecursionError as err:
        raise AnnotationInputError(f"{where}: not a record (nested hundreds of levels deep, as no export is); "
                                   "expected one JSON object per line") from err
    except ValueError as err:
        raise AnnotationInputError(f"{where}: not a record (a number of more than 4,300 digits, as no export "
                                   "has); expected one JSON object per line") from err
    if "\\ud" in line or "\\uD" in line:
        try:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as err:
            raise AnnotationInputError(f"{where}: a value holds half of a surrogate pair (an escape such as \\ud800 "
                                       "alone), which is no text; nothing was imported, fix this line and import "
                                       "again") from err
    return obj


def read_jsonl(path: Path) -> dict[str, list[dict]]:
    """The records of a JSONL export, by type, every value checked as the command line checks
    it; the first bad value is an error naming the file and line."""
    path = Path(path)
    expected = "expected a .jsonl file from `workbench export --format jsonl`"
    if not path.exists() and not path.is_symlink():
        raise AnnotationInputError(f"{path}: no such file; {expected}")
    try:  # (as the readers read a source: a regular file only, a pipe never opened, within the limit)
        # Lines end at "\n" only (CR LF and CR read as "\n"): str.splitlines would also cut at
        # U+0085, U+2028, U+2029 and \x1c-\x1e, which JSON leaves unescaped inside a string.
        text = read_regular(path, Limits.from_env().file_bytes).decode("utf-8")
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    except ReaderError as err:
        raise AnnotationInputError(f"{err}; {expected}") from err
    except UnicodeDecodeError as err:
        raise AnnotationInputError(f"cannot read {path} ({err}); {expected}") from err
    records: dict[str, list[dict]] = {kind: [] for kind in _FIELDS}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        obj = _parsed(line, f"{path}:{n}")
        kind, record = _record(obj, f"{path}:{n}")
        records[kind].append(record)
    header = records["header"]
    version = header[0]["version"] if header else None
    if not header or header[0]["format"] != JSONL_FORMAT or version > JSONL_VERSION:
        got = header[0] if header else "no header line"
        raise AnnotationInputError(
            f"{path} is not a workbench annotations export (header: {got}); expected a first "
            f"line with format {JSONL_FORMAT!r} and version <= {JSONL_VERSION}")
    return records
