"""What changed, in words: after an undo, after a reload, and topic names a preview carries over.

Plain functions over the store's public API (history entries, the papers a change touched) and
the review's topics; :class:`~workbench.session.session.Session` calls them and the views show
what they return.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..review import UPDATE_REVIEWER
from ..store import HistoryEntry, match_topics
from .text import short_title, titles_line

__all__ = ["TOPIC_ACTIONS", "Undone", "carry_names", "describe_new_files", "describe_news", "describe_undo"]

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


def _papers_named(papers: list[str], title_of) -> str:
    titles = [t for t in (title_of(p) for p in papers[:2]) if t]
    if len(papers) <= 2 and len(titles) == len(papers):
        return titles_line(titles, width=44)
    return f"{len(papers)} papers"


def _undone_words(entry: HistoryEntry, papers: list[str], title_of) -> str:
    """One change undone, in words: what it was and the papers it was on (by short title)."""
    where = _papers_named(papers, title_of) if papers else ""
    on = f" on {where}" if where else ""
    summary = entry.summary
    rest = re.match(r"^\S+ (?:\d+ papers|[0-9a-f]{6,}) ?(.*)$", summary)
    if entry.action == "tag":
        tags = [w[1:] for w in summary.split() if w.startswith("+")]
        return f"the tag{'s' if len(tags) > 1 else ''} {', '.join(tags)}{on}"
    if entry.action == "untag" and " -" in summary:
        return f"removing the tag {summary.rsplit(' -', 1)[1]} from {where or 'a paper'}"
    if entry.action == "note" and ": " in summary:
        return f"the note “{summary.split(': ', 1)[1]}”{on}"
    if entry.action in ("decide", "resolve") and rest:
        what = "decision" if entry.action == "decide" else "final decision"
        return f"the {what} {rest.group(1)}{on}"
    pair = re.match(r"^([0-9a-f]+) (?:is the same paper as|and) ([0-9a-f]+)\b", summary)
    if entry.action in ("duplicate-same", "duplicate-different") and pair:
        first, second = (_papers_named([i], title_of) if title_of(i) else i for i in pair.groups())
        return (f"the merge of {first} into {second}" if entry.action == "duplicate-same"
                else f"keeping {first} and {second} apart")
    named = re.sub(r"\b[0-9a-f]{12}\b", lambda m: f"“{short_title(title_of(m.group()), 44)}”" if title_of(m.group())
                   else m.group(), summary)
    return _clip(named, 90) + (on if named == summary and papers else "")


def describe_undo(entries: list[HistoryEntry], papers: list[str], title_of) -> Undone:
    """``Undone`` for ``entries`` (newest first) that touched ``papers``; ``title_of(id)`` gives
    a paper's title (or None when the paper is not in this review). The sentence says what was
    undone, exactly: "undid the tags rlhf, key on 46 papers", "undid the decision exclude (off
    topic) on “A general framework…”"."""
    words = "; ".join(_undone_words(e, papers, title_of) for e in entries)
    return Undone(list(entries), list(papers), f"undid {words}",
                  any(e.action in TOPIC_ACTIONS for e in entries))


# History actions in a person's words (what a change made elsewhere was); those of one build or
# update (the corpus synced, the sources and the topics recorded, the files switched) are one.
NEWS_WORDS = {  # action: (one, several)
    "tag": ("tag added", "tags added"), "untag": ("tag removed", "tags removed"), "note": ("note", "notes"),
    "edit-note": ("note edited", "notes edited"), "delete-note": ("note deleted", "notes deleted"),
    "decide": ("decision", "decisions"), "resolve": ("conflict resolved", "conflicts resolved"),
    "unresolve": ("resolution taken back", "resolutions taken back"), "undo": ("undo", "undos"),
    "rename-topic": ("topic renamed", "topics renamed"), "merge-topics": ("topic merge", "topic merges"),
    "move-paper": ("paper moved to another topic", "papers moved to another topic"),
    "duplicate-same": ("duplicate merged", "duplicates merged"),
    "duplicate-different": ("pair kept apart", "pairs kept apart"), "rename-tag": ("tag renamed", "tags renamed"),
    "merge-tags": ("tag merge", "tag merges"), "delete-tag": ("tag deleted", "tags deleted"),
    "import": ("import", "imports"), "restore": ("restore", "restores"), "setting": ("setting", "settings"),
    "topic-run": ("topics saved", "topics saved"), "switch-files": ("a new build or update", "new builds or updates"),
    "reason": ("exclusion reason", "exclusion reasons"), "carry-over": ("tags carried over", "tags carried over"),
}
QUIET = {"sync", "sources", "record-topics", "provenance", "stopping-claim", "all-reviewers", "describe-tag"}


def _counted(kind: str, n: int) -> str:
    one, several = NEWS_WORDS.get(kind, (kind, kind))
    return one if n == 1 and one.startswith("a ") else f"{n} {one if n == 1 else several}"


def describe_news(entries: list[HistoryEntry]) -> str:
    """One line on changes made elsewhere: how many, of which kinds, by whom."""
    # the "new since" tags an update puts on its new papers are said as the new papers
    shown = [e for e in entries if e.action not in QUIET and e.reviewer != UPDATE_REVIEWER] or entries
    if not shown:
        return "no changes elsewhere"
    kinds = Counter(e.action for e in shown)
    who = sorted({e.reviewer for e in shown})
    listed = ", ".join(_counted(kind, n) for kind, n in kinds.most_common())
    return f"{listed} by {', '.join(who)}"


def describe_new_files(old, new, topics_before: int) -> str:
    """The review's files changed on disk (an update, saved themes, a rebuild): what the map now
    shows, in words. Papers an update added are placed by their nearest neighbours (the old
    papers stay where they were); a refit moves every paper."""
    old_rows = {p.id: i for i, p in enumerate(old.papers)}
    kept = [(i, old_rows[p.id]) for i, p in enumerate(new.papers) if p.id in old_rows]
    added = len(new.papers) - len(kept)
    gone = len(old.papers) - len(kept)
    topics = int((new.topics.topic >= 0).sum())
    rows = np.asarray(kept, dtype=int).reshape(-1, 2)
    moved = not np.array_equal(np.asarray(new.coords)[rows[:, 0]], np.asarray(old.coords)[rows[:, 1]])
    parts = []
    if added:
        parts.append(f"{added} new papers" + ("" if moved else
                     ", placed on the map beside their most similar papers (nothing refitted)"))
    if gone:
        parts.append(f"{gone} papers fewer")
    if moved:
        parts.append(f"a new map ({len(new.papers)} papers, {topics} topics, were {topics_before})")
    elif topics != topics_before:
        parts.append(f"{topics} topics (were {topics_before})")
    return "; ".join(parts) or f"the review's files were saved anew ({len(new.papers)} papers, {topics} topics)"


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
