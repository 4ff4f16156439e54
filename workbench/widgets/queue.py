"""The screening queue: one paper at a time, filters, keyboard shortcuts, progress.

Plain Python, no ipywidgets. Every action goes straight to the :class:`Session` (and so to
the store); the queue only remembers which paper is showing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..records import DECISIONS
from ..review import KEYWORD, SearchHit
from .session import Session, query_terms
from .text import authors_line, escape, highlight

__all__ = ["ScreeningQueue", "Card", "FILTERS", "KEYS"]

FILTERS = ("undecided", "all", "untagged", "sent", *DECISIONS)  # "sent": from the map (01)

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


class ScreeningQueue:
    """Papers to screen, in map order of their topic, filtered.

    Parameters
    ----------
    session : Session
    show : one of ``FILTERS`` ("undecided" by default; "sent": the papers 01 sent here)
    topic : int or None
    search : str, keywords that must all appear (and are highlighted)

    The queue's papers are fixed when the filters are applied: a paper decided in an
    "undecided" queue stays in it (go back with ``k`` to see or change its decision) until the
    filters are applied again.
    """

    def __init__(self, session: Session, show: str = "undecided", topic: int | None = None, search: str = ""):
        self.session = session
        self.show = show
        self.topic = topic
        self.search = search
        self.matches: dict[str, int] = {}  # id -> matches of the search's terms
        self.position = 0
        self.ids: list[str] = []
        self.sent_what = ""  # where the "sent" papers came from
        self.sent_seen = session.queue_sent_at()  # when the papers this queue knows of were sent
        self.last = ""  # what the last action did, in words
        self.refilter(show)

    # ------------------------------------------------------------------ filtering

    def refilter(self, show: str | None = None, topic: int | None | str = "keep", search: str | None = None) -> int:
        """Apply new filters (omitted ones stay); returns the queue length."""
        if show is not None:
            if show not in FILTERS:
                raise InputError(f"filter {show!r}; expected one of {', '.join(FILTERS)}")
            self.show = show
        if topic != "keep":
            self.topic = None if topic in (None, "", "all") else int(topic)
        if search is not None:
            self.search = search
        frame = self.session.frame()
        keep = frame
        if self.show == "untagged":
            keep = keep[keep.tags.map(len) == 0]
        elif self.show == "undecided":
            keep = keep[keep.decision == "undecided"]
        elif self.show in DECISIONS:
            keep = keep[keep.decision == self.show]
        elif self.show == "sent":
            self.sent_seen = self.session.queue_sent_at()
            sent, self.sent_what = self.session.load_queue()
            keep = keep[keep.id.isin(set(sent))]
        if self.topic is not None:
            keep = keep[keep.topic == self.topic]
        self.matches = self.session.search(self.search, semantic=False).matches if self.search.strip() else {}
        if self.search.strip():
            keep = keep[keep.id.isin(set(self.matches))]
        current = self.current_id
        self.ids = keep.sort_values(["topic", "y", "x"], kind="stable").id.tolist()
        self.position = self.ids.index(current) if current in self.ids else 0
        return len(self.ids)

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
        vocab = self.session.store.vocabulary()
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
        pid = self._require()
        self.session.decide(pid, decision, reason)
        self.last = f"{decision}: {pid}"
        if advance:
            self.next()

    def note(self, text: str) -> None:
        self.session.note(self._require(), text)
        self.last = "note saved"

    def undo(self):
        """Undo the last change and show the paper it touched (the queue's filters are applied
        again when that paper is not in the queue). Returns :class:`~workbench.widgets.Undone`."""
        undone = self.session.undo()
        papers = [p for p in undone.papers if p in self.session.review]
        if papers and papers[0] not in self.ids:
            self.refilter()
        if papers and papers[0] in self.ids:
            self.position = self.ids.index(papers[0])
            self.last = undone.text
        else:
            self.last = undone.text + (" (that paper is not in this queue: change the filters to see it)" if papers else "")
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

    def progress(self) -> tuple[int, int]:
        """(screened, total) over the whole review: papers with a decision by anyone."""
        # Counted from the store's summary alone: building the whole papers table on every
        # click would cost a papers_frame per render.
        summary = self.session.store.summary()
        ids = self.session.ids
        return sum(1 for pid in ids if summary.get(pid, {}).get("decision")), len(ids)

    def card(self) -> Card | None:
        pid = self.current_id
        if pid is None:
            return None
        s = self.session
        paper = s.review.paper(pid)
        topic = s.review.topic_of(pid)
        decision = s.store.decision(pid)
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
            tags=s.store.tags(pid),
            decision=decision.decision if decision else None,
            reason=decision.reason if decision else None,
            notes=[escape(n.text) for n in s.store.notes(pid)],
            position=self.position + 1,
            total=len(self.ids),
            match=SearchHit(pid, KEYWORD, self.matches[pid]).describe() if pid in self.matches else "",
        )
