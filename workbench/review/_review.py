"""The :class:`Review`: the one object the faces (widgets, notebooks, command line) work with.

A review is data plus queries: its papers (their metadata, and their texts beside them: a
:class:`~workbench.corpus.texts.PaperTexts`), the topics (as found and as edited), the map, and
(loaded when first needed) the embeddings and the embedder; finding papers (search, neighbours)
and the tables. It holds its parts as attributes, each a small object with its own methods:

- ``review.screening`` (:class:`~._screening.ReviewScreening`): the ranked queue, decisions,
  the screening history and when to stop;
- ``review.team`` (:class:`~._team.ReviewTeam`): each paper's status at a stage, conflicts,
  agreement, blind mode, PRISMA 2020, imports;
- ``review.field`` (:class:`~._field.ReviewField`): citations, snowballing, topics over time,
  who and where;
- ``review.updates`` (:class:`~._living.ReviewUpdates`): what updates brought, duplicates.

What makes a new review is a function beside it, and returns a new :class:`Review` (this one is
never changed): ``build``, ``open_review``, ``update``, ``refit``, ``show_themes``; the report is
``write_report(review)``, and its methods text ``review_methods(review)``.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import _folder as files
from ..corpus.paper import OUTLIER, Paper, PaperInfo
from ..corpus.texts import PaperTexts, TextsInMemory
from ..embed import Embedder, EmbeddingCache, WordVectors, embed_with_cache, get_embedder
from ..errors import InputError
from ..store import DB_NAME, Store
from ..topics import TOPIC_COLUMNS as TOPIC_TABLE_COLUMNS
from ..topics import TopicModel, seed_labelings
from ..topics import topic_stability as stability_of
from . import _haystack, _search, _text, _typical
from ._field import ReviewField
from ._living import ReviewUpdates
from ._screening import ReviewScreening
from ._team import ReviewTeam
from ._text import document_text

__all__ = ["CACHE_FILE", "PAPER_TABLE_COLUMNS", "TOPIC_TABLE_COLUMNS", "Loaded", "MadeBy", "Review",
           "TopicMap", "stored_topic_params"]

PAPER_TABLE_COLUMNS = ["id", "title", "authors", "year", "collection", "source", "topic", "topic_label", "x", "y"]
CACHE_FILE = Path("cache") / "embeddings.sqlite"  # under the review folder

if TYPE_CHECKING:  # for the records' annotations only (pandas is imported when first needed)
    import pandas as pd

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TopicMap:
    """What the topic model found and the map, one entry per paper in map order: ``topics`` (a
    DataFrame: topic, label, size, words), ``labels`` (each paper's topic), ``coords`` (its 2-D
    map position), ``reduced`` (the clustering space; None when not at hand) and ``fine_labels``
    (HDBSCAN's topics before merging; None in reviews built before them). ``edits``: the human
    topic edits to lay over them, ``(assignments, labels)`` as ``store.topics.current()`` gives
    them (None: none)."""

    topics: pd.DataFrame
    labels: np.ndarray
    coords: np.ndarray
    reduced: np.ndarray | None = None
    fine_labels: np.ndarray | None = None
    edits: tuple[dict, dict] | None = None


class DerivedTexts:
    """Texts derived from a review's papers once: ``texts`` (what is embedded, per paper),
    ``haystack`` (what keyword search reads) and ``file_digest`` (of the file they are read
    from); None until first asked for."""

    def __init__(self):
        self.texts: list[str] | None = None
        self.haystack: list[str] | None = None
        self.file_digest: str | None = None  # of the papers.jsonl the texts are read from (_text)


@dataclass(frozen=True)
class Loaded:
    """What this process already holds of a review, so that it is not read or made again: the
    papers' ``embeddings`` (one row per paper, in map order), the ``embedder`` that made them,
    and the texts ``derived`` from the papers (shared by the reviews :meth:`Review.replace` makes
    of the same papers). None: loaded or made when first needed."""

    embeddings: np.ndarray | None = None
    embedder: Embedder | None = None
    derived: DerivedTexts | None = None


@dataclass(frozen=True)
class MadeBy:
    """What made a review in this process (None: it was opened, not made here): the fitted
    ``model`` (a :class:`~workbench.topics.TopicModel`) of the build or refit, and what the build
    (``build_report``), an update (``update_report``) and the last save (``last_save``) reported."""

    model: TopicModel | None = None
    build_report: object = None  # workbench.BuildReport
    update_report: object = None  # workbench.UpdateReport
    last_save: object = None  # workbench.SaveReport


def _of(record: type, changed: dict):
    """A ``record`` (TopicMap or MadeBy) of its fields' values in ``changed``."""
    return record(**{f.name: changed[f.name] for f in fields(record)})


_REPLACEABLE = {"path", "manifest", "papers", "generation", "texts", "embeddings", "embedder",
                *(f.name for record in (TopicMap, MadeBy) for f in fields(record))}


class Review:
    """A built review, loaded from its folder. Made by :func:`open_review`, :func:`build`,
    :func:`update`, :func:`refit` and :func:`show_themes` (each returns a new one).

    Its parts: ``screening`` (the ranked queue, decisions, stopping), ``team`` (status at a
    stage, conflicts, agreement, blind mode, PRISMA), ``field`` (citations, topics over time,
    who and where), ``updates`` (what updates brought, duplicates). ``build_report``,
    ``update_report``, ``last_save`` and ``model``: what made it in this process (else None)."""

    def __init__(self, path: Path, manifest: dict, papers: list[Paper] | list[PaperInfo], found: TopicMap, *,
                 generation: str | None = None, texts: PaperTexts | None = None,
                 loaded: Loaded | None = None, made: MadeBy | None = None):
        self.path = Path(path)
        self.manifest = manifest
        if texts is None:  # whole papers (a build's, an update's): their texts held here
            texts, papers = TextsInMemory.of(papers), [p.info() for p in papers]
        # Each paper's metadata (PaperInfo), in map order; their texts: paper_texts, by row
        self.papers: list[PaperInfo] = papers
        self.paper_texts = texts
        # What the model found, as written in the folder; ``topics``/``labels`` add the human edits.
        self.model_topics = found.topics
        self.model_labels = np.asarray(found.labels, dtype=int)
        self.topics = found.topics  # DataFrame: topic, label, size, words
        self.labels = self.model_labels
        self.coords = np.asarray(found.coords, dtype=np.float64)
        self.reduced = found.reduced
        # HDBSCAN's topics before merging (what show_themes cuts); None in reviews built before them
        self.fine_labels = None if found.fine_labels is None else np.asarray(found.fine_labels, dtype=int)
        # The generation of the review's files this was read from or saved as (None: top level)
        self.generation = generation
        # What the build, an update or the last saved topic run reported (None: not in this process)
        made = made if made is not None else MadeBy()
        self.build_report, self.update_report = made.build_report, made.update_report  # BuildReport, UpdateReport
        self.last_save = made.last_save  # workbench.SaveReport
        self.model = made.model  # the fitted TopicModel of the last build or refit in this process
        loaded = loaded if loaded is not None else Loaded()
        if loaded.embeddings is not None and len(loaded.embeddings) != len(papers):
            raise InputError(f"{len(loaded.embeddings)} embeddings for {len(papers)} papers; expected one per paper")
        self._embeddings = loaded.embeddings
        self._embedder = loaded.embedder
        self._index = {p.id: i for i, p in enumerate(papers)}
        # what is embedded and what keyword search reads, made when first needed
        self._derived = loaded.derived if loaded.derived is not None else DerivedTexts()
        self.screening = ReviewScreening(self)
        self.team = ReviewTeam(self)
        self.field = ReviewField(self)
        self.updates = ReviewUpdates(self)
        if found.edits is not None:
            self.apply_topic_edits(*found.edits)

    def replace(self, **changes) -> Review:
        """A new review of the same folder with ``changes`` to its parts, named as the
        constructor and its records name them (``generation``, ``manifest``, ``topics`` and
        ``labels``, ``last_save``, ``edits``...); the rest (papers, texts, map, embeddings,
        embedder) is shared with this one, which is left as it is. The human topic edits shown
        here carry over unless ``labels``, ``topics`` or ``edits`` are given."""
        unknown = set(changes) - _REPLACEABLE
        if unknown:
            raise TypeError(f"Review.replace() got {', '.join(sorted(unknown))}; "
                            f"expected some of {', '.join(sorted(_REPLACEABLE))}")
        now = dict(path=self.path, manifest=self.manifest, papers=self.papers, topics=self.model_topics,
                   labels=self.model_labels, coords=self.coords, reduced=self.reduced, fine_labels=self.fine_labels,
                   edits=None, generation=self.generation, embeddings=self._embeddings, embedder=self._embedder,
                   texts=self.paper_texts, model=self.model, build_report=self.build_report,
                   update_report=self.update_report, last_save=self.last_save)
        keep_edits = not {"labels", "topics", "edits"} & set(changes)
        now.update(changes)
        same_papers = not {"papers", "texts"} & set(changes)  # then the texts derived from them too
        loaded = Loaded(now["embeddings"], now["embedder"], self._derived if same_papers else None)
        new = Review(now["path"], now["manifest"], now["papers"], _of(TopicMap, now), generation=now["generation"],
                     texts=now["texts"], loaded=loaded, made=_of(MadeBy, now))
        if keep_edits:
            new.labels, new.topics = self.labels, self.topics
        return new

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
        return Store.open(self.path, reviewer=reviewer)

    def is_current(self) -> bool:
        """Whether the review on disk still has the topics this object was read or saved with."""
        if not (self.path / DB_NAME).exists():
            return True
        with self.store() as store:
            return store.files.generation() == self.generation

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
        if not (self.path / DB_NAME).exists():
            return True
        with self.store() as store:
            if store.files.generation() != self.generation:
                return False
            assignments, labels = store.topics.current()
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
        return list(self._ids)

    @cached_property
    def _ids(self) -> tuple[str, ...]:  # (the papers never change: a new Review is made)
        return tuple(p.id for p in self.papers)

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
        if self._derived.texts is None:
            self._derived.texts = [document_text(p) for p in self.papers_with_texts()]
        return self._derived.texts

    def text(self, row: int) -> str:
        """What is embedded for the paper at map row ``row`` (one of :meth:`texts`, read alone
        when they are not all made)."""
        if self._derived.texts is not None:
            return self._derived.texts[row]
        return document_text(self.paper_texts.paper(self.papers[row], row))

    def texts_digest(self) -> str | None:
        """A digest of the papers.jsonl this review's texts are read from (and of the code that
        makes them), made once; None when the texts are held in memory. What a new kernel finds
        the caches made from every text by (``cache/embeddings-rows``, ``text-starts``, the ranked
        queue's TF-IDF) without reading them."""
        if self._derived.file_digest is None:
            self._derived.file_digest = _text.texts_file_digest(self)
        return self._derived.file_digest

    def text_starts(self, width: int = 260) -> list[str]:
        """Each paper's clean text on one line, cut after a word at ``width`` characters, in map
        order: what a map's tooltip shows. Kept in the review's cache for the next kernel."""
        return _text.text_starts(self, width)

    def haystack(self) -> list[str]:
        """Each paper's title and clean text in lower case: what keyword search reads."""
        if self._derived.haystack is None:
            self._derived.haystack = [_haystack.lower_text(p) for p in self.papers_with_texts()]
        return self._derived.haystack

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
        then the array kept in the papers' order; else by text, embedding only what is missing)."""
        if self._embeddings is None:
            with _text.EMBEDDER:  # one thread loads them (a warm-up's, or the kernel's)
                if self._embeddings is None and self.manifest.get("embedding_cache", {}).get("format") == "parquet":
                    self._embeddings = _text.parquet_embeddings(self)  # None: incomplete
                if self._embeddings is None:
                    self._embeddings = _text.row_embeddings(self, self._read_embeddings)
        return self._embeddings

    def _read_embeddings(self) -> np.ndarray:
        with EmbeddingCache(self.cache_path) as cache:
            vectors, _ = embed_with_cache(self.texts(), self.embedder(), cache, corpus=True)
        return vectors

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Other texts (a search query) in the papers' space, through the review's cache."""
        with _text.EMBEDDER, EmbeddingCache(self.cache_path) as cache:
            vectors, _ = embed_with_cache(list(texts), self.embedder(), cache)
        return vectors

    def word_vectors(self) -> WordVectors:
        """The word-embedding function a topic model's labels need: label words in the papers'
        space, through the review's cache."""
        return WordVectors(self.embedder(), self.cache_path, lock=_text.EMBEDDER)  # (a warm-up's thread may embed)

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

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """How often each topic's papers stay together when the topics are refitted with ``seeds``.

        The topics as shown (``topic``, ``label``, ``size``, with the human renames, merges and
        moves) with a ``stability`` column, 0..1: the share of pairs of a topic's papers that
        share a topic in the other runs, averaged (see :func:`workbench.topics.topic_stability`).
        Costs one clustering per seed, no new embeddings.
        """
        runs = seed_labelings(self.embeddings(), stored_topic_params(self), seeds)
        scores = stability_of(self.labels, runs)
        frame = self.topics[["topic", "label", "size"]].copy()
        frame["stability"] = [scores.get(int(t), float("nan")) for t in frame.topic]
        return frame

    def recluster(self, ids: Sequence[str], min_cluster_size: int | None = None, seed: int | None = None):
        """Sub-topics of a selection, from the cached embeddings (nothing saved).

        Returns a DataFrame: id, title, subtopic, subtopic_label.
        """
        import pandas as pd

        rows = self.rows(ids)
        texts = self.texts()
        seed = self.manifest.get("seed", 42) if seed is None else seed
        model = TopicModel(min_cluster_size=min_cluster_size, seed=seed).fit(
            [texts[r] for r in rows], self.embeddings()[rows], word_vectors=self.word_vectors())
        labels = dict(zip(model.topic_info_.topic, model.topic_info_.label))
        return pd.DataFrame({
            "id": [self.papers[r].id for r in rows],
            "title": [self.papers[r].title for r in rows],
            "subtopic": model.labels_,
            "subtopic_label": [labels.get(t, "Unassigned") for t in model.labels_],
        })


def stored_topic_params(review: Review) -> dict:
    """The topic parameters the review was built with, less any this version no longer has.

    A review built by an older workbench may name a parameter since replaced (``merge_distance``
    became ``merge_variance``): it is dropped, with a log line, and today's default is used.
    """
    stored = dict(review.manifest.get("topic_params", {}))
    known = TopicModel().get_params()
    gone = sorted(set(stored) - set(known))
    if gone:
        log.info("%s: ignoring topic parameters of an older workbench: %s", review.path, ", ".join(gone))
    params = {k: v for k, v in stored.items() if k in known}
    params.setdefault("seed", review.manifest.get("seed", 42))
    return params
