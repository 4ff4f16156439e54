"""What a review embeds and clusters for each paper, and its embeddings from a Dask build's cache.
(Its papers.jsonl is read back by :func:`workbench.corpus.texts.read_papers`.)"""

from __future__ import annotations

from ..corpus.paper import Paper, bounded_text
from ..embed import text_hash

__all__ = ["document_text", "parquet_embeddings"]


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


def parquet_embeddings(review):
    """The papers' embeddings from a Dask build's Parquet cache (None when one is missing)."""
    from ..distributed import ParquetCache
    where = review.manifest["embedding_cache"]
    embedder = review.manifest["embedder"]
    cache = ParquetCache(review.path / where["path"], f"{embedder['name']}:{embedder['version']}")
    return cache.lookup([text_hash(bounded_text(t)) for t in review.texts()])
