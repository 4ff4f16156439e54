"""The :class:`~workbench.widgets.ScreeningQueue` methods of reviewing as a team: which papers a
filter keeps at a stage (in team use "undecided" means not yet screened by *you*), the
conflicts queue and its resolution, and every reviewer's vote on a card as far as the blind
rule lets this reviewer see it. Plain Python, no ipywidgets.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..corpus.paper import DECISIONS, FULL_TEXT, TITLE_ABSTRACT
from ..review import NEW_SINCE

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

    def _own_or_final(self) -> dict[str, str] | None:
        """``{paper id: decision}``: the reviewer's own vote at the queue's stage, else the final
        decision (team use and full text); None alone at title/abstract, where the store's
        latest decision counts."""
        s = self.session
        if self.stage == TITLE_ABSTRACT and not s.team():
            return None
        return {**s.finals(self.stage), **s.own_decisions(self.stage)}

    def _decided(self, frame):
        """Each paper's decision as the filters see it (:meth:`_own_or_final`, else the store's summary)."""
        mine = self._own_or_final()
        if mine is None:
            return frame.decision
        return frame.id.map(lambda p: mine.get(p, UNDECIDED))

    def new_filter(self, show: str) -> str:
        """``show`` as a "new since YYYY-MM-DD" filter ("new": since the latest update), or an
        error naming the filters there are."""
        dates = self.session.new_dates()
        if show == "new" and dates:
            return NEW_SINCE + dates[0]
        if show.startswith(NEW_SINCE) and show[len(NEW_SINCE):] in dates:
            return show
        from .queue import FILTERS

        news = ", ".join(NEW_SINCE + d for d in dates) or "none: the review was never updated (Add a new search)"
        raise InputError(f"filter {show!r}; expected one of {', '.join(FILTERS)}, or a 'new since' date ({news})")

    def new_since(self) -> dict[str, str]:
        """``{paper id: date}`` of the papers updates brought (read once per saved review)."""
        saved = self.session.saved
        if getattr(self, "_new_of", None) is not saved:
            self._new_of, self._new = saved, saved.new_since()
        return self._new

    def _filtered(self, frame):
        """The rows of ``frame`` (the papers table) that the ``show`` filter keeps (never a paper
        a person merged into another: it leaves at the next update or rebuild)."""
        s = self.session
        frame = frame[~frame.id.isin(s.saved.merged_away())]
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
        if show.startswith(NEW_SINCE):
            since = show[len(NEW_SINCE):]
            frame = frame[frame.id.isin({p for p, d in self.new_since().items() if d >= since})]
            return frame[self._decided(frame) == UNDECIDED]
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
