"""Opening a built review from its folder (the generation of files its store names)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from . import _folder as files
from ..corpus.texts import read_papers
from ..errors import ReviewError, WorkbenchError
from ..store import Store
from ..store import DB_NAME
from ._review import TOPIC_TABLE_COLUMNS, Loaded, Review, TopicMap
from ._verify import FileProblem, rebuild_command, verify
from .build._build import DEFAULT_REVIEW, FORMAT_VERSION, build

__all__ = ["damaged", "is_review", "open_or_build", "open_review"]


def _current_generation(path: Path) -> str | None:
    if not (path / DB_NAME).exists():
        return None
    with Store.open(path, create=False) as store:
        return store.files.generation()


def _shown(where: Path, review: Path, name: str) -> str:
    return (where / name).relative_to(review).as_posix() if where != review else name


def damaged(path: Path, problems: list, manifest: dict | None) -> ReviewError:
    """The error for a review whose current files are missing or damaged: which file, and the
    command that writes them again."""
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return ReviewError(
        f"{path} is incomplete or damaged: {problems[0]}{more}; write its files again with "
        f"`{rebuild_command(path, manifest)}` (tags, notes and decisions are in the store "
        f"and are kept; `workbench check --review {path}` lists every problem)")


def is_review(path: str | os.PathLike) -> bool:
    """Whether ``path`` holds a built review (its current files complete)."""
    path = Path(path)
    try:
        return (files.files_dir(path, _current_generation(path)) / "build.json").exists()
    except WorkbenchError:  # a store that cannot be opened: a review, if a damaged one
        return True


def open_or_build(
    review: str | os.PathLike = DEFAULT_REVIEW,
    sources: Sequence[str | os.PathLike] | str = ("seeds",),
    rebuild: bool = False,
    **build_params,
) -> Review:
    """Open ``review``; build it from ``sources`` first when it does not exist (or ``rebuild``)."""
    if rebuild or not is_review(review):
        return build(sources, review=review, **build_params)
    return open_review(review)


def open_review(path: str | os.PathLike = DEFAULT_REVIEW, *, like: Review | None = None) -> Review:
    """Load a review folder written by :func:`build`. ``like``: a review of this folder read
    earlier (reading it again after another notebook or the command line saved new topics or
    rebuilt it): its embeddings already in memory are kept when the papers are the same."""
    import pandas as pd
    from safetensors.numpy import load_file

    path = Path(path)
    generation = _current_generation(path)
    where = files.files_dir(path, generation)
    if not (where / "build.json").exists():
        if generation is not None:
            raise ReviewError(f"{path}: its current files {where} are missing; check the review with "
                              f"`workbench check --review {path}` or rebuild it with `workbench build --review {path}`")
        raise ReviewError(f"{path} is not a built review (no build.json); run `workbench build --review {path}` first")
    try:
        manifest = json.loads((where / "build.json").read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as err:
        raise damaged(path, [FileProblem(_shown(where, path, "build.json"), f"not whole JSON ({err})")],
                      None) from err
    if manifest.get("format_version", 0) > FORMAT_VERSION:
        raise ReviewError(f"{path} was built by a newer workbench (format {manifest['format_version']}); upgrade workbench")
    problems = verify(path, generation, deep=False)  # sizes against build.json: cheap
    if problems:
        raise damaged(path, problems, manifest)
    try:
        papers, texts = read_papers(where / "papers.jsonl")
        topics_doc = json.loads((where / "topics.json").read_text(encoding="utf-8"))
        arrays = load_file(str(where / "arrays.safetensors"))
    except Exception as err:  # SafetensorError, a damaged line...: find which file, and say so
        found = verify(path, generation, deep=True)
        raise damaged(path, found or [FileProblem(_shown(where, path, "papers.jsonl, topics.json or "
                                                                 "arrays.safetensors"),
                                                        f"unreadable ({type(err).__name__}: {err})")],
                      manifest) from err
    topics = pd.DataFrame(topics_doc["topics"], columns=TOPIC_TABLE_COLUMNS)
    if len(arrays["labels"]) != len(papers):
        raise damaged(path, [FileProblem(_shown(where, path, "papers.jsonl"),
                                               f"{len(papers):,} papers, but the arrays hold "
                                               f"{len(arrays['labels']):,} topic labels")], manifest)
    kept = like is not None and like.embeddings_loaded and [p.id for p in papers] == like.ids
    found = TopicMap(topics, arrays["labels"], arrays["coords"], arrays.get("reduced"), arrays.get("fine_labels"))
    review = Review(path, manifest, papers, found, generation=generation, texts=texts,
                    loaded=Loaded(like.embeddings(), like.embedder()) if kept else None)
    review.refresh_topics()
    return review
