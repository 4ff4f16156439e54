"""JSON and JSON Lines: OpenAlex works, Semantic Scholar papers, and generic records.

A file may be one JSON document (a list of records, one record, or an API page that wraps the
list: OpenAlex ``{"results": [...]}``, Semantic Scholar ``{"data": [...]}``, Crossref
``{"message": {"items": [...]}}``) or JSON Lines (one record per line, as OpenAlex snapshots,
the Kaggle arXiv metadata dump and ASReview's exports are). Each record is recognised on its
own:

* OpenAlex work: ``abstract_inverted_index`` or an ``https://openalex.org/W...`` id; the
  abstract is rebuilt from the inverted index;
* Semantic Scholar paper: ``paperId`` (or a ``citingPaper``/``citedPaper`` wrapper); its
  embedded ``citations``/``references`` are read too when ``with_references`` is asked for;
* anything else: the shared column aliases (CSL-JSON from Zotero, arXiv dumps, ASReview).

A list cut short (a truncated download) yields the records before the break and a warning.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..errors import ReaderError
from ..corpus.paper import Paper
from .fields import FIELD_ALIASES, ReadContext, build_paper, normalise_key, record_from_mapping

__all__ = ["looks_like_json", "read_json", "rebuild_abstract"]

_WRAPPERS = ("results", "data", "records", "items", "works", "papers", "hits", "references", "citations")
_LABEL_KEYS = frozenset(FIELD_ALIASES["label"])
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_TOO_DEEP = "nested hundreds of levels deep, as no export is"
#: Escapes of characters no text holds: ``\u0000`` and half of a surrogate pair (``\ud800``
#: without its ``\udc00``), which cannot be written as UTF-8 (to the store, a CSV, a terminal).
_UNWRITABLE_ESCAPE = re.compile(r"\\u(?:0000|[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                                r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2}\\u)[dD][c-fC-F][0-9a-fA-F]{2})")
_UNWRITABLE = re.compile("[\x00\ud800-\udfff]")


def _integer(digits: str) -> int | str:
    """An integer, or its digits where there are more than ``int`` takes (4,300): no export has one."""
    return int(digits) if len(digits) < 1000 else digits


_LONG_INTEGERS = json.JSONDecoder(parse_int=_integer)


def _decoded(text: str, pos: int | None = None) -> Any:
    """``json.loads(text)`` (``pos``: ``raw_decode(text, pos)``); an integer too long for ``int``
    keeps its digits (a ValueError that is no JSONDecodeError)."""
    try:
        return _DECODER.decode(text) if pos is None else _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return _LONG_INTEGERS.decode(text) if pos is None else _LONG_INTEGERS.raw_decode(text, pos)


def _writable(value: Any) -> Any:
    """``value`` with every string's NULs removed and its halves of surrogate pairs replaced by
    U+FFFD (as decoding a file does with its bytes); the same object where none is."""
    if isinstance(value, str):
        return _UNWRITABLE.sub(lambda m: "" if m.group() == "\x00" else "\ufffd", value) \
            if _UNWRITABLE.search(value) else value
    if isinstance(value, list):
        return [_writable(v) for v in value]
    if isinstance(value, dict):
        return {_writable(k): _writable(v) for k, v in value.items()}
    return value


def looks_like_json(head: str) -> bool:
    return head.lstrip()[:1] in ("{", "[")


def rebuild_abstract(index: Any) -> str:
    """OpenAlex's ``{"word": [positions]}`` back to the running text."""
    if not isinstance(index, dict) or not index:
        return ""
    at: dict[int, str] = {}
    for word, places in index.items():
        for place in places if isinstance(places, list) else ():
            if isinstance(place, int) and not isinstance(place, bool):
                at[place] = word
    return " ".join(at[p] for p in sorted(at))


def _listed(value: Any) -> list:
    """A list the record holds, or none (a value of another type where a list belongs)."""
    return value if isinstance(value, list) else []


def _label(rec: dict) -> dict:
    for key, value in rec.items():
        if normalise_key(key) in _LABEL_KEYS:
            return {"label": value}
    return {}


def _openalex(rec: dict) -> dict:
    location = rec.get("primary_location") if isinstance(rec.get("primary_location"), dict) else {}
    source = location.get("source") if isinstance(location.get("source"), dict) else {}
    host = rec.get("host_venue") if isinstance(rec.get("host_venue"), dict) else {}
    ids = rec.get("ids") if isinstance(rec.get("ids"), dict) else {}
    keywords = [k for k in _listed(rec.get("keywords")) if isinstance(k, (dict, str))]
    return {
        "title": rec.get("title") or rec.get("display_name"),
        "abstract": rebuild_abstract(rec.get("abstract_inverted_index")) or rec.get("abstract"),
        "authors": rec.get("authorships") or rec.get("authors"),
        "year": rec.get("publication_year") or rec.get("publication_date"),
        "venue": source.get("display_name") or host.get("display_name"),
        "doi": rec.get("doi") or ids.get("doi"),
        "pmid": ids.get("pmid"),
        "url": location.get("landing_page_url") or rec.get("id"),
        "keywords": [k.get("display_name") if isinstance(k, dict) else k for k in keywords],
        "external_ids": [rec.get("id"), ids.get("openalex")],
        "references": rec.get("referenced_works"),
        **_label(rec),
    }


def _semantic_scholar(rec: dict) -> dict:
    ext = rec.get("externalIds") if isinstance(rec.get("externalIds"), dict) else {}
    journal = rec.get("journal") if isinstance(rec.get("journal"), dict) else {}
    venue = rec.get("publicationVenue") if isinstance(rec.get("publicationVenue"), dict) else {}
    fields = _listed(rec.get("s2FieldsOfStudy") or rec.get("fieldsOfStudy"))
    return {
        "title": rec.get("title"),
        "abstract": rec.get("abstract"),
        "authors": rec.get("authors"),
        "year": rec.get("year") or rec.get("publicationDate"),
        "venue": rec.get("venue") or journal.get("name") or venue.get("name"),
        "doi": ext.get("DOI"),
        "arxiv_id": ext.get("ArXiv"),
        "pmid": ext.get("PubMed"),
        "url": rec.get("url"),
        "keywords": list(dict.fromkeys(f.get("category") if isinstance(f, dict) else f for f in fields)),
        "external_ids": [rec.get("paperId")],
        "references": rec.get("references") if isinstance(rec.get("references"), list) else None,
        "cited_by": rec.get("citations") if isinstance(rec.get("citations"), list) else None,
        **_label(rec),
    }


def _unwrap(rec: Any) -> Any:
    if isinstance(rec, dict):
        for key in ("citingPaper", "citedPaper", "paper", "work"):
            if isinstance(rec.get(key), dict) and len(rec) <= 4:
                return rec[key]
    return rec


def _is_openalex(rec: dict) -> bool:
    return "abstract_inverted_index" in rec or str(rec.get("id", "")).startswith("https://openalex.org/W")


def _one(ctx: ReadContext, rec: Any, line: int | str, papers: list[Paper], embedded: list[int],
         unwritable: bool = False) -> None:
    """Read ``rec``; ``unwritable``: the file has escapes of characters no text holds, to remove."""
    try:
        if unwritable and (writable := _writable(rec)) != rec:
            ctx.warn("a value holds \\u0000 or half of a surrogate pair (such as \\ud800 alone), characters no text "
                     "can hold: the NULs are removed, the halves read as U+FFFD (\ufffd); check the export", line)
            rec = writable
        _record(ctx, rec, line, papers, embedded)
    except RecursionError:  # (lists in lists in lists ...: the JSON decoder stops at about a thousand)
        ctx.skip(f"a record whose values are {_TOO_DEEP}", line)


def _record(ctx: ReadContext, rec: Any, line: int | str, papers: list[Paper], embedded: list[int]) -> None:
    rec = _unwrap(rec)
    if not isinstance(rec, dict):
        ctx.skip(f"a JSON {type(rec).__name__}, not a record (an object with a title or abstract)", line)
        return
    embedded_papers: list = []
    if _is_openalex(rec):
        paper = build_paper(ctx, _openalex(rec), line)
    elif "paperId" in rec:
        paper = build_paper(ctx, _semantic_scholar(rec), line)
        for key in ("citations", "references"):
            subs = rec.get(key) if isinstance(rec.get(key), list) else []
            if subs and not ctx.with_references:
                embedded[0] += len(subs)
            for i, sub in enumerate(subs if ctx.with_references else ()):
                _one(ctx, sub, f"{line}.{key}[{i}]", embedded_papers, embedded)  # (no ":": see corpus.paper.source_file)
    else:
        versions = rec.get("versions")
        if isinstance(versions, list) and versions and isinstance(versions[0], dict) and "published" not in rec:
            rec = {**rec, "published": versions[0].get("created")}  # arXiv metadata dump
        paper = record_from_mapping(ctx, rec, line)
    if paper is not None:
        papers.append(paper)
    papers.extend(embedded_papers)


class _Broken(Exception):
    def __init__(self, pos: int, message: str):
        super().__init__(message)
        self.pos, self.message = pos, message


def _walk_array(text: str, pos: int) -> Iterator[tuple[Any, int]]:
    """The items of the JSON array starting at ``text[pos] == "["``, with their offsets."""
    pos = _SPACE.match(text, pos + 1).end()
    if text.startswith("]", pos):
        return
    while True:
        try:
            item, end = _decoded(text, pos)
        except json.JSONDecodeError as err:
            raise _Broken(err.pos, err.msg) from err
        except RecursionError as err:
            raise _Broken(pos, _TOO_DEEP) from err
        yield item, pos
        pos = _SPACE.match(text, end).end()
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()
        elif text.startswith("]", pos):
            return
        else:
            raise _Broken(pos, "expected ',' or ']' after a record")


def _line_at(text: str, pos: int, cache: list[int]) -> int:
    """1-based line of offset ``pos`` (offsets must come in increasing order)."""
    last_pos, line = cache
    line += text.count("\n", last_pos, pos)
    cache[:] = [pos, line]
    return line


def _array_items(ctx: ReadContext, text: str, pos: int, key: str = "") -> list[tuple[Any, int | str]]:
    """(record, line) for each item of the array at ``pos`` (the value of ``key``); a broken tail is
    warned about. Records that share their line (a minified file, as API pages are: all on line
    1) are named by their place in the array instead, ``results[7]`` or ``[7]`` (no ``:``: what
    comes before a source's last ``:`` is its file)."""
    cache = [0, 1]
    items: list[tuple[Any, int | str]] = []
    try:
        for item, at in _walk_array(text, pos):
            items.append((item, _line_at(text, at, cache)))
    except _Broken as err:
        line = _line_at(text, err.pos, cache)
        if not items:
            raise ReaderError(f"not valid JSON ({err.message}); expected a list of records", ctx.name, line) from err
        ctx.warn(f"the JSON breaks off here ({err.message}); the {len(items)} records before it were read "
                 "— the file may be truncated: download or export it again", line)
    shared = {line for line, n in Counter(line for _, line in items).items() if n > 1}
    if shared:
        items = [(item, f"{key}[{i}]" if line in shared else line) for i, (item, line) in enumerate(items)]
    return items


def _records_in(doc: Any) -> tuple[str | None, Any]:
    """The key of the wrapped list of records (None: the document is the record)."""
    if isinstance(doc, dict) and isinstance(doc.get("message"), dict) and isinstance(doc["message"].get("items"), list):
        return "items", doc["message"]["items"]
    if isinstance(doc, dict) and "paperId" not in doc and not _is_openalex(doc):
        for key in _WRAPPERS:
            if isinstance(doc.get(key), list):
                return key, doc[key]
    return None, doc


def _read_lines(ctx: ReadContext, text: str, papers: list, embedded: list, unwritable: bool) -> None:
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            rec = _decoded(line)
        except json.JSONDecodeError as err:
            ctx.skip(f"not a JSON record ({err.msg} at column {err.colno}); expected one object per line", lineno)
            continue
        except RecursionError:
            ctx.skip(f"not a JSON record ({_TOO_DEEP}); expected one object per line", lineno)
            continue
        _one(ctx, rec, lineno, papers, embedded, unwritable)


def read_json(text: str, ctx: ReadContext) -> list[Paper]:
    papers: list[Paper] = []
    embedded = [0]
    unwritable = "\\u" in text and _UNWRITABLE_ESCAPE.search(text) is not None
    start = _SPACE.match(text).end()
    if text.startswith("[", start):
        for rec, line in _array_items(ctx, text, start):
            _one(ctx, rec, line, papers, embedded, unwritable)
    else:
        try:
            doc = _decoded(text)
        except RecursionError as err:
            if "\n" not in text.strip():
                raise ReaderError(f"not JSON records ({_TOO_DEEP}); expected a JSON document, or JSON Lines with "
                                  "one record per line", ctx.name) from err
            _read_lines(ctx, text, papers, embedded, unwritable)  # JSON Lines, one of them too deep
        except json.JSONDecodeError as err:
            if err.msg == "Extra data":
                _read_lines(ctx, text, papers, embedded, unwritable)
            else:
                raise ReaderError(f"not valid JSON ({err.msg}, column {err.colno}); expected a JSON "
                                  "document, or JSON Lines with one record per line", ctx.name, err.lineno) from err
        else:
            key, records = _records_in(doc)
            if not isinstance(doc, (dict, list)):  # valid JSON, and no record in it: say what it holds
                kind = ("nothing (null)" if doc is None else "a single true or false" if isinstance(doc, bool)
                        else "a single string" if isinstance(doc, str) else "a single number")
                ctx.no_records(f"the JSON holds {kind}, no records; expected a list of records (objects with a "
                               "title or abstract), one object, or JSON Lines with one record per line", meant=True)
            elif key is None:
                _one(ctx, records, 1, papers, embedded, unwritable)
            else:
                m = re.search(rf'"{key}"\s*:\s*\[', text)
                located = _array_items(ctx, text, m.end() - 1, key) if m else []
                if len(located) != len(records):  # not the top-level list: number the records
                    located = [(rec, f"{key}[{i}]") for i, rec in enumerate(records)]
                for rec, line in located:
                    _one(ctx, rec, line, papers, embedded, unwritable)
    if embedded[0]:
        ctx.warn(f"{embedded[0]} embedded citations/references not read; ask for them with "
                 "with_references=True (workbench read --with-references)")
    return papers
