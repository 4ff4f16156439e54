"""A living review's methods of :class:`Review`: updating with a new search, the new papers.

The work is in :mod:`._update`; this is the face of it on the review object.
"""

from __future__ import annotations

import os
from typing import Mapping, Sequence

__all__ = ["LivingReview"]


class LivingReview:
    """Updating a review with a new search and listing what it brought (see :mod:`._update`)."""

    def update(self, sources: Sequence[str | os.PathLike] | str, provenance: Mapping[str, Mapping] | None = None,
               **params):
        """Add the records of a new search without refitting: duplicates of the review's papers
        merge into them (decisions, tags and notes stay), new papers are placed into the map and
        topics as they are and tagged "new since <date>". Returns the updated review (this one
        is left as it was); its ``update_report`` says what was new and what was a duplicate."""
        from ._update import update

        return update(sources, self.path, provenance, **params)

    def new_papers(self, since: str | None = None, *, unscreened: bool = False,
                   reviewer: str | None = None) -> list[str]:
        """Ids of the papers updates brought (tagged ``new since <date>``), in map order; ``since``
        (YYYY-MM-DD): only those of updates on or after that date; ``unscreened``: only those
        ``reviewer`` (default: the store's) has no decision on, nor a final one (the queue)."""
        from ..store import check_date
        from ._update import NEW_SINCE, UPDATE_REVIEWER

        since = None if since is None else check_date(since, "since")
        with self.store(UPDATE_REVIEWER) as store:  # the tags are the update's own, blind mode or not
            tags = [t.name for t in store.tags.vocabulary() if t.name.startswith(NEW_SINCE)]
            tags = [t for t in tags if since is None or t[len(NEW_SINCE):] >= since]
            ids = {pid for t in tags for pid in store.tags.papers_with(t)}
        if unscreened and ids:
            with self.store(reviewer) as store:
                summary = store.summary()
            ids = {pid for pid in ids if not summary.get(pid, {}).get("decision")}
        ids -= self.merged_away() if ids else set()
        return [p.id for p in self.papers if p.id in ids]

    def new_since(self) -> dict[str, str]:
        """``{paper id: date}`` of every paper an update brought (its ``new since <date>`` tag),
        whoever asks (the tags are the update's own, blind mode or not)."""
        from ._update import NEW_SINCE, UPDATE_REVIEWER

        with self.store(UPDATE_REVIEWER) as store:
            tags = [t.name for t in store.tags.vocabulary() if t.name.startswith(NEW_SINCE)]
            return {pid: t[len(NEW_SINCE):] for t in sorted(tags, reverse=True) for pid in store.tags.papers_with(t)}

    def latest_update(self):
        """The latest update since the last build (:class:`~._prisma.LatestUpdate`: its date,
        the files it read), or None: never updated, or rebuilt since."""
        from ._prisma import latest_update

        with self.store() as store:
            return latest_update(self, store)

    def merged_away(self) -> set[str]:
        """Ids of the review's papers a person merged into another ("same paper"); they leave
        the map at the next update or rebuild, and no queue shows them meanwhile."""
        with self.store() as store:
            merged = store.duplicates.merged_into()
        here = set(self.ids)
        return {m for m, kept in merged.items() if m in here and kept in here}

    def duplicate_candidates(self, low: float | None = None) -> list:
        """Pairs of papers that may be one paper (titles alike, kept apart by the rules), that
        nobody has settled yet, most alike first (:class:`DuplicateCandidate`); settle each with
        :meth:`settle_duplicates`."""
        from ._duplicates import LOW, candidates

        with self.store() as store:
            settled = {frozenset((v.paper_a, v.paper_b)) for v in store.duplicates.verdicts()}
            merged = store.duplicates.merged_into()
        papers = [p for p in self.papers if p.id not in merged]
        return candidates(papers, settled, LOW if low is None else low)

    def settle_duplicates(self, first: str, second: str, verdict: str, reviewer: str | None = None):
        """``"same"``: ``second`` is merged into ``first`` (its tags, notes and decisions follow at
        once; it leaves the map at the next update or rebuild; one ``undo`` takes it all back).
        ``"different"``: kept apart by every later update and rebuild. The "new since" tag of an
        update stays on the paper it marks (``first`` is new only if it was)."""
        from ._update import UPDATE_REVIEWER

        with self.store(reviewer) as store:
            return store.duplicates.settle(first, second, verdict, markers=(UPDATE_REVIEWER,))
