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

FILTERS = ("all", "untagged", "undecided", *DECISIONS)

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
    show : one of ``FILTERS``
    topic : int or None
    search : str, keywords that must all appear (and are highlighted)
    """

    def __init__(self, session: Session, show: str = "all", topic: int | None = None, search: str = ""):
        self.session = session
        self.show = show
        self.topic = topic
        self.search = search
        self.matches: dict[str, int] = {}  # id -> matches of the search's terms
        self.position = 0
        self.ids: list[str] = []
        self.refilter()

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
        if self.topic is not None:
            keep = keep[keep.topic == self.topic]
        self.matches = self.session.search(self.search, semantic=False).matches if self.search.strip() else {}
        if self.search.strip():
            keep = keep[keep.id.isin(set(self.matches))]
        current = self.current_id
        self.ids = keep.sort_values(["topic", "y", "x"], kind="stable").id.tolist()
        self.position = self.ids.index(current) if current in self.ids else 0
        return len(self.ids)

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

    def toggle_tag(self, tag: str) -> bool:
        return self.session.toggle_tag(self._require(), tag)

    def add_tag(self, text: str) -> list[str]:
        """Tags typed as free text (comma separated) are added to the current paper."""
        tags = [t.strip() for t in text.split(",") if t.strip()]
        if not tags:
            raise InputError("type a tag name first")
        self.session.tag(self._require(), *tags)
        return tags

    def decide(self, decision: str, reason: str | None = None, advance: bool = True) -> None:
        self.session.decide(self._require(), decision, reason)
        if advance:
            self.next()

    def note(self, text: str) -> None:
        self.session.note(self._require(), text)

    def undo(self) -> None:
        self.session.undo()

    def press(self, key: str) -> str | None:
        """Play a keyboard shortcut (see ``KEYS``); returns the action taken, or None."""
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
            vocab = self.session.vocabulary()
            if arg > len(vocab):
                return None
            self.toggle_tag(vocab[arg - 1])
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
