"""The review folder on disk: its files in generations, switched in one step the store records.

A build or a saved topic run writes a complete new set of the review's files (papers, topics,
map coordinates, arrays, the model, build.json) into ``generations/<name>/`` beside the current
set; only then does one store transaction record the run's topics together with the name of
the new set (``store.files.set_generation``). Until that commit the previous set is the review's and is
never touched; after it the new set is complete. A crash between any two writes therefore
leaves either the previous review or the new one, whole. Older sets are removed later (the newest
few are kept, and none younger than ten minutes, which another process may still be committing).

``map.html`` at the top of the folder is a view for people, rewritten after each commit.
Reviews built before generations keep their files at the top level until their next save.

``build.json``, written last, records every other file of its generation with its size and
SHA-256 (``files``), which ``workbench check`` verifies (``workbench.review._verify``); a new
generation shares the previous one's papers.jsonl only while it is as recorded.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .._runtime.fsutil import atomic_write_text, default_file_mode, fsync_path
from ..corpus.paper import paper_line
from ..space.htmlmap import write_map_html
from ..store import GENERATIONS
from ..topics import TOPIC_COLUMNS

__all__ = [
    "FILES",
    "GENERATIONS",
    "KEEP",
    "LEGACY_FILES",
    "WRITE_STEPS",
    "discard",
    "files_dir",
    "install",
    "map_is_whole",
    "publish_map",
    "record_files",
    "recorded_files",
    "sha256",
    "stage",
    "tidy",
    "write_generation",
]

log = logging.getLogger(__name__)

KEEP = 3  # generations kept besides the current one
MIN_AGE_S = 600  # never remove a generation younger than this: another process may be saving it
LEGACY_FILES = ("build.json", "papers.jsonl", "topics.json", "map.csv", "arrays.safetensors", "model")
FILES = "files"  # build.json's record of the other files: {name: {"size": bytes, "sha256": hex}}

def files_dir(review_path: Path, generation: str | None) -> Path:
    """Where the review's current files are: its generation, or the top level (older reviews)."""
    return Path(review_path) if generation is None else Path(review_path) / GENERATIONS / generation


def stage(review_path: Path) -> tuple[str, Path]:
    """A new generation's name and an empty staging folder for its files."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    name = f"{stamp}-{os.getpid()}-{secrets.token_hex(2)}"
    staging = Path(review_path) / GENERATIONS / f".staging-{name}"
    staging.mkdir(parents=True)
    return name, staging


# ---------------------------------------------------------------------------- the files


def _write_papers(folder: Path, review, model, previous: Path | None) -> None:
    if previous is not None and _sound(previous, "papers.jsonl", len(review.papers)):
        try:  # the same papers (a refit): share the previous file's bytes
            os.link(previous / "papers.jsonl", folder / "papers.jsonl")
            return
        except OSError:
            pass
    whole = review.paper_texts.file_of(review.papers)
    if whole is not None:
        try:  # the papers as read from a file (a Dask build's lines): share its bytes
            os.link(whole, folder / "papers.jsonl")
            return
        except OSError:
            pass
    # Line by line: joining 50,000 records first would double the peak memory.
    with open(folder / "papers.jsonl", "w", encoding="utf-8") as out:
        for p in review.papers_with_texts():
            out.write(paper_line(p) + "\n")


def _write_topics(folder: Path, review, model, previous) -> None:
    # The files keep what the model found; the store keeps the human edits laid over it.
    topics = {
        "method": review.manifest["topics"]["method"],
        "note": review.manifest["topics"]["note"],
        "topics": review.model_topics[TOPIC_COLUMNS].to_dict(orient="records"),
    }
    atomic_write_text(folder / "topics.json", json.dumps(topics, indent=2, ensure_ascii=False, default=int))


def _write_map_csv(folder: Path, review, model, previous) -> None:
    import pandas as pd

    frame = pd.DataFrame({
        "id": [p.id for p in review.papers],
        "topic": review.model_labels,
        "x": review.coords[:, 0],
        "y": review.coords[:, 1],
    })
    atomic_write_text(folder / "map.csv", frame.to_csv(index=False))


def _write_arrays(folder: Path, review, model, previous) -> None:
    from safetensors.numpy import save

    arrays = {"coords": review.coords.astype(np.float32), "labels": review.model_labels.astype(np.int64)}
    if review.reduced is not None:
        arrays["reduced"] = np.asarray(review.reduced, dtype=np.float32)
    if review.fine_labels is not None:
        arrays["fine_labels"] = review.fine_labels.astype(np.int64)
    with open(folder / "arrays.safetensors", "wb") as fh:  # open(): the user's umask, not 0600
        fh.write(save(arrays))


def _write_model(folder: Path, review, model, previous) -> None:
    if model is not None:
        model.save(folder / "model")


def _write_manifest(folder: Path, review, model, previous) -> None:
    manifest = {**review.manifest, FILES: record_files(folder, previous)}
    atomic_write_text(folder / "build.json", json.dumps(manifest, indent=2, ensure_ascii=False))


# In order; build.json last, so a folder with a build.json has every other file.
WRITE_STEPS = (_write_papers, _write_topics, _write_map_csv, _write_arrays, _write_model, _write_manifest)


def write_generation(staging: Path, review, model, previous: Path | None = None) -> None:
    """Write the review's files into ``staging`` (``previous``: the current files, whose
    papers.jsonl is shared when the papers are the same), and flush them to disk."""
    for step in WRITE_STEPS:
        step(staging, review, model, previous)
    mode = default_file_mode()
    for file in staging.rglob("*"):
        if file.is_file():
            if file.stat().st_nlink == 1:  # not the previous generation's shared papers.jsonl
                os.chmod(file, mode)  # libraries write 0600 (safetensors): the user's umask instead
            fsync_path(file)


def install(review_path: Path, name: str, staging: Path) -> Path:
    """Move a finished staging folder to ``generations/<name>`` (not yet the current one)."""
    final = Path(review_path) / GENERATIONS / name
    staging.rename(final)
    fsync_path(final.parent)
    return final


def discard(folder: Path | None) -> None:
    """Remove a generation that was never made current (after a failure)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def publish_map(review_path: Path, review) -> Path:
    """Write the top-level map.html (a view of the current files and topic names)."""
    return write_map_html(review, Path(review_path) / "map.html")


def map_is_whole(review_path: Path) -> bool:
    """Whether the top-level map.html is there and ends as written (not cut short)."""
    try:
        with open(Path(review_path) / "map.html", "rb") as fh:
            fh.seek(max(0, os.fstat(fh.fileno()).st_size - 64))
            return fh.read().rstrip().endswith(b"</html>")
    except OSError:
        return False


def tidy(review_path: Path, current: str) -> None:
    """After a switch: move an older review's top-level files into a generation of their own,
    and remove generations and staging folders that are old and not needed."""
    root = Path(review_path) / GENERATIONS
    legacy = [Path(review_path) / f for f in LEGACY_FILES if (Path(review_path) / f).exists()]
    if legacy:
        stamp = datetime.fromtimestamp(min(p.stat().st_mtime for p in legacy), timezone.utc)
        dest = root / f"{stamp.strftime('%Y%m%dT%H%M%S%fZ')}-legacy"
        dest.mkdir(parents=True, exist_ok=True)
        for item in legacy:
            os.replace(item, dest / item.name)
    now = time.time()
    names = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name, reverse=True)
    kept = 0
    for folder in names:
        if folder.name == current:
            continue
        young = now - folder.stat().st_mtime < MIN_AGE_S
        if folder.name.startswith(".staging-"):
            if not young:
                shutil.rmtree(folder, ignore_errors=True)
            continue
        kept += 1
        if kept > KEEP and not young:
            shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------------------- checking the files


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def recorded_files(folder: Path) -> dict:
    """What ``folder``'s build.json recorded of its other files (empty: nothing recorded)."""
    try:
        found = json.loads((folder / "build.json").read_text(encoding="utf-8")).get(FILES)
    except (OSError, ValueError, AttributeError):
        return {}
    return found if isinstance(found, dict) else {}


def record_files(folder: Path, previous: Path | None = None) -> dict:
    """Every file in ``folder`` (but build.json) with its size and SHA-256; a file shared with
    ``previous`` (the same inode) keeps the digest recorded there instead of being read again."""
    known = recorded_files(previous) if previous is not None else {}
    out = {}
    for file in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "build.json"):
        name = file.relative_to(folder).as_posix()
        st = file.stat()
        old = known.get(name)
        try:
            shared = old is not None and os.path.samefile(previous / name, file)
        except OSError:
            shared = False
        if shared and old.get("size") == st.st_size:
            out[name] = old
        else:
            out[name] = {"size": st.st_size, "sha256": sha256(file)}
    return out


def _sound(folder: Path, name: str, n_papers: int) -> bool:
    """Whether ``folder``'s papers.jsonl may be shared by a new generation: as recorded (size and
    digest), or, for a build that recorded nothing, with one line per paper."""
    path = folder / name
    if not path.is_file():
        return False
    record = recorded_files(folder).get(name)
    if record is not None:
        return path.stat().st_size == record.get("size") and sha256(path) == record.get("sha256")
    with open(path, "rb") as fh:  # a build from before records: one whole line per paper
        lines = sum(1 for line in fh if line.strip())
        fh.seek(max(0, fh.tell() - 1))
        return lines == n_papers and fh.read(1) == b"\n"
