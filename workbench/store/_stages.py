"""Screening stages and final decisions.

A decision belongs to a stage (:data:`~workbench.corpus.paper.STAGES`): title and abstract, then the
full text of the papers included there. :func:`check_stage_decision` says what each stage
accepts. A final decision settles a paper at a stage (a resolved conflict): one row per paper
and stage in ``final_decisions``, written as one action that one undo takes back.
"""

from __future__ import annotations

import sqlite3

from ..corpus.paper import DECISIONS, FULL_TEXT, NOT_RETRIEVED, STAGES, TITLE_ABSTRACT
from ._errors import AnnotationInputError
from ._history import Action
from ..corpus.paper import FinalDecision

__all__ = ["check_decision", "check_reason", "check_stage", "check_stage_decision", "clear_final", "set_final"]


def check_decision(decision) -> str:
    value = decision.strip().lower() if isinstance(decision, str) else decision
    if value not in DECISIONS:
        raise AnnotationInputError(
            f"decision {decision!r} is not one of {', '.join(DECISIONS)}; "
            "e.g. decide ID include --reason 'on topic'"
        )
    return value


def check_reason(reason) -> str | None:
    """A decision's reason as the store keeps it: stripped text (NUL characters dropped, as every
    reader and export drops them), or None for none."""
    if reason is not None and not isinstance(reason, str):
        raise AnnotationInputError(f"reason {reason!r}: expected text or None")
    return reason.replace("\x00", "").strip() or None if reason is not None else None


def check_stage(stage) -> str:
    if stage not in STAGES:
        raise AnnotationInputError(f"stage {stage!r}: expected one of {', '.join(STAGES)} (title and "
                                   "abstract screening, then full text)")
    return stage


def _not_retrieved(decision) -> bool:
    return isinstance(decision, str) and " ".join(decision.replace("-", " ").replace("_", " ").split()
                                                  ).lower() == NOT_RETRIEVED


def check_stage_decision(decision, reason, stage) -> tuple[str, str | None]:
    """``(decision, reason)`` as the store keeps them at ``stage``. At full text a report is
    included, excluded with a reason, or not retrieved (kept as an exclusion with the reason
    ``"not retrieved"``, as PRISMA counts it); a maybe is for title and abstract only."""
    stage = check_stage(stage)
    if stage == FULL_TEXT and _not_retrieved(decision):
        return "exclude", NOT_RETRIEVED
    decision, reason = check_decision(decision), check_reason(reason)
    if stage == FULL_TEXT and decision == "maybe":
        raise AnnotationInputError("at full text a report is included, excluded with a reason, or "
                                   "'not retrieved'; a maybe is for title and abstract screening")
    if stage == FULL_TEXT and decision == "exclude" and not reason:
        raise AnnotationInputError("a full-text exclusion needs a reason (PRISMA counts the reports "
                                   "excluded per reason); e.g. --reason 'wrong population', see "
                                   "`workbench reasons`")
    return decision, reason


# ----------------------------------------------------------------------------- final decisions (read: ``_visible``)

def set_final(conn: sqlite3.Connection, reviewer: str, pid: str, decision, reason, stage) -> FinalDecision:
    """Record ``reviewer``'s final decision on a paper at ``stage`` (replacing an earlier one),
    as one action: one undo takes it back."""
    decision, reason = check_stage_decision(decision, reason, stage)
    with Action(conn, reviewer, "resolve") as act:
        row = {"decision": decision, "reason": reason, "resolved_by": reviewer, "resolved_at": act.at}
        act.put("final_decisions", {"paper_id": pid, "stage": stage}, row)
        why = f" ({reason})" if reason else ""
        act.summary = f"resolve {pid} {decision}{why}" + ("" if stage == TITLE_ABSTRACT else " at full text")
    return FinalDecision(pid, decision, reviewer, reason, act.at, stage)


def clear_final(conn: sqlite3.Connection, reviewer: str, pid: str, stage: str) -> bool:
    """Take a paper's final decision at ``stage`` away (its conflict is open again)."""
    with Action(conn, reviewer, "unresolve") as act:
        before = act.put("final_decisions", {"paper_id": pid, "stage": check_stage(stage)}, None)
        act.summary = f"reopen {pid}" + ("" if stage == TITLE_ABSTRACT else " at full text")
    return before is not None
