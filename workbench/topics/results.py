"""A fitted :class:`~workbench.topics.TopicModel`'s results kept in a folder, and the model back
from them without fitting again (a rebuild of an unchanged corpus).

The folder holds the topics of every paper (``arrays.safetensors``: the final and HDBSCAN's
topics, the 5-d UMAP space), what the fit found and said (``results.json``: words, table,
typical papers, method, timings) and the fitted BERTopic model as :meth:`TopicModel.save`
writes it (``bertopic/``). No pickle: plain numbers and text. A model restored from it has
every fitted attribute, refits (:meth:`~TopicModel.reduce_to`) and saves as the fitted one did.
Which fit the folder belongs to (embeddings, texts, parameters, versions) is the caller's key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from .model import TopicModel
from .represent import TOPIC_COLUMNS, EmbedWords, documents

__all__ = ["RESULTS_VERSION", "load_results", "save_results"]

#: Raise when what a fit gives, or how it is kept, changes (the workbench version is in every key).
RESULTS_VERSION = 1


def save_results(model: TopicModel, folder: str | Path) -> None:
    """Write ``model``'s results into ``folder`` (a new, empty folder: the caller renames it into place)."""
    from safetensors.numpy import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    arrays = {"labels": np.asarray(model.labels_, dtype=np.int64),
              "fine_labels": np.asarray(model.fine_labels_, dtype=np.int64)}
    if model.reduced_embeddings_ is not None:
        arrays["reduced"] = np.ascontiguousarray(model.reduced_embeddings_)
    save_file(arrays, str(folder / "arrays.safetensors"))
    found = {
        "method": model.method_, "note": model.note_, "min_cluster_size": int(model.min_cluster_size_),
        "outlier_share": float(model.outlier_share_), "n_papers": int(model.n_papers_),
        "words": [[int(t), [[w, float(s)] for w, s in ranked]] for t, ranked in model.words_.items()],
        "representative": [[int(t), [int(r) for r in rows]] for t, rows in model.representative_.items()],
        "table": model.topic_info_[TOPIC_COLUMNS].to_dict(orient="records"),
    }
    (folder / "results.json").write_text(json.dumps(found, ensure_ascii=False, default=int), encoding="utf-8")
    model.save(folder / "bertopic")


def load_results(folder: str | Path, params: dict, texts: Sequence[str], embeddings,
                 word_vectors: EmbedWords | None = None) -> TopicModel:
    """The model :func:`save_results` kept in ``folder``, fitted with ``params`` on ``texts`` and
    ``embeddings`` (those of the fit: the caller's key says so). Raises ``OSError`` or
    ``ValueError`` when the folder is incomplete."""
    import pandas as pd
    from safetensors.numpy import load_file

    folder = Path(folder)
    arrays = load_file(str(folder / "arrays.safetensors"))
    found = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    if not (folder / "bertopic").is_dir() or len(arrays["labels"]) != len(texts):
        raise ValueError(f"{folder}: incomplete topic results")
    model = TopicModel(**params)
    model.labels_ = np.asarray(arrays["labels"], dtype=int)
    model.fine_labels_ = np.asarray(arrays["fine_labels"], dtype=int)
    model.reduced_embeddings_ = arrays.get("reduced")
    model.method_, model.note_ = found["method"], found["note"]
    model.min_cluster_size_, model.outlier_share_ = found["min_cluster_size"], found["outlier_share"]
    model.timings_, model.n_papers_ = {}, found["n_papers"]  # timings_: nothing ran
    model.words_ = {t: [(w, s) for w, s in ranked] for t, ranked in found["words"]}
    model.representative_ = {t: rows for t, rows in found["representative"]}
    table = pd.DataFrame(found["table"], columns=TOPIC_COLUMNS)
    model.topic_info_ = table.astype({"topic": np.int64, "size": np.int64})
    model.restored(folder / "bertopic", (documents(texts), np.asarray(embeddings, dtype=np.float32), word_vectors))
    return model
