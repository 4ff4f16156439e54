"""Updating a review with a new search: the new records join the screened ones, the map stays put.

:func:`update` reads the new sources (through the review's record cache), finds which records are
papers the review already has (the rules of :mod:`workbench.dedupe`: DOI, arXiv id, PMID, the
record id, the same abstract, near-identical titles that agree on year or first author), and
merges those into the existing paper: its id, decisions, tags, notes, topic and place on the map
stay; the new source is recorded among its ``sources`` and the record's id among its
``aliases``. Pairs a person said are different papers (``store.duplicates.verdicts``) are never
merged. The other records are new papers: embedded through the review's cache in the old papers'
space and placed without refitting anything (:func:`workbench.space.layout.place_by_neighbours`: each
at the similarity-weighted mean of its 10 most similar old papers' map position and 5-d
clustering space, in the weighted majority of their topics and fine topics). The old papers'
positions, topic numbers, names and colours do not change. New papers get the tag
``new since YYYY-MM-DD`` (by the reviewer ``update``), so they form a queue of their own
(:meth:`review.updates.new_papers`).

Everything is saved as a build is (:func:`._build.save`): a new generation of the files and one
store transaction that syncs the corpus, records the sources with their provenance, records the
topics (matched to the previous run, so every topic keeps its identity) and tags the new papers.
A failure anywhere leaves the review as it was. A refit (``workbench build`` again) is the
explicit way to let the topics and the map move.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..dedupe import DEFAULT_THRESHOLD, absorb, find_duplicates
from ..errors import InputError
from ..space.layout import place_by_neighbours
from ..readers import read_sources, rule_counts
from ..corpus.paper import Paper, source_file
from ..store import Store, check_date
from . import _provenance
from ._living import NEW_SINCE, UPDATE_REVIEWER
from ._open import open_review
from ._review import Loaded, Review, TopicMap
from ._text import document_text
from .build._build import DEFAULT_REVIEW
from .build._reuse import BuildCache, digest
from .build._save import save

__all__ = ["NEW_SINCE", "UPDATE_REVIEWER", "DuplicateFound", "UpdateReport", "match_existing", "update"]

NEIGHBOURS = 10
METHOD = (f"placed by the {NEIGHBOURS} most similar existing papers (cosine of the embeddings): their "
          "similarity-weighted mean position and majority topic; nothing refitted")


@dataclass(frozen=True)
class DuplicateFound:
    """A record of the new search that is a paper the review already has."""

    record: str  # where it was read, "<file>:<line>"
    paper: str  # the review's paper id it joined
    title: str  # that paper's title
    reason: str  # the dedupe rule that matched ("same DOI 10.1/x", "titles 97% alike, same year 2020")
    record_id: str = ""  # the record's own id (what to name in a "different" verdict)


@dataclass(frozen=True)
class UpdateReport:
    """What :func:`update` did: what it read, which records were papers already in the review
    (and why), which papers are new, the sources with their provenance, and how it placed them."""

    since: str  # the date of the "new since" tag
    read: object  # workbench.readers.ReadReport of the new sources
    new: tuple[str, ...]  # ids of the new papers
    duplicates: tuple[DuplicateFound, ...]
    sources: tuple = ()  # workbench.store.Source rows of the new files (provenance, counts)
    kept_apart: int = 0  # record pairs the rules matched but a person said are different papers
    method: str = METHOD
    seconds: dict = field(default_factory=dict)
    save: object = None  # workbench.SaveReport

    @property
    def tag(self) -> str:
        return NEW_SINCE + self.since

    def lines(self) -> list[str]:
        out = list(self.read.lines())
        for s in self.sources:
            where = f"{s.kind} {s.name!r}" + (f", query {s.query!r}" if s.query else "") + \
                (f", searched {s.searched_on}" if s.searched_on else "")
            out.append(f"source {s.path} ({where}): {s.identified} records identified")
        out.append(f"{len(self.new)} new papers (tagged {self.tag!r}), {len(self.duplicates)} records "
                   "already in the review (merged into them: decisions, tags and notes kept)")
        out += [f"  {d.record} is {d.paper} {d.title[:60]!r} ({d.reason})" for d in self.duplicates[:20]]
        if len(self.duplicates) > 20:
            out.append(f"  ... and {len(self.duplicates) - 20} more")
        if self.kept_apart:
            out.append(f"{self.kept_apart} pairs kept apart as a person decided (workbench duplicates)")
        out.append(f"new papers {self.method}")
        return out


def match_existing(old: Sequence[Paper], new: Sequence[Paper], threshold: float = DEFAULT_THRESHOLD,
                   apart: set[frozenset] = frozenset()) -> tuple[dict[int, tuple[int, str]], int]:
    """Which of ``new`` (deduplicated among themselves) are papers of ``old``, by dedupe's rules:
    ``{new index: (old index, reason)}``, and how many matches ``apart`` (pairs of ids a person
    said differ) refused. Two old papers are never joined here; a new record joins the first."""
    found = find_duplicates(list(old) + list(new), threshold)
    n_old, refused = len(old), 0
    reasons = {}
    for m in found.merges:
        reasons.setdefault(m.merged, m.reason)
        reasons.setdefault(m.kept, m.reason)
    out: dict[int, tuple[int, str]] = {}
    for members in found.clusters:
        olds = [i for i in members if i < n_old]
        for j in (i for i in members if i >= n_old):
            keep = [i for i in olds if frozenset((old[i].id, new[j - n_old].id)) not in apart]
            refused += bool(olds) and not keep
            if keep:
                out[j - n_old] = (keep[0], reasons.get(j, "same paper"))
    return out, refused


class _KeptModel:
    """The previous generation's fitted topic model, linked into the new one (nothing refitted)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def save(self, path: Path) -> None:
        if self.folder.is_dir():
            shutil.copytree(self.folder, path, copy_function=_link_or_copy)


def _link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _source_rows(report, provenance, store_sources, merged_by_file: dict[str, int]) -> tuple[list, list]:
    """The rows ``store.sources.record`` gets: the review's sources as they are, then the new files
    (their duplicates of the review's papers counted as merged); and the new files' paths."""
    rows = _provenance.source_rows(report, provenance)
    new_paths = [r["path"] for r in rows]
    for r in rows:
        r["merged"] = r["merged"] + merged_by_file.get(r["path"], 0)
    kept = [{"path": s.path, "format": s.format, "identified": s.identified, "skipped": s.skipped,
             "merged": s.merged} for s in store_sources if s.path not in new_paths]
    return kept + rows, new_paths


@dataclass(frozen=True)
class _Base:
    """The review's papers as an update starts from: those a person merged away ("same paper")
    absorbed into the paper they joined, each with its topic, fine topic, place and embedding."""

    papers: list
    labels: np.ndarray
    fine: np.ndarray | None
    coords: np.ndarray
    reduced: np.ndarray | None
    X: np.ndarray


def _base(review, merged: dict[str, str]) -> _Base:
    """The update's starting point (see :class:`_Base`): whole papers, their texts read (the
    new records are compared with them)."""
    ids = {p.id for p in review.papers}
    drop = [i for i, p in enumerate(review.papers) if merged.get(p.id) in ids]
    keep = np.array([i for i in range(len(review.papers)) if i not in set(drop)], dtype=int)
    whole = list(review.papers_with_texts())
    papers = [whole[i] for i in keep]
    del whole
    where = {p.id: k for k, p in enumerate(papers)}
    for i in drop:
        k = where.get(merged[review.papers[i].id])
        if k is not None:
            papers[k] = absorb(papers[k], [review.papers[i]])
    fine, reduced = review.fine_labels, review.reduced
    return _Base(papers, review.model_labels[keep], None if fine is None else fine[keep], review.coords[keep],
                 None if reduced is None else np.asarray(reduced)[keep], review.embeddings()[keep])


def _merge(review, papers, matches) -> tuple[list[Paper], list[Paper], list[DuplicateFound]]:
    """The review's papers with the duplicates absorbed, the new papers, and what joined what."""
    joined: dict[int, list[Paper]] = {}
    found = []
    for j, (i, reason) in sorted(matches.items()):
        joined.setdefault(i, []).append(papers[j])
        old = review.papers[i]  # review: the _Base
        found.append(DuplicateFound(papers[j].source, old.id, old.title, reason, papers[j].id))
    kept = [(absorb(p, joined[i]) if i in joined else p) for i, p in enumerate(review.papers)]
    fresh = [p for j, p in enumerate(papers) if j not in matches]
    return kept, fresh, found


def _placed(review, base: _Base, fresh: list[Paper]):
    """The new papers' embeddings, map positions, 5-d space, topics and fine topics."""
    X_old = base.X
    X_new = review.embed_texts([document_text(p) for p in fresh]) if fresh else np.zeros((0, X_old.shape[1]))
    fine = base.fine if base.fine is not None else base.labels
    space = base.coords if base.reduced is None else np.hstack([base.coords, base.reduced])
    if not fresh:
        return X_new, space[:0], base.labels[:0], fine[:0]
    where, (labels, fine_new) = place_by_neighbours(X_new, X_old, space, [base.labels, fine], k=NEIGHBOURS)
    return X_new, where, labels, fine_new


def _updated_review(review, base: _Base, kept, fresh, placed, entry: dict):
    """The review with the new papers appended: the old papers' rows exactly as they were."""
    X_new, where, labels, fine = placed
    all_labels = np.concatenate([base.labels, labels]).astype(int)
    coords = np.vstack([base.coords, where[:, :2]])
    reduced = None if base.reduced is None else np.vstack([base.reduced, where[:, 2:]]).astype(np.float32)
    fine_all = None if base.fine is None else np.concatenate([base.fine, fine]).astype(int)
    topics = review.model_topics.copy()
    sizes = np.bincount(all_labels - all_labels.min())
    topics["size"] = [int(sizes[t - all_labels.min()]) if 0 <= t - all_labels.min() < len(sizes) else 0
                      for t in topics.topic]
    manifest = dict(review.manifest)
    keys = dict(manifest.get("cache_keys", {}))
    keys["papers"] = digest("update", keys.get("papers"), entry["key"])
    manifest.update(cache_keys=keys, n_papers=len(kept) + len(fresh),
                    updates=[*manifest.get("updates", []), {k: v for k, v in entry.items() if k != "key"}])
    return Review(review.path, manifest, kept + fresh, TopicMap(topics, all_labels, coords, reduced, fine_all),
                  generation=review.generation, loaded=Loaded(np.vstack([base.X, X_new]), review.embedder()))


def update(sources: Sequence[str | os.PathLike] | str, review: str | os.PathLike | Review = DEFAULT_REVIEW,
           provenance: Mapping[str, Mapping] | None = None, *, input_format: str | None = None,
           reviewer: str | None = None, threshold: float = DEFAULT_THRESHOLD, today: str | None = None,
           follow_links: bool = False):
    """Add the records of ``sources`` (a new search) to the built review in ``review`` (its folder,
    or a :class:`Review` read from it) without refitting (see the module). ``provenance``: as for :func:`~workbench.build`. ``today``: the
    date of the "new since" tag (default: today, UTC). Returns the updated :class:`Review`, whose
    ``update_report`` (:class:`UpdateReport`) says what was new, what was a duplicate of what, and
    from which source. ``follow_links``: also read what links in the source folders lead to
    outside them (as :func:`~workbench.build` takes it)."""
    t0 = time.perf_counter()
    sources = [sources] if isinstance(sources, (str, os.PathLike)) else list(sources)
    if not sources:
        raise InputError("no sources given to update the review with; name the files of the new search")
    since = datetime.now(timezone.utc).date().isoformat() if today is None else check_date(today, "today")
    _provenance.check_all(provenance, "nothing was updated")  # a bad date is said before the reading
    old = open_review(review.path if isinstance(review, Review) else review)
    papers, report = read_sources(sources, format=input_format, exclude=[old.path],
                                  cache=BuildCache(old.path).folder / "records", follow_links=follow_links)
    with old.store() as store:
        apart, merged, known_sources = store.duplicates.apart_pairs(), store.duplicates.merged_into(), store.sources.recorded()
    base = _base(old, merged)
    matches, refused = match_existing(base.papers, papers, threshold, apart)
    kept, fresh, found = _merge(base, papers, matches)
    merged_by_file: dict[str, int] = {}
    for d in found:
        merged_by_file[source_file(d.record)] = merged_by_file.get(source_file(d.record), 0) + 1
    rows, new_paths = _source_rows(report, provenance, known_sources, merged_by_file)
    t_read = time.perf_counter() - t0
    placed = _placed(old, base, fresh)
    tag = NEW_SINCE + since
    entry = {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"), "sources": [str(s) for s in sources],
             "files": new_paths, "new": len(fresh), "duplicates": len(found), "tag": tag, "method": METHOD,
             "merged_by_rule": rule_counts([d.reason for d in found] + report.merge_reasons()),
             "key": report.cache_key}
    updated = _updated_review(old, base, kept, fresh, placed, entry)
    t_place = time.perf_counter() - t0 - t_read

    def mark_new(store) -> None:
        if fresh:
            with Store.open(old.path, reviewer=UPDATE_REVIEWER) as marker:
                marker.tags.add([p.id for p in fresh], tag)

    saved = save(updated, _KeptModel(old.files / "model"), reason="update", sync=True, reviewer=reviewer,
                 sources=rows, then=mark_new)
    with saved.store() as store:
        recorded = tuple(s for s in store.sources.recorded() if s.path in new_paths)
    seconds = {"read": round(t_read, 3), "place": round(t_place, 3),
               "save": round(time.perf_counter() - t0 - t_read - t_place, 3)}
    return saved.replace(update_report=UpdateReport(since, report, tuple(p.id for p in fresh), tuple(found),
                                                    recorded, refused, METHOD, seconds, saved.last_save))

