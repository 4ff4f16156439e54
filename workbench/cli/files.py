"""The annotation store as files, from the command line: export, backup, restore, check and
import-annotations.

Each works on the store of ``--review DIR`` as ``--reviewer NAME``. ``export`` to standard
output is the data as it is; every message shows control characters escaped. In blind mode an
export holds the reviewer's own work and what blind mode shows them; ``--all-reviewers`` exports
everyone's, says so on standard error and is recorded in the review's history. ``check`` exits
1 when it finds a problem. :func:`register` adds the commands to a parser.
"""

from __future__ import annotations

from pathlib import Path

from ..review import check_review
from ..review import import_annotations as merge_annotations
from ..store import DB_NAME, FORMATS, Store, StoreError
from ..store import restore as restore_snapshot
from .common import Reply, add_all_reviewers, add_store_command, blind_notes, on_store

__all__ = ["register"]


@on_store()
def export(args, store: Store) -> Reply:
    to_file = args.output not in (None, "-")
    text = store.files.export(args.format, args.output if to_file else None, all_reviewers=args.all_reviewers)
    notes = blind_notes(store, args.all_reviewers, "exporting", "export")
    if to_file:
        return Reply(err=[*notes, f"wrote {args.format} export to {args.output}"])
    return Reply(err=notes, data=text)  # data: byte-exact


@on_store()
def backup(args, store: Store) -> Reply:
    snap = store.files.backup("manual")
    return Reply([f"snapshot: {snap.path}",
                  f"restore it with `workbench restore {snap.path.name} --review {args.review}`"])


def restore(args) -> int:
    """Works whatever state the store is in: a damaged or missing one is set aside and replaced
    (never opened by this process, so nothing of it is locked here)."""
    done = restore_snapshot(args.review, args.snapshot, reviewer=args.reviewer, force=args.force)
    return Reply(done.lines(Path(args.review))).show()


def check(args) -> int:
    """The store and every file of the current set; works on a store that cannot be opened."""
    report = check_review(args.review, reviewer=args.reviewer)
    return Reply(list(report.lines), code=0 if report.ok else 1).show()


def import_annotations(args) -> int:
    """Merge a JSONL export into an existing review only: a missing one is an error, not a new store."""
    folder = Path(args.review).expanduser()
    if not (folder.is_file() or (folder / DB_NAME).is_file()):
        what = "does not exist" if not folder.exists() else f"has no annotation store ({DB_NAME})"
        raise StoreError(
            f"review folder {str(folder)!r} {what}; import-annotations merges a JSONL export into "
            f"an existing review: build the review first (`workbench build SOURCES --review "
            f"{folder}`) or pass --review with the folder of an existing review")
    return _merge(args)


@on_store()
def _merge(args, store: Store) -> Reply:
    report = merge_annotations(store, args.file, args.allow_orphans)  # with the papers the reviewers now disagree on
    return Reply(str(report).split("\n"))  # its own line breaks; the data in it is quoted


def register(subparsers) -> None:
    """Add export, backup, restore, check and import-annotations to ``argparse`` sub-parsers."""
    p = add_store_command(subparsers, "export", export,
                          "write the annotations as jsonl, csv, bibtex, ris or markdown")
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write to FILE (default, or -: standard output); never onto a review's own files")
    add_all_reviewers(p, "export")

    add_store_command(subparsers, "backup", backup, "snapshot the annotation store into REVIEW/backups/")

    p = add_store_command(subparsers, "restore", restore,
                          "put a snapshot back into the store (default: the newest; checked "
                          "first; the current store is snapshotted, or set aside when it cannot "
                          "be opened)")
    p.add_argument("snapshot", metavar="SNAPSHOT", nargs="?", default=None,
                   help="a file name in REVIEW/backups/ or a path (default: the newest)")
    p.add_argument("--force", action="store_true",
                   help="restore a snapshot of another review (the review keeps its own files)")

    add_store_command(subparsers, "check", check,
                      "check the store (integrity, references, orphans, snapshots) and every "
                      "file of the review's current set (exit 1 on problems)")

    p = add_store_command(subparsers, "import-annotations", import_annotations,
                          "merge a JSONL export into this review (idempotent; conflicts reported)")
    p.add_argument("file", metavar="FILE.jsonl")
    p.add_argument("--allow-orphans", action="store_true",
                   help="import even when most of the file's papers are not in this review (another "
                        "review's export): their annotations are kept as orphans")
