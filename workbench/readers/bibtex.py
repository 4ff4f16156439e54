"""BibTeX and biblatex, parsed with bibtexparser v2.

bibtexparser splits the file (``{...}`` and ``(...)`` entries, ``@string`` macros and ``#``
concatenation, ``@comment``/``@preamble``) and reports blocks it could not parse; this module
adds what a reader of exported libraries needs on top:

* ``crossref`` inheritance (a chapter takes its book's year, publisher and title as venue),
  with cycles detected;
* ``#`` concatenation of quoted text and ``@string`` macros (``"John " # lastname``), which
  bibtexparser 2.1 leaves unresolved;
* what Zotero, JabRef and Better BibTeX forgive (entries without a key, empty fields between
  commas, fields given twice, a missing closing brace, duplicate keys, unknown entry types) is
  repaired with a warning naming the line (:mod:`.bibrepair`);
* arXiv ids from ``eprint`` + ``archivePrefix`` or a Google-Scholar-style ``journal``;
* two quotings BibTeX writers use are undone, so a value reads as it was written: ``{"}`` for a
  ``"`` inside a ``"``-quoted value, and ``{}`` before an ``@`` that starts a line of a value
  (without it bibtexparser would take the line for a new entry);
* LaTeX in every field converted to text by the shared clean-up (pylatexenc).
"""

from __future__ import annotations

import logging
import re

from bibtexparser.library import Library
from bibtexparser.middlewares import (
    LibraryMiddleware,
    NormalizeFieldKeys,
    RemoveEnclosingMiddleware,
    ResolveStringReferencesMiddleware,
    SeparateCoAuthors,
)
from bibtexparser.model import Entry

from ..corpus.paper import Paper
from ..corpus.ids import normalise_arxiv_id
from .bibrepair import split
from .fields import ReadContext, record_from_mapping, resolve_columns
from .pool import make_papers

__all__ = ["looks_like_bibtex", "read_bibtex"]

_ENTRY_START = re.compile(r"^\s*@\s*[A-Za-z]+\s*[{(]", re.M)

#: Fields a child entry inherits from its ``crossref`` parent when it lacks them.
#: Identifiers (doi, url, eprint, pmid) are never inherited: they name the parent.
INHERITED = (
    "year", "date", "journal", "journaltitle", "booktitle", "publisher", "editor", "series",
    "volume", "organization", "address", "location", "eventtitle",
)
_BOOK_TYPES = {"book", "mvbook", "proceedings", "mvproceedings", "collection", "mvcollection", "reference"}


def looks_like_bibtex(head: str) -> bool:
    return _ENTRY_START.search(head) is not None


def _split_concatenation(value: str) -> list[str]:
    """``cool # " " # stuff`` -> ``['cool', '" "', 'stuff']``.

    Reads a value the way bibtexparser's splitter does: a ``#`` inside braces or quotes is
    text, braces inside quotes are not counted (``{"}`` is a quote inside quotes), and a
    brace, quote or ``#`` right after a backslash is escaped.
    """
    parts, buf, depth, quoted = [], [], 0, False
    for i, ch in enumerate(value):
        if i and value[i - 1] == "\\":
            pass
        elif quoted:
            quoted = not (ch == '"' and value[i - 1:i] + value[i + 1:i + 2] != "{}")
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(depth - 1, 0)
        elif ch == '"' and depth == 0:
            quoted = True
        elif ch == "#" and depth == 0:
            parts.append("".join(buf).strip())
            buf = []
            continue
        buf.append(ch)
    parts.append("".join(buf).strip())
    return parts


def _literal(part: str, macros: dict[str, str]) -> str:
    if len(part) >= 2 and (part[0], part[-1]) in (('"', '"'), ("{", "}")):
        return part[1:-1]
    return macros.get(part.lower(), part)


class _ResolveConcatenation(LibraryMiddleware):
    """Resolve ``#`` concatenations and macros in ``@string`` and field values.

    Runs before bibtexparser's own string resolution; resolved values are re-enclosed in braces
    so the rest of the default parse stack treats them as literal text. Macros made of macros
    double at each step (``@string{b = a # a}``): forty of them would spell terabytes, so a
    value is joined only up to ``ctx.max_chars`` characters, and all of them together only up to
    ``budget`` (the caller's: what the file holds, plus one value), each cut with a warning.
    """

    def __init__(self, ctx: ReadContext, budget: int):
        super().__init__()
        self.ctx = ctx
        self.budget = budget

    def transform(self, library: Library) -> Library:
        macros: dict[str, str] = {}
        for string in library.strings:
            parts = _split_concatenation(str(string.value))
            name = string.key.lower()
            macros[name] = self._joined(parts, macros, string.start_line, f"@string {string.key!r}")
            string.value = "{" + macros[name] + "}"
        for entry in library.entries:
            for fld in entry.fields:
                if isinstance(fld.value, str):
                    parts = _split_concatenation(fld.value)
                    if len(parts) > 1 or parts[0].lower() in macros:
                        fld.value = "{" + self._joined(parts, macros, entry.start_line, f"the {fld.key}") + "}"
        return library

    def _joined(self, parts: list[str], macros: dict[str, str], start_line: int | None, what: str) -> str:
        """The text of ``parts`` joined, cut where it passes ``ctx.max_chars`` or what is left of
        the budget."""
        limit = min(self.ctx.max_chars, self.budget)
        pieces, size = [], 0
        for part in parts:
            piece = _literal(part, macros)
            pieces.append(piece)
            size += len(piece)
            if size > limit:
                why = (f"more than {limit:,} characters, more than a value may hold (WORKBENCH_MAX_FIELD_CHARS sets "
                       f"the limit)" if limit == self.ctx.max_chars else
                       "more text than the file's macros may add to it (as much as the file holds)")
                self.ctx.warn(f"{what} spells {why}: it keeps its first {limit:,} characters; check the file's "
                              "@string definitions (macros that repeat one another?)", (start_line or 0) + 1)
                pieces, size = ["".join(pieces)[:limit]], limit
                break
        self.budget -= size
        return "".join(pieces)


_STACK = (ResolveStringReferencesMiddleware, RemoveEnclosingMiddleware, NormalizeFieldKeys,
          SeparateCoAuthors)


def _parse(text: str, ctx: ReadContext) -> Library:
    """bibtexparser's blocks, repaired where importers are lenient (:mod:`.bibrepair`), through
    our concatenation and its middlewares."""
    logger = logging.getLogger("bibtexparser")
    level = logger.level
    logger.setLevel(logging.ERROR)  # bibtexparser logs recoverable problems; we report them
    try:
        library = split(text, ctx.warn, ctx.skip)
        library = _ResolveConcatenation(ctx, budget=len(text) + ctx.max_chars).transform(library)
        for middleware in _STACK:
            library = middleware().transform(library)
        return library
    finally:
        logger.setLevel(level)


_GUARDED_AT = re.compile(r"(\n[^\S\n]*)\{\}((?:\{\})*@)")


def _unquote(value, enclosing: str | None):
    """Undo the writer's quoting of a value (see the module docstring)."""
    if not isinstance(value, str):
        return value
    if enclosing == '"' and '{"}' in value:
        value = value.replace('{"}', '"')
    return _GUARDED_AT.sub(r"\1\2", value) if "{}" in value else value


def _fields(entry: Entry) -> dict:
    enclosings = {k.lower(): v for k, v in (entry.parser_metadata.get("removed_enclosing") or {}).items()}
    values = {f.key.lower(): _unquote(f.value, enclosings.get(f.key.lower())) for f in entry.fields}
    values["entry_type"] = entry.entry_type.lower()
    values["event_venue"] = values.pop("venue", None)  # biblatex "venue" is where an event was held
    values["citation_label"] = values.pop("label", None)  # biblatex "label" is a citation label
    return values


def _inherit(key: str, entries: dict[str, dict], ctx: ReadContext, line: int, seen: tuple = ()) -> dict:
    values = entries[key]
    parent_key = str(values.get("crossref") or "").strip().lower()
    if not parent_key:
        return values
    if parent_key in seen or parent_key == key:
        ctx.warn(f"crossref cycle {' -> '.join((*seen, key, parent_key))}; inheritance stopped", line)
        return values
    if parent_key not in entries:
        ctx.warn(f"crossref {parent_key!r} names no entry in this file; nothing inherited", line)
        return values
    parent = _inherit(parent_key, entries, ctx, line, (*seen, key))
    merged = dict(values)
    for name in INHERITED:
        if not merged.get(name) and parent.get(name):
            merged[name] = parent[name]
    if not merged.get("booktitle") and parent.get("entry_type") in _BOOK_TYPES and parent.get("title"):
        merged["booktitle"] = parent["title"]
    return merged


def _arxiv(values: dict) -> str | None:
    prefix = str(values.get("archiveprefix") or values.get("eprinttype") or "").lower()
    if prefix == "arxiv" and values.get("eprint"):
        return normalise_arxiv_id(values["eprint"])
    journal = str(values.get("journal") or "")
    return normalise_arxiv_id(journal) if "arxiv" in journal.lower() else None


def read_bibtex(text: str, ctx: ReadContext) -> list[Paper]:
    library = _parse(text, ctx)
    for block in library.failed_blocks:  # a middleware choked on an entry
        ctx.skip(f"entry could not be read ({block.error}); check its fields", (block.start_line or 0) + 1)
    blocks = [((entry.start_line or 0) + 1, entry.key, _fields(entry)) for entry in library.entries]
    by_key = {key.lower(): values for _, key, values in blocks}  # keys are unique once repaired
    items = []
    columns_cache: dict[tuple, dict] = {}
    for line, key, values in blocks:
        values = _inherit(key.lower(), by_key, ctx, line)
        arxiv_id = _arxiv(values)
        if arxiv_id:
            values = {**values, "arxiv id": arxiv_id}
        keys = tuple(values)
        columns = columns_cache.get(keys) or columns_cache.setdefault(keys, resolve_columns(keys))
        items.append((values, line, columns))
    papers = make_papers(ctx, items, lambda ctx, item: record_from_mapping(ctx, *item))
    if not papers and not ctx.n_skipped:
        ctx.no_records("no BibTeX entries found (only comments, @string or @preamble blocks)")
    return papers
