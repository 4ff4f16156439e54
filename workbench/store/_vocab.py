"""The tag vocabulary: each tag's description and colour; renaming, merging and deleting tags.

Reading it goes through ``_visible`` (in blind mode a reviewer sees and changes only the tags
they may see).

A tag exists in the vocabulary once it is used or described; renaming onto an existing tag merges
the two, and every change is one undoable action (see ``_history``).
"""

from __future__ import annotations

import sqlite3

from ._annotations import ensure_tag, named_tag, check_colour, check_tag
from ._errors import AnnotationInputError
from . import _visible
from ._history import Action
from ._reports import Tag

__all__ = ["delete_tag", "describe_tag", "merge_tags", "rename_tag"]


def describe_tag(conn: sqlite3.Connection, reviewer: str, name: str,
                 description: str | None = None, colour: str | None = None) -> Tag:
    """Create a tag in the vocabulary, or change its description or colour."""
    name = named_tag(conn, name)
    check_colour(colour)
    with Action(conn, reviewer, "describe-tag") as act:
        row = act.get("tag_vocab", {"name": name}) or {
            "description": "", "colour": None, "created_by": reviewer, "created_at": act.at}
        row = dict(row)
        if description is not None:
            row["description"] = description.strip()
        if colour is not None:
            row["colour"] = colour
        act.put("tag_vocab", {"name": name}, row)
        act.summary = f"describe tag {name}"
    return _visible.vocabulary(_visible.Lens.of(conn, reviewer), name)[0]


def _require_tag(act: Action, name: str) -> dict:
    """The vocabulary's row of ``name``; refused as unknown when there is none, or when blind mode
    hides the tag from the reviewer (its known tags: those the reviewer may see)."""
    row = act.get("tag_vocab", {"name": name})
    lens = _visible.Lens.of(act.conn, act.reviewer)
    if row is None or not lens.sees_tag(name, row["created_by"], row["description"]):
        known = [t["name"] for t in _visible.vocab_rows(lens)]
        raise AnnotationInputError(
            f"no tag {name!r} in the vocabulary; known tags: {', '.join(known[:20]) or 'none'}"
        )
    return row


def _move_tag(act: Action, old: str, new: str) -> int:
    row = _require_tag(act, old)
    if old == new:
        return 0
    if act.get("tag_vocab", {"name": new}) is None:
        act.put("tag_vocab", {"name": new}, row)
    uses = act.conn.execute(
        "SELECT paper_id, reviewer, created_at FROM paper_tags WHERE tag = ? ORDER BY paper_id, reviewer",
        (old,)).fetchall()
    for pid, who, at in uses:  # each reviewer's tag moves, and stays that reviewer's
        act.put("paper_tags", {"paper_id": pid, "tag": old, "reviewer": who}, None)
        if act.get("paper_tags", {"paper_id": pid, "tag": new, "reviewer": who}) is None:
            act.put("paper_tags", {"paper_id": pid, "tag": new, "reviewer": who}, {"created_at": at})
    act.put("tag_vocab", {"name": old}, None)
    return len({pid for pid, _, _ in uses})


def rename_tag(conn: sqlite3.Connection, reviewer: str, old: str, new: str) -> int:
    """Rename a tag everywhere; renaming onto an existing tag merges the two.

    Returns how many papers carried the old tag.
    """
    old, new = named_tag(conn, old), check_tag(new)
    with Action(conn, reviewer, "rename-tag") as act:
        moved = _move_tag(act, old, new)
        act.summary = f"rename tag {old} -> {new} ({moved} papers)"
    return moved


def merge_tags(conn: sqlite3.Connection, reviewer: str, tags, into: str) -> int:
    """Merge several tags into ``into`` (created if new) in one action; returns papers moved."""
    into = check_tag(into)
    names = [named_tag(conn, t) for t in ([tags] if isinstance(tags, str) else tags)]
    moved = 0
    with Action(conn, reviewer, "merge-tags") as act:
        for name in names:
            _require_tag(act, name)
        ensure_tag(act, into)
        for name in dict.fromkeys(names):
            if name != into:
                moved += _move_tag(act, name, into)
        act.summary = f"merge tags {', '.join(names)} into {into} ({moved} papers)"
    return moved


def delete_tag(conn: sqlite3.Connection, reviewer: str, name: str) -> int:
    """Delete a tag from the vocabulary and from every paper; returns papers untagged."""
    name = named_tag(conn, name)
    with Action(conn, reviewer, "delete-tag") as act:
        _require_tag(act, name)
        rows = conn.execute(
            "SELECT paper_id, reviewer FROM paper_tags WHERE tag = ? ORDER BY paper_id, reviewer", (name,)).fetchall()
        for pid, who in rows:
            act.put("paper_tags", {"paper_id": pid, "tag": name, "reviewer": who}, None)
        act.put("tag_vocab", {"name": name}, None)
        papers = len({pid for pid, _ in rows})
        act.summary = f"delete tag {name} ({papers} papers)"
    return papers
