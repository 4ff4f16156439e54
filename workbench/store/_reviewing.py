"""The :class:`Store` methods of one reviewer's annotations: tags, notes, and reading decisions.

Each reviewer's tags, notes and decisions are their own rows. Outside blind mode everyone sees
everything. In blind mode (``Store.blind``) the store's reviewer sees another reviewer's work on
a paper only once both of them screened it at title/abstract, or the paper has a final decision
(the rule of ``workbench.team.blind``, which the review's :meth:`~workbench.review.Review.visible`
applies to a card): :meth:`tags`, :meth:`notes`, :meth:`decision`, :meth:`decisions`,
:meth:`papers_tagged`, :meth:`summary` and ``screening_records`` show only that.
:meth:`every_decision` is every vote, for the team's statistics (agreement, conflicts, PRISMA).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..corpus.paper import TITLE_ABSTRACT
from . import _annotations as ann
from . import _stages, _vocab
from ._guard import guarded, writes
from ._reports import Decision, Note, Tag

__all__ = ["ReviewerStore"]


class ReviewerStore:
    """Tags, notes and decisions as the store's reviewer may see and change them (see the module)."""

    def _shown(self, pid: str, stage: str = TITLE_ABSTRACT) -> set[str] | None:
        """Whose work on ``pid`` this reviewer may see (None: everyone's)."""
        if not self._is_blind():
            return None
        return _stages.shown_reviewers(self._conn, pid, self.reviewer, stage)

    # ------------------------------------------------------------------ tags
    @writes
    def tag(self, id_or_ids, *tags: str) -> int:
        """Add tags to one paper or many (as this reviewer's); returns how many (paper, tag)
        pairs were new for this reviewer."""
        self._check_reviewer()
        return ann.tag(self._conn, self.reviewer, self._ids(id_or_ids), list(tags))

    @writes
    def untag(self, id_or_prefix: str, tag: str) -> bool:
        """Remove a tag from a paper (in blind mode only this reviewer's); False when it did not
        have it."""
        self._check_reviewer()
        return ann.untag(self._conn, self.reviewer, self._ids(id_or_prefix)[0], tag,
                         everyone=not self._is_blind())

    @guarded
    def tags(self, id_or_prefix: str) -> list[str]:
        pid = self._ids(id_or_prefix)[0]
        shown = self._shown(pid)
        if shown is None:
            return ann.tags_of(self._conn, pid)
        mine = ann.tags_by_reviewer(self._conn, pid)
        return sorted({t for who, names in mine.items() if who in shown for t in names})

    @guarded
    def tags_by_reviewer(self, id_or_prefix: str) -> dict[str, list[str]]:
        """``{reviewer: [tags]}`` on one paper: every reviewer's, not blind-filtered (see :meth:`votes`)."""
        return ann.tags_by_reviewer(self._conn, self._ids(id_or_prefix)[0])

    @guarded
    def papers_tagged(self, tag: str) -> list[str]:
        if not self._is_blind():
            return ann.papers_tagged(self._conn, tag)
        name = ann.named_tag(self._conn, tag)
        return sorted(pid for pid, e in self.summary().items() if name in e["tags"])

    @guarded
    def summary(self) -> dict[str, dict]:
        """``{paper id: {"tags", "decision", "notes"}}`` for every annotated paper, in one read
        (at title/abstract; in blind mode what this reviewer may see)."""
        return ann.summary(self._conn, self.reviewer, blind=self._is_blind())

    @guarded
    def vocabulary(self) -> list[Tag]:
        return _vocab.vocabulary(self._conn)

    @writes
    def describe_tag(self, tag: str, description: str | None = None,
                     colour: str | None = None) -> Tag:
        return _vocab.describe_tag(self._conn, self.reviewer, tag, description, colour)

    @writes
    def rename_tag(self, old: str, new: str) -> int:
        return _vocab.rename_tag(self._conn, self.reviewer, old, new)

    @writes
    def merge_tags(self, tags: Iterable[str], into: str) -> int:
        return _vocab.merge_tags(self._conn, self.reviewer, tags, into)

    @writes
    def delete_tag(self, tag: str) -> int:
        return _vocab.delete_tag(self._conn, self.reviewer, tag)

    # ------------------------------------------------------------------ notes
    @writes
    def note(self, id_or_prefix: str, text: str) -> int:
        """Add a note to a paper; returns the note's id."""
        self._check_reviewer()
        return ann.add_note(self._conn, self.reviewer, self._ids(id_or_prefix)[0], text)

    @writes
    def note_each(self, ids, text: str) -> list[int]:
        """The same note on each of ``ids`` (ids or prefixes; a paper given twice gets one), in
        one action that one undo takes back; returns the notes' ids in the order of ``ids``."""
        self._check_reviewer()
        return ann.add_notes(self._conn, self.reviewer, self._ids(ids), text)

    @writes
    def edit_note(self, note_id: int, text: str) -> None:
        ann.edit_note(self._conn, self.reviewer, note_id, text)

    @writes
    def delete_note(self, note_id: int) -> None:
        ann.delete_note(self._conn, self.reviewer, note_id)

    @guarded
    def notes(self, id_or_prefix: str) -> list[Note]:
        pid = self._ids(id_or_prefix)[0]
        shown = self._shown(pid)
        return [n for n in ann.notes_of(self._conn, pid) if shown is None or n.reviewer in shown]

    # ------------------------------------------------------------------ decisions (decide: ScreeningStore)
    @guarded
    def decision(self, id_or_prefix: str, reviewer: str | None = None, *,
                 stage: str = TITLE_ABSTRACT) -> Decision | None:
        """The current decision at ``stage`` of ``reviewer`` (default: this store's reviewer), or
        None (also when blind mode hides it)."""
        who = self.reviewer if reviewer is None else reviewer
        found = [d for d in self.decisions(id_or_prefix, stage=stage) if d.reviewer == who]
        return found[0] if found else None

    @guarded
    def decisions(self, id_or_prefix: str, *, stage: str = TITLE_ABSTRACT) -> list[Decision]:
        """Every reviewer's current decision on a paper at ``stage`` (None: every stage; in blind
        mode those this reviewer may see)."""
        pid = self._ids(id_or_prefix)[0]
        shown = self._shown(pid, stage or TITLE_ABSTRACT)
        return [d for d in ann.decisions_of(self._conn, pid, stage) if shown is None or d.reviewer in shown]

    @guarded
    def votes(self, id_or_prefix: str, *, stage: str | None = TITLE_ABSTRACT) -> list[Decision]:
        """Every reviewer's decision on one paper at ``stage``, not blind-filtered: for the team's
        rules (the conflicts queue, ``Review.visible``), which decide what a face shows."""
        return ann.decisions_of(self._conn, self._ids(id_or_prefix)[0], stage)

    @guarded
    def notes_by_reviewer(self, id_or_prefix: str) -> dict[str, list[Note]]:
        """``{reviewer: [notes]}`` on one paper, oldest first, not blind-filtered (see :meth:`votes`)."""
        out: dict[str, list[Note]] = {}
        for note in ann.notes_of(self._conn, self._ids(id_or_prefix)[0]):
            out.setdefault(note.reviewer, []).append(note)
        return out

    @guarded
    def every_decision(self, stage: str | None = TITLE_ABSTRACT) -> list[Decision]:
        """Every reviewer's current decision on every paper at ``stage`` (None: every stage), in
        one read: the votes the team's statistics count (not blind-filtered)."""
        return ann.every_decision(self._conn, stage)
