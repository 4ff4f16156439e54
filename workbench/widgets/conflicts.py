"""The :class:`~workbench.widgets.ScreeningQueue` methods of reviewing as a team: which papers a
filter keeps at a stage (in team use "undecided" means not yet screened by *you*), the
conflicts queue and its resolution, and every reviewer's vote on a card as far as the blind
rule lets this reviewer see it. Plain Python, no ipywidgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..records import DECISIONS, FULL_TEXT, TITLE_ABSTRACT

__all__ = ["TeamQueue", "Vote"]

UNDECIDED = "undecided"


@dataclass(frozen=True)
class Vote:
    """One reviewer's vote as a card shows it."""

    reviewer: str
    decision: str
    reason: str | None = None


class TeamQueue:
    """Team review on the screening queue (see the module docstring)."""

    stage: str = TITLE_ABSTRACT

    def _decided(self, frame):
        """Each paper's decision as the filters see it: the reviewer's own vote at the queue's
        stage, else the final decision (team use and full text); else the store's summary."""
        s = self.session
        if self.stage == TITLE_ABSTRACT and not s.team():
            return frame.decision
        mine = {**s.finals(self.stage), **s.own_decisions(self.stage)}
        return frame.id.map(lambda p: mine.get(p, UNDECIDED))

    def _filtered(self, frame):
        """The rows of ``frame`` (the papers table) that the ``show`` filter keeps."""
        s = self.session
        if self.stage == FULL_TEXT:
            frame = frame[frame.id.isin(s.full_text_candidates())]
        show = self.show
        if show == "untagged":
            return frame[frame.tags.map(len) == 0]
        if show == "conflicts":
            return frame[frame.id.isin({p.paper_id for p in s.conflicts(self.stage)})]
        if show == "sent":
            self.sent_seen = s.queue_sent_at()
            sent, self.sent_what = s.load_queue()
            return frame[frame.id.isin(set(sent))]
        if show == UNDECIDED or show in DECISIONS:
            return frame[self._decided(frame) == show]
        return frame

    def open_conflicts(self) -> int:
        """How many papers reviewers disagree on at the queue's stage and nobody resolved."""
        return len(self.session.conflicts(self.stage))

    def resolve(self, decision: str, reason: str | None = None, advance: bool = True):
        """Settle the conflict on the paper on screen with a final ``decision`` and why (recorded
        as resolved by this reviewer; ``u`` takes it back). Returns the ``team.FinalDecision``."""
        pid = self._require()
        final = self.session.resolve_conflict(pid, decision, reason, stage=self.stage)
        self.last = f"resolved {pid}: {final.decision}" + (f" ({final.reason})" if final.reason else "")
        if advance:
            self.next()
        return final

    def _team_card(self, pid: str) -> dict:
        """The card's votes (every reviewer this reviewer may see, own first) and final decision."""
        view = self.session.visible(pid, self.stage, resolving=self.show == "conflicts")
        me = self.session.reviewer
        order = sorted(view.decisions, key=lambda who: (who != me, who))
        votes = [Vote(who, view.decisions[who].decision, view.decisions[who].reason) for who in order]
        final = view.final
        return {
            "stage": self.stage,
            "votes": votes,
            "final": final.decision if final is not None else None,
            "final_reason": final.reason if final is not None else None,
            "resolved_by": final.resolved_by if final is not None else None,
        }
