"""The parts of a :class:`~._store.Store`: each concern of a review's annotations as one small class.

A store holds one of each, as an attribute (``store.tags``, ``store.notes``, ``store.decisions``,
``store.team``, ``store.sources``, ``store.duplicates``, ``store.topics``, ``store.settings``,
``store.stopping``, ``store.files``). A part opens nothing: it uses the store's one connection and
reviewer, and each method runs under the store's guard (``_guard``), one user action per
transaction with its history entry, as the store's own methods do. The methods are thin: the work
is done by the functions of ``_annotations``, ``_vocab``, ``_screening``, ``_stages``,
``_sources``, ``_verdicts``, ``_topics``, ``_settings``, ``_backup``, ``_destination`` and
``_import``, which take a connection.

Two rules hold on every part:

- **Blind mode**: every read of annotations goes through the store's reading route
  (``_visible.Lens``), for the store's reviewer. Outside blind mode everyone sees everything; in
  blind mode the reviewer sees another reviewer's work on a paper only once both of them screened
  it at that stage, or the paper has a final decision (the rule of ``workbench.team.blind``).
  Reads that take ``all_reviewers=True`` serve the team's rules and statistics, which count every
  vote and return only what the rule allows (agreement, conflicts, PRISMA, ``Review.visible``).
- **Ids**: a paper is given by its id, an id prefix, or (where a method says so) a list of
  them, resolved through the one resolver (``_papers``): an id a person merged into another
  paper names the paper it joined, with a :class:`~._errors.MergedPaperWarning` saying so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..corpus.paper import TITLE_ABSTRACT, FinalDecision
from . import _annotations as ann
from . import _backup, _destination, _import, _restore, _sources, _stages, _topics, _verdicts
from . import _files, _identity, _visible, _vocab
from . import _settings as settings_log
from ._errors import UnknownPaperError
from ._guard import guarded, writes
from ._handle import Part
from ._moving import votes_kept
from ._papers import ID_RE, merge_chain, resolve
from ._reports import Decision, ExclusionReason, ImportReport, Note, Source, Tag, TopicReport
from ._screening import ContextWriter, ScreeningRecord, Shown, context_rows, records

__all__ = ["Decisions", "Duplicates", "Files", "Notes", "Settings", "Sources", "Stopping", "Tags",
           "Team", "Topics"]


class Tags(Part):
    """``store.tags``: the tags on papers (each reviewer's their own rows) and the review's tag
    vocabulary (descriptions and colours, renames, merges)."""

    @writes
    def add(self, id_or_ids, *tags: str) -> int:
        """Add tags to one paper or many (as this reviewer's); returns how many (paper, tag)
        pairs were new for this reviewer."""
        handle = self._handle
        handle.check_reviewer()
        return ann.tag(self._conn, self._reviewer, handle.ids(id_or_ids), list(tags))

    @writes
    def remove(self, id_or_prefix: str, tag: str) -> bool:
        """Remove a tag from a paper (in blind mode only this reviewer's); False when it did not
        have it."""
        handle = self._handle
        handle.check_reviewer()
        return ann.untag(self._conn, self._reviewer, handle.ids(id_or_prefix)[0], tag,
                         everyone=not handle.is_blind())

    @guarded
    def of(self, id_or_prefix: str) -> list[str]:
        """A paper's tags that this reviewer may see, each name once, sorted."""
        handle = self._handle
        return sorted({r[1] for r in _visible.tag_rows(handle.lens(), handle.ids(id_or_prefix)[0])})

    @guarded
    def by_reviewer(self, id_or_prefix: str, *, all_reviewers: bool = False) -> dict[str, list[str]]:
        """``{reviewer: [tags]}`` on one paper, as this reviewer may see them (``all_reviewers``:
        everyone's, for the team's rules, see :meth:`Decisions.votes`)."""
        handle = self._handle
        out: dict[str, list[str]] = {}
        for _, name, who, _ in _visible.tag_rows(handle.lens(all_reviewers), handle.ids(id_or_prefix)[0]):
            out.setdefault(who, []).append(name)
        return dict(sorted(out.items()))

    @guarded
    def papers_with(self, tag: str) -> list[str]:
        """The papers on which this reviewer may see ``tag``, sorted."""
        name = ann.named_tag(self._conn, tag)
        return sorted({r[0] for r in _visible.tag_rows(self._handle.lens(), tag=name)})

    @guarded
    def vocabulary(self) -> list[Tag]:
        """The tags this reviewer may see (in blind mode: used where they may see it, their own,
        or described for the team), with the number of papers they may see each on."""
        return _visible.vocabulary(self._handle.lens())

    @writes
    def describe(self, tag: str, description: str | None = None, colour: str | None = None) -> Tag:
        """Give a tag a description and a colour (None: keep the one it has) for the team."""
        return _vocab.describe_tag(self._conn, self._reviewer, tag, description, colour)

    @writes
    def rename(self, old: str, new: str) -> int:
        """Rename a tag on every paper (into an existing name: merged); returns the papers changed."""
        return _vocab.rename_tag(self._conn, self._reviewer, old, new)

    @writes
    def merge(self, tags: Iterable[str], into: str) -> int:
        """Merge tags into one, on every paper; returns the papers changed."""
        return _vocab.merge_tags(self._conn, self._reviewer, tags, into)

    @writes
    def delete(self, tag: str) -> int:
        """Take a tag off every paper and out of the vocabulary; returns the papers changed."""
        return _vocab.delete_tag(self._conn, self._reviewer, tag)


class Notes(Part):
    """``store.notes``: notes on papers, each reviewer's their own."""

    @writes
    def add(self, id_or_prefix: str, text: str) -> int:
        """Add a note to a paper; returns the note's id."""
        handle = self._handle
        handle.check_reviewer()
        return ann.add_note(self._conn, self._reviewer, handle.ids(id_or_prefix)[0], text)

    @writes
    def add_each(self, ids, text: str) -> list[int]:
        """The same note on each of ``ids`` (ids or prefixes; a paper given twice gets one), in
        one action that one undo takes back; returns the notes' ids in the order of ``ids``."""
        handle = self._handle
        handle.check_reviewer()
        return ann.add_notes(self._conn, self._reviewer, handle.ids(ids), text)

    @writes
    def edit(self, note_id: int, text: str) -> None:
        """Change a note's text (in blind mode only a note this reviewer may see)."""
        ann.edit_note(self._conn, self._reviewer, note_id, text, self._handle.lens().sees)

    @writes
    def delete(self, note_id: int) -> None:
        """Delete a note (in blind mode only a note this reviewer may see)."""
        ann.delete_note(self._conn, self._reviewer, note_id, self._handle.lens().sees)

    @guarded
    def of(self, id_or_prefix: str) -> list[Note]:
        """A paper's notes that this reviewer may see, oldest first."""
        handle = self._handle
        return _visible.notes(handle.lens(), handle.ids(id_or_prefix)[0])

    @guarded
    def by_reviewer(self, id_or_prefix: str, *, all_reviewers: bool = False) -> dict[str, list[Note]]:
        """``{reviewer: [notes]}`` on one paper, oldest first, as this reviewer may see them
        (``all_reviewers``: everyone's, see :meth:`Decisions.votes`)."""
        handle = self._handle
        out: dict[str, list[Note]] = {}
        for note in _visible.notes(handle.lens(all_reviewers), handle.ids(id_or_prefix)[0]):
            out.setdefault(note.reviewer, []).append(note)
        return out


class Decisions(Part):
    """``store.decisions``: each reviewer's screening decisions (include, exclude, maybe) at each
    stage, with how each was made (see ``_screening``: the rank, score and model of the ranked
    queue, in bulk or read one by one, sampled for a stopping test)."""

    @writes
    def decide(self, id_or_ids, decision: str, reason: str | None = None, *, shown: Shown | None = None,
               bulk: bool | None = None, stage: str = TITLE_ABSTRACT) -> int:
        """This reviewer's include / exclude / maybe on one paper or many, and how it was made:
        what the ranked queue ``shown`` (a :class:`Shown`: each paper's rank and score, the
        model that ranked them, whether they were sampled for a stopping test; None: no ranking
        shown); ``bulk`` (default: several papers at once). ``stage``: ``title_abstract`` or
        ``full_text`` (include, exclude with a reason, or ``"not retrieved"``). A reason naming
        one of the team's exclusion reasons takes its spelling. Returns how many decisions
        changed."""
        handle = self._handle
        handle.check_reviewer()
        ids = handle.ids(id_or_ids)
        rows = context_rows(ids, shown if shown is not None else Shown(), bulk)
        return ann.decide(self._conn, self._reviewer, ids, decision, _sources.agreed_reason(self._conn, reason),
                          on_change=ContextWriter(self._reviewer, rows, ann.BULK, stage), stage=stage)

    @guarded
    def of(self, id_or_prefix: str, reviewer: str | None = None, *,
           stage: str = TITLE_ABSTRACT) -> Decision | None:
        """The current decision at ``stage`` of ``reviewer`` (default: this store's reviewer), or
        None (also when blind mode hides it)."""
        handle = self._handle
        who = handle.reviewer if reviewer is None else reviewer
        found = [d for d in _visible.decisions(handle.lens(), handle.ids(id_or_prefix)[0], stage)
                 if d.reviewer == who]
        return found[0] if found else None

    @guarded
    def votes(self, id_or_prefix: str, *, stage: str | None = TITLE_ABSTRACT,
              all_reviewers: bool = False) -> list[Decision]:
        """Every reviewer's current decision on one paper at ``stage`` (None: every stage) that
        this reviewer may see; with ``all_reviewers=True`` every reviewer's, for the team's rules
        (the conflicts queue, ``Review.visible``), which decide what a face shows."""
        handle = self._handle
        return _visible.decisions(handle.lens(all_reviewers), handle.ids(id_or_prefix)[0], stage)

    @guarded
    def every(self, stage: str | None = TITLE_ABSTRACT, *, all_reviewers: bool = False) -> list[Decision]:
        """The current decision on every paper at ``stage`` (None: every stage) that this reviewer
        may see, in one read; ``all_reviewers=True``: every vote, which the team's statistics
        count (agreement, conflicts, PRISMA) and must not show."""
        return _visible.decisions(self._handle.lens(all_reviewers), None, stage)

    @guarded
    def records(self, reviewer: str | None = None, *, everyone: bool = False,
                stage: str = TITLE_ABSTRACT, all_reviewers: bool = False) -> list[ScreeningRecord]:
        """Current decisions at ``stage`` with how each was made, in the order made: one per paper
        (this reviewer's, else, not in blind mode, the latest by anyone), only ``reviewer``'s, or
        ``everyone``'s that this reviewer may see (``all_reviewers=True``: every reviewer's, for the
        team's counts and what a queue learns from, which show none of them)."""
        return records(self._handle.lens(all_reviewers), everyone, reviewer, stage)


class Team(Part):
    """``store.team``: reviewing as a team.

    - **Who**: every change records the store's reviewer. In team use (blind mode, or a review
      screened by two or more reviewers per paper) the name must be given, to :meth:`Store.open`
      or in ``$WORKBENCH_REVIEWER``: the OS user is not used, since two people on one shared
      server are often both "jovyan" or "root" and would become one reviewer.
    - **Blind mode** (the ``blind`` setting): what a reviewer sees of another's work (see the
      module docstring); the store keeps everything, the rule only decides what is shown.
    - **Final decisions** settle a paper at a stage (a resolved conflict, ``_stages``); they train
      everyone's ranked queue and PRISMA counts them.
    - **Criteria and reasons**: the ``criteria`` setting, and the exclusion reasons' list
      (``_sources``), whose spelling a decision's reason takes when it names one of them.

    The statistics, the conflicts queue and the PRISMA counts are computed from these rows by
    ``workbench.team``, through the review (``workbench.review``): the store knows nothing of them.
    """

    @property
    def blind(self) -> bool:
        """Whether the review is in blind mode (the ``blind`` setting)."""
        return self._read_blind()

    @guarded
    def _read_blind(self) -> bool:
        return self._handle.is_blind()

    @writes
    def set_blind(self, on: bool) -> bool:
        """Turn blind mode on or off (one action in the history; undo takes it back)."""
        settings_log.set_setting(self._conn, self._reviewer, "blind", "on" if on else "off")
        return bool(on)

    @guarded
    def reviewers_per_paper(self) -> int:
        """How many reviewers screen each paper: the setting, else 2 in blind mode, else 1."""
        value = self._handle.setting("reviewers_per_paper")
        return int(value) if value is not None else (2 if self._handle.is_blind() else 1)

    @guarded
    def criteria(self) -> str | None:
        """The review's inclusion criteria (the ``criteria`` setting), or None."""
        return self._handle.setting("criteria")

    @writes
    def set_criteria(self, text: str | None) -> str | None:
        """Set the inclusion criteria (None or blank: none); returns the text kept."""
        return settings_log.set_setting(self._conn, self._reviewer, "criteria", text)

    # ------------------------------------------------------------------ final decisions
    @writes
    def set_final(self, id_or_prefix: str, decision: str, reason: str | None = None, *,
                  stage: str = TITLE_ABSTRACT) -> FinalDecision:
        """Record this reviewer's final decision on a paper at ``stage``, with why (for an
        exclusion: the reason PRISMA counts). It replaces an earlier one; one undo takes it back."""
        handle = self._handle
        handle.check_reviewer()
        reason = _sources.agreed_reason(self._conn, reason)
        return _stages.set_final(self._conn, self._reviewer, handle.ids(id_or_prefix)[0], decision, reason, stage)

    @writes
    def clear_final(self, id_or_prefix: str, *, stage: str = TITLE_ABSTRACT) -> bool:
        """Take a paper's final decision away (its conflict is open again); False when it had none."""
        handle = self._handle
        handle.check_reviewer()
        return _stages.clear_final(self._conn, self._reviewer, handle.ids(id_or_prefix)[0], stage)

    @guarded
    def final(self, id_or_prefix: str, *, stage: str = TITLE_ABSTRACT) -> FinalDecision | None:
        """A paper's final decision at ``stage``, or None."""
        handle = self._handle
        found = _visible.finals(handle.lens(), _stages.check_stage(stage), handle.ids(id_or_prefix)[0])
        return found[0] if found else None

    @guarded
    def finals(self, stage: str | None = TITLE_ABSTRACT) -> list[FinalDecision]:
        """Every final decision at ``stage`` (None: every stage), by paper."""
        return _visible.finals(self._handle.lens(), None if stage is None else _stages.check_stage(stage))

    # ------------------------------------------------------------------ exclusion reasons
    @guarded
    def exclusion_reasons(self) -> list[ExclusionReason]:
        """The team's exclusion reasons, in the order agreed."""
        return _sources.reasons(self._conn)

    @writes
    def add_exclusion_reason(self, name: str, description: str = "") -> ExclusionReason:
        """Add a reason at the end of the list (a listed one: a new description)."""
        return _sources.add_reason(self._conn, self._reviewer, name, description)

    @writes
    def remove_exclusion_reason(self, name: str) -> bool:
        """Take a reason off the list; decisions that gave it keep it. False: not listed."""
        return _sources.remove_reason(self._conn, self._reviewer, name)


class Sources(Part):
    """``store.sources``: each source file of the builds with its search provenance, for PRISMA."""

    @writes
    def record(self, rows: Iterable[Mapping]) -> list[Source]:
        """Record a build's source files: ``path``, ``format``, ``identified``, ``skipped``,
        ``merged`` and their provenance (``name``, ``kind``, ``query``, ``searched_on``; a file
        recorded before keeps what it was given)."""
        return _sources.record_sources(self._conn, self._reviewer, rows)

    @guarded
    def recorded(self, in_build: bool = True) -> list[Source]:
        """The sources of the last build (``in_build=False``: also earlier builds'), by path."""
        return _sources.sources(self._conn, in_build)

    @writes
    def set_provenance(self, path: str, *, name: str | None = None, kind: str | None = None,
                       query: str | None = None, searched_on: str | None = None) -> Source:
        """Give a source (its path, or its unique file name) the database or register it was
        searched in (``name``, ``kind``), the ``query`` and the date ``searched_on``."""
        return _sources.set_provenance(self._conn, self._reviewer, path, name=name, kind=kind, query=query,
                                       searched_on=searched_on)


class Duplicates(Part):
    """``store.duplicates``: what a person said of two papers that may be one (``_verdicts``):
    the ``"same"`` paper (merged, every annotation and vote kept) or ``"different"`` papers."""

    @writes
    def settle(self, first: str, second: str, verdict: str, markers: tuple[str, ...] = ()):
        """Say whether two papers are the ``"same"`` (``second`` merges into ``first``: its
        annotations follow, but for the tags of the reviewers in ``markers``; it leaves the
        corpus; one :meth:`Store.undo` takes it back) or ``"different"`` (kept apart by every
        later update). See ``_verdicts``."""
        self._handle.check_reviewer()
        a, b = (self._known_or_record(x, verdict) for x in (first, second))
        return _verdicts.set_verdict(self._conn, self._reviewer, a, b, verdict, tuple(markers))

    def _known_or_record(self, value: str, verdict: str) -> str:
        """A paper's id as given (``set_verdict`` follows merges); for "different", also a record's
        full id the review keeps only as an alias (a record an update merged into a paper, as the
        update report names it)."""
        try:
            return resolve(self._conn, value, str(self._handle.path), follow=False)
        except UnknownPaperError:
            if verdict != "different" or not isinstance(value, str) or not ID_RE.fullmatch(value):
                raise
            return value

    @guarded
    def verdicts(self):
        """Every :class:`~._reports.DuplicateVerdict`, oldest first."""
        return _verdicts.verdicts(self._conn)

    @guarded
    def apart_pairs(self) -> set[frozenset]:
        """Pairs of paper ids a person said are different papers."""
        return _verdicts.apart_pairs(self._conn)

    @guarded
    def merged_into(self) -> dict[str, str]:
        """``{merged id: kept id}`` of the "same paper" verdicts, through chains (B merged into A,
        then A into C: ``{B: C, A: C}``)."""
        merges = _verdicts.merged_into(self._conn)
        return {m: merge_chain(m, merges)[-1] for m in merges}

    @guarded
    def votes_kept(self, stage: str | None = TITLE_ABSTRACT, *, all_reviewers: bool = False) -> list[Decision]:
        """The votes a merge left on a paper merged away, as votes on the paper it joined: where a
        reviewer's votes on the two differ, the one on the merged-away paper is a second vote, by
        ``"alice (on B)"``, so the paper is a conflict to resolve (see ``_moving``). As
        :meth:`Decisions.every`: the votes this reviewer may see where they were cast;
        ``all_reviewers=True``: every one, for the team's rules."""
        merges = _verdicts.merged_into(self._conn)
        lens = self._handle.lens(all_reviewers)
        return votes_kept(self._conn, merges, lambda pid: merge_chain(pid, merges), stage,
                          None if lens.open else lens.sees)


class Topics(Part):
    """``store.topics``: each build's topics, matched to the previous run's so that names survive
    refits (``_topics``), and the human edits laid over them (renames, merges, moves)."""

    @writes
    def record(self, assignments: Mapping[str, int], labels: Mapping[int, str],
               words: Mapping[int, list[str]], *, min_jaccard: float = 0.2) -> TopicReport:
        """Record a (re)build's topics, matched to the previous run's; see ``TopicReport``."""
        return _topics.record_topics(self._conn, self._reviewer, assignments, labels, words,
                                     min_jaccard=min_jaccard)

    @guarded
    def apply_edits(self, assignments, labels):
        """The human renames, merges and moves laid over the just-recorded build."""
        return _topics.apply_topic_edits(self._conn, assignments, labels)

    @guarded
    def current(self) -> tuple[dict[str, int], dict[int, str]]:
        """The latest recorded build with every edit applied: ``(assignments, labels)``."""
        return _topics.current_topics(self._conn)

    @writes
    def rename(self, topic: int, label: str) -> None:
        """Give a topic a name (it follows the topic through refits)."""
        _topics.rename_topic(self._conn, self._reviewer, topic, label)

    @writes
    def merge(self, topics: Iterable[int], into: int | None = None) -> int:
        """Merge topics into one (``into``, default the first); returns the topic kept."""
        return _topics.merge_topics(self._conn, self._reviewer, topics, into)

    @writes
    def move_paper(self, id_or_prefix: str, topic: int) -> None:
        """Move a paper to another topic."""
        _topics.move_paper(self._conn, self._reviewer, self._handle.ids(id_or_prefix)[0], topic)


class Settings(Part):
    """``store.settings``: the review's settings (``SETTINGS``: its title, criteria, blind mode,
    reviewers per paper), each change one action in the history."""

    @guarded
    def read(self) -> dict[str, str]:
        """The review's settings that are set, e.g. ``{"title": "..."}`` (see ``SETTINGS``)."""
        return settings_log.read_settings(self._conn)

    @writes
    def set(self, name: str, value: str | None) -> str | None:
        """Set one of the review's settings (None or blank: back to its default), as one
        action in the history; returns the value kept (white space folded)."""
        return settings_log.set_setting(self._conn, self._reviewer, name, value)


class Stopping(Part):
    """``store.stopping``: the log of stopping claims, what a screening stopping rule allowed the
    reviewer to write (``_settings``); the report shows the latest."""

    @writes
    def log(self, advice) -> settings_log.StoppingClaim:
        """Log a stopping rule's verdict (``StoppingAdvice`` or its ``to_dict()``), as one action."""
        return settings_log.log_stopping_claim(self._conn, self._reviewer, advice)

    @guarded
    def claims(self) -> list[settings_log.StoppingClaim]:
        """Every logged stopping claim, oldest first."""
        return settings_log.read_stopping_claims(self._conn)


class Files(Part):
    """``store.files``: the store as files. Exports a person can diff and imports of them, the
    snapshots of the store (``<review>/backups/``) and their restore, the health check, and which
    of the review's files (``<review>/generations/<name>``) are current."""

    @guarded
    def export(self, fmt: str, path=None, *, all_reviewers: bool = False) -> str:
        """The annotations this reviewer may see as jsonl, csv, bibtex, ris or markdown text; also
        written to ``path``. In blind mode that is their own work and what blind mode shows them
        (see ``_visible``); ``all_reviewers=True`` exports every reviewer's work, and in blind mode
        the export is recorded in the history (who, which format, where), so the team knows."""
        handle = self._handle
        lens = handle.lens(all_reviewers)
        if all_reviewers and lens.blind:
            handle.check_named("export every reviewer's work")
        text = _destination.export(lens, fmt, path, handle.path)
        if all_reviewers:
            handle.record_all_reviewers(lens, f"a {fmt} export" + ("" if path is None else f" to {path}"))
        return text

    @writes
    def import_annotations(self, path, *, allow_orphans: bool = False) -> ImportReport:
        """Merge a JSONL export into this store (idempotent; conflicts reported).

        An export whose papers are mostly (more than half) not in this review is refused, as
        another review's export, unless ``allow_orphans`` (a store with no paper yet takes any);
        the report counts the papers not in it.
        A snapshot of the store is taken first (see :meth:`backup`)."""
        conn, where = self._conn, self._handle.path
        return _import.import_jsonl(conn, self._reviewer, path, allow_orphans,
                                    before=lambda: _backup.snapshot(conn, where, "before-import"))

    @guarded
    def backup(self, reason: str = "manual", *, force: bool = True) -> _backup.Snapshot | None:
        """A consistent copy of the store in ``<review>/backups/`` (SQLite's backup API); the
        newest few are kept. With ``force=False`` it is skipped (None) when nothing changed
        since the newest snapshot, and on a store this process may only read."""
        if self._handle.read_only and not force:
            return None
        return _backup.snapshot(self._conn, self._handle.path, reason, force=force)

    def snapshots(self) -> list[_backup.Snapshot]:
        """The store's snapshots, newest first (read from the folder: no connection needed)."""
        return _backup.snapshots(self._handle.path)

    @writes
    def restore(self, snapshot=None, *, force: bool = False) -> _restore.Restored:
        """Put a snapshot's content back into the store (default: the newest snapshot).

        The snapshot is checked first, in a copy (integrity, a schema this workbench knows,
        that it belongs to this review: one of another review is refused unless ``force``),
        and the store as it is now is snapshotted, so a restore can itself be undone by
        restoring that snapshot. Other processes see the restored store on their next read.
        A store that cannot be opened at all is restored with :func:`workbench.store.restore`.
        """
        conn, where = self._conn, self._handle.path
        target = _backup.choose(where, snapshot)
        current = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        current = None if current is None else current[0]
        staged = _restore.stage(target, where, review_id=_identity.ensure(conn),
                                current_generation=current, force=force)
        try:
            generation = _restore.files_to_name(staged, where.parent, current)
            before = _backup.snapshot(conn, where, "before-restore", force=True)
            staged.record(self._reviewer, f"restored the snapshot {target.path.name}; the store "
                                          f"before it is {before.path.name}", generation)
            staged.close(wal=False)
            _backup.restore_into(conn, staged.path)
        finally:
            staged.discard()
        return _restore.Restored(target, before.path, False, tuple(staged.notes))

    @guarded
    def check(self, files: bool = True) -> list[str]:
        """A health report: integrity, broken references, orphans, whether the current files
        are there (``files``; ``workbench check`` reads them too), snapshots."""
        return _backup.health(self._conn, self._handle.path, files)

    @guarded
    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``"ok"`` or the problems found."""
        rows = self._conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(r[0] for r in rows)

    @guarded
    def generation(self) -> str | None:
        """The folder under ``<review>/generations/`` holding the review's current files
        (papers, topics, map, model), or None for a review that keeps them at its top level."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return None if row is None else row[0]

    @writes
    def set_generation(self, name: str, run: int | None = None) -> None:
        """Make ``name`` the review's current files. Inside :meth:`Store.transaction` with the
        topic run that made them, the switch and the run are saved together or not at all. With
        ``run`` (that topic run's number) the two are one action that :meth:`Store.undo` takes
        back."""
        _files.switch_files(self._conn, self._reviewer, name, run)
