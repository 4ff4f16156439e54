"""What changed, in words: after an undo, after a reload, and topic names a preview carries over.

Plain functions over the store's public API (history entries, the papers a change touched) and
the review's topics; :class:`~workbench.session.session.Session` calls them and the views show
what they return.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..store import HistoryEntry, match_topics

__all__ = ["TOPIC_ACTIONS", "Undone", "carry_names", "describe_news", "describe_undo"]

# History actions that change the topics shown (their names, members or the whole run).
TOPIC_ACTIONS = {"rename-topic", "merge-topics", "move-paper", "topic-run", "record-topics"}


@dataclass
class Undone:
    """What one undo took back: the history entries, the papers they touched and a sentence."""

    entries: list[HistoryEntry]
    papers: list[str] = field(default_factory=list)
    text: str = ""
    topics: bool = False  # the undone change was a topic edit or a saved topic run

    def __iter__(self):
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, i):
        return self.entries[i]


def _clip(text: str, n: int = 70) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def describe_undo(entries: list[HistoryEntry], papers: list[str], title_of) -> Undone:
    """``Undone`` for ``entries`` (newest first) that touched ``papers``; ``title_of(id)`` gives
    a paper's title (or None when the paper is not in this review)."""
    words = "; ".join(_clip(e.summary, 90) for e in entries)
    shown = [t for t in (title_of(p) for p in papers[:1]) if t]
    where = f" on “{_clip(shown[0], 60)}”" if shown and len(papers) == 1 else (
        f" on {len(papers)} papers" if len(papers) > 1 else "")
    return Undone(list(entries), list(papers), f"undid {words}{where}",
                  any(e.action in TOPIC_ACTIONS for e in entries))


def describe_news(entries: list[HistoryEntry]) -> str:
    """One line on changes made elsewhere: how many, of which kinds, by whom."""
    if not entries:
        return "no changes elsewhere"
    kinds = Counter(e.action for e in entries)
    who = sorted({e.reviewer for e in entries})
    listed = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common())
    return f"{len(entries)} changes elsewhere ({listed}) by {', '.join(who)}"


def carry_names(saved, preview) -> dict[int, str]:
    """Human topic names of the saved topics, carried to the preview's matching topics (matched
    by shared papers, as a save matches them): ``{preview topic: name}``."""
    model_label = dict(zip(saved.model_topics.topic.astype(int), saved.model_topics.label))
    named = {int(t): label for t, label in zip(saved.topics.topic.astype(int), saved.topics.label)
             if t >= 0 and label != model_label.get(int(t))}
    if not named:
        return {}
    ids = saved.ids
    before = {pid: int(t) for pid, t in zip(ids, saved.labels)}
    after = {pid: int(t) for pid, t in zip(ids, preview.model_labels)}
    matched = match_topics(before, after)["matched"]
    return {new: named[old] for new, old in matched.items() if old in named}
