"""The :class:`Store` methods of one reviewer's annotations: tags, notes, and reading decisions.

Each reviewer's tags, notes and decisions are their own rows. Every read here goes through the
store's reading route (``_visible``), which applies blind mode for the store's reviewer: outside
blind mode everyone sees everything; in blind mode (``Store.blind``) the store's reviewer sees
another reviewer's work on a paper only once both of them screened it at that stage, or the paper
has a final decision (the rule of ``workbench.team.blind``). :meth:`votes`,
:meth:`tags_by_reviewer`, :meth:`notes_by_reviewer` and :meth:`every_decision` take
``all_reviewers=True`` for the team's rules and statistics, which count every vote and return
only what the rule allows (agreement, conflicts, PRISMA, ``Review.visible``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..corpus.paper import TITLE_ABSTRACT
from . import _annotations as ann
from . import _visible, _vocab
from ._guard import guarded, writes
from ._reports import Decision, Note, Tag

__all__ = ["ReviewerStore"]


class ReviewerStore:
    """Tags, notes and decisions as the store's reviewer may see and change them (see the module)."""

    def _lens(self, all_reviewers: bool = False) -> _visible.Lens:
        """The reading route for this store's reviewer (``all_reviewers``: everyone's work)."""
        return _visible.Lens.of(self._conn, self.reviewer, all_reviewers=all_reviewers)

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
        """A paper's tags that this reviewer may see, each name once, sorted."""
        return sorted({r[1] for r in _visible.tag_rows(self._lens(), self._ids(id_or_prefix)[0])})

    @guarded
    def tags_by_reviewer(self, id_or_prefix: str, *, all_reviewers: bool = False) -> dict[str, list[str]]:
        """``{reviewer: [tags]}`` on one paper, as this reviewer may see them (``all_reviewers``:
        everyone's, for the team's rules, see :meth:`votes`)."""
        out: dict[str, list[str]] = {}
        for _, name, who, _ in _visible.tag_rows(self._lens(all_reviewers), self._ids(id_or_prefix)[0]):
            out.setdefault(who, []).append(name)
        return dict(sorted(out.items()))

    @guarded
    def papers_tagged(self, tag: str) -> list[str]:
        """The papers on which this reviewer may see ``tag``, sorted."""
        name = ann.named_tag(self._conn, tag)
        return sorted({r[0] for r in _visible.tag_rows(self._lens(), tag=name)})

    @guarded
    def summary(self) -> dict[str, dict]:
        """``{paper id: {"tags", "decision", "notes"}}`` for every annotated paper, in one read
        (at title/abstract; in blind mode what this reviewer may see)."""
        return _visible.summary(self._lens())

    @guarded
    def vocabulary(self) -> list[Tag]:
        """The tags this reviewer may see (in blind mode: used where they may see it, their own,
        or described for the team), with the number of papers they may see each on."""
        return _visible.vocabulary(self._lens())

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
        """Change a note's text (in blind mode only a note this reviewer may see)."""
        ann.edit_note(self._conn, self.reviewer, note_id, text, self._lens().sees)

    @writes
    def delete_note(self, note_id: int) -> None:
        """Delete a note (in blind mode only a note this reviewer may see)."""
        ann.delete_note(self._conn, self.reviewer, note_id, self._lens().sees)

    @guarded
    def notes(self, id_or_prefix: str) -> list[Note]:
        """A paper's notes that this reviewer may see, oldest first."""
        return _visible.notes(self._lens(), self._ids(id_or_prefix)[0])

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
    def decisions(self, id_or_prefix: str, *, stage: str | None = TITLE_ABSTRACT) -> list[Decision]:
        """Every reviewer's current decision on a paper at ``stage`` (None: every stage) that this
        reviewer may see."""
        return _visible.decisions(self._lens(), self._ids(id_or_prefix)[0], stage)

    @guarded
    def votes(self, id_or_prefix: str, *, stage: str | None = TITLE_ABSTRACT,
              all_reviewers: bool = False) -> list[Decision]:
        """The decisions on one paper at ``stage`` as :meth:`decisions` gives them; with
        ``all_reviewers=True`` every reviewer's, for the team's rules (the conflicts queue,
        ``Review.visible``), which decide what a face shows."""
        return _visible.decisions(self._lens(all_reviewers), self._ids(id_or_prefix)[0], stage)

    @guarded
    def notes_by_reviewer(self, id_or_prefix: str, *, all_reviewers: bool = False) -> dict[str, list[Note]]:
        """``{reviewer: [notes]}`` on one paper, oldest first, as this reviewer may see them
        (``all_reviewers``: everyone's, see :meth:`votes`)."""
        out: dict[str, list[Note]] = {}
        for note in _visible.notes(self._lens(all_reviewers), self._ids(id_or_prefix)[0]):
            out.setdefault(note.reviewer, []).append(note)
        return out

    @guarded
    def every_decision(self, stage: str | None = TITLE_ABSTRACT, *, all_reviewers: bool = False) -> list[Decision]:
        """The current decision on every paper at ``stage`` (None: every stage) that this reviewer
        may see, in one read; ``all_reviewers=True``: every vote, which the team's statistics
        count (agreement, conflicts, PRISMA) and must not show."""
        return _visible.decisions(self._lens(all_reviewers), None, stage)
