"""Replaying a labelled file through the ranked queue (``workbench simulate``).

:func:`read_labelled` reads a table (CSV, TSV or XLSX, every row in file order, as ASReview
reads it) with a title and/or abstract column and a 0/1 label column; :func:`simulate_file`
replays it with :func:`workbench.screening.simulate` (one include and one exclude to start,
per seed) and :func:`simulation_json` is the ``--format json`` document: the means over the
seeds, the rows per seed under ``runs``, and per stopping rule where it stopped and the recall
then (``stopping``: the means over the seeds; each run has its own).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..corpus.clean import clean_text
from ..errors import InputError
from ..readers import FIELD_ALIASES
from ..corpus.paper import Paper
from ..screening import MODELS, Features, Simulation, get_model, simulate
from ._text import document_text

__all__ = ["read_labelled", "simulate_file", "simulation_json"]

_SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
_SUFFIXES = ".csv, .tsv or .xlsx"


def _norm(name) -> str:
    return re.sub(r"[\s_\-./]+", " ", str(name).strip().lower()).strip()


def _read_table(path: Path):
    import pandas as pd

    suffix = path.suffix.lower()
    if not path.is_file():
        what = "not a regular file (a folder or device)" if path.exists() else "no such file"
        raise InputError(f"{path}: {what}; give a {_SUFFIXES} table with a 0/1 label column")
    if suffix not in _SEPARATORS and suffix != ".xlsx":
        raise InputError(f"{path}: a simulation reads {_SUFFIXES} tables, not {suffix or 'files without a suffix'!r};"
                         " export the labelled records as CSV (one row per record, a 0/1 label column)")
    try:
        if suffix == ".xlsx":
            return pd.read_excel(path, dtype=str)
        return pd.read_csv(path, sep=_SEPARATORS[suffix], dtype=str, encoding="utf-8-sig")
    except (OSError, ValueError, UnicodeDecodeError, pd.errors.ParserError) as err:
        raise InputError(f"{path}: not readable as a {suffix} table ({err}); check the file is a "
                         f"{suffix} export with a header row") from err


def _column(frame, path: Path, wanted: str) -> str:
    if wanted in frame.columns:
        return wanted
    found = [c for c in frame.columns if _norm(c) == _norm(wanted)]
    if found:
        return found[0]
    shown = ", ".join(map(str, frame.columns[:15])) + (", ..." if len(frame.columns) > 15 else "")
    raise InputError(f"{path}: no column {wanted!r} (its columns: {shown}); pass --label-column NAME, "
                     "the column holding 1 for an included record and 0 for an excluded one")


def _labels(values, path: Path, column: str) -> np.ndarray:
    text = [("" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v).strip()) for v in values]
    as_number = {"0": 0, "1": 1, "0.0": 0, "1.0": 1}
    bad = [(i, v) for i, v in enumerate(text) if v not in as_number]
    if bad:
        row, value = bad[0][0] + 1, bad[0][1]
        what = "is empty" if value == "" else f"has {value!r}"
        raise InputError(f"{path}: column {column!r} must hold 0 (excluded) or 1 (included) in every row; row {row} "
                         f"under the header {what} ({len(bad)} such rows); fill in or drop the rows without a 0/1 "
                         "label, or pick another --label-column")
    labels = np.asarray([as_number[v] for v in text], dtype=np.int64)
    if labels.sum() == 0 or labels.sum() == len(labels):
        raise InputError(f"{path}: column {column!r} has {int(labels.sum())} includes and {int(len(labels) - labels.sum())}"
                         " excludes; a simulation needs at least one of each")
    return labels


def read_labelled(path, label_column: str = "label_included") -> tuple[list[str], np.ndarray]:
    """The texts (title and abstract, as a review embeds them) and the 0/1 labels of every row."""
    texts, _, labels = _read_labelled(path, label_column)
    return texts, labels


def _read_labelled(path, label_column: str) -> tuple[list[str], list[str], np.ndarray]:
    """(texts, titles, labels) of every row."""
    path = Path(path)
    frame = _read_table(path)
    if len(frame) == 0:
        raise InputError(f"{path}: no rows under the header; a simulation needs labelled records")
    column = _column(frame, path, label_column)
    labels = _labels(frame[column].tolist(), path, column)
    by_norm = {_norm(c): c for c in frame.columns}
    pick = {f: next((by_norm[a] for a in FIELD_ALIASES[f] if a in by_norm), None) for f in ("title", "abstract")}
    if pick["title"] is None and pick["abstract"] is None:
        raise InputError(f"{path}: no title or abstract column (looked for {', '.join(FIELD_ALIASES['title'][:3])}, "
                         f"{', '.join(FIELD_ALIASES['abstract'][:3])}, ...); rename the text columns to title and abstract")

    def values(field):
        return [clean_text(v) if isinstance(v, str) else "" for v in frame[pick[field]]] if pick[field] else [""] * len(frame)

    titles = values("title")
    texts = [document_text(Paper(id="", title=t, abstract=a, text=a)) for t, a in zip(titles, values("abstract"))]
    return texts, titles, labels


def _embed(texts: list[str], embedder: str) -> np.ndarray:
    from ..embed import EmbeddingCache, embed_with_cache, get_embedder
    from .._runtime.fsutil import workbench_cache_dir

    with EmbeddingCache(workbench_cache_dir() / "embeddings.sqlite") as cache:
        vectors, _ = embed_with_cache(texts, get_embedder(embedder), cache, corpus=True)
    return vectors


def simulate_file(path, label_column: str = "label_included", seeds=5, model: str | None = None,
                  embedder: str | None = None, baseline: bool = True) -> Simulation:
    """Replay a labelled file once per seed (``seeds``: a count, 1..N, or the seeds themselves).

    Without ``embedder`` the ranker reads TF-IDF only (default ``svm-tfidf``); with one (e.g.
    ``"minilm"``, embedded once and then read from the workbench's cache) the default is the
    queue's default model. ``baseline``: also replay ``svm-tfidf`` (ELAS u4's twin) on the same
    seeds, so the figures can be read against it (``Simulation.baseline``).
    """
    seeds = list(range(1, seeds + 1)) if isinstance(seeds, int) else [int(s) for s in seeds]
    if not seeds or min(seeds) < 0:
        raise InputError(f"seeds={seeds!r}: expected a count >= 1 (--seeds N runs seeds 1..N)")
    if model is not None and get_model(model).features != "tfidf" and embedder is None:
        tfidf = ", ".join(name for name, spec in MODELS.items() if spec.features == "tfidf")
        raise InputError(f"model {model!r} ranks on embeddings; add --embedder minilm (embedded once, then cached) "
                         f"or choose a TF-IDF model: {tfidf}")
    texts, titles, labels = _read_labelled(path, label_column)
    embeddings = _embed(texts, embedder) if embedder is not None else None
    features = Features.from_texts(texts, embeddings=embeddings, titles=titles)
    return simulate(features, labels, seeds=seeds, model=model, baseline=baseline)


def simulation_json(sim: Simulation) -> dict:
    """``workbench simulate --format json``: :meth:`Simulation.to_json` and, under ``stopping``,
    per rule the mean papers screened, recall and work saved where it stopped, and how many
    runs reached a recall of 95 %."""
    data = sim.to_json()
    runs = [run["stopping"] for run in data["runs"]]
    data["stopping"] = {
        rule: {"screened": round(float(np.mean([r[rule]["screened"] for r in runs])), 1),
               "recall": round(float(np.mean([r[rule]["recall"] for r in runs])), 4),
               "work_saved": round(float(np.mean([r[rule]["work_saved"] for r in runs])), 4),
               "runs_with_recall_95": sum(r[rule]["recall"] >= 0.95 for r in runs), "runs": len(runs)}
        for rule in (runs[0] if runs else {})
    }
    return data
