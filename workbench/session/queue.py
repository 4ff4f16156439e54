"""The screening queue: one paper at a time, filters, keyboard shortcuts, progress.

Plain Python, no ipywidgets. Every action goes straight to the :class:`Session` (and so to
the store); the queue only remembers which paper is showing. As a team, a filter keeps the papers
*you* have not screened, the conflicts queue lists what reviewers disagree on (with Resolve), and
a card shows every reviewer's vote as far as the blind rule lets you see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..corpus.paper import DECISIONS, FULL_TEXT, TITLE_ABSTRACT
from ..review import KEYWORD, NEW_SINCE, SearchHit
from .session import Session, query_terms
from .teamwork import check_stage
from .text import authors_line, citations_html, escape, highlight, short_title

__all__ = ["ScreeningQueue", "Card", "FILTERS", "KEYS", "ORDERS", "ReasonTarget", "Vote", "order_names", "undo_said"]

# "sent": from the map (01); "conflicts": papers the reviewers disagree on, to resolve; besides
# these, "new since YYYY-MM-DD" (the papers updates brought since then that you have not decided;
# "new": since the latest update)
UNDECIDED = "undecided"
FILTERS = (UNDECIDED, "all", "untagged", "sent", *DECISIONS, "conflicts")
# "relevance": most likely relevant first (a model refitted after every decision; random
# before the first include and exclude); "one per topic": the topics in turn; "map": topic by
# topic in map order.
ORDERS = ("relevance", "one per topic", "random", "map")


def order_names(ranked: bool) -> dict[str, str]:
    """What each order does, in words, for the order menu (``ranked``: a model ranks the queue,
    which needs one include and one exclude)."""
    return {
        "relevance": ("most likely relevant first (re-ranked after every decision)" if ranked
                      else "most likely relevant first (random until an include and an exclude)"),
        "one per topic": ("one paper per topic in turn, each topic's most likely relevant first" if ranked
                          else "one paper per topic in turn (until an include and an exclude)"),
        "random": "random order",
        "map": "topic by topic, in map order",
    }

def _sorted_by(first: np.ndarray, key: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``np.lexsort((rows, key, first))``: by ``first`` (bool), then ``key`` (float), then
    ``rows`` (distinct non-negative ints), with one sort of int64 codes made of the three (the
    key as its rank), which is several times faster than lexsort's passes over 50,000 floats."""
    bits = int(rows.max()).bit_length() if len(rows) else 0
    if not len(rows) or 2 * bits > 62:
        return np.lexsort((rows, key, first))
    by_key = np.argsort(key)
    ordered = key[by_key]
    differs = (ordered[1:] != ordered[:-1]) & ~(np.isnan(ordered[1:]) & np.isnan(ordered[:-1]))
    rank = np.empty(len(key), dtype=np.int64)
    rank[by_key] = np.concatenate([[0], np.cumsum(differs)])
    codes = (first.astype(np.int64) << 62) | (rank << bits) | rows.astype(np.int64)
    return np.argsort(codes)


# key -> (action, argument). Digits 1-9 toggle the tag at that place in the vocabulary.
KEYS = {
    "j": ("next", None),
    "ArrowRight": ("next", None),
    "k": ("previous", None),
    "ArrowLeft": ("previous", None),
    "i": ("decide", "include"),
    "e": ("decide", "exclude"),
    "m": ("decide", "maybe"),
    "u": ("undo", None),
    **{str(n): ("tag_number", n) for n in range(1, 10)},
}


@dataclass(frozen=True)
class Vote:
    """One reviewer's vote as a card shows it."""

    reviewer: str
    decision: str
    reason: str | None = None


@dataclass(frozen=True)
class ReasonTarget:
    """The paper a reason typed now goes to: the paper just decided (decide, then give a reason),
    until the next decision; ``pending``: a full-text exclusion that waits for its reason (it
    needs one) on the paper still on screen."""

    paper_id: str
    decision: str
    title: str  # its short title, plain text
    stage: str
    ranking: object = None  # the ranking the decision was shown with (recorded again with the reason)
    pending: bool = False


def undo_said(undone, title_of) -> str:
    """What one undo took back, in words a card shows: "undid: maybe on “Deep learning for…”"
    (``title_of(id)``: the paper's title, or None)."""
    if not undone.entries:
        return undone.text
    entry = undone.entries[0]
    words = entry.summary
    for pid in undone.papers:
        words = words.replace(" " + pid, "")
    if entry.action == "decide" and words.startswith("decide "):
        words = words[len("decide "):]
    words = " ".join(words.split())
    papers = [p for p in undone.papers]
    where = ""
    if len(papers) == 1:
        title = title_of(papers[0])
        where = f" on “{short_title(title)}”" if title else ""
    more = f" (and {len(undone.entries) - 1} earlier changes)" if len(undone.entries) > 1 else ""
    return f"undid: {words}{where}{more}"


@dataclass
class Card:
    """What the screen shows for one paper; ``abstract_html`` is escaped and highlighted."""

    id: str
    title_html: str
    authors: str
    year: int | None
    collection: str
    topic: int
    topic_label: str
    abstract_html: str
    tags: list[str]
    decision: str | None
    reason: str | None
    notes: list[str]
    position: int
    total: int
    match: str = ""  # how the search found it: "keyword, 3 matches" ("": no search)
    rank: int | None = None  # its place in the model's ranking of the undecided papers
    score: float | None = None  # the model's score (higher: more likely relevant)
    relevance: str = ""  # "predicted relevant: high · rank 3 of 125 to screen" (escaped)
    model: str = ""  # the ranking model's version, for the card's details line (escaped)
    why: str = ""  # why the queue puts it here (escaped)
    stage: str = TITLE_ABSTRACT
    votes: list[Vote] = field(default_factory=list)  # every vote this reviewer may see, own first
    final: str | None = None  # the final decision (a resolved conflict)
    final_reason: str | None = None
    resolved_by: str | None = None
    citations: str = ""  # "cites N / cited by M in this review" with the papers (HTML, escaped)
    new_since: str | None = None  # the date of the update that brought it ("new since DATE")


class ScreeningQueue:
    """Papers to screen, filtered and ordered, at one stage.

    Parameters
    ----------
    session : Session
    show : one of ``FILTERS`` ("undecided" by default; "sent": the papers 01 sent here), or
        "new since YYYY-MM-DD" / "new" (the papers updates brought, undecided; see ``new_filter``)
    topic : int or None
    search : str, keywords that must all appear (and are highlighted)
    order : one of ``ORDERS``; default "relevance" once the reviewer has an include and an
        exclude, else "one per topic"
    stage : "title_abstract" (default) or "full_text" (the papers included at title/abstract;
        include, exclude with a reason, or "not retrieved"; map order)

    The queue's papers are fixed when the filters are applied: a paper decided in an
    "undecided" queue stays in it (go back with ``k`` to see or change its decision) until the
    filters are applied again. In a ranked order every decision refits the model and reorders
    the papers after the current one; each decision records the rank and score it was shown.
    """

    def __init__(self, session: Session, show: str = "undecided", topic: int | None = None, search: str = "",
                 order: str | None = None, stage: str = TITLE_ABSTRACT):
        self.session = session
        self.stage = check_stage(stage)
        self.show = show
        self.topic = topic
        self.search = search
        self.order = order or "relevance"
        self.ranking = None  # the workbench.review.Ranking the order came from (None: map order)
        self.matches: dict[str, int] = {}  # id -> matches of the search's terms
        self.position = 0
        self.ids: list[str] = []
        self._candidate_ids = np.zeros(0, dtype=object)  # the filters' papers, in map order
        self._candidate_rows = np.zeros(0, dtype=np.int64)  # and their map rows
        self.sent_what = ""  # where the "sent" papers came from
        self.sent_seen = session.queue_sent_at()  # when the papers this queue knows of were sent
        self.last = ""  # what the last action did, in words
        self.reason_for: ReasonTarget | None = None  # where a reason given now goes (see give_reason)
        # chosen for the reviewer (no order given): one per topic until the first include and
        # exclude, then relevance, which the queue switches to by itself (and says so)
        self.auto_order = order is None
        if self.stage == FULL_TEXT:
            self.order = "map"
        elif order is None and session.rank().mode != "ranked":
            self.order = "one per topic"
        self.refilter(show)

    # ------------------------------------------------------------------ filtering

    def refilter(self, show: str | None = None, topic: int | None | str = "keep", search: str | None = None,
                 order: str | None = None) -> int:
        """Apply new filters or a new order (omitted ones stay); returns the queue length."""
        if show is not None:
            self.show = show if show in FILTERS else self.new_filter(show)
        if order is not None:
            if order not in ORDERS:
                raise InputError(f"order {order!r}; expected one of {', '.join(ORDERS)}")
            self.auto_order = self.auto_order and order == self.order
            self.order = order
        if topic != "keep":
            self.topic = None if topic in (None, "", "all") else int(topic)
        if search is not None:
            self.search = search
        keep = self._filtered(self.session.frame())
        if self.topic is not None:
            keep = keep[keep.topic == self.topic]
        self.matches = self.session.review.search(self.search, semantic=False).matches if self.search.strip() else {}
        if self.search.strip():
            keep = keep[keep.id.isin(set(self.matches))]
        current = self.current_id
        candidates = keep.sort_values(["topic", "y", "x"], kind="stable").id.tolist()
        self._candidate_ids = np.array(candidates, dtype=object)
        self._candidate_rows = np.asarray(self.session.rows_of(candidates), dtype=np.int64)
        unranked = self.order == "map" or self.stage == FULL_TEXT or self.show == "conflicts"
        self.ranking = None if unranked else self.session.rank(by_topic=self.order == "one per topic")
        self.ids = self._ordered(np.ones(len(candidates), dtype=bool))
        self.position = self.ids.index(current) if current in self.ids else 0
        return len(self.ids)

    def _ordered(self, among: np.ndarray) -> list[str]:
        """The candidates where ``among`` is True (in map order) in the queue's order."""
        ids = self._candidate_ids[among]
        ranking = self.ranking
        if ranking is None or not len(ids):
            return ids.tolist()
        rows = self._candidate_rows[among]
        waiting = ranking.queue[rows]  # undecided papers come before decided ones
        if self.order == "random" or ranking.scores is None:
            key = np.random.default_rng(ranking.seed).permutation(len(ranking.queue))[rows].astype(float)
        else:
            key = -ranking.scores[rows]
        order = _sorted_by(~waiting, key, rows)
        if self.order == "one per topic":  # the topics in turn, each topic's papers in that order
            topics = np.asarray(self.session.saved.labels)[rows[order]]
            turn = np.zeros(len(order), dtype=int)
            for t in np.unique(topics):
                turn[topics == t] = np.arange(int((topics == t).sum()))
            order = order[np.lexsort((np.arange(len(order)), turn, ~waiting[order]))]
        return ids[order].tolist()

    def _rerank(self) -> None:
        """After a decision in a ranked order: refit, and reorder the papers after this one."""
        if self.ranking is None:
            return
        done = self.ids[: self.position + 1]
        seen = np.isin(self._candidate_rows, np.asarray(self.session.rows_of(done), dtype=np.int64))
        self.ranking = self.session.rank(by_topic=self.order == "one per topic")
        if self.auto_order and self.order == "one per topic" and self.ranking.mode == "ranked":
            self.order = "relevance"  # the first include and exclude: a model ranks the queue now
            self.ranking = self.session.rank()
            self.last += " · the queue is now ranked: most likely relevant first"
        self.ids = done + self._ordered(~seen)

    def take_sent(self) -> str | None:
        """Papers sent from the map (01's "Screen these", in any kernel) since this queue last
        looked: show them (filter "sent", other filters cleared) and say so; else None."""
        sent_at = self.session.queue_sent_at()
        if not sent_at or sent_at == self.sent_seen:
            return None
        n = self.refilter("sent", topic=None, search="")
        return f"{n} papers sent from the map ({self.sent_what}): showing them"

    # ------------------------------------------------------------------ moving

    @property
    def current_id(self) -> str | None:
        return self.ids[self.position] if 0 <= self.position < len(self.ids) else None

    def next(self) -> str | None:
        if self.position < len(self.ids) - 1:
            self.position += 1
        return self.current_id

    def previous(self) -> str | None:
        if self.position > 0:
            self.position -= 1
        return self.current_id

    def go(self, paper_id: str) -> None:
        pid = self.session.resolve(paper_id)
        if pid not in self.ids:
            raise InputError(f"paper {paper_id} is not in this queue (filter {self.show!r}); clear the filters")
        self.position = self.ids.index(pid)

    # ------------------------------------------------------------------ actions on the current paper

    def _require(self) -> str:
        if self.current_id is None:
            raise InputError("the queue is empty; change the filters")
        return self.current_id

    def tags(self) -> list[str]:
        """The vocabulary in the order tags were made: tag n keeps its number when others come."""
        vocab = [t for t in self.session.store.tags.vocabulary() if not t.name.startswith(NEW_SINCE)]  # updates' marks
        return [t.name for t in sorted(vocab, key=lambda t: (t.created_at, t.name))]

    def toggle_tag(self, tag: str) -> bool:
        now = self.session.toggle_tag(self._require(), tag)
        self.last = f"{'added' if now else 'removed'} tag {tag}"
        return now

    def add_tag(self, text: str) -> list[str]:
        """Tags typed as free text (comma separated) are added to the current paper."""
        tags = [t.strip() for t in text.split(",") if t.strip()]
        if not tags:
            raise InputError("type a tag name first")
        self.session.tag(self._require(), *tags)
        self.last = f"tagged {', '.join(tags)}"
        return tags

    def decide(self, decision: str, reason: str | None = None, advance: bool = True) -> None:
        """Decide the paper on screen, recording the rank and score the queue showed for it;
        in a ranked order the model is refitted and the papers after it reordered."""
        pid = self._require()
        title = self.short_title(pid)
        if self.stage == FULL_TEXT and decision == "exclude" and not (reason or "").strip():
            # a full-text exclusion needs its reason: the paper stays until one is given
            self.session.team.require_name()
            self.reason_for = ReasonTarget(pid, decision, title, self.stage, self.ranking, pending=True)
            self.last = f"“{title}” needs a reason to be excluded at full text: pick one or type it"
            return
        before = self.session.store.decisions.of(pid, stage=self.stage)
        ranking = self.ranking
        self.session.decide(pid, decision, reason, ranking=ranking, bulk=False, stage=self.stage)
        shown = "not retrieved" if decision.replace("-", " ") == "not retrieved" else decision
        self.last = f"{shown}: “{title}”" + (f" ({reason.strip()})" if (reason or "").strip() else "")
        kept = self.session.store.decisions.of(pid, stage=self.stage)
        self.reason_for = ReasonTarget(pid, kept.decision if kept else decision, title, self.stage, ranking)
        if before is None or before.decision != decision:
            self._rerank()
        if advance:
            self.next()

    def give_reason(self, reason: str) -> ReasonTarget:
        """The reason for the paper just decided (:attr:`reason_for`), whichever paper is on
        screen: its decision stays, with ``reason`` (one action: ``u`` takes the reason back).
        A full-text exclusion waiting for its reason is made now, and the queue moves on."""
        target = self.reason_for
        reason = (reason or "").strip()
        if target is None:
            raise InputError("decide first (i, e or m), then give the reason: it goes to the paper just decided")
        if not reason:
            raise InputError(f"type a reason (or pick one) for “{target.title}” first")
        if target.stage != self.stage:
            raise InputError(f"“{target.title}” was decided at another stage; decide again at this one")
        if target.pending:
            self.reason_for = None
            self.decide(target.decision, reason)
            return self.reason_for
        self.session.decide(target.paper_id, target.decision, reason, ranking=target.ranking, bulk=False,
                            stage=target.stage)
        self.last = f"reason for “{target.title}” ({target.decision}): {reason}"
        return target

    def short_title(self, paper_id: str) -> str:
        """The paper's title, shortened, as messages name it (plain text)."""
        return short_title(self.session.review.paper(paper_id).title) if paper_id in self.session.review else paper_id

    def stopping(self):
        """Relevant papers still unscreened (95 % interval) and what this reviewer may claim if
        they stop now; the claim is logged in the store. See :meth:`workbench.review.ReviewScreening.stopping`."""
        report = self.session.stopping(log=True)
        self.last = report.lines()[0] if report.lines() else ""
        return report

    def note(self, text: str) -> None:
        self.session.note(self._require(), text)
        self.last = "note saved"

    def undo(self):
        """Undo the last change and show the paper it touched (the queue's filters are applied
        again when that paper is not in the queue). Returns :class:`~workbench.widgets.Undone`."""
        undone = self.session.undo()
        self.reason_for = None  # the paper just decided may not be decided any more
        said = undo_said(undone, lambda p: self.session.review.paper(p).title if p in self.session.review else None)
        if self.ranking is not None:  # the scores shown from now on are the refitted model's
            self.ranking = self.session.rank(by_topic=self.order == "one per topic")
        papers = [p for p in undone.papers if p in self.session.review]
        if papers and papers[0] not in self.ids:
            self.refilter()
        if papers and papers[0] in self.ids:
            self.position = self.ids.index(papers[0])
            self.last = said
        else:
            self.last = said + (" (that paper is not in this queue: change the filters to see it)" if papers else "")
        return undone

    def press(self, key: str) -> str | None:
        """Play a keyboard shortcut (see ``KEYS``); returns the action taken, or None. What it
        did, in words, is in :attr:`last`."""
        action = KEYS.get(key)
        if action is None:
            return None
        name, arg = action
        if name == "next":
            self.next()
        elif name == "previous":
            self.previous()
        elif name == "decide":
            self.decide(arg)
        elif name == "undo":
            self.undo()
        elif name == "tag_number":
            tags = self.tags()
            if arg > len(tags):
                raise InputError(f"no tag {arg}: there are {len(tags)} tags; add one with the tag box")
            self.toggle_tag(tags[arg - 1])
        return name

    # ------------------------------------------------------------------ what to show

    def progress(self, decided: dict[str, str] | None = None) -> tuple[int, int]:
        """(screened, total) over the whole review, as the "undecided" filter counts at the
        queue's stage: alone at title/abstract, papers with a decision; in team use or at full
        text, papers with this reviewer's own vote or a final decision (another reviewer's vote
        leaves a paper in your queue, so it does not count as screened). ``decided``: what
        :meth:`decided` returned, when the caller has read it already."""
        review = self.session.review
        decided = self.decided() if decided is None else decided
        return sum(1 for pid in decided if pid in review), len(review)

    def decided(self) -> dict[str, str]:
        """``{paper id: decision}`` of the papers screened as :meth:`progress` counts them (what
        the map beside the card colours), as far as blind mode lets this reviewer see."""
        mine = self._own_or_final()
        if mine is None:  # the store's summary alone: a papers_frame per render would cost more
            return {pid: e["decision"] for pid, e in self.session.store.summary().items() if e.get("decision")}
        return mine

    def card(self) -> Card | None:
        pid = self.current_id
        if pid is None:
            return None
        s = self.session
        paper = s.review.paper(pid)
        topic = s.review.topic_of(pid)
        decision = s.store.decisions.of(pid, stage=self.stage)
        terms = query_terms(self.search)
        return Card(
            id=pid,
            title_html=highlight(paper.title, terms),
            authors=escape(authors_line(paper.authors, paper.et_al)),
            year=paper.year,
            collection=escape(paper.collection),
            topic=topic,
            topic_label=escape(s.topic_label(topic)),
            abstract_html=highlight(paper.text, terms),
            tags=[t for t in s.store.tags.of(pid) if not t.startswith(NEW_SINCE)],  # said by new_since
            decision=decision.decision if decision else None,
            reason=decision.reason if decision else None,
            notes=[escape(n.text) for n in s.store.notes.of(pid)],
            position=self.position + 1,
            total=len(self.ids),
            match=SearchHit(pid, KEYWORD, self.matches[pid]).describe() if pid in self.matches else "",
            citations=citations_html(s.review, pid),
            new_since=self.new_since().get(pid),
            **self._relevance(pid),
            **self._team_card(pid),
        )

    def _relevance(self, pid: str) -> dict:
        if self.ranking is None:
            return {}
        shown = self.ranking.context(pid)
        return {"rank": shown["rank"], "score": shown["score"], "why": escape(self.ranking.why(pid)),
                "relevance": escape(self.ranking.relevance(pid)), "model": escape(shown["model_version"] or "")}

    # ------------------------------------------------------------------ reviewing as a team:
    # which papers a filter keeps at a stage (in team use "undecided" means not yet screened by
    # *you*), the conflicts queue and its resolution, and every reviewer's vote on a card as far as
    # the blind rule lets this reviewer see it

    def _own_or_final(self) -> dict[str, str] | None:
        """``{paper id: decision}``: the reviewer's own vote at the queue's stage, else the final
        decision (team use and full text); None alone at title/abstract, where the store's
        latest decision counts."""
        s = self.session
        if self.stage == TITLE_ABSTRACT and not s.team.active():
            return None
        return {**s.team.finals(self.stage), **s.team.own_decisions(self.stage)}

    def _decided(self, frame):
        """Each paper's decision as the filters see it (:meth:`_own_or_final`, else the store's summary)."""
        mine = self._own_or_final()
        if mine is None:
            return frame.decision
        return frame.id.map(lambda p: mine.get(p, UNDECIDED))

    def new_filter(self, show: str) -> str:
        """``show`` as a "new since YYYY-MM-DD" filter ("new": since the latest update), or an
        error naming the filters there are."""
        dates = self.session.living.new_dates()
        if show == "new" and dates:
            return NEW_SINCE + dates[0]
        if show.startswith(NEW_SINCE) and show[len(NEW_SINCE):] in dates:
            return show
        news = ", ".join(NEW_SINCE + d for d in dates) or "none: the review was never updated (Add a new search)"
        raise InputError(f"filter {show!r}; expected one of {', '.join(FILTERS)}, or a 'new since' date ({news})")

    def new_since(self) -> dict[str, str]:
        """``{paper id: date}`` of the papers updates brought (read once per saved review)."""
        saved = self.session.saved
        if getattr(self, "_new_of", None) is not saved:
            self._new_of, self._new = saved, saved.updates.new_since()
        return self._new

    def _filtered(self, frame):
        """The rows of ``frame`` (the papers table) that the ``show`` filter keeps (never a paper
        a person merged into another: it leaves at the next update or rebuild)."""
        s = self.session
        frame = frame[~frame.id.isin(s.saved.updates.merged_away())]
        if self.stage == FULL_TEXT:
            frame = frame[frame.id.isin(s.team.full_text_candidates())]
        show = self.show
        if show == "untagged":
            return frame[frame.tags.map(len) == 0]
        if show == "conflicts":
            return frame[frame.id.isin({p.paper_id for p in s.team.conflicts(self.stage)})]
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
        return len(self.session.team.conflicts(self.stage))

    def resolve(self, decision: str, reason: str | None = None, advance: bool = True):
        """Settle the conflict on the paper on screen with a final ``decision`` and why (recorded
        as resolved by this reviewer; ``u`` takes it back). Returns the ``team.FinalDecision``."""
        pid = self._require()
        final = self.session.team.resolve(pid, decision, reason, stage=self.stage)
        self.last = (f"resolved “{short_title(self.session.paper(pid).title)}”: {final.decision}"
                     + (f" ({final.reason})" if final.reason else ""))
        if advance:
            before = self.current_id
            self.next()
            if self.current_id != before:
                self.last += "; the next conflict is shown"
        return final

    def _team_card(self, pid: str) -> dict:
        """The card's votes (every reviewer this reviewer may see, own first) and final decision."""
        view = self.session.team.visible(pid, self.stage, resolving=self.show == "conflicts")
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
