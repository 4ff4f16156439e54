"""A review: one folder on disk tying the pipeline's stages together.

``build`` runs read -> embed (cached) -> topics -> map and writes the folder; ``open_review``
loads it back. The folder holds::

    annotations.sqlite    tags, notes, decisions, topic edits and their history (workbench.store);
                          it also names the current generation of the files below
    generations/<name>/   the review's files, one complete set per build or saved topic run:
        build.json            what was built, from what, with which parameters, how long it took
        papers.jsonl          one paper per line (the cleaned records; "text" only where it differs from "abstract")
        topics.json           topic, label, size, words (+ the method and any fallback note)
        map.csv               id, topic, x, y
        arrays.safetensors    coordinates, the 5-d clustering space and labels (numpy, no pickle)
        model/                the fitted BERTopic model (safetensors, no pickle)
    map.html              an interactive map that opens in any browser, offline
    cache/embeddings.sqlite   embeddings keyed by (embedder, text hash)
    backups/              snapshots of the store, taken before every rebuild, import and topic run

A save writes a new generation beside the current one and switches to it in the same store
transaction that records its topics (see :mod:`workbench.folder`): an interrupted build or
refit leaves the previous review whole, and never a mix of the two.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

import numpy as np

from ._version import __version__
from . import folder as files
from .embed import EmbeddingCache, WordVectors, embed_with_cache, get_embedder
from .errors import InputError, ReviewError, WorkbenchError
from .layout import MapLayout
from .readers import read_sources
from .records import Paper
from .topics import TopicModel

__all__ = ["BuildReport", "Review", "SaveReport", "build", "is_review", "open_review", "open_or_build", "DEFAULT_REVIEW",
           "PAPER_TABLE_COLUMNS"]

log = logging.getLogger(__name__)

DEFAULT_REVIEW = "review"
PAPER_TABLE_COLUMNS = ["id", "title", "authors", "year", "collection", "source", "topic", "topic_label", "x", "y"]
TOPIC_TABLE_COLUMNS = ["topic", "label", "size", "words"]
FORMAT_VERSION = 1
STORE_FILE = "annotations.sqlite"


def _quiet_libraries() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    logging.getLogger("BERTopic").setLevel(logging.ERROR)


def document_text(paper: Paper) -> str:
    """What is embedded and clustered: "Title. Abstract", or the abstract alone when its title was
    derived from it (see :func:`derived_title`), or the title alone when there is no abstract.

    Title + abstract measured better than the abstract alone on the labelled corpora
    (docs/benchmarks.md); a title made from the abstract would only count its words twice.
    """
    text, title = paper.text, paper.title
    if not text:
        return title
    if not title or derived_title(title, text):
        return text
    return f"{title} {text}" if title.endswith((".", "?", "!")) else f"{title}. {text}"


_WORD = re.compile(r"\w+")
_INTRODUCES = re.compile(
    r"\b(?:we|this (?:paper|work|report))\s+(?:\w+\s+)?(?:introduce|propose|present|develop|release|build|construct"
    r"|design|unveil|describe)s?\b",
    re.I,
)


def derived_title(title: str, text: str) -> bool:
    """Whether ``title`` looks made from ``text`` (records.derive_title) or repeats its start.

    Derived titles are the abstract's first clause (a prefix of it, maybe cut with "…") or
    "NAME: description" taken from the sentence that introduces a system; a title the
    abstract starts with adds nothing either. Cheap: no LaTeX clean-up, no title re-derivation.
    """
    core = title.rstrip("…").rstrip(" .,;:")
    if core and text.startswith(core):
        return True
    return (
        ":" in title
        and set(_WORD.findall(title.lower())) <= set(_WORD.findall(text.lower()))
        and _INTRODUCES.search(text) is not None
    )


class Review:
    """A built review, loaded from its folder. Use :func:`open_review` or :func:`build`."""

    def __init__(self, path: Path, manifest: dict, papers: list[Paper], topics, labels, coords, reduced=None, fine_labels=None):
        self.path = Path(path)
        self.manifest = manifest
        self.papers = papers
        # What the model found, as written in the folder; ``topics``/``labels`` add the human edits.
        self.model_topics = topics
        self.model_labels = np.asarray(labels, dtype=int)
        self.topics = topics  # DataFrame: topic, label, size, words
        self.labels = self.model_labels
        self.coords = np.asarray(coords, dtype=np.float64)
        self.reduced = reduced
        # HDBSCAN's topics before merging (what show_themes cuts); None in reviews built before them
        self.fine_labels = None if fine_labels is None else np.asarray(fine_labels, dtype=int)
        self._embeddings = None
        self._embedder = None
        self._index = {p.id: i for i, p in enumerate(papers)}
        # The generation of the review's files this was read from or saved as (None: top level)
        self.generation: str | None = None
        # What the build or the last saved topic run reported (None: opened, nothing saved yet)
        self.build_report: BuildReport | None = None
        self.last_save: SaveReport | None = None

    @property
    def files(self) -> Path:
        """The folder holding this review's current files (papers.jsonl, topics.json, ...)."""
        return files.files_dir(self.path, self.generation)

    def store(self, reviewer: str | None = None):
        """The review's annotation store (tags, notes, decisions, topic edits)."""
        from .store import Store

        return Store.open(self.path, reviewer=reviewer)

    def apply_topic_edits(self, assignments: dict, labels: dict) -> None:
        """Show the topics with the human edits (renames, merges, moves) laid over the model's."""
        from collections import Counter

        self.labels = np.array([assignments.get(p.id, t) for p, t in zip(self.papers, self.model_labels)], dtype=int)
        base = self.model_topics
        words = dict(zip(base.topic.astype(int), base.words))
        model_label = dict(zip(base.topic.astype(int), base.label))
        sizes = Counter(self.labels.tolist())
        rows = [
            {
                "topic": t,
                "label": "Unassigned" if t == -1 else labels.get(t) or model_label.get(t) or f"Topic {t}",
                "size": sizes[t],
                "words": list(words.get(t, [])),
            }
            for t in sorted(sizes)
        ]
        self.topics = pd_frame(rows)

    def refresh_topics(self) -> bool:
        """Re-read the topic edits from the store (after a rename or merge elsewhere).

        Only while the store's topics are still this review's (same generation of files): after
        another process saved other topics, nothing is mixed in and False is returned; open the
        review again to see them (``Session.reload``).
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

    def is_current(self) -> bool:
        """Whether the review on disk still has the topics this object was read or saved with."""
        if not (self.path / STORE_FILE).exists():
            return True
        with self.store() as store:
            return store.generation() == self.generation

    def __repr__(self) -> str:
        return f"<Review {str(self.path)!r}: {len(self.papers)} papers, {int((self.topics.topic >= 0).sum())} topics>"

    def __len__(self) -> int:
        return len(self.papers)

    # ------------------------------------------------------------------ tables

    def topic_labels(self) -> dict[int, str]:
        return dict(zip(self.topics.topic.astype(int), self.topics.label))

    def papers_frame(self):
        """One row per paper: id, title, authors, year, collection, source, topic, topic_label, x, y."""
        import pandas as pd

        labels = self.topic_labels()
        frame = pd.DataFrame(
            {
                "id": [p.id for p in self.papers],
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
        return frame

    def topics_frame(self):
        """One row per topic: topic, label, size, words."""
        return self.topics[TOPIC_TABLE_COLUMNS].copy()

    def paper(self, paper_id: str) -> Paper:
        try:
            return self.papers[self._index[paper_id]]
        except KeyError:
            raise InputError(f"no paper with id {paper_id!r} in {self.path}") from None

    # ------------------------------------------------------------------ embeddings and refits

    def embedder(self):
        """The review's embedder, made once; a corpus-relative one (tfidf) is bound to this
        corpus, so label words, searches and re-clusterings land in the papers' space."""
        if getattr(self, "_embedder", None) is None:
            embedder = get_embedder(self.manifest["embedder"]["name"])
            embedder.bind_corpus([document_text(p) for p in self.papers])
            self._embedder = embedder
        return self._embedder

    def embeddings(self) -> np.ndarray:
        """The papers' embeddings, from the review's cache (embedding only what is missing)."""
        if self._embeddings is None:
            embedder = self.embedder()
            with EmbeddingCache(self.path / "cache" / "embeddings.sqlite") as cache:
                self._embeddings, _ = embed_with_cache([document_text(p) for p in self.papers], embedder, cache, corpus=True)
        return self._embeddings

    def _stored_topic_params(self) -> dict:
        """The topic parameters the review was built with, less any this version no longer has.

        A review built by an older workbench may name a parameter since replaced (``merge_distance``
        became ``merge_variance``): it is dropped, with a log line, and today's default is used.
        """
        stored = dict(self.manifest.get("topic_params", {}))
        known = TopicModel().get_params()
        gone = sorted(set(stored) - set(known))
        if gone:
            log.info("%s: ignoring topic parameters of an older workbench: %s", self.path, ", ".join(gone))
        params = {k: v for k, v in stored.items() if k in known}
        params.setdefault("seed", self.manifest.get("seed", 42))
        return params

    def refit(self, save: bool = False, reviewer: str | None = None, **topic_params) -> "Review":
        """Find topics again with other parameters (e.g. ``min_cluster_size=10``), in this process.

        The embeddings come from the cache and the map stays where it is. Returns ``self`` with
        new ``labels`` and ``topics``; ``save=True`` also writes them to the folder.
        """
        if save:
            self._check_writable("refit")
        params = {**self._stored_topic_params(), **topic_params}
        X = self.embeddings()
        words = WordVectors(self.embedder(), self.path / "cache" / "embeddings.sqlite")
        model = TopicModel(**params).fit([document_text(p) for p in self.papers], X, word_vectors=words)
        return self._adopt(model, params, save, reviewer)

    def show_themes(self, k: int | None = None, save: bool = False, reviewer: str | None = None) -> "Review":
        """The topics as ``k`` themes (None: the default topics), from HDBSCAN's topics kept in
        the review: the Ward tree is cut again and only words and labels are computed, no UMAP
        or HDBSCAN (seconds where a refit of 50,000 papers takes a minute). The same topics as
        ``refit(nr_topics=k)``; a review without its HDBSCAN topics (built before they were
        kept) is refitted instead.
        """
        if k is not None and int(k) < 1:
            raise InputError(f"{k} themes; expected 1 or more, or None for the default topics")
        if save:
            self._check_writable("themes")
        if self.fine_labels is None or len(self.fine_labels) != len(self.papers):
            return self.refit(save=save, reviewer=reviewer, nr_topics=int(k) if k else None)
        params = {**self._stored_topic_params(), "nr_topics": int(k) if k else None}
        X = self.embeddings()
        words = WordVectors(self.embedder(), self.path / "cache" / "embeddings.sqlite")
        model = TopicModel(**params).fit_from_topics(
            [document_text(p) for p in self.papers], X, self.fine_labels, self.reduced, word_vectors=words)
        model.method_ = self.manifest.get("topics", {}).get("method", model.method_)
        model.note_ = self.manifest.get("topics", {}).get("note", model.note_)
        return self._adopt(model, params, save, reviewer)

    def _check_writable(self, what: str) -> None:
        """Refuse a save up front (not after minutes of work) where it cannot be written."""
        from .store import DB_NAME
        from .store import read_only_reason

        store = self.path / DB_NAME
        reason = read_only_reason(store) if store.exists() else None
        if reason:
            raise ReviewError(f"permission denied: {reason}, so the {what} cannot be saved in {self.path}; "
                              "nothing was saved; look at them without saving (save=False), or ask the "
                              "review's owner for write access")

    def _adopt(self, model: TopicModel, params: dict, save: bool, reviewer: str | None = None) -> "Review":
        """Make a fitted model's topics the review's (and with ``save``, the folder's and store's).

        With ``save`` the new topics are shown only once they are saved: if saving fails, the
        review (in memory and on disk) keeps its previous topics and the error says so.
        """
        new = copy.copy(self)
        new.model_labels, new.model_topics, new.reduced = model.labels_, model.topic_info_, model.reduced_embeddings_
        new.fine_labels = model.fine_labels_
        new.labels, new.topics = new.model_labels, new.model_topics
        new.manifest = {
            **self.manifest,
            "topic_params": params,
            "topics": {"method": model.method_, "note": model.note_, "count": int((new.topics.topic >= 0).sum())},
        }
        new.model = model
        if save:
            new.last_save = _save(new, model, reason="topic-run", sync=False, reviewer=reviewer)
        self.__dict__.update(new.__dict__)
        return self

    def topic_stability(self, seeds: Sequence[int] = (1, 2, 3, 4)):
        """How often each topic's papers stay together when the topics are refitted with ``seeds``.

        The topics as shown (``topic``, ``label``, ``size``, with the human renames, merges and
        moves) with a ``stability`` column, 0..1: the share of pairs of a topic's papers that
        share a topic in the other runs, averaged (see :mod:`workbench.topics.stability`). Costs one
        clustering per seed, no new embeddings.
        """
        from .topics import seed_labelings, topic_stability

        params = self._stored_topic_params()
        runs = seed_labelings(self.embeddings(), params, seeds)
        scores = topic_stability(self.labels, runs)
        frame = self.topics[["topic", "label", "size"]].copy()
        frame["stability"] = [scores.get(int(t), float("nan")) for t in frame.topic]
        return frame


# ---------------------------------------------------------------------------- building


def build(
    sources: Sequence[str | os.PathLike] | str = ("seeds",),
    review: str | os.PathLike = DEFAULT_REVIEW,
    embedder: str = "minilm",
    seed: int = 42,
    input_format: str | None = None,
    progress: bool = True,
    **topic_params,
) -> Review:
    """Read ``sources``, embed (cached), find topics, lay out the map, and write ``review``.

    ``topic_params`` go to :class:`~workbench.topics.TopicModel` (e.g. ``min_cluster_size``).
    """
    _quiet_libraries()
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    path = Path(review)
    timings: dict[str, float] = {}

    t = time.perf_counter()
    papers, report = read_sources(sources, format=input_format, exclude=[path])
    timings["read"] = time.perf_counter() - t
    if not papers:
        raise InputError(f"no papers found in {', '.join(map(str, sources))}; check the files hold abstracts")

    path.mkdir(parents=True, exist_ok=True)
    if not progress:
        os.environ["WORKBENCH_PROGRESS"] = "0"
    emb = get_embedder(embedder)
    texts = [document_text(p) for p in papers]
    t = time.perf_counter()
    with EmbeddingCache(path / "cache" / "embeddings.sqlite") as cache:
        X, embed_stats = embed_with_cache(texts, emb, cache, corpus=True)
    timings["embed"] = time.perf_counter() - t

    t = time.perf_counter()
    words = WordVectors(emb, path / "cache" / "embeddings.sqlite")
    model = TopicModel(seed=seed, **topic_params).fit(texts, X, word_vectors=words)
    timings["topics"] = time.perf_counter() - t

    t = time.perf_counter()
    layout = MapLayout(seed=seed).fit(X)
    timings["map"] = time.perf_counter() - t

    manifest = {
        "format_version": FORMAT_VERSION,
        "workbench_version": __version__,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "sources": [str(s) for s in sources],
        "read_report": report.lines(),
        "n_papers": len(papers),
        "embedder": {"name": emb.name, "version": emb.version, "dims": int(X.shape[1])},
        "embed_stats": embed_stats,
        "seed": seed,
        "topic_params": {k: v for k, v in model.get_params().items() if k != "seed"},
        "topics": {"method": model.method_, "note": model.note_, "count": int((model.topic_info_.topic >= 0).sum())},
        "map": {"method": layout.method_},
    }
    result = Review(path, manifest, papers, model.topic_info_, model.labels_, layout.coords_, model.reduced_embeddings_, model.fine_labels_)
    result._embeddings = X
    result._embedder = emb
    result.model = model
    manifest["timings"] = {k: round(v, 3) for k, v in timings.items()}
    t = time.perf_counter()
    saved = _save(result, model, reason="build", sync=True)
    manifest["timings"]["write"] = round(time.perf_counter() - t, 3)  # in memory; the file has the rest
    result.last_save = saved
    result.build_report = BuildReport(read=report, save=saved)
    return result


@dataclass(frozen=True)
class BuildReport:
    """What :func:`build` did: what it read (per file), and what it saved (see :class:`SaveReport`)."""

    read: object  # workbench.readers.ReadReport
    save: "SaveReport"

    @property
    def sync(self):
        """The store's report on the corpus: new, updated, left, orphaned, carried over."""
        return self.save.sync_report

    @property
    def topics(self):
        """The store's report on the topics: matched to the previous run, new, split, merged, gone."""
        return self.save.topic_report


@dataclass(frozen=True)
class SaveReport:
    """What a build or a saved topic run changed: the store's reports and the files' generation."""

    generation: str
    sync_report: object = None  # workbench.store.SyncReport (builds only)
    topic_report: object = None  # workbench.store.TopicReport
    snapshot: object = None  # the store snapshot taken first (None: nothing had changed)
    warnings: tuple[str, ...] = ()  # what failed after everything was saved (a view, tidying)


def _save(review: Review, model: TopicModel | None, *, reason: str, sync: bool, reviewer: str | None = None) -> SaveReport:
    """Save a build (``sync``: the corpus too) or a topic run, all or nothing.

    1. the new files go into a generation folder beside the current one (nothing else changes);
    2. one store transaction syncs the corpus, records the topics (matched to the previous
       run's, human edits laid over) and names the new generation: the switch;
    3. after it, the top-level map.html and old generations are tidied (failures there are
       warnings: everything is saved by then).
    A failure in 1 or 2 leaves the review as it was, and the error says that nothing was saved.
    """
    from .store import Store

    path = review.path
    path.mkdir(parents=True, exist_ok=True)
    with Store.open(path, reviewer=reviewer) as store:
        if store.read_only:
            raise ReviewError(f"permission denied: {store.read_only}, so the {reason} cannot be saved "
                              f"in {path}; nothing was saved; ask the review's owner for write access, "
                              "or build into a folder of your own with --review DIR")
        current = store.generation()
        previous = files.files_dir(path, current) if not sync else None
        name, staging = files.stage(path)
        final = None
        try:
            files.write_generation(staging, review, model, previous)
            final = files.install(path, name, staging)
        except BaseException as err:
            files.discard(staging)
            if isinstance(err, OSError):
                raise ReviewError(f"could not write the review's new files in {path / files.GENERATIONS} "
                                  f"({err}); nothing was saved, the review is as it was; free some disk "
                                  "space or fix the folder's permissions and try again") from err
            raise
        try:
            snap = store.backup(f"before-{reason}", force=False)
            with store.transaction():
                sync_report = _sync_store(review, store) if sync else None
                topic_report, edited = _record_topics(review, store)
                store.set_generation(name)
        except BaseException as err:
            files.discard(final)
            if isinstance(err, (OSError, WorkbenchError)) and "nothing" not in str(err):
                raise ReviewError(f"could not save the {reason} in {path} ({err}); nothing was saved, "
                                  "the review is as it was") from err
            raise
    review.generation = name
    review.apply_topic_edits(*edited)
    warnings = []
    for what, step in (("map.html", lambda: files.publish_map(path, review)), ("tidying", lambda: files.tidy(path, name))):
        try:
            step()
        except Exception as err:  # everything is saved already: say what is stale
            warnings.append(f"the {reason} was saved, but {what} failed ({err}); rerun `workbench check --review {path}`")
            log.warning(warnings[-1])
    return SaveReport(name, sync_report, topic_report, snap, tuple(warnings))


def _sync_store(review: Review, store):
    """Tell the annotation store which papers are in the corpus; labels in the files become decisions."""
    from .store import Store

    report = store.sync_papers(p.to_dict() for p in review.papers)
    labelled = [p for p in review.papers if p.label in ("include", "exclude", "maybe")]
    if labelled:
        with Store.open(review.path, reviewer="source-file") as source:
            for decision in ("include", "exclude", "maybe"):
                ids = [p.id for p in labelled if p.label == decision and not source.decisions(p.id)]
                if ids:
                    source.decide(ids, decision, reason="label in the source file")
    return report


def _record_topics(review: Review, store):
    """Record this run's topics (matched to the last run's); returns the report and the edited view."""
    assignments = {p.id: int(t) for p, t in zip(review.papers, review.model_labels)}
    info = review.model_topics
    labels = {int(t): str(label) for t, label in zip(info.topic, info.label)}
    words = {int(t): list(w) for t, w in zip(info.topic, info.words)}
    report = store.record_topics(assignments, labels, words)
    return report, store.apply_topic_edits(assignments, labels)


# ---------------------------------------------------------------------------- opening


def open_or_build(
    review: str | os.PathLike = DEFAULT_REVIEW,
    sources: Sequence[str | os.PathLike] | str = ("seeds",),
    rebuild: bool = False,
    **build_params,
) -> Review:
    """Open ``review``; build it from ``sources`` first when it does not exist (or ``rebuild``)."""
    if rebuild or not is_review(review):
        return build(sources, review=review, **build_params)
    return open_review(review)


def _current_generation(path: Path) -> str | None:
    from .store import DB_NAME, Store

    if not (path / DB_NAME).exists():
        return None
    with Store.open(path, create=False) as store:
        return store.generation()


def is_review(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a built review (its current files complete)."""
    path = Path(path)
    try:
        return (files.files_dir(path, _current_generation(path)) / "build.json").exists()
    except WorkbenchError:  # a store that cannot be opened: a review, if a damaged one
        return True



def open_review(path: str | os.PathLike = DEFAULT_REVIEW) -> Review:
    """Load a review folder written by :func:`build`."""
    import pandas as pd
    from safetensors.numpy import load_file

    path = Path(path)
    generation = _current_generation(path)
    where = files.files_dir(path, generation)
    manifest_path = where / "build.json"
    if not manifest_path.exists():
        if generation is not None:
            raise ReviewError(f"{path}: its current files {where} are missing; check the review with "
                              f"`workbench check --review {path}` or rebuild it with `workbench build --review {path}`")
        raise ReviewError(f"{path} is not a built review (no build.json); run `workbench build --review {path}` first")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        papers = [_paper_from_dict(json.loads(line)) for line in (where / "papers.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
        topics_doc = json.loads((where / "topics.json").read_text(encoding="utf-8"))
        arrays = load_file(str(where / "arrays.safetensors"))
    except (OSError, ValueError, KeyError) as err:
        raise ReviewError(f"{path} is incomplete or damaged ({err}); rebuild it with `workbench build --review {path}`") from err
    if manifest.get("format_version", 0) > FORMAT_VERSION:
        raise ReviewError(f"{path} was built by a newer workbench (format {manifest['format_version']}); upgrade workbench")
    topics = pd.DataFrame(topics_doc["topics"], columns=TOPIC_TABLE_COLUMNS)
    if len(arrays["labels"]) != len(papers):
        raise ReviewError(f"{path}: {len(papers)} papers but {len(arrays['labels'])} topic labels; rebuild the review")
    review = Review(path, manifest, papers, topics, arrays["labels"], arrays["coords"], arrays.get("reduced"), arrays.get("fine_labels"))
    review.generation = generation
    review.refresh_topics()
    return review


def pd_frame(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=TOPIC_TABLE_COLUMNS)


def _paper_from_dict(d: dict) -> Paper:
    fields = Paper.__dataclass_fields__
    d = {k: v for k, v in d.items() if k in fields}
    d.setdefault("text", d.get("abstract", ""))  # left out when it equals the abstract
    for key in ("authors", "keywords", "sources", "aliases"):
        if key in d:
            d[key] = tuple(d[key] or ())
    return Paper(**d)
