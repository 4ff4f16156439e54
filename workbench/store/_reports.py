"""Plain records the store hands back: annotations, history entries and reports."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..corpus.paper import DECISIONS, TITLE_ABSTRACT

__all__ = [
    "DECISIONS",
    "Decision",
    "DuplicateVerdict",
    "ExclusionReason",
    "HistoryEntry",
    "ImportReport",
    "Note",
    "Source",
    "SyncReport",
    "Tag",
    "TopicReport",
]



@dataclass(frozen=True)
class Tag:
    """A tag in the vocabulary and how many papers carry it."""

    name: str
    description: str = ""
    colour: str | None = None
    count: int = 0
    created_at: str = ""  # when it entered the vocabulary (views number tags in this order)


@dataclass(frozen=True)
class Note:
    id: int
    paper_id: str
    text: str
    reviewer: str
    created_at: str
    updated_at: str
    uid: str = ""


@dataclass(frozen=True)
class Decision:
    """A reviewer's current decision on a paper at a stage (``title_abstract`` or ``full_text``)."""

    paper_id: str
    decision: str
    reviewer: str
    decided_at: str
    reason: str | None = None
    stage: str = TITLE_ABSTRACT


@dataclass(frozen=True)
class ExclusionReason:
    """A reason for excluding a paper from the list the team agreed on (``workbench reasons``)."""

    name: str
    description: str = ""
    position: int = 0


@dataclass(frozen=True)
class DuplicateVerdict:
    """A person's verdict on two papers: "same" (``kept`` is the one the other merged into) or
    "different" (kept apart for good)."""

    paper_a: str
    paper_b: str
    verdict: str
    kept: str | None
    reviewer: str
    decided_at: str
    # A "same" verdict's reviewers whose votes on the two papers differ (both kept: a conflict), one line each.
    conflicts: tuple[str, ...] = ()

    @property
    def other(self) -> str | None:
        """The paper merged away by a "same" verdict."""
        return None if self.kept is None else (self.paper_b if self.kept == self.paper_a else self.paper_a)


@dataclass(frozen=True)
class Source:
    """A source file of the review's last build and its search provenance (PRISMA-S): the
    ``kind`` (``database``, ``register``, or ``other``: another method, such as citation
    searching) and ``name`` it was searched in (or the method's name), the ``query`` and
    the date ``searched_on`` (None: not given), and the records ``identified`` in it (read plus
    skipped), ``skipped`` (no usable text) and ``merged`` (duplicates merged away)."""

    path: str
    name: str
    kind: str = "database"
    query: str | None = None
    searched_on: str | None = None
    format: str = ""
    identified: int = 0
    skipped: int = 0
    merged: int = 0
    in_build: bool = True

    @property
    def provenance_given(self) -> bool:
        return self.query is not None or self.searched_on is not None


@dataclass(frozen=True)
class HistoryEntry:
    """One user action: who, when, what; ``undone_by`` is the id of the undo that reverted it."""

    id: int
    at: str
    reviewer: str
    action: str
    summary: str
    undoable: bool = True
    undone_by: int | None = None

    def __str__(self) -> str:
        undone = f"  (undone by #{self.undone_by})" if self.undone_by else ""
        return f"#{self.id}  {self.at[:19].replace('T', ' ')}  {self.reviewer}  {self.summary}{undone}"


@dataclass(frozen=True)
class SyncReport:
    """What :meth:`Store.sync_papers` did.

    ``orphaned`` lists annotated papers that are no longer in the corpus: their annotations
    are kept and come back when the paper does.
    """

    n_papers: int
    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    left_corpus: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()
    orphaned: tuple[str, ...] = ()
    carried_over: tuple[tuple[str, str], ...] = ()  # (old id, new id) whose annotations moved
    unchanged: bool = False  # the same papers as the last sync (same sources): none read again

    def __str__(self) -> str:
        carried = (f"; annotations of {len(self.carried_over)} papers carried over to their new "
                   "ids" if self.carried_over else "")
        same = " (unchanged since the last build)" if self.unchanged else ""
        return (
            f"{self.n_papers} papers in the corpus{same}: {len(self.added)} new, "
            f"{len(self.updated)} updated, {len(self.left_corpus)} left the corpus, "
            f"{len(self.returned)} came back; {len(self.orphaned)} annotated papers are "
            f"orphaned (kept, not in the corpus){carried}"
        )


@dataclass(frozen=True)
class TopicReport:
    """How a new topic run relates to the previous one.

    ``matched`` maps new topic -> previous topic (same identity, human name carried over);
    ``split`` maps a previous topic -> the new topics its papers went to; ``merged`` maps a
    new topic -> the previous topics it absorbed; ``new`` and ``gone`` have no counterpart.
    ``names`` maps new topic -> human-given name carried forward; ``names_lost`` maps previous
    topic -> a human name whose topic did not survive (kept: it comes back with its topic);
    ``names_back`` maps new topic -> a name lost in an earlier run that its topic took back.
    """

    run: int
    previous_run: int | None
    matched: dict[int, int] = field(default_factory=dict)
    jaccard: dict[int, float] = field(default_factory=dict)
    new: tuple[int, ...] = ()
    gone: tuple[int, ...] = ()
    split: dict[int, tuple[int, ...]] = field(default_factory=dict)
    merged: dict[int, tuple[int, ...]] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    names_lost: dict[int, str] = field(default_factory=dict)
    # new topic -> the human name of a topic an earlier refit lost, which it took back (see ``_topic_match``)
    names_back: dict[int, str] = field(default_factory=dict)

    def __str__(self) -> str:
        if self.previous_run is None:
            return f"topic run {self.run}: first run, {len(self.new)} topics"
        parts = [
            f"topic run {self.run} vs run {self.previous_run}: {len(self.matched)} matched",
            f"{len(self.new)} new", f"{len(self.gone)} gone",
            f"{len(self.split)} split", f"{len(self.merged)} merged",
            f"{len(self.names)} names carried forward",
        ]
        if self.names_lost:
            parts.append("names lost: " + ", ".join(
                f"{t} {name!r}" for t, name in sorted(self.names_lost.items())) + " (they come back if the "
                "topic splits out again in a later build)")
        if self.names_back:
            parts.append("names back: " + ", ".join(
                f"{t} {name!r}" for t, name in sorted(self.names_back.items())))
        return ", ".join(parts)


@dataclass(frozen=True)
class ImportReport:
    """What ``store.files.import_annotations`` added; ``conflicts`` are one line each."""

    added: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0
    conflicts: tuple[str, ...] = ()
    # The papers whose decisions (at a stage) the import added or changed: ``(paper, stage)``.
    decided: tuple[tuple[str, str], ...] = ()
    # Papers on which reviewers now disagree, one line each (filled by ``workbench.review``,
    # which classifies the decisions: the conflicts to resolve).
    disagreements: tuple[str, ...] = ()
    papers: int = 0  # the papers the file carries
    orphans: int = 0  # of those, not in this review's corpus (their annotations are kept as orphans)
    merged: int = 0  # ids in the file a person merged into another paper here (their annotations went there)

    def __str__(self) -> str:
        added = ", ".join(f"{n} {kind}" for kind, n in sorted(self.added.items()) if n)
        text = f"imported {added or 'nothing new'}; {self.unchanged} already present"
        if self.orphans:
            text += (f"; {self.orphans} of the {self.papers} papers in the file are not in this review "
                     "(their annotations are kept as orphans)")
        if self.merged:
            text += f"; annotations on {self.merged} papers merged into others here went to the papers they joined"
        if self.conflicts:
            text += f"; {len(self.conflicts)} conflicts:\n  " + "\n  ".join(self.conflicts)
        if self.disagreements:
            text += (f"\n{len(self.disagreements)} papers on which the reviewers disagree (resolve them "
                     "with `workbench conflicts`):\n  " + "\n  ".join(self.disagreements))
        return text
