"""Exports that need more than their column names: recognised by a signature of columns, each
row gets a small fix-up (:data:`DIALECTS`, used by :mod:`.tables`)."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["DIALECTS"]


def _springer_authors(row: dict, cols: dict) -> None:
    """Springer Link runs author names together: ``"Wei ZhangXiaoming Li"``."""
    for col in cols.get("authors", ()):
        value = row.get(col)
        if value and not re.search(r"[;,|]| and ", value):
            parts = re.split(r"(?<=[a-z\u00e0-\u00ff])(?=[A-Z])", value)
            names: list[str] = []
            for part in parts:
                if names and re.search(r"(?:^|\s)(?:Mc|Mac|De|Di|Du|La|Le|Van|Von|O')$", names[-1]):
                    names[-1] += part
                else:
                    names.append(part)
            row[col] = "; ".join(names)


def _embase_source(row: dict, cols: dict) -> None:
    """Embase's ``Source`` is a citation: ``Endoscopic Ultrasound (2014) 3:3 (152-160). ...``."""
    source = row.get("Source") or ""
    m = re.match(r"\s*(.+?)\s*\((\d{4})\)", source)
    if m:
        row.setdefault("venue", m.group(1))
        row.setdefault("year", m.group(2))


#: Exports recognised by a signature of (normalised) column names, with a per-row fix-up.
DIALECTS: dict[str, tuple[frozenset[str], Callable[[dict, dict], None]]] = {
    "springer": (frozenset({"item title", "item doi"}), _springer_authors),
    "embase": (frozenset({"author names", "source", "emtree medical index terms"}), _embase_source),
}
