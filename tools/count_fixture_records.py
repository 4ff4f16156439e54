"""Count the records of the real exports in ../shared/data/fixtures without workbench's readers.

    python tools/count_fixture_records.py [FIXTURES_DIR]

The counts beside docs/readers.md's recovery table come from here, on purpose naive and
independent of ``workbench.readers`` (and of rispy and bibtexparser, which they use):

- RIS: lines starting ``TY  -`` (a record each; an untagged line continues the tag before it);
  a record "has a title or abstract" when one of its lines is ``TI``, ``T1``, ``T2``, ``CT``,
  ``BT``, ``AB`` or ``N2`` with a value.
- Web of Science plain text: lines ``ER``; titles ``TI``, abstracts ``AB``.
- BibTeX: lines starting ``@type{`` or ``@type(`` that are not ``@string``, ``@comment`` or
  ``@preamble``; the text up to the next such line "has a title or abstract" when it holds
  ``title =`` or ``abstract =`` with something in braces or quotes.
- CSV / TSV: the standard ``csv`` module with the delimiter the header line uses most; rows
  with a title or abstract column that is not empty.
- JSON Lines: ``json.loads`` of every line; objects with a title or abstract.
- PubMed XML: ``<PubmedArticle>`` start tags; ``<ArticleTitle>`` or ``<AbstractText`` inside.

Distinct papers: records joined when they share a DOI (a value of the form ``10.NNNN/...``) or
their lower-case title + abstract (words only; with the year when there is no abstract), counted
as groups: the duplicates an export holds on its face.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TITLE_TAGS = ("TI", "T1", "T2", "CT", "BT", "AB", "N2")


def _key(title: str, abstract: str, doi: str = "", year: str = "") -> tuple[str, str]:
    doi = doi.strip().lower() if re.match(r"\s*10\.\d{4,9}/\S", doi) else ""
    words = " ".join(re.findall(r"\w+", f"{title} {abstract}".lower()))
    return doi, words + ("" if abstract.strip() else " " + "".join(re.findall(r"\d{4}", year)[:1]))


def _groups(keys: list[tuple[str, str]]) -> int:
    """Records joined by a shared DOI or a shared title + abstract: the number of groups."""
    parent = list(range(len(keys)))

    def find(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    first: dict[tuple[int, str], int] = {}
    for i, (doi, text) in enumerate(keys):
        for kind, value in ((0, doi), (1, text)):
            if value:
                j = first.setdefault((kind, value), i)
                parent[find(i)] = find(j)
    return len({find(i) for i in range(len(keys))})


def _text(path: Path) -> str:
    raw = path.read_bytes()
    for encoding in ("utf-8-sig", "utf-16", "cp1252"):
        try:
            return raw.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1")


def ris(text: str) -> tuple[int, int, int]:
    records, current, last = [], None, None
    for line in text.split("\n"):
        tag = line[:2] if re.match(r"^[A-Z][A-Z0-9]  -", line) else None
        if tag == "TY":
            current = {}
            records.append(current)
        elif tag and current is not None:
            current.setdefault(tag, []).append(line[6:].strip())
            last = tag
        elif current is not None and line.strip() and current.get(last):
            current[last][-1] += " " + line.strip()
    with_text = [r for r in records if any(v for t in TITLE_TAGS for v in r.get(t, []))]
    keys = [_key(" ".join(r.get("TI", r.get("T1", []))), " ".join(r.get("AB", r.get("N2", []))),
                 (r.get("DO") or [""])[0], (r.get("PY") or r.get("Y1") or r.get("DA") or [""])[0]) for r in with_text]
    return len(records), len(with_text), _groups(keys)


def wos(text: str) -> tuple[int, int, int]:
    blocks = re.split(r"^ER\s*$", text, flags=re.M)[:-1]
    with_text = [b for b in blocks if re.search(r"^(TI|AB) \S", b, re.M)]
    keys = [_key(*(" ".join(re.findall(rf"^{t} (.*)", b, re.M)) for t in ("TI", "AB", "DI", "PY"))) for b in with_text]
    return len(blocks), len(with_text), _groups(keys)


def bibtex(text: str) -> tuple[int, int, int]:
    starts = [m for m in re.finditer(r"^\s*@\s*(\w+)\s*[{(]", text, re.M)
              if m.group(1).lower() not in ("string", "comment", "preamble")]
    bodies = [text[m.start(): (starts[i + 1].start() if i + 1 < len(starts) else len(text))]
              for i, m in enumerate(starts)]
    with_text = [b for b in bodies if re.search(r"\b(title|abstract)\s*=\s*[{\"]\s*[^\s}\"]", b, re.I)]
    names = ("title", "abstract", "doi", "(?:year|date)")
    fields = [{n: re.search(rf"\b{n}\s*=\s*[{{\"]?(.*)", b, re.I) for n in names} for b in with_text]
    keys = [_key(*((f[n].group(1) if f[n] else "") for n in names)) for f in fields]
    return len(bodies), len(with_text), _groups(keys)


def table(text: str, delimiter: str | None = None) -> tuple[int, int, int]:
    header = next(line for line in text.split("\n") if line.strip())
    delimiter = delimiter or max(",;\t|", key=header.count)
    rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if r]
    names = [n.strip().lower() for n in rows[0]]
    pick = lambda *cands: next((names.index(c) for c in cands if c in names), None)  # noqa: E731
    t, a, d, y = pick("title", "document title"), pick("abstract"), pick("doi"), pick("year", "publication_year")
    value = lambda row, i: row[i].strip() if i is not None and i < len(row) else ""  # noqa: E731
    with_text = [r for r in rows[1:] if value(r, t) or value(r, a)]
    keys = [_key(value(r, t), value(r, a), value(r, d), value(r, y)) for r in with_text]
    return len(rows) - 1, len(with_text), _groups(keys)


def json_lines(text: str) -> tuple[int, int, int]:
    records = [json.loads(line) for line in text.split("\n") if line.strip()]
    with_text = [r for r in records if r.get("title") or r.get("abstract")]
    keys = [_key(r.get("title") or "", r.get("abstract") or "", r.get("doi") or "", str(r.get("year") or ""))
            for r in with_text]
    return len(records), len(with_text), _groups(keys)


def pubmed_xml(text: str) -> tuple[int, int, int]:
    articles = re.split(r"<PubmedArticle>", text)[1:]
    with_text = [a for a in articles if re.search(r"<ArticleTitle>\s*\S|<AbstractText", a)]
    keys = [_key(re.search(r"<ArticleTitle>(.*?)</ArticleTitle>", a, re.S).group(1), "") for a in with_text]
    return len(articles), len(with_text), _groups(keys)


def count(path: Path) -> tuple[str, int, int, int] | None:
    text = _text(path)
    if not text.strip():
        return "empty", 0, 0, 0
    head = text[:4096]
    if path.suffix == ".bib":
        return ("bibtex", *bibtex(text))
    if re.search(r"^TY  -", head, re.M):
        return ("ris", *ris(text))
    if re.search(r"^FN |^PT J", head, re.M):
        return ("wos", *wos(text))
    if "<PubmedArticle" in head:
        return ("pubmed-xml", *pubmed_xml(text))
    if path.suffix in (".csv", ".tsv"):
        return ("csv", *table(text, "\t" if path.suffix == ".tsv" else None))
    if head.lstrip().startswith("{"):
        return ("json", *json_lines(text))
    return None


def main() -> None:
    fixtures = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".." / "shared" / "data" / "fixtures"
    print("| file | counted as | records | with a title or abstract | distinct |")
    print("|---|---|---:|---:|---:|")
    for path in sorted(p for p in fixtures.rglob("*") if p.is_file()):
        found = count(path)
        name = path.relative_to(fixtures)
        print(f"| {name} | " + (" | ".join(map(str, found)) if found else "not an export | | | ") + " |")


if __name__ == "__main__":
    main()
