"""The :class:`Review`: the one object the faces (widgets, notebooks, command line) work with.

A review holds its papers (their metadata, and their texts beside them: a
:class:`~workbench.corpus.texts.PaperTexts`), the topics (as found and as edited), the map, and
(loaded when first needed) the embeddings and the embedder. Everything a face needs is a public
method here; the work is done by the modules beside it (``_search``, ``_themes``, ...).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Sequence

import numpy as np

from . import _folder as files
from ..embed import EmbeddingCache, WordVectors, embed_with_cache, get_embedder
from ..errors import InputError
from ..corpus.paper import OUTLIER, Paper, PaperInfo
from ..corpus.texts import PaperTexts, TextsInMemory
from . import _haystack, _screening, _search, _stopping, _text, _themes, _typical
from ._field import FieldReview
from ._living import LivingReview
from ._team import TeamReview
from ._text import document_text

__all__ = ["CACHE_FILE", "PAPER_TABLE_COLUMNS", "STORE_FILE", "TOPIC_TABLE_COLUMNS", "Review"]

PAPER_TABLE_COLUMNS = ["id", "title", "authors", "year", "collection", "source", "topic", "topic_label", "x", "y"]
TOPIC_TABLE_COLUMNS = ["topic", "label", "size", "words"]
STORE_FILE = "annotations.sqlite"
CACHE_FILE = Path("cache") / "embeddings.sqlite"  # under the review folder


class Review(TeamReview, FieldReview, LivingReview):
    """A built review, loaded from its folder. Use :func:`open_review` or :func:`build`.

    As a team (``decide`` at a stage, ``conflicts``, ``resolve``, ``agreement``, ``prisma``):
    :class:`~._team.TeamReview`; the field (``links``, ``over_time``, ``field_summary``):
    :class:`~._field.FieldReview`; updates and duplicates: :class:`~._living.LivingReview`."""

    def __init__(self, path: Path, manifest: dict, papers: list[Paper] | list[PaperInfo], topics, labels, coords,
                 reduced=None, fine_labels=None, *, generation: str | None = None, embeddings=None,
                 embedder=None, texts: PaperTexts | None = None):
        self.path = Path(path)
        self.manifest = manifest
        if texts is None:  # whole papers (a build's, an update's): their texts held here
            texts, papers = TextsInMemory.of(papers), [p.info() for p in papers]
        # Each paper's metadata (PaperInfo), in map order; their texts: paper_texts, by row
        self.papers: list[PaperInfo] = papers
        self.paper_texts = texts
        # What the model found, as written in the folder; ``topics``/``labels`` add the human edits.
        self.model_topics = topics
        self.model_labels = np.asarray(labels, dtype=int)
        self.topics = topics  # DataFrame: topic, label, size, words
        self.labels = self.model_labels
        self.coords = np.asarray(coords, dtype=np.float64)
        self.reduced = reduced
        # HDBSCAN's topics before merging (what show_themes cuts); None in reviews built before them
        self.fine_labels = None if fine_labels is None else np.asarray(fine_labels, dtype=int)
        # The generation of the review's files this was read from or saved as (None: top level)
        self.generation = generation
        # What the build, an update or the last saved topic run reported (None: not in this process)
        self.build_report, self.update_report = None, None  # workbench.BuildReport, UpdateReport
        self.last_save = None  # workbench.SaveReport
        self.model = None  # the fitted TopicModel of the last build or refit in this process
        self._embeddings = embeddings
        self._embedder = embedder
        self._index = {p.id: i for i, p in enumerate(papers)}
        self._texts = self._haystack = None  # list[str] each, made when first needed
        self._screening = _screening.ScreeningCache()  # the TF-IDF and the last ranker, kept

    def __repr__(self) -> str:
        return f"<Review {str(self.path)!r}: {len(self.papers)} papers, {int((self.topics.topic >= 0).sum())} topics>"

    def __len__(self) -> int:
        return len(self.papers)

    def __contains__(self, paper_id) -> bool:
        return paper_id in self._index

    # ------------------------------------------------------------------ the folder and the store

    @property
    def files(self) -> Path:
        """The folder holding this review's current files (papers.jsonl, topics.json, ...)."""
        return files.files_dir(self.path, self.generation)

    @property
    def embeddings_loaded(self) -> bool:
        """Whether :meth:`embeddings` has them in memory (nothing to read or embed)."""
        return self._embeddings is not None

    @property
    def cache_path(self) -> Path:
        """The review's embedding cache (SQLite)."""
        return self.path / CACHE_FILE

    def store(self, reviewer: str | None = None):
        """The review's annotation store (tags, notes, decisions, topic edits)."""
        from ..store import Store

        return Store.open(self.path, reviewer=reviewer)

    def is_current(self) -> bool:
        """Whether the review on disk still has the topics this object was read or saved with."""
        if not (self.path / STORE_FILE).exists():
            return True
        with self.store() as store:
            return store.generation() == self.generation

    def reopen(self) -> Review:
        """The review as it is on disk now (after another notebook or the command line saved new
        topics or rebuilt it); embeddings already loaded are kept when the papers are the same."""
        from ._open import open_review

        new = open_review(self.path)
        if [p.id for p in new.papers] == [p.id for p in self.papers]:
            new.use_embeddings(self._embeddings, self._embedder)
        return new

    def use_embeddings(self, embeddings, embedder=None) -> None:
        """Take embeddings (and the embedder that made them) already computed for these papers,
        instead of reading them from the cache."""
        if embeddings is not None and len(embeddings) != len(self.papers):
            raise InputError(f"{len(embeddings)} embeddings for {len(self.papers)} papers; expected one per paper")
        self._embeddings = embeddings
        self._embedder = embedder if embedder is not None else self._embedder

    # ------------------------------------------------------------------ topics as people edited them

    def apply_topic_edits(self, assignments: dict, labels: dict) -> None:
        """Show the topics with the human edits (renames, merges, moves) laid over the model's."""
        import pandas as pd

        self.labels = np.array([assignments.get(p.id, t) for p, t in zip(self.papers, self.model_labels)], dtype=int)
        base = self.model_topics
        words = dict(zip(base.topic.astype(int), base.words))
        model_label = dict(zip(base.topic.astype(int), base.label))
        sizes = Counter(self.labels.tolist())
        rows = [
            {
                "topic": t,
                "label": "Unassigned" if t == OUTLIER else labels.get(t) or model_label.get(t) or f"Topic {t}",
                "size": sizes[t],
                "words": list(words.get(t, [])),
            }
            for t in sorted(sizes)
        ]
        self.topics = pd.DataFrame(rows, columns=TOPIC_TABLE_COLUMNS)

    def refresh_topics(self) -> bool:
        """Re-read the topic edits from the store (after a rename or merge elsewhere).

        Only while the store's topics are still this review's (same generation of files): after
        another process saved other topics, nothing is mixed in and False is returned; open the
        review again to see them (:meth:`reopen`).
        """
        if not (self.path / STORE_FILE).exists():
            return True
        with self.store() as store:
            if store.generation() != self.generation:
                return False
            assignments, labels = store.current_topics()
        if assignments:
            self.apply_topic_edits(assignments, labels)
        return True

    def publish_map(self) -> Path:
        """Rewrite the review's map.html from the topics as shown (after a rename, a merge or an
        undo), so the file a colleague opens says what the notebooks say."""
        return files.publish_map(self.path, self)

    def topic_labels(self) -> dict[int, str]:
        return dict(zip(self.topics.topic.astype(int), self.topics.label))

    def topic_of(self, paper_id: str) -> int:
        """The topic a paper is in now (after the human edits)."""
        return int(self.labels[self.row(paper_id)])

    # ------------------------------------------------------------------ papers and tables

    @property
    def ids(self) -> list[str]:
        """Every paper id, in map order (the order of ``papers``, ``labels`` and ``coords``)."""
        return [p.id for p in self.papers]

    def row(self, paper_id: str) -> int:
        """The map row of a paper (its position in ``papers``)."""
        try:
            return self._index[paper_id]
        except KeyError:
            raise InputError(f"no paper with id {paper_id!r} in {self.path}") from None

    def rows(self, ids: Sequence[str]) -> list[int]:
        """The map rows of ``ids``."""
        return [self.row(i) for i in ids]

    def paper(self, paper_id: str) -> Paper:
        """The whole paper (its metadata in ``papers``, its texts in ``paper_texts``)."""
        k = self.row(paper_id)
        return self.paper_texts.paper(self.papers[k], k)

    def papers_with_texts(self):
        """Every whole paper, in map order, one at a time (the texts are read as they are given:
        a large review's do not fit in memory at once)."""
        return self.paper_texts.papers(self.papers)

    def texts(self) -> list[str]:
        """What is embedded and clustered for each paper (:func:`document_text`), in map order."""
        if self._texts is None:
            self._texts = [document_text(p) for p in self.papers_with_texts()]
        return self._texts

    def haystack(self) -> list[str]:
        """Each paper's title and clean text in lower case: what keyword search reads."""
        if self._haystack is None:
            self._haystack = [_haystack.lower_text(p) for p in self.papers_with_texts()]
        return self._haystack

    def papers_frame(self):
        """One row per paper: id, title, authors, year, collection, source, topic, topic_label, x, y."""
        import pandas as pd

        labels = self.topic_labels()
        return pd.DataFrame(
            {
                "id": self.ids,
                "title": [p.title for p in self.papers],
                "authors": [list(p.authors) for p in self.papers],
                "year": pd.array([p.year for p in self.papers], dtype="Int64"),
                "collection": [p.collection for p in self.papers],
                "source": [p.source for p in self.papers],
                "topic": self.labels,
                "topic_label": [labels.get(int(t), "Unassigned") for t in self.labels],
                "x": self.coords[:, 0],
                "y": self.coords[:, 1],
            }
        )

    def topics_frame(self, representatives: int = 0):
        """One row per topic: topic, label, size, words; with ``representatives=n`` also
        ``representative``, the titles of its ``n`` most typical papers (:meth:`representatives`),
        to show beside the label."""
        frame = self.topics[TOPIC_TABLE_COLUMNS].copy()
        if representatives:
            typical = self.representatives(representatives)
            frame["representative"] = [[self.paper(pid).title for pid in typical.get(int(t), [])]
                                       for t in frame.topic]
        return frame

    def representatives(self, n: int = 2) -> dict[int, list[str]]:
        """The ids of each topic's ``n`` most typical papers, as the topics are now (after the
        human edits): nearest the mean direction of the topic's embeddings (the papers the report
        lists first); none for the unassigned. Remembered on disk (:mod:`._typical`)."""
        return _typical.typical_papers(self, n)

    def annotation_columns(self, store) -> dict[str, list]:
        """``tags``, ``decision`` (of ``store``'s reviewer), ``notes`` and ``first_tag`` of every
        paper in map order, from one read of ``store`` (a :class:`workbench.store.Store`)."""
        summary = store.summary()
        empty = {"tags": [], "decision": None, "notes": 0}
        rows = [summary.get(p.id, empty) for p in self.papers]
        return {
            "tags": [list(r["tags"]) for r in rows],
            "decision": [r["decision"] or "undecided" for r in rows],
            "notes": [r["notes"] for r in rows],
            "first_tag": [r["tags"][0] if r["tags"] else "untagged" for r in rows],
        }

    def frame(self, store):
        """:meth:`papers_frame` plus ``tags``, ``decision``, ``notes`` and ``first_tag`` from
        ``store``."""
        frame = self.papers_frame()
        for name, values in self.annotation_columns(store).items():
            frame[name] = values
        return frame

    # ------------------------------------------------------------------ embeddings

    def embedder(self):
        """The review's embedder, made once; a corpus-relative one (tfidf) is bound to this
        corpus, so label words, searches and re-clusterings land in the papers' space."""
        if self._embedder is None:
            embedder = get_embedder(self.manifest["embedder"]["name"])
            embedder.bind_corpus(self.texts())
            self._embedder = embedder
        return self._embedder

    def embeddings(self) -> np.ndarray:
        """The papers' embeddings, from the review's cache (a Dask build's Parquet files first;
        embedding only what is missing)."""
        if self._embeddings is None and self.manifest.get("embedding_cache", {}).get("format") == "parquet":
            self._embeddings = _text.parquet_embeddings(self)  # None: incomplete
        if self._embeddings is None:
            with EmbeddingCache(self.cache_path) as cache:
                self._embeddings, _ = embed_with_cache(self.texts(), self.embedder(), cache, corpus=True)
        return self._embeddings

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Other texts (a search query) in the papers' space, through the review's cache."""
        with EmbeddingCache(self.cache_path) as cache:
            vectors, _ = embed_with_cache(list(texts), self.embedder(), cache)
        return vectors

    def word_vectors(self) -> WordVectors:
        """The word-embedding function a topic model's labels need: label words in the papers'
        space, through the review's cache."""
        return WordVectors(self.embedder(), self.cache_path)

    # ------------------------------------------------------------------ finding papers

    def keyword_search(self, query: str) -> list[str]:
        """Ids of papers whose title or abstract has every word of ``query`` (at a word start;
        a quoted phrase, ``"reward model"``, as that phrase; Chinese, Japanese and Korean by
        character bigrams anywhere), most matches first."""
        return _search.keyword_search(self, query)

    def semantic_search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` papers nearest in meaning to ``query``, with cosine similarity."""
        return _search.semantic_search(self, query, k)

    def search(self, query: str, k: int = 10, semantic: bool = True) -> _search.SearchResult:
        """Keyword hits (with their number of matches) and (with ``semantic``) the ``k``
        papers nearest in meaning (with their similarity); ``result.hits`` says of each paper
        how it was found (``kind``: "keyword" or "meaning") and its ``score``."""
        return _search.search(self, query, k, semantic)

    def neighbours(self, paper_id: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` most similar other papers, with cosine similarity."""
        i = self.row(paper_id)
        return _search.nearest(self, self.embeddings()[i], k, exclude=[i])

    def similarity(self, ids: Sequence[str]) -> np.ndarray:
        """Pairwise cosine similarity of ``ids``' embeddings."""
        X = self.embeddings()[self.rows(ids)]
        return np.round(X @ X.T, 4)

    # ------------------------------------------------------------------ topics again

    def refit(self, save: bool = False, reviewer: str | None = None, **topic_params) -> Review:
        """Find topics again with other parameters (e.g. ``min_cluster_size=10``), in this process.

        The embeddings come from the cache and the map stays where it is. Returns ``self`` with
        new ``labels`` and ``topics``; ``save=True`` also writes them to the folder (all or
        nothing, recorded under ``reviewer``).
        """
        return _themes.refit(self, save, reviewer, **topic_params)

    def show_themes(self, k: int | None = None, save: bool = False, reviewer: str | None = None) -> Review:
        """The topics as ``k`` themes (None: the default topics), from HDBSCAN's topics kept in
        the review: the Ward tree is cut again and only words and labels are computed, no UMAP
        or HDBSCAN (seconds where a refit of 50,000 papers takes a minute). The same topics as
        ``refit(nr_topics=k)``; a review without its HDBSCAN topics (built before they were
        kept) is refitted instead.
        """
        return _themes.show_themes(self, k, save, reviewer)

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """How often each topic's papers stay together when the topics are refitted with ``seeds``.

        The topics as shown (``topic``, ``label``, ``size``, with the human renames, merges and
        moves) with a ``stability`` column, 0..1: the share of pairs of a topic's papers that
        share a topic in the other runs, averaged (see :mod:`workbench.stability`). Costs one
        clustering per seed, no new embeddings.
        """
        return _themes.topic_stability(self, seeds)

    def recluster(self, ids: Sequence[str], min_cluster_size: int | None = None, seed: int | None = None):
        """Sub-topics of a selection, from the cached embeddings (nothing saved).

        Returns a DataFrame: id, title, subtopic, subtopic_label.
        """
        return _themes.recluster(self, ids, min_cluster_size, seed)

    # ------------------------------------------------------------------ screening

    def rank(self, next: int = 10, *, model: str | None = None, seed: int | None = None, by_topic: bool = False,
             sample: bool = False, reviewer: str | None = None) -> _screening.Ranking:
        """The next papers to screen, most likely relevant first, with rank, score and why: a model
        refitted on the store's includes and excludes (a maybe is left out). ``model``: one of
        ``workbench.screening.MODELS`` (default: the measured best); ``seed``: the build's;
        ``by_topic``: before a model, one paper per topic; ``sample``: a random sample of the papers
        no person has read, for the stopping test (read all of it). See :mod:`._screening`."""
        return _screening.rank(self, self._screening, next, model, seed, by_topic, sample, reviewer)

    def ranker(self, model: str | None = None, seed: int | None = None, reviewer: str | None = None):
        """The fitted :class:`workbench.screening.Ranker` behind :meth:`rank` (``scores_``, ``explain``)."""
        return _screening.ranker(self, self._screening, model, seed, reviewer)

    def screening_history(self, reviewer: str | None = None):
        """The decisions in the order made, as a :class:`workbench.screening.ScreeningHistory`."""
        return _stopping.history(self, reviewer)

    def stopping(self, target: float = 0.95, confidence: float = 0.95, n_in_a_row: int = 100, *,
                 log: bool = False, reviewer: str | None = None) -> _stopping.StoppingReport:
        """Relevant papers left (95 % interval) and whether the reviewer may stop: the hypergeometric
        test at ``target`` recall and ``confidence``, and "``n_in_a_row`` irrelevant in a row" for
        comparison, counting only papers a person read; ``log``: record the claim in the store."""
        return _stopping.stopping(self, target, confidence, n_in_a_row, log, reviewer)

    # ------------------------------------------------------------------ the report

    def methods(self, reviewer: str | None = None):
        """The methods text and AI-use statement from the review's log (``.markdown()``, ``.text()``,
        ``.facts``): :func:`workbench.review.report.review_methods`."""
        from .report import review_methods

        return review_methods(self, reviewer)

    def snowball(self, direction: str = "backward", from_="included", reviewer: str | None = None):
        """The works outside the review that its included papers cite (backward) or that cite them
        (forward), ranked by how many point to each: :func:`workbench.review._snowball.snowball`."""
        from ._snowball import snowball

        return snowball(self, direction, from_, reviewer)

    def write_report(self, folder=None, image: bool = True, reviewer: str | None = None,
                     title: str | None = None, prisma: bool | None = None) -> dict[str, Path]:
        """Write report.md, report.html, map.png and the exports into ``folder`` (default:
        ``<review>/report``) with ``reviewer``'s decisions; ``title`` first sets the review's
        title (kept in the store, like ``workbench title``); ``prisma``: the PRISMA counts and
        diagram (None: for a systematic review, see ``report.write_report``). Returns what was written."""
        from .report import write_report

        return write_report(self, folder, image=image, reviewer=reviewer, title=title, prisma=prisma)
