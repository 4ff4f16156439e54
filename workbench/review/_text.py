"""What a review embeds and clusters for each paper, and reading papers back from papers.jsonl."""

from __future__ import annotations

from ..records import LINK_FIELDS, Paper, title_repeats_abstract

__all__ = ["document_text", "paper_from_dict", "parquet_embeddings"]


def document_text(paper: Paper) -> str:
    """What is embedded and clustered: "Title. Abstract", or the abstract alone when the title
    adds nothing to it (``Paper.title_derived``), or the title alone when there is no abstract.

    Title + abstract measured better than the abstract alone on the labelled corpora
    (docs/benchmarks.md); a title made from the abstract would only count its words twice.
    """
    text, title = paper.text, paper.title
    if not text:
        return title
    if not title or paper.title_derived:
        return text
    return f"{title} {text}" if title.endswith((".", "?", "!")) else f"{title}. {text}"


def paper_from_dict(d: dict) -> Paper:
    """A :class:`Paper` from a line of papers.jsonl (older files: no clean text where it equals
    the abstract, no ``title_derived``; written before citations were kept, or without any:
    no ``external_ids``, ``references``, ``cited_by``)."""
    fields = Paper.__dataclass_fields__
    d = {k: v for k, v in d.items() if k in fields}
    d.setdefault("text", d.get("abstract", ""))  # left out when it equals the abstract
    for key in ("authors", "keywords", "sources", "aliases", *LINK_FIELDS):
        if key in d:
            d[key] = tuple(d[key] or ())
    if "title_derived" not in d:  # written before readers said so
        d["title_derived"] = bool(d["text"]) and title_repeats_abstract(d.get("title", ""), d["text"])
    return Paper(**d)


def parquet_embeddings(review):
    """The papers' embeddings from a Dask build's Parquet cache (None when one is missing)."""
    from ..distributed import ParquetCache
    from ..embed import text_hash
    from ..records import bounded_text

    where = review.manifest["embedding_cache"]
    embedder = review.manifest["embedder"]
    cache = ParquetCache(review.path / where["path"], f"{embedder['name']}:{embedder['version']}")
    return cache.lookup([text_hash(bounded_text(t)) for t in review.texts()])
