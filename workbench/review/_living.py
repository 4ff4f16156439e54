"""A living review's part of :class:`Review` (``review.updates``): the papers updates brought,
the latest update, and the pairs of papers that may be one paper.

Making an updated review is :func:`workbench.review.update` (in ``_update``); this part reads
what updates left in the store (their "new since <date>" tags, kept under the update's own
reviewer name, :data:`UPDATE_REVIEWER`) and settles duplicates.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from ..store import check_date
from ._decisions import store_of
from ._duplicates import LOW, DuplicateCandidate, candidates

__all__ = ["NEW_SINCE", "UPDATE_REVIEWER", "LatestUpdate", "ReviewUpdates", "latest_update"]

NEW_SINCE = "new since "  # the tag's prefix; the date follows
UPDATE_REVIEWER = "update"  # who the "new since" tags belong to


@dataclass(frozen=True)
class LatestUpdate:
    """The review's latest update (every update of the latest "new since" date): that date, the
    files its searches were read from, and when the last of them ran."""

    since: str
    files: tuple[str, ...]
    at: str
    tag: str


def _files_of(entry: dict, known: list[str]) -> list[str]:
    """The files an update read: as it recorded them, or (an update that did not) the review's
    sources that are, or are under, the paths it was given."""
    if "files" in entry:
        return list(entry["files"])
    given = [PurePath(s) for s in entry.get("sources", [])]
    return [k for k in known if any(PurePath(k) == g or g in PurePath(k).parents for g in given)]


def latest_update(review, store) -> LatestUpdate | None:
    """The review's latest update since its last build (None: never updated, or rebuilt since)."""
    entries = review.manifest.get("updates") or []
    if not entries:
        return None
    tag = entries[-1]["tag"]
    known = [s.path for s in store.sources.recorded()]
    files = [f for e in entries if e["tag"] == tag for f in _files_of(e, known)]
    return LatestUpdate(tag[len(NEW_SINCE):], tuple(dict.fromkeys(files)), entries[-1]["at"], tag)


class ReviewUpdates:
    """What updates brought to a review and the papers that may be one (``review.updates``)."""

    def __init__(self, review):
        self.review = review

    def __repr__(self) -> str:
        return f"<ReviewUpdates of {self.review!r}>"

    def new_papers(self, since: str | None = None, *, unscreened: bool = False,
                   reviewer: str | None = None) -> list[str]:
        """Ids of the papers updates brought (tagged ``new since <date>``), in map order; ``since``
        (YYYY-MM-DD): only those of updates on or after that date; ``unscreened``: only those
        ``reviewer`` (default: the store's) has no decision on, nor a final one (the queue)."""
        since = None if since is None else check_date(since, "since")
        review = self.review
        with review.store(UPDATE_REVIEWER) as store:  # the tags are the update's own, blind mode or not
            tags = [t.name for t in store.tags.vocabulary() if t.name.startswith(NEW_SINCE)]
            tags = [t for t in tags if since is None or t[len(NEW_SINCE):] >= since]
            ids = {pid for t in tags for pid in store.tags.papers_with(t)}
        if unscreened and ids:
            with review.store(reviewer) as store:
                summary = store.summary()
            ids = {pid for pid in ids if not summary.get(pid, {}).get("decision")}
        ids -= self.merged_away() if ids else set()
        return [p.id for p in review.papers if p.id in ids]

    def new_since(self) -> dict[str, str]:
        """``{paper id: date}`` of every paper an update brought (its ``new since <date>`` tag),
        whoever asks (the tags are the update's own, blind mode or not)."""
        with self.review.store(UPDATE_REVIEWER) as store:
            tags = [t.name for t in store.tags.vocabulary() if t.name.startswith(NEW_SINCE)]
            return {pid: t[len(NEW_SINCE):] for t in sorted(tags, reverse=True) for pid in store.tags.papers_with(t)}

    def latest(self) -> LatestUpdate | None:
        """The latest update since the last build (:class:`LatestUpdate`: its date, the files it
        read), or None: never updated, or rebuilt since."""
        with self.review.store() as store:
            return latest_update(self.review, store)

    def merged_away(self) -> set[str]:
        """Ids of the review's papers a person merged into another ("same paper"); they leave
        the map at the next update or rebuild, and no queue shows them meanwhile."""
        with self.review.store() as store:
            merged = store.duplicates.merged_into()
        here = set(self.review.ids)
        return {m for m, kept in merged.items() if m in here and kept in here}

    def duplicate_candidates(self, low: float | None = None) -> list[DuplicateCandidate]:
        """Pairs of papers that may be one paper (titles alike, kept apart by the rules), that
        nobody has settled yet, most alike first (:class:`DuplicateCandidate`); settle each with
        :meth:`settle_duplicates`."""
        with self.review.store() as store:
            settled = {frozenset((v.paper_a, v.paper_b)) for v in store.duplicates.verdicts()}
            merged = store.duplicates.merged_into()
        papers = [p for p in self.review.papers if p.id not in merged]
        return candidates(papers, settled, LOW if low is None else low)

    def settle_duplicates(self, first: str, second: str, verdict: str, reviewer: str | None = None, *,
                          store=None):
        """``"same"``: ``second`` is merged into ``first`` (its tags, notes and decisions follow at
        once; it leaves the map at the next update or rebuild; one ``undo`` takes it all back).
        ``"different"``: kept apart by every later update and rebuild. The "new since" tag of an
        update stays on the paper it marks (``first`` is new only if it was). ``store``: a store
        already open (a session's) instead of the review's as ``reviewer``."""
        with store_of(self.review, store, reviewer) as opened:
            return opened.duplicates.settle(first, second, verdict, markers=(UPDATE_REVIEWER,))
