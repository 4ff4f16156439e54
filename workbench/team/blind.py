"""Blind mode: what one reviewer may see of the others' work on a paper, and what their ranked
queue may learn from.

The rule (Covidence's "blind" double screening): in blind mode a reviewer always sees their own
decision, tags and notes on a paper, and sees another reviewer's only once **both** of them have
screened the paper (at this stage). Blindness ends for everyone when the paper has a final
decision, and a reviewer resolving a conflict sees every reviewer's work on it (the conflicts
queue shows decisions side by side). Outside blind mode everyone sees everything.

What is withheld is withheld entirely: :class:`PaperView` carries only the number of reviewers
hidden (never their names), and the faces should not show even that to the viewer, since "one
other reviewer has screened this" already biases a screen.

The ranked queue learns the same way (:func:`training_decisions`): in blind mode from the viewer's
own decisions only, since another's would leak through the order, plus the final decisions
once conflicts are resolved; outside blind mode from everyone's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .conflicts import FinalDecision
from .votes import as_votes

__all__ = ["PaperView", "training_decisions", "visible_to"]


@dataclass(frozen=True)
class PaperView:
    """What ``viewer`` may see of one paper: decisions, tags and notes by reviewer (values as the
    caller passed them), the final decision, and how many reviewers' work is withheld."""

    viewer: str
    decisions: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    final: Any = None
    withheld: int = 0
    why: str = ""


def _may_see(viewer: str, other: str, screened: frozenset[str], open_to_all: bool) -> bool:
    return other == viewer or open_to_all or (viewer in screened and other in screened)


def visible_to(viewer: str, *, decisions: Mapping[str, Any], tags: Mapping[str, Any] | None = None,
               notes: Mapping[str, Any] | None = None, blind: bool, screened: Iterable[str] | None = None,
               final: Any = None, resolving: bool = False) -> PaperView:
    """What ``viewer`` may see of a paper whose ``decisions``, ``tags`` and ``notes`` are given
    by reviewer name (``{"ana": ..., "ben": ...}``, any values).

    ``screened`` names the reviewers who have screened the paper at this stage (default: those
    with a decision). ``final`` is the paper's final decision, if any; ``resolving`` says the
    viewer is resolving this paper's conflict."""
    if not isinstance(viewer, str) or not viewer.strip():
        raise InputError(f"viewer {viewer!r}: name the reviewer who is looking (blind mode needs a name)")
    tags, notes = tags or {}, notes or {}
    done = frozenset(decisions if screened is None else screened)
    open_to_all = not blind or final is not None or resolving
    everyone = set(decisions) | set(tags) | set(notes)
    shown = {who for who in everyone if _may_see(viewer, who, done, open_to_all)}
    if not blind:
        why = "not blind: everyone's work is shown"
    elif final is not None:
        why = "the paper has a final decision: blindness has ended"
    elif resolving:
        why = "resolving a conflict: every reviewer's work is shown"
    elif viewer not in done:
        why = "blind: screen the paper first to see the others' work on it"
    else:
        why = "blind: shown for reviewers who have screened it too"
    return PaperView(
        viewer=viewer,
        decisions={k: v for k, v in decisions.items() if k in shown},
        tags={k: v for k, v in tags.items() if k in shown},
        notes={k: v for k, v in notes.items() if k in shown},
        final=final,
        withheld=len(everyone - shown),
        why=why,
    )


def training_decisions(viewer: str, rows: Iterable, finals: Iterable[FinalDecision] = (), *,
                       blind: bool) -> dict[str, str]:
    """``{paper_id: decision}`` that ``viewer``'s ranked queue may learn from at this stage.

    Final decisions come first, for everyone. Then, in blind mode, the viewer's own decisions
    only; outside blind mode the viewer's own, else the latest by anyone (by ``decided_at``)."""
    votes = as_votes(rows)
    chosen: dict[str, str] = {}
    if not blind:
        for vote in sorted((v for v in votes if v.reviewer != viewer), key=lambda v: v.decided_at or ""):
            chosen[vote.paper_id] = vote.decision
    chosen.update({v.paper_id: v.decision for v in votes if v.reviewer == viewer})
    chosen.update({f.paper_id: f.decision for f in finals})
    return chosen
