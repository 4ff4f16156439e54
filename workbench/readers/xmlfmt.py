"""XML exports: PubMed (efetch ``PubmedArticleSet``) and arXiv API Atom feeds.

Both are parsed incrementally with defusedxml's ``iterparse`` (the standard library's parser,
refusing entity declarations and external references), so a file that breaks off (a truncated
download) still yields every record completed before the break, plus a warning naming the line.
Record lines come from the position of each record's start tag. No export declares entities:
one that does is refused whole, for an entity can make a 5 MB file spell half a billion
characters (expat's own limit allows a hundred times the file) or name a file on the machine.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from ..errors import ReaderError
from ..corpus.paper import Paper
from .fields import ReadContext, build_paper
from .pool import make_papers

__all__ = ["looks_like_atom", "looks_like_pubmed_xml", "read_arxiv_atom", "read_pubmed_xml"]

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


def looks_like_pubmed_xml(head: str) -> bool:
    return re.search(r"<(?:PubmedArticleSet|PubmedArticle|PubmedBookArticle)[\s>]", head) is not None


def looks_like_atom(head: str) -> bool:
    return "<feed" in head and "http://www.w3.org/2005/Atom" in head


def _records(text: str, ctx: ReadContext, tags: tuple[str, ...], what: str) -> Iterator[tuple[ET.Element, int]]:
    """Complete ``tags`` elements with the line each starts on; warns where the XML breaks."""
    pattern = re.compile(r"<(?:\w+:)?(?:" + "|".join(tags) + r")[\s>/]")
    starts, pos, line = [], 0, 1
    for m in pattern.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        starts.append(line)
    error = None
    n = 0
    events = iterparse(io.StringIO(text), events=("end",))  # raises the parse error once it reaches it
    while True:
        try:
            _, elem = next(events)
        except StopIteration:
            break
        except ET.ParseError as err:
            error = err
            break
        except DefusedXmlException as err:
            raise ReaderError(f"the XML declares entities or refers to other files ({_refused(err)}), as no "
                              f"export does; nothing is read from it, for an entity can make a small file huge or "
                              f"name a file on this machine: export it again (expected {what})", ctx.name) from err
        if elem.tag.rsplit("}", 1)[-1] in tags:
            yield elem, starts[n] if n < len(starts) else None
            n += 1
            elem.clear()
    if error is not None:
        line, column = error.position
        reason = str(error).split(":")[0]
        if n == 0:
            raise ReaderError(f"not well-formed XML ({reason}, column {column}); expected {what}: "
                              "check the file is complete, or export it again", ctx.name, line)
        ctx.warn(f"the XML breaks off here ({reason}); the {n} records before it were read — "
                 "the file may be truncated: export it again", line)


def _refused(err: DefusedXmlException) -> str:
    """What defusedxml refused, in words: ``<!ENTITY name ...>``."""
    name = getattr(err, "name", None) or getattr(err, "sysid", None)
    return f"<!ENTITY {name} ...>" if name else type(err).__name__


def _text(elem: ET.Element | None) -> str:
    return "".join(elem.itertext()).strip() if elem is not None else ""


# ----------------------------------------------------------------------------- PubMed


def _abstract(parent: ET.Element, path: str = "Abstract/AbstractText") -> str:
    parts = []
    for part in parent.findall(path):
        text, label = _text(part), part.get("Label")
        if text:
            parts.append(f"{label}: {text}" if label and label.upper() != "UNLABELLED" else text)
    return "\n".join(parts)


def _authors(parent: ET.Element) -> list[str]:
    names = []
    for author in parent.findall("AuthorList/Author"):
        last, fore = _text(author.find("LastName")), _text(author.find("ForeName")) or _text(author.find("Initials"))
        name = f"{last}, {fore}" if last and fore else last or _text(author.find("CollectiveName"))
        if name:
            names.append(name)
    return names


def _article_ids(article: ET.Element, path: str) -> dict[str, str]:
    return {i.get("IdType", ""): _text(i) for i in article.findall(path)}


def _pubmed_values(article: ET.Element) -> dict:
    if article.tag == "PubmedBookArticle":
        doc = article.find("BookDocument")
        doc = doc if doc is not None else ET.Element("BookDocument")
        book = doc.find("Book")
        book = book if book is not None else ET.Element("Book")
        ids = _article_ids(doc, "ArticleIdList/ArticleId") | _article_ids(article, "PubmedBookData/ArticleIdList/ArticleId")
        pmid = _text(doc.find("PMID"))
        return {
            "title": _text(doc.find("ArticleTitle")) or _text(book.find("BookTitle")),
            "abstract": _abstract(doc),
            "authors": _authors(doc) or _authors(book),
            "year": _text(book.find("PubDate/Year")) or _text(book.find("PubDate/MedlineDate")),
            "venue": _text(book.find("BookTitle")) if doc.find("ArticleTitle") is not None else None,
            "doi": ids.get("doi"),
            "pmid": pmid,
            "url": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
            "keywords": [_text(k) for k in doc.findall("KeywordList/Keyword")],
        }
    citation = article.find("MedlineCitation")
    citation = citation if citation is not None else ET.Element("MedlineCitation")
    art = citation.find("Article")
    art = art if art is not None else ET.Element("Article")
    ids = _article_ids(article, "PubmedData/ArticleIdList/ArticleId")  # not the ReferenceList's
    doi = next((_text(e) for e in art.findall("ELocationID") if e.get("EIdType") == "doi"), None) or ids.get("doi")
    pmid = _text(citation.find("PMID")) or ids.get("pubmed")
    issue = "Journal/JournalIssue/PubDate/"
    keywords = [_text(k) for k in citation.findall("KeywordList/Keyword")]
    keywords += [_text(m) for m in citation.findall("MeshHeadingList/MeshHeading/DescriptorName")]
    return {
        "title": _text(art.find("ArticleTitle")) or _text(art.find("VernacularTitle")),
        "abstract": _abstract(art) or _abstract(citation, "OtherAbstract/AbstractText"),
        "authors": _authors(art),
        "year": _text(art.find(issue + "Year")) or _text(art.find(issue + "MedlineDate")) or _text(art.find("ArticleDate/Year")),
        "venue": _text(art.find("Journal/Title")) or _text(art.find("Journal/ISOAbbreviation")),
        "doi": doi,
        "pmid": pmid,
        "url": f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else None,
        "keywords": keywords,
    }


def read_pubmed_xml(text: str, ctx: ReadContext) -> list[Paper]:
    records = _records(text, ctx, ("PubmedArticle", "PubmedBookArticle"), "a PubMed <PubmedArticleSet>")
    return _papers(ctx, ((_pubmed_values(article), line) for article, line in records),
                   "no <PubmedArticle> records in the file")


def _papers(ctx: ReadContext, values_and_lines, empty: str) -> list[Paper]:
    """Papers from (canonical values, line) pairs; ``empty`` says why a file gave none."""
    papers = make_papers(ctx, list(values_and_lines), lambda ctx, item: build_paper(ctx, *item))
    if not papers and not ctx.n_skipped:
        ctx.no_records(empty)
    return papers


# ----------------------------------------------------------------------------- arXiv Atom


def _atom_values(entry: ET.Element) -> dict:
    entry_id = _text(entry.find(ATOM + "id"))
    links = {link.get("title") or link.get("rel"): link.get("href") for link in entry.findall(ATOM + "link")}
    journal = _text(entry.find(ARXIV + "journal_ref"))
    is_arxiv = "arxiv.org/abs/" in entry_id
    return {
        "title": _text(entry.find(ATOM + "title")),
        "abstract": _text(entry.find(ATOM + "summary")),
        "authors": [_text(a.find(ATOM + "name")) for a in entry.findall(ATOM + "author")],
        "year": _text(entry.find(ATOM + "published")) or _text(entry.find(ATOM + "updated")),
        "venue": journal or ("arXiv" if is_arxiv else None),
        "doi": _text(entry.find(ARXIV + "doi")) or None,
        "arxiv_id": entry_id if is_arxiv else None,
        "url": links.get("alternate") or entry_id or None,
        "keywords": [c.get("term") for c in entry.findall(ATOM + "category") if c.get("term")],
    }


def read_arxiv_atom(text: str, ctx: ReadContext) -> list[Paper]:
    def entries():
        for entry, line in _records(text, ctx, ("entry",), "an Atom <feed> of <entry> elements"):
            if "/api/errors" in _text(entry.find(ATOM + "id")):
                raise ReaderError(f"the arXiv API answered with an error: {_text(entry.find(ATOM + 'summary'))}; "
                                  "fix the query and download the feed again", ctx.name, line)
            yield _atom_values(entry), line

    return _papers(ctx, entries(), "the feed has no <entry> elements (the query matched nothing?)")
