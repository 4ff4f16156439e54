"""Reviewing as a team in a :class:`~workbench.session.Session` (``session.team``): who is
screening, the conflicts to resolve, what a reviewer may see of the others' work. Plain Python,
no ipywidgets.

**Who.** In team use (blind mode, two or more reviewers per paper, or votes by two or more
people) every change needs a name chosen by the person: the OS user ("root", "jovyan") is
shared by everyone on a server and is never taken silently. :meth:`TeamWork.needs_name`
says a face must ask first; :meth:`TeamWork.set_reviewer` takes the name and remembers it
for the kernel (later sessions in it screen as the same person).
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..corpus.paper import FULL_TEXT, NOT_RETRIEVED, STAGES, TITLE_ABSTRACT
from ..store import LABELS_REVIEWER, REVIEWER_ENV, AnnotationInputError, check_reviewer

__all__ = ["SHARED_ACCOUNTS", "TeamWork", "forget_reviewer", "remembered_reviewer"]

#: Account names many people share on servers and in containers: not a person's name.
SHARED_ACCOUNTS = ("root", "jovyan", "user", "admin", "ubuntu", "unknown", "nobody")
IMPORTED = LABELS_REVIEWER  # the reviewer of labels read from source files
_KERNEL: dict[str, str] = {}  # the name chosen in this kernel (process)


def remembered_reviewer() -> str | None:
    """The reviewer name chosen earlier in this kernel, if any."""
    return _KERNEL.get("reviewer")


def forget_reviewer() -> None:
    """Forget the name chosen in this kernel (the next session asks again in team use)."""
    _KERNEL.pop("reviewer", None)


def check_name(name) -> str:
    """``name`` as a reviewer's name (the store's :func:`~workbench.store.check_reviewer`, as every
    face checks it), or an InputError saying what to type; a shared account's name is refused."""
    if not str(name or "").strip():
        raise InputError("type your name first (e.g. Ana): every decision, tag and note is recorded under it")
    try:
        text = check_reviewer(str(name), "name")
    except AnnotationInputError as err:
        raise InputError(str(err)) from err
    if text.lower() in SHARED_ACCOUNTS:
        raise InputError(f"{text!r} is an account many people share, not a person's name; type your own "
                         "(e.g. Ana), so the team's decisions stay apart")
    return text


def check_stage(stage: str) -> str:
    if stage not in STAGES:
        raise InputError(f"stage {stage!r}; expected one of {', '.join(STAGES)}")
    return stage


class TeamWork:
    """Team review in a session (``session.team``): who is screening, the conflicts and their
    resolution, what this reviewer may see of the others' work (see the module docstring)."""

    def __init__(self, session):
        self.session = session
        self._cache: dict = {}  # what _remembered keeps, until the store's history changes

    # ------------------------------------------------------------------ who is screening

    def _remembered(self, name: str, compute):
        """``compute()``, kept until the store's history changes (in any process): the views ask
        on every click, the answer changes only with a change."""
        key = (self.session.store.latest_change(), self.session.reviewer)
        cache = self._cache
        if name not in cache or cache[name][0] != key:
            cache[name] = (key, compute())
        return cache[name][1]

    def active(self) -> bool:
        """Whether the review is screened as a team: blind mode, two or more reviewers per
        paper, or votes by two or more people (labels read from source files aside)."""
        store = self.session.store
        if store.team.blind or store.team.reviewers_per_paper() >= 2:
            return True
        return self._remembered("team", lambda: len(
            {d.reviewer for stage in STAGES for d in store.decisions.every(stage, all_reviewers=True)} - {IMPORTED}) >= 2)

    def needs_name(self) -> bool:
        """Whether a face must ask for the reviewer's name before the first change: the review is
        screened as a team and no name was given (notebook parameter, ``$WORKBENCH_REVIEWER`` or
        chosen in this kernel), or the name given is a shared account's ("root", "jovyan")."""
        if self.session.store.reviewer_given and self.session.reviewer.lower() not in SHARED_ACCOUNTS:
            return False
        return self.active()

    def set_reviewer(self, name: str) -> str:
        """Screen as ``name`` from now on (a new store handle under that name), remembered for
        this kernel: later :meth:`Session.open` calls in it use it. Returns the name."""
        name = check_name(name)
        store = self.session.saved.store(reviewer=name)
        old, self.session.store = self.session.store, store
        old.close()
        _KERNEL["reviewer"] = name
        self.session.notify("reviewer", [])
        return name

    def require_name(self) -> None:
        """Refuse a change before a name is chosen in team use (nothing is saved)."""
        if self.needs_name():
            who = (f"the OS user {self.session.reviewer!r}" if not self.session.store.reviewer_given
                   else repr(self.session.reviewer))
            raise InputError(
                f"this review is screened as a team, so every change needs your own name, and {who} is not one; "
                "nothing was saved; type your name in the 'screening as' box (or set the notebook parameter "
                "reviewer = 'Ana', or WORKBENCH_REVIEWER=Ana), then do it again")

    # ------------------------------------------------------------------ conflicts

    def conflicts(self, stage: str = TITLE_ABSTRACT):
        """The papers reviewers disagree on at ``stage`` and nobody resolved (``team.PaperStatus``,
        every vote side by side)."""
        return self._remembered(f"conflicts {check_stage(stage)}",
                                lambda: self.session.saved.team.conflicts(stage, store=self.session.store))

    def resolve(self, paper_id: str, decision: str, reason: str | None = None, stage: str = TITLE_ABSTRACT):
        """Settle ``paper_id`` at ``stage`` with a final ``decision`` and why, recorded as resolved
        by this reviewer (one undo takes it back). Returns the ``team.FinalDecision``."""
        self.require_name()
        pid = self.session.resolve(paper_id)
        decision, reason = stage_decision(decision, reason, stage)
        final = self.session.saved.team.resolve(pid, decision, reason, stage=check_stage(stage),
                                                store=self.session.store)
        self.session.notify("resolve", [pid])
        return final

    def visible(self, paper_id: str, stage: str = TITLE_ABSTRACT, resolving: bool = False):
        """What this reviewer may see of the others' work on ``paper_id`` (``team.PaperView``):
        in blind mode another's decision, tags and notes only once both screened it, it has a
        final decision, or ``resolving`` its conflict."""
        return self.session.saved.team.visible(self.session.resolve(paper_id), stage=check_stage(stage),
                                               resolving=resolving, store=self.session.store)

    def own_decisions(self, stage: str = TITLE_ABSTRACT) -> dict[str, str]:
        """``{paper id: decision}`` of this reviewer's own votes at ``stage``."""
        return {d.paper_id: d.decision for d in self.session.store.decisions.every(check_stage(stage))
                if d.reviewer == self.session.reviewer}

    def finals(self, stage: str = TITLE_ABSTRACT) -> dict[str, str]:
        """``{paper id: final decision}`` at ``stage``."""
        return {f.paper_id: f.decision for f in self.session.store.team.finals(stage=check_stage(stage))}

    def full_text_candidates(self) -> set[str]:
        """The papers that go on to full text: settled as included (or a resolved maybe) at
        title/abstract."""
        settled = self.session.saved.team.status(TITLE_ABSTRACT, all_reviewers=True,
                                                 store=self.session.store).decisions()  # the team's outcome
        return {pid for pid, d in settled.items() if d in ("include", "maybe")}


def stage_decision(decision: str, reason: str | None, stage: str) -> tuple[str, str | None]:
    """(decision, reason) as typed in a face: at full text "not retrieved" is an exclusion with
    that reason, and an exclusion needs a reason."""
    reason = (reason or "").strip() or None
    if stage == FULL_TEXT and decision.replace("-", " ") == NOT_RETRIEVED:
        return "exclude", NOT_RETRIEVED
    if stage == FULL_TEXT and decision == "exclude" and not reason:
        raise InputError("a full-text exclusion needs a reason (PRISMA counts them per reason); choose one "
                         "of the team's reasons or type one")
    return decision, reason


def default_name(reviewer: str | None) -> str | None:
    """The name a new session takes: ``reviewer``, else ``$WORKBENCH_REVIEWER`` (the store reads
    it), else the name chosen earlier in this kernel."""
    if reviewer is not None and str(reviewer).strip():
        return reviewer
    if os.environ.get(REVIEWER_ENV, "").strip():
        return None
    return remembered_reviewer()
