"""Reading sources: files or folders in, :class:`~workbench.corpus.paper.Paper` records out.

One path for every format, as in ASReview: **read** (a parser per format: bibtexparser, rispy,
pandas, json, ElementTree) -> **clean** (column aliases declared as data, years, authors,
labels, LaTeX -> text) -> **records** (frozen papers with stable ids), then duplicates are
merged across all sources (:mod:`workbench.dedupe`) and a :class:`ReadReport` says, per file,
how many records were read, skipped (and why) and merged.

Formats: BibTeX/biblatex, RIS (Zotero, EndNote, Scopus, Embase, Ovid, ProQuest, IEEE, Web of
Science), Web of Science plain text, MEDLINE/nbib, CSV/TSV/XLSX (Scopus, WoS, IEEE, Springer,
Embase, arXiv dumps, ASReview), JSON/JSON Lines (OpenAlex, Semantic Scholar, CSL-JSON,
generic), PubMed XML, arXiv Atom, and the seed text dumps; ``.zip``, ``.gz`` and ``.tar.gz``
archives of them are read in memory (:mod:`.archives`), everything within limits
(:mod:`.bounds`), and links leading outside the source folders are not followed
(:mod:`.folders`). See :mod:`.registry` for how a file's reader is chosen, and docs/readers.md
for what is recovered and reported.
"""

from __future__ import annotations

from .fields import FIELD_ALIASES, ReadContext
from .registry import FORMAT_ALIASES, READERS, Reader, choose_reader, supported_formats
from .report import FileReport, ReadReport, merge_rule, rule_counts
from .sources import read_file, read_file_report, read_found, read_sources, source_files

__all__ = [
    "FIELD_ALIASES",
    "FORMAT_ALIASES",
    "READERS",
    "FileReport",
    "ReadContext",
    "ReadReport",
    "Reader",
    "choose_reader",
    "read_file",
    "read_file_report",
    "read_found",
    "merge_rule",
    "read_sources",
    "rule_counts",
    "source_files",
    "supported_formats",
]
