"""The :class:`Store` methods of reviewing as a team: who is screening, blind mode, final
decisions, the inclusion criteria and exclusion reasons, and the review's sources.

- **Who**: every change records the store's reviewer. In team use (blind mode, or a review
  screened by two or more reviewers per paper) the name must be given, to :meth:`Store.open`
  or in ``$WORKBENCH_REVIEWER``: the OS user is not used, since two people on one shared server
  are often both "jovyan" or "root" and would become one reviewer.
- **Blind mode** (the ``blind`` setting): what a reviewer sees of another's work, see
  ``_reviewing``; the store keeps everything, the rule only decides what is shown.
- **Final decisions** settle a paper at a stage (a resolved conflict, ``_stages``); they train
  everyone's ranked queue and PRISMA counts them.
- **Criteria and reasons**: the ``criteria`` setting, and the exclusion reasons' list
  (``_sources``), whose spelling a decision's reason takes when it names one of them.
- **Sources**: each source file of the last build with its search provenance, for PRISMA.

The statistics, the conflicts queue and the PRISMA counts are computed from these rows by
``workbench.team``, through the review (``workbench.review``): the store knows nothing of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..corpus.paper import TITLE_ABSTRACT
from . import _settings as settings_log
from . import _sources, _stages, _verdicts, _visible
from ._errors import AnnotationInputError, UnknownPaperError
from ._moving import votes_kept
from ._papers import ID_RE, merge_chain, resolve
from ._guard import guarded, writes
from ._reports import Decision, ExclusionReason, Final, Source

__all__ = ["TeamStore"]


class TeamStore:
    """Team review on the :class:`Store` (see the module docstring)."""

    #: Whether the reviewer's name was given (to ``Store.open`` or in ``$WORKBENCH_REVIEWER``)
    #: rather than taken from the OS user.
    reviewer_given: bool = True

    # ------------------------------------------------------------------ who, and blind mode
    def _setting(self, name: str) -> str | None:
        return settings_log.read_settings(self._conn).get(name)

    def _is_blind(self) -> bool:
        return self._setting("blind") == "on"

    def _team_use(self) -> bool:
        return self._is_blind() or int(self._setting("reviewers_per_paper") or 1) >= 2

    def _check_reviewer(self) -> None:
        """Refuse a change under the OS user's name in team use (see the module docstring)."""
        if not self.reviewer_given and self._team_use():
            raise AnnotationInputError(
                f"this review is screened as a team ({'blind mode' if self._is_blind() else 'double screening'}), "
                f"so every change needs the reviewer's own name, and none was given (the OS user would be "
                f"{self.reviewer!r}, which others on this server may share); nothing was saved; open the store "
                "with Store.open(folder, reviewer='ana'), pass --reviewer ana, or set WORKBENCH_REVIEWER=ana")

    @property
    def blind(self) -> bool:
        """Whether the review is in blind mode (the ``blind`` setting)."""
        return self._read_blind()

    @guarded
    def _read_blind(self) -> bool:
        return self._is_blind()

    @writes
    def set_blind(self, on: bool) -> bool:
        """Turn blind mode on or off (one action in the history; undo takes it back)."""
        self.set_setting("blind", "on" if on else "off")
        return bool(on)

    @guarded
    def reviewers_per_paper(self) -> int:
        """How many reviewers screen each paper: the setting, else 2 in blind mode, else 1."""
        value = self._setting("reviewers_per_paper")
        return int(value) if value is not None else (2 if self._is_blind() else 1)

    @guarded
    def criteria(self) -> str | None:
        """The review's inclusion criteria (the ``criteria`` setting), or None."""
        return self._setting("criteria")

    @writes
    def set_criteria(self, text: str | None) -> str | None:
        """Set the inclusion criteria (None or blank: none); returns the text kept."""
        return self.set_setting("criteria", text)

    # ------------------------------------------------------------------ final decisions
    @writes
    def set_final(self, id_or_prefix: str, decision: str, reason: str | None = None, *,
                  stage: str = TITLE_ABSTRACT) -> Final:
        """Record this reviewer's final decision on a paper at ``stage``, with why (for an
        exclusion: the reason PRISMA counts). It replaces an earlier one; one undo takes it back."""
        self._check_reviewer()
        reason = _sources.agreed_reason(self._conn, reason)
        return _stages.set_final(self._conn, self.reviewer, self._ids(id_or_prefix)[0], decision, reason, stage)

    @writes
    def clear_final(self, id_or_prefix: str, *, stage: str = TITLE_ABSTRACT) -> bool:
        """Take a paper's final decision away (its conflict is open again); False when it had none."""
        self._check_reviewer()
        return _stages.clear_final(self._conn, self.reviewer, self._ids(id_or_prefix)[0], stage)

    @guarded
    def final(self, id_or_prefix: str, *, stage: str = TITLE_ABSTRACT) -> Final | None:
        found = _visible.finals(self._lens(), _stages.check_stage(stage), self._ids(id_or_prefix)[0])
        return found[0] if found else None

    @guarded
    def finals(self, stage: str | None = TITLE_ABSTRACT) -> list[Final]:
        """Every final decision at ``stage`` (None: every stage), by paper."""
        return _visible.finals(self._lens(), None if stage is None else _stages.check_stage(stage))

    # ------------------------------------------------------------------ exclusion reasons
    @guarded
    def exclusion_reasons(self) -> list[ExclusionReason]:
        """The team's exclusion reasons, in the order agreed."""
        return _sources.reasons(self._conn)

    @writes
    def add_exclusion_reason(self, name: str, description: str = "") -> ExclusionReason:
        """Add a reason at the end of the list (a listed one: a new description)."""
        return _sources.add_reason(self._conn, self.reviewer, name, description)

    @writes
    def remove_exclusion_reason(self, name: str) -> bool:
        """Take a reason off the list; decisions that gave it keep it. False: not listed."""
        return _sources.remove_reason(self._conn, self.reviewer, name)

    # ------------------------------------------------------------------ sources
    @writes
    def record_sources(self, rows: Iterable[Mapping]) -> list[Source]:
        """Record a build's source files: ``path``, ``format``, ``identified``, ``skipped``,
        ``merged`` and their provenance (``name``, ``kind``, ``query``, ``searched_on``; a file
        recorded before keeps what it was given)."""
        return _sources.record_sources(self._conn, self.reviewer, rows)

    @guarded
    def sources(self, in_build: bool = True) -> list[Source]:
        """The sources of the last build (``in_build=False``: also earlier builds'), by path."""
        return _sources.sources(self._conn, in_build)

    @writes
    def set_provenance(self, path: str, *, name: str | None = None, kind: str | None = None,
                       query: str | None = None, searched_on: str | None = None) -> Source:
        """Give a source (its path, or its unique file name) the database or register it was
        searched in (``name``, ``kind``), the ``query`` and the date ``searched_on``."""
        return _sources.set_provenance(self._conn, self.reviewer, path, name=name, kind=kind, query=query,
                                       searched_on=searched_on)

    # ------------------------------------------------------------------ duplicates a person settled
    @writes
    def settle_duplicates(self, first: str, second: str, verdict: str, markers: tuple[str, ...] = ()):
        """Say whether two papers are the ``"same"`` (``second`` merges into ``first``: its
        annotations follow, but for the tags of the reviewers in ``markers``; it leaves the
        corpus; one :meth:`undo` takes it back) or ``"different"`` (kept apart by every later
        update). See ``_verdicts``."""
        self._check_reviewer()
        a, b = (self._known_or_record(x, verdict) for x in (first, second))
        return _verdicts.set_verdict(self._conn, self.reviewer, a, b, verdict, tuple(markers))

    def _known_or_record(self, value: str, verdict: str) -> str:
        """A paper's id as given (``set_verdict`` follows merges); for "different", also a record's
        full id the review keeps only as an alias (a record an update merged into a paper, as the
        update report names it)."""
        try:
            return resolve(self._conn, value, str(self.path), follow=False)
        except UnknownPaperError:
            if verdict != "different" or not isinstance(value, str) or not ID_RE.fullmatch(value):
                raise
            return value

    @guarded
    def duplicate_verdicts(self):
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
        :meth:`every_decision`: the votes this reviewer may see where they were cast;
        ``all_reviewers=True``: every one, for the team's rules."""
        merges = _verdicts.merged_into(self._conn)
        lens = self._lens(all_reviewers)
        return votes_kept(self._conn, merges, lambda pid: merge_chain(pid, merges), stage,
                          None if lens.open else lens.sees)
