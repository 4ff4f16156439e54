"""``workbench check``: the store and every file of the review's current set, each problem said
with what to do about it.

The store is checked by the store (integrity, references, orphans, snapshots); one that cannot be
opened is reported with its snapshots and the restore command (``restore`` works without opening
it). The files are verified by :func:`._verify.verify`: each file build.json recorded
(size and SHA-256), every line of papers.jsonl, the arrays' safetensors header and shapes, the
JSON files; and the top-level map.html must end as written. A damaged file is named with the
command that writes the files again.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from . import _folder as files
from ..errors import WorkbenchError
from ..store import DB_NAME
from ._verify import rebuild_command, verify
from ..store import Store, snapshot_lines

__all__ = ["CheckReport", "check_review"]


@dataclass(frozen=True)
class CheckReport:
    """``lines``: what ``workbench check`` prints, the first ``ok`` or ``PROBLEMS: ...``."""

    lines: tuple[str, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def _newest_generation(path: Path) -> str | None:
    root = path / files.GENERATIONS
    if not root.is_dir():
        return None
    names = sorted((p.name for p in root.iterdir() if not p.name.startswith(".")), reverse=True)
    return next((n for n in names if (root / n / "build.json").is_file()), None)


def _manifest(path: Path, generation: str | None) -> dict | None:
    try:
        found = json.loads((files.files_dir(path, generation) / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def check_review(review: str | os.PathLike, reviewer: str | None = None) -> CheckReport:
    """Check the review folder ``review``: its store, and every file of its current set."""
    path = Path(review)
    problems: list[str] = []
    lines: list[str] = []
    generation, known = None, False
    store_path = path / DB_NAME
    try:
        with Store.open(path, reviewer=reviewer, create=False) as store:
            report = store.files.check(files=False)
            generation, known = store.files.generation(), True
            if store.read_only:
                report.append(f"read-only for you: {store.read_only}")
    except WorkbenchError as err:
        problems.append(f"the store cannot be used: {err}")
        report = ["", f"store: {err}", *snapshot_lines(store_path)]
    if report[0] != "ok" and report[0]:
        problems.append(report[0].removeprefix("PROBLEMS: "))
    lines += report[1:]
    if not known:
        generation = _newest_generation(path)
    built = (files.files_dir(path, generation) / "build.json").exists() or (path / files.GENERATIONS).is_dir()
    if built:
        where = f"generations/{generation}" if generation else "the review's top level"
        found = verify(path, generation)
        guessed = "" if known else " (the newest; the store, which names the current set, cannot be read)"
        if found:
            command = rebuild_command(path, _manifest(path, generation) or _manifest(path, _newest_generation(path)))
            problems += [str(p) for p in found]
            lines.append(f"files: {where}{guessed}: DAMAGED")
            lines += [f"  {p}" for p in found]
            lines.append(f"  write the review's files again with `{command}` (tags, notes and decisions "
                         "are in the store and are kept)")
        else:
            manifest = _manifest(path, generation) or {}
            recorded = manifest.get(files.FILES)
            how = (f"{len(recorded)} files, sizes and SHA-256 as written" if isinstance(recorded, dict)
                   else "each file read; this build recorded no sizes or digests")
            lines.append(f"files: {where}{guessed} ({how})")
        if not files.map_is_whole(path):
            what = "missing" if not (path / "map.html").exists() else "cut short"
            problems.append(f"map.html is {what}")
            lines.append(f"map.html: {what.upper()}; `{rebuild_command(path, _manifest(path, generation))}` "
                         "writes it again")
    head = "ok" if not problems else "PROBLEMS: " + "; ".join(problems)
    return CheckReport((head, *lines), tuple(problems))
