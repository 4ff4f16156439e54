"""Reading sources: files or folders in, :class:`~workbench.records.Paper` records out.

Each format is a :class:`Reader`: a name, the file suffixes it claims, a ``sniff`` that
recognises its content from the first few KB, and a ``read`` that returns papers. A file is
given to the reader named by ``format=``, else the one whose ``sniff`` accepts the content,
else the one claiming its suffix. Readers know nothing of embeddings, topics or the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import ReaderError
from ..records import Paper
from .seeds import looks_like_seed_text, read_seed_text

__all__ = ["Reader", "READERS", "ReadReport", "FileReport", "read_file", "read_sources", "supported_formats"]


@dataclass(frozen=True)
class Reader:
    name: str
    suffixes: tuple[str, ...]
    read: Callable[..., list[Paper]]
    sniff: Callable[[str], bool] | None = None


READERS: dict[str, Reader] = {
    "seeds": Reader("seeds", (".txt",), read_seed_text, looks_like_seed_text),
}


def supported_formats() -> str:
    suffixes = sorted({s for r in READERS.values() for s in r.suffixes})
    return " ".join(suffixes)


@dataclass
class FileReport:
    """What happened to one file: how many records were read, skipped (and why), merged."""

    path: str
    format: str
    read: int = 0
    skipped: list[str] = field(default_factory=list)
    merged: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass
class ReadReport:
    files: list[FileReport] = field(default_factory=list)
    merges: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = []
        for f in self.files:
            line = f"{f.path} ({f.format}): {f.read} read, {len(f.skipped)} skipped, {f.merged} merged"
            out.append(line)
            out.extend(f"  skipped: {s}" for s in f.skipped)
            out.extend(f"  warning: {w}" for w in f.warnings)
        return out


def _expand(sources: Iterable[str | Path]) -> list[Path]:
    paths: list[Path] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            found = sorted(
                f for f in p.rglob("*") if f.is_file() and not f.name.startswith(".")
            )
            if not found:
                raise ReaderError("the folder has no files; expected abstracts as " + supported_formats(), p)
            paths.extend(found)
        elif p.is_file():
            paths.append(p)
        else:
            raise ReaderError("no such file or folder; give an existing file or folder of abstracts", p)
    return paths


def _choose_reader(path: Path, head: str, format: str | None) -> Reader:
    if format:
        if format not in READERS:
            raise ReaderError(f"unknown format {format!r}; known formats: {', '.join(sorted(READERS))}", path)
        return READERS[format]
    for reader in READERS.values():
        if reader.sniff is not None and reader.sniff(head):
            return reader
    suffix = path.suffix.lower()
    for reader in READERS.values():
        if suffix in reader.suffixes:
            return reader
    raise ReaderError(
        f"no reader for {path.name!r}; supported: {supported_formats()} (or pass --format)", path
    )


def _read(path: Path, format: str | None, display_name: str | None) -> tuple[Reader, list[Paper]]:
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise ReaderError(f"cannot read the file ({err.strerror}); check the path and permissions", path) from err
    if not raw.strip():
        raise ReaderError("the file is empty; expected abstracts as " + supported_formats(), path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ReaderError(
            f"not UTF-8 text (byte {err.start}); save the file as UTF-8 and read it again", path
        ) from err
    reader = _choose_reader(path, text[:8192], format)
    return reader, reader.read(path, text=text, display_name=display_name or str(path))


def read_file(path: str | Path, format: str | None = None, display_name: str | None = None) -> list[Paper]:
    """Read one file with the reader its content or suffix calls for."""
    return _read(Path(path), format, display_name)[1]


def read_sources(sources: Iterable[str | Path], format: str | None = None) -> tuple[list[Paper], ReadReport]:
    """Read every file under ``sources``; papers with the same id are merged, first one wins.

    Returns the papers in reading order and a report of what each file contributed.
    """
    report = ReadReport()
    by_id: dict[str, Paper] = {}
    for path in _expand(sources):
        reader, papers = _read(path, format, None)
        fr = FileReport(path=str(path), format=reader.name, read=len(papers))
        for paper in papers:
            kept = by_id.get(paper.id)
            if kept is None:
                by_id[paper.id] = paper.replace(sources=(paper.source,))
            else:
                by_id[paper.id] = kept.replace(sources=kept.sources + (paper.source,))
                fr.merged += 1
                report.merges.append(f"{paper.source} is the same paper as {kept.source} (same id {paper.id})")
        report.files.append(fr)
    return list(by_id.values()), report
