"""Where each source file was searched (PRISMA-S), and its counts for PRISMA's first boxes.

A build records one row per source file it read (``store.sources.record``): the records
identified in it (read, plus those skipped for want of usable text), how many were skipped and
how many were merged away as duplicates (the build report's per-file counts), and the provenance
the user gave: the bibliographic database or trials register it came from, the query string and
the date searched. Provenance is given per source, by the source's path, its file name, or a
folder holding several sources::

    build(["refs/pubmed.ris", "refs/ctgov.csv"], provenance={
        "pubmed.ris": {"database": "PubMed", "query": "sleep[tiab] AND adolescen*", "searched_on": "2024-05-01"},
        "ctgov.csv": {"register": "ClinicalTrials.gov", "searched_on": "2024-05-02"}})

Records found by other methods than a database or register search (PRISMA 2020's right-hand
column) name the method instead: ``{"method": "citation-search"}`` (or ``"websites"``,
``"organisations"``, or the method in words) makes the source of kind ``other`` named
"Citation searching"; ``workbench update FILE --method citation-search`` gives it.

A source given no provenance is named by its file name until someone gives it one
(``store.sources.set_provenance``); a rebuild keeps what was given before.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePath

from ..errors import InputError
from ..store import AnnotationInputError, check_provenance

__all__ = ["FIELDS", "METHODS", "check_all", "method_name", "source_rows"]

#: The keys a source's provenance may have (``database``, ``register`` or ``method`` name the source).
FIELDS = ("database", "register", "method", "name", "kind", "query", "searched_on")
#: PRISMA 2020's other methods, as the command line names them, and as the diagram says them.
METHODS = {"citation-search": "Citation searching", "websites": "Websites", "organisations": "Organisations"}
_NAMING = ("database", "register", "method")


def method_name(method: str) -> str:
    """The name a source found by ``method`` gets (``citation-search`` -> "Citation searching");
    a method not in :data:`METHODS` is named as given."""
    return METHODS.get(str(method).strip().lower(), str(method))


def _check(key: str, given, done: str = "nothing was built") -> dict:
    if not isinstance(given, Mapping):
        raise InputError(f"provenance of {key!r}: {given!r}; expected a mapping such as "
                         "{'database': 'PubMed', 'query': '...', 'searched_on': '2024-05-01'}")
    unknown = sorted(set(given) - set(FIELDS))
    naming = [k for k in _NAMING if given.get(k) is not None]
    if unknown or len(naming) > 1:
        raise InputError(f"provenance of {key!r}: {', '.join(unknown) or 'both ' + ' and '.join(naming)}; "
                         f"expected some of {', '.join(FIELDS)} (a source is a database, a register, or "
                         "found by another method such as citation searching)")
    row = {k: given[k] for k in ("name", "kind", "query", "searched_on") if given.get(k) is not None}
    for kind in naming:
        if kind == "method":
            row.update(name=method_name(given[kind]), kind="other")
        else:
            row.update(name=given[kind], kind=kind)
    try:  # checked now, before the build's long steps, as the store will check it
        return check_provenance(**row)
    except AnnotationInputError as err:
        raise InputError(f"provenance of {key!r}: {err}; {done}") from err


def check_all(provenance: Mapping[str, Mapping] | None, done: str = "nothing was built") -> None:
    """Check every source's provenance (names, kinds, queries, dates) before any long step."""
    for key, given in dict(provenance or {}).items():
        _check(str(key), given, done)


def _matches(key: str, path: str) -> bool:
    """Whether provenance keyed ``key`` is about the file read from ``path``."""
    key_path, file = PurePath(key), PurePath(path)
    return (str(key_path) == str(file) or key == file.name or key_path in file.parents
            or (len(key_path.parts) > 1 and file.parts[-len(key_path.parts):] == key_path.parts))


def source_rows(report, provenance: Mapping[str, Mapping] | None = None) -> list[dict]:
    """One row per file read (``report``: the :class:`~workbench.readers.ReadReport`), with its
    counts and the provenance given for it (the most specific key wins: a file over its folder).
    A key that matches no file read is an error naming the files, so a typo is not lost."""
    provenance = dict(provenance or {})
    checked = {str(key): _check(str(key), given) for key, given in provenance.items()}
    files = [f for f in report.files if f.error is None]
    used, rows = set(), []
    for f in files:
        keys = sorted((k for k in checked if _matches(k, f.path)),  # folders (deepest last), then the file
                      key=lambda k, p=PurePath(f.path): (PurePath(k) not in p.parents, len(PurePath(k).parts)))
        row = {"path": f.path, "format": f.format, "identified": f.read + len(f.skipped),
               "skipped": len(f.skipped), "merged": f.merged}
        for key in keys:  # folders first, then the file itself
            row.update(checked[key])
            used.add(key)
        rows.append(row)
    unused = [k for k in checked if k not in used]
    if unused:
        read = ", ".join(f.path for f in files[:8]) + (" ..." if len(files) > 8 else "")
        raise InputError(f"provenance given for {', '.join(map(repr, unused))}, which is not a source "
                         f"read (the files read: {read}); name a file by its path or file name, or a folder")
    return rows
