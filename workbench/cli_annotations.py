"""Command-line annotation commands: tag, untag, note, decide, rename-topic, history, undo,
export, import-annotations, and the store's snapshots: backup, restore, check.

``register(subparsers)`` adds them to the ``workbench`` command line. Every command takes
``--review DIR`` (default ``review``) and ``--reviewer NAME`` (default ``$WORKBENCH_REVIEWER``,
then the OS user); a paper is named by its id or a unique id prefix. User errors are raised as
:class:`workbench.errors.WorkbenchError` for the main command line to print as one line.
Messages show control characters in user data escaped (:func:`workbench.terminal.visible`);
``export`` to standard output is the data as it is.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .store import DB_NAME, DECISIONS, FORMATS, Store, StoreError
from .terminal import visible

__all__ = ["register"]


def _open(args, create: bool = False) -> Store:
    return Store.open(args.review, reviewer=args.reviewer, create=create)


def _out(*lines: str) -> None:
    """Print message lines; control characters in user data show escaped, never act."""
    for line in lines:
        sys.stdout.write(visible(line) + "\n")


def _err(line: str) -> None:
    sys.stderr.write(visible(line) + "\n")


def _cmd_tag(args) -> int:
    with _open(args) as store:
        pid = store.resolve(args.id)
        added = store.tag(pid, *args.tags)
        _out(f"{pid}: {', '.join(store.tags(pid))} ({added} added)")
    return 0


def _cmd_untag(args) -> int:
    with _open(args) as store:
        pid = store.resolve(args.id)
        if not store.untag(pid, args.tag):
            have = ", ".join(store.tags(pid)) or "none"
            _err(f"workbench: {pid} has no tag {args.tag!r} (its tags: {have})")
            return 1
        _out(f"{pid}: removed {args.tag!r}; tags now: {', '.join(store.tags(pid)) or 'none'}")
    return 0


def _cmd_note(args) -> int:
    with _open(args) as store:
        pid = store.resolve(args.id)
        note_id = store.note(pid, " ".join(args.text))
        _out(f"{pid}: note #{note_id} saved")
    return 0


def _cmd_decide(args) -> int:
    with _open(args) as store:
        pid = store.resolve(args.id)
        store.decide(pid, args.decision, reason=args.reason)
        why = f" ({args.reason})" if args.reason else ""
        _out(f"{pid}: {args.decision}{why} by {store.reviewer}")
    return 0


def _cmd_rename_topic(args) -> int:
    label = " ".join(args.label)
    with _open(args) as store:
        store.rename_topic(args.topic, label)
        _out(f"topic {args.topic} is now {label!r}")
    return 0


def _cmd_rename_tag(args) -> int:
    with _open(args) as store:
        n = store.rename_tag(args.old, args.new)
    _out(f"tag {args.old!r} is now {args.new!r} on {n} papers")
    return 0


def _cmd_history(args) -> int:
    with _open(args) as store:
        entries = store.history(limit=args.limit, paper=args.paper)
    for entry in entries:
        _out(str(entry))
    if not entries:
        _out("no changes yet")
    return 0


def _cmd_undo(args) -> int:
    with _open(args) as store:
        for entry in store.undo(args.n, everyone=args.everyone):
            _out(f"undid #{entry.id}: {entry.summary}")
    return 0


def _cmd_export(args) -> int:
    with _open(args) as store:
        text = store.export(args.format, args.output)
    if args.output:
        _err(f"wrote {args.format} export to {args.output}")
    else:
        sys.stdout.write(text)  # data: byte-exact
    return 0


def _cmd_import(args) -> int:
    folder = Path(args.review).expanduser()
    if not (folder.is_file() or (folder / DB_NAME).is_file()):
        what = "does not exist" if not folder.exists() else f"has no annotation store ({DB_NAME})"
        raise StoreError(
            f"review folder {str(folder)!r} {what}; import-annotations merges a JSONL export into "
            f"an existing review: build the review first (`workbench build SOURCES --review "
            f"{folder}`) or pass --review with the folder of an existing review")
    with _open(args) as store:
        report = store.import_annotations(args.file)
    _out(*str(report).split("\n"))  # its own line breaks; the data in it is quoted
    return 0


def _cmd_backup(args) -> int:
    with _open(args) as store:
        snap = store.backup("manual")
    _out(f"snapshot: {snap.path}")
    _out(f"restore it with `workbench restore {snap.path.name} --review {args.review}`")
    return 0


def _cmd_restore(args) -> int:
    with _open(args) as store:
        target = store.restore(args.snapshot)
        before = store.snapshots()[0]
    _out(f"restored {target.path.name} ({target.taken_at}, {target.reason})")
    _out(f"the store as it was before is in {before.path.name}; "
         f"`workbench restore {before.path.name} --review {args.review}` puts it back")
    return 0


def _cmd_check(args) -> int:
    with _open(args) as store:
        lines = store.check()
        if store.read_only:
            lines.append(f"read-only for you: {store.read_only}")
    for line in lines:
        _out(line)
    return 0 if lines[0] == "ok" else 1


def _topic_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"topic {text!r} is not a number; see the topic numbers with `workbench topics`"
        ) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def register(subparsers) -> None:
    """Add the annotation commands to an ``argparse`` sub-parsers object."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--review", default="review", metavar="DIR",
                        help="review folder (default: review)")
    common.add_argument("--reviewer", default=None, metavar="NAME",
                        help="who makes the change (default: $WORKBENCH_REVIEWER, else the OS user)")

    def add(name, func, helptext):
        p = subparsers.add_parser(name, parents=[common], help=helptext, description=helptext)
        p.set_defaults(func=func)
        return p

    p = add("tag", _cmd_tag, "add tags to a paper")
    p.add_argument("id", metavar="ID", help="paper id or a unique prefix of it")
    p.add_argument("tags", metavar="TAG", nargs="+")

    p = add("untag", _cmd_untag, "remove a tag from a paper")
    p.add_argument("id", metavar="ID")
    p.add_argument("tag", metavar="TAG")

    p = add("note", _cmd_note, "add a note to a paper")
    p.add_argument("id", metavar="ID")
    p.add_argument("text", metavar="TEXT", nargs="+")

    p = add("decide", _cmd_decide, "record your screening decision on a paper")
    p.add_argument("id", metavar="ID")
    p.add_argument("decision", choices=DECISIONS)
    p.add_argument("--reason", default=None, metavar="TEXT")

    p = add("rename-tag", _cmd_rename_tag, "rename a tag on every paper (merges into NEW if it exists)")
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")

    p = add("rename-topic", _cmd_rename_topic, "give a topic a name that survives rebuilds")
    p.add_argument("topic", metavar="N", type=_topic_number)
    p.add_argument("label", metavar="LABEL", nargs="+")

    p = add("history", _cmd_history, "the latest changes, newest first")
    p.add_argument("--limit", type=_positive, default=20, metavar="N", help="default: 20")
    p.add_argument("--paper", default=None, metavar="ID", help="only changes to this paper")

    p = add("undo", _cmd_undo, "undo your last N changes")
    p.add_argument("n", metavar="N", nargs="?", type=_positive, default=1)
    p.add_argument("--everyone", action="store_true",
                   help="undo the last changes of any reviewer, not only yours")

    p = add("export", _cmd_export, "write the annotations as jsonl, csv, bibtex, ris or markdown")
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write to FILE (default: standard output)")

    p = add("backup", _cmd_backup, "snapshot the annotation store into REVIEW/backups/")

    p = add("restore", _cmd_restore,
            "put a snapshot back into the store (default: the newest; the current store is "
            "snapshotted first)")
    p.add_argument("snapshot", metavar="SNAPSHOT", nargs="?", default=None,
                   help="a file name in REVIEW/backups/ or a path (default: the newest)")

    p = add("check", _cmd_check,
            "check the store: integrity, references, orphans, files and snapshots (exit 1 on "
            "problems)")

    p = add("import-annotations", _cmd_import,
            "merge a JSONL export into this review (idempotent; conflicts reported)")
    p.add_argument("file", metavar="FILE.jsonl")
