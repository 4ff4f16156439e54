"""Annotating papers from the command line: tag, untag, note, decide, rename-tag, rename-topic.

Each command works on the annotation store of ``--review DIR`` (default ``review``) as
``--reviewer NAME`` (default ``$WORKBENCH_REVIEWER``, then the OS user); a paper is named by
its id or a unique id prefix. User errors are :class:`workbench.errors.WorkbenchError`, which
the main command line prints as one line. :func:`register` adds the commands to a parser.
"""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..corpus.paper import FULL_TEXT, STAGES, TITLE_ABSTRACT
from ..review import screening_of
from ..store import DECISIONS, MAX_NOTE, Store
from .common import Reply, add_store_command, on_store, text_argument

__all__ = ["register"]


@on_store(paper=True, done="tagged")
def tag(args, store: Store, pid: str) -> Reply:
    added = store.tags.add(pid, *args.tags)
    return Reply([f"{pid}: {', '.join(store.tags.of(pid))} ({added} added)"])


@on_store(paper=True, done="untagged")
def untag(args, store: Store, pid: str) -> Reply:
    if not store.tags.remove(pid, args.tag):
        have = ", ".join(store.tags.of(pid)) or "none"
        return Reply(err=[f"workbench: {pid} has no tag {args.tag!r} (its tags: {have})"], code=1)
    return Reply([f"{pid}: removed {args.tag!r}; tags now: {', '.join(store.tags.of(pid)) or 'none'}"])


@on_store(paper=True, done="note added to")
def note(args, store: Store, pid: str) -> Reply:
    text = text_argument(args.text, "the note", MAX_NOTE)
    note_id = store.notes.add(pid, text)
    return Reply([f"{pid}: note #{note_id} saved ({len(text.strip()):,} characters)"])


@on_store(paper=True, done="decided")
def decide(args, store: Store, pid: str) -> Reply:
    settled = screening_of(store, TITLE_ABSTRACT, [pid], all_reviewers=True).decisions()  # the team's outcome
    if args.stage == FULL_TEXT and settled.get(pid) not in ("include", "maybe"):
        raise InputError(f"{pid} is not included at title/abstract (not screened by enough reviewers, excluded, "
                         "or an unresolved conflict), so it has no full-text stage yet; see `workbench conflicts`")
    store.decisions.decide(pid, args.decision, reason=args.reason, stage=args.stage)
    kept = store.decisions.of(pid, stage=args.stage)
    why = f" ({kept.reason})" if kept.reason else ""
    at = "" if args.stage == TITLE_ABSTRACT else " at full text"
    return Reply([f"{pid}: {kept.decision}{why}{at} by {store.reviewer}"])


@on_store()
def rename_tag(args, store: Store) -> Reply:
    n = store.tags.rename(args.old, args.new)
    return Reply([f"tag {args.old!r} is now {args.new!r} on {n} papers"])


@on_store()
def rename_topic(args, store: Store) -> Reply:
    label = " ".join(args.label)
    store.topics.rename(args.topic, label)
    return Reply([f"topic {args.topic} is now {label!r}"])


def _topic_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"topic {text!r} is not a number; see the topic numbers with `workbench topics`"
        ) from None


def register(subparsers) -> None:
    """Add tag, untag, note, decide, rename-tag and rename-topic to ``argparse`` sub-parsers."""
    p = add_store_command(subparsers, "tag", tag, "add tags to a paper")
    p.add_argument("id", metavar="ID", help="paper id or a unique prefix of it")
    p.add_argument("tags", metavar="TAG", nargs="+")

    p = add_store_command(subparsers, "untag", untag, "remove a tag from a paper")
    p.add_argument("id", metavar="ID")
    p.add_argument("tag", metavar="TAG")

    p = add_store_command(subparsers, "note", note, "add a note to a paper")
    p.add_argument("id", metavar="ID")
    p.add_argument("text", metavar="TEXT", nargs="+",
                   help=f"the note; - reads it from standard input, @FILE from a .txt or .md file (at most "
                        f"{MAX_NOTE:,} bytes); @@ starts a note with @")

    p = add_store_command(subparsers, "decide", decide, "record your screening decision on a paper")
    p.add_argument("id", metavar="ID")
    p.add_argument("decision", choices=(*DECISIONS, "not-retrieved"),
                   help="at full text: include, exclude (with --reason) or not-retrieved")
    p.add_argument("--reason", default=None, metavar="TEXT")
    p.add_argument("--stage", default=TITLE_ABSTRACT, choices=STAGES,
                   help=f"the screening stage (default: {TITLE_ABSTRACT})")

    p = add_store_command(subparsers, "rename-tag", rename_tag,
                          "rename a tag on every paper (merges into NEW if it exists)")
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")

    p = add_store_command(subparsers, "rename-topic", rename_topic,
                          "give a topic a name that survives rebuilds")
    p.add_argument("topic", metavar="N", type=_topic_number)
    p.add_argument("label", metavar="LABEL", nargs="+")
