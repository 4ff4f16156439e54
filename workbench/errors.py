"""The workbench's exceptions.

Every message says what was received, what was expected and what to do next, so the command
line can print it as one line and a notebook user can act on it without reading a traceback.
"""

from __future__ import annotations

__all__ = [
    "WorkbenchError",
    "InputError",
    "ReaderError",
    "NoRecordsError",
    "ReviewError",
    "StoreError",
    "EmbedderError",
]


class WorkbenchError(Exception):
    """Base class: anything the workbench raises on purpose."""


class InputError(WorkbenchError, ValueError):
    """An argument or parameter the caller gave is not usable."""


class ReaderError(WorkbenchError):
    """A source file cannot be read. ``path`` and ``line`` say where, when known."""

    def __init__(self, message: str, path=None, line: int | None = None):
        self.path = str(path) if path is not None else None
        self.line = line
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line else f"{self.path}: "
        super().__init__(where + message)


class NoRecordsError(ReaderError):
    """No file of the sources yielded a record. ``report`` (a ``ReadReport``) says, file by file, why."""

    def __init__(self, report):
        self.report = report
        files = report.files
        shown = "; ".join(_why(f) for f in files[:3]) + (f"; and {len(files) - 3} more" if len(files) > 3 else "")
        super().__init__(
            f"no records in {len(files)} file{'' if len(files) == 1 else 's'} ({shown}); "
            "check the files are exports of records (see the report above), or name their format"
        )


def _why(f) -> str:
    if f.error is not None:
        return f"{f.path}: not read: {f.error}"
    why = [w for w in f.warnings if w.startswith(f"{f.path}: no ")] or f.warnings[-1:] or f.skipped[:1]
    detail = why[0].removeprefix(f"{f.path}: ") if why else ""
    return f"{f.path} ({f.format}): 0 read" + (f", {detail}" if detail else "")


class ReviewError(WorkbenchError):
    """A review folder is missing, incomplete, or from an incompatible version."""


class StoreError(WorkbenchError):
    """The annotation store cannot be opened or written."""


class EmbedderError(WorkbenchError):
    """An embedder is unknown, cannot be loaded, or returned unusable vectors."""
