"""Opening a built review from its folder (the generation of files its store names)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Sequence

from . import _folder as files
from ..errors import ReviewError, WorkbenchError
from .build._build import DEFAULT_REVIEW, FORMAT_VERSION, build
from ._review import STORE_FILE, TOPIC_TABLE_COLUMNS, Review
from ..corpus.texts import read_papers

__all__ = ["is_review", "open_or_build", "open_review"]


def _current_generation(path: Path) -> str | None:
    from ..store import Store

    if not (path / STORE_FILE).exists():
        return None
    with Store.open(path, create=False) as store:
        return store.generation()


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


def open_review(path: str | os.PathLike = DEFAULT_REVIEW) -> Review:
    """Load a review folder written by :func:`build`."""
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
        papers, texts = read_papers(where / "papers.jsonl")
        topics_doc = json.loads((where / "topics.json").read_text(encoding="utf-8"))
        arrays = load_file(str(where / "arrays.safetensors"))
    except (OSError, ValueError, KeyError) as err:
        raise ReviewError(f"{path} is incomplete or damaged ({err}); rebuild it with `workbench build --review {path}`") from err
    if manifest.get("format_version", 0) > FORMAT_VERSION:
        raise ReviewError(f"{path} was built by a newer workbench (format {manifest['format_version']}); upgrade workbench")
    topics = pd.DataFrame(topics_doc["topics"], columns=TOPIC_TABLE_COLUMNS)
    if len(arrays["labels"]) != len(papers):
        raise ReviewError(f"{path}: {len(papers)} papers but {len(arrays['labels'])} topic labels; rebuild the review")
    review = Review(path, manifest, papers, topics, arrays["labels"], arrays["coords"], arrays.get("reduced"),
                    arrays.get("fine_labels"), generation=generation, texts=texts)
    review.refresh_topics()
    return review
