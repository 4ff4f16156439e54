"""The readers, and how one is chosen for a file.

A :class:`Reader` is a name, the suffixes it claims, a ``sniff`` that recognises its content
from the first 64 KB, and a ``read(data, ctx) -> list[Paper]``. For a file, the reader is:

1. the one named by ``format`` (``--input-format``), if given;
2. else a reader that claims the file's suffix *and* recognises its content;
3. else any reader that recognises the content (a ``.txt`` can be RIS, MEDLINE, Web of Science,
   a tab-delimited export or a seed dump), except "loose" ones whose sniff accepts any prose
   (the seed dump: a LICENSE file would pass);
4. else the reader whose main suffix it is (``.txt``: the seed dump), or the first that claims it.

Readers are tried in the order of :data:`READERS`: specific formats first, the loose seed-dump
layout last.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ReaderError
from ..corpus.paper import Paper
from .bibtex import looks_like_bibtex, read_bibtex
from .bounds import cut_long
from .fields import ReadContext, warn_if_huge
from .jsonfmt import looks_like_json, read_json
from .ris import looks_like_medline, looks_like_ris, looks_like_wos, read_medline, read_ris, read_wos
from .seeds import looks_like_seed_text, read_seed_text
from .tables import looks_like_table, looks_like_xlsx, read_csv, read_xlsx
from .xmlfmt import looks_like_atom, looks_like_pubmed_xml, read_arxiv_atom, read_pubmed_xml

__all__ = ["FORMAT_ALIASES", "READERS", "Reader", "choose_reader", "reader_named", "supported_formats"]


@dataclass(frozen=True)
class Reader:
    """One input format. ``binary`` readers get bytes and sniff bytes; the others get text."""

    name: str
    suffixes: tuple[str, ...]
    read: Callable[..., list[Paper]]
    sniff: Callable | None = None
    description: str = ""
    binary: bool = False
    loose: bool = False  # its sniff accepts plain prose: only trusted for files with its suffix


def _read_seeds(text: str, ctx: ReadContext) -> list[Paper]:
    papers = read_seed_text(ctx.name, text=text, display_name=ctx.name,
                            cut=lambda value, line: cut_long(ctx, line, "abstract", value))
    for paper in papers:
        if len(paper.abstract) < ctx.max_chars:  # (one cut has had its warning)
            warn_if_huge(ctx, paper.source.rsplit(":", 1)[-1], abstract=paper.text)
    return papers


READERS: dict[str, Reader] = {
    r.name: r
    for r in (
        Reader("xlsx", (".xlsx", ".xlsm"), read_xlsx, looks_like_xlsx, "Excel workbook (first sheet)", binary=True),
        Reader("pubmed-xml", (".xml",), read_pubmed_xml, looks_like_pubmed_xml, "PubMed efetch XML"),
        Reader("arxiv-atom", (".atom", ".xml"), read_arxiv_atom, looks_like_atom, "arXiv API Atom feed"),
        Reader("json", (".json", ".jsonl", ".ndjson"), read_json, looks_like_json,
               "JSON / JSON Lines: OpenAlex, Semantic Scholar, CSL-JSON, generic records"),
        Reader("bibtex", (".bib", ".bibtex", ".biblatex"), read_bibtex, looks_like_bibtex, "BibTeX / biblatex"),
        Reader("medline", (".nbib", ".medline", ".txt"), read_medline, looks_like_medline, "PubMed MEDLINE / nbib"),
        Reader("wos", (".ciw", ".txt"), read_wos, looks_like_wos, "Web of Science plain text (FN/PT/ER)"),
        Reader("ris", (".ris", ".txt"), read_ris, looks_like_ris,
               "RIS: Zotero, EndNote, Scopus, Embase, Ovid, ProQuest, IEEE, Web of Science"),
        Reader("csv", (".csv", ".tsv", ".tab", ".txt"), read_csv, looks_like_table,
               "CSV / TSV with a header row: Scopus, WoS, IEEE, Springer, Embase, ASReview"),
        Reader("seeds", (".txt",), _read_seeds, looks_like_seed_text,
               "seed text dump: a collection name, then abstracts separated by blank lines", loose=True),
    )
}

#: Other names accepted for ``format=`` / ``--input-format``.
FORMAT_ALIASES = {
    "bib": "bibtex", "biblatex": "bibtex", "nbib": "medline", "pubmed": "pubmed-xml", "xml": "pubmed-xml",
    "arxiv": "arxiv-atom", "atom": "arxiv-atom", "jsonl": "json", "openalex": "json",
    "semantic-scholar": "json", "s2": "json", "tsv": "csv", "table": "csv", "excel": "xlsx",
    "web-of-science": "wos", "seed": "seeds", "txt": "seeds",
}


def supported_formats() -> str:
    """The suffixes the readers claim, for error messages: ``.atom .bib ...``."""
    return " ".join(sorted({s for r in READERS.values() for s in r.suffixes}))


def reader_named(format: str, path: str | Path | None = None) -> Reader:
    name = FORMAT_ALIASES.get(format.lower().strip(), format.lower().strip())
    if name not in READERS:
        raise ReaderError(f"unknown input format {format!r}; known formats: {', '.join(READERS)}", path)
    return READERS[name]


def _accepts(reader: Reader, head_text: str, head_bytes: bytes) -> bool:
    if reader.sniff is None:
        return False
    return bool(reader.sniff(head_bytes if reader.binary else head_text))


def choose_reader(path: Path, head_bytes: bytes, head_text: str, format: str | None = None) -> Reader | None:
    """The reader for a file (see the module docstring); None when nothing fits."""
    if format:
        return reader_named(format, path)
    suffix = path.suffix.lower()
    claiming = [r for r in READERS.values() if suffix in r.suffixes]
    for reader in claiming:
        if _accepts(reader, head_text, head_bytes):
            return reader
    for reader in READERS.values():
        if reader not in claiming and not reader.loose and _accepts(reader, head_text, head_bytes):
            return reader
    if not claiming:
        return None
    return next((r for r in claiming if r.suffixes[0] == suffix), claiming[0])
