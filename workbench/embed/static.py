"""A model2vec static model distilled once from the local MiniLM: numpy-only embedding.

Distilling needs torch once (about a minute) and saves the model under the workbench cache
(``<cache>/models/``); embedding with it never imports torch.

:func:`encode` is model2vec's ``StaticModel.encode``, bit for bit, without its Python work per
token (dropping unknown tokens from lists and bucketing by list length): the token ids go into
one numpy array per batch of 1,024 texts, and each batch's means are the same numpy calls on the
same arrays as model2vec's, so the vectors are identical (tests/test_embed.py). At 50,000
abstracts that is about half of model2vec's time here.
"""

from __future__ import annotations

import functools
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Sequence

import numpy as np

from .._runtime.halves import in_halves
from ..errors import EmbedderError
from .._runtime.fsutil import workbench_cache_dir
from .minilm import minilm_path
from ._wordpiece import WordPieces
from .protocol import BaseEmbedder, normalise_rows, progress_bar

__all__ = ["StaticEmbedder", "encode"]

log = logging.getLogger(__name__)


class StaticEmbedder(BaseEmbedder):
    """A model2vec static model distilled once from the local MiniLM; numpy-only afterwards.

    The distilled model is saved under ``<cache>/models/``; distilling needs torch once
    (about a minute), embedding never does. ``progress`` shows a bar for long lists of texts.
    """

    name = "static"
    PCA_DIMS = 256

    def __init__(self, model_dir: str | Path | None = None, progress: bool = True):
        self.model_dir = Path(model_dir) if model_dir else workbench_cache_dir() / "models" / "minilm-static-256"
        self.progress = progress
        self._model = None
        self._pieces = None  # the model's tokenizer, word by word (see _wordpiece)

    @property
    def version(self) -> str:
        return f"model2vec-distilled-minilm-{self.PCA_DIMS}/1"

    def distill(self) -> Path:
        """Distil the static model from MiniLM into ``model_dir`` (once)."""
        if (self.model_dir / "model.safetensors").exists():
            return self.model_dir
        log.warning("distilling a static embedding model from MiniLM into %s (once, ~1 min)", self.model_dir)
        path = minilm_path()
        if os.path.isdir(path):
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from model2vec.distill import distill
        except ImportError as err:
            raise EmbedderError(
                "the static embedder needs model2vec's distiller once: pip install 'model2vec[distill]'"
            ) from err
        model = distill(model_name=path, pca_dims=self.PCA_DIMS)
        self.model_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.model_dir.with_name(self.model_dir.name + f".tmp{os.getpid()}")
        model.save_pretrained(str(tmp))
        try:
            tmp.rename(self.model_dir)  # atomic: a concurrent distiller may have won the race
        except OSError:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
        return self.model_dir

    def model(self):
        if self._model is None:
            from model2vec import StaticModel

            self._model = StaticModel.from_pretrained(str(self.distill()))
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        model = self.model()
        if self._pieces is None and WordPieces.supports(model.tokenizer):
            self._pieces = WordPieces(model.tokenizer, model.max_length)
        os.environ["TOKENIZERS_PARALLELISM"] = "false"  # (before a fork, too: see encode)
        here = os.getpid()
        with progress_bar(texts, "embedding (static)", 2_000_000, self.progress) as bar:
            def part(items: Sequence[str]) -> np.ndarray:  # here, or (the second half) in a forked process
                return encode(model, items, progress=bar.update if os.getpid() == here else None, pieces=self._pieces)

            if len(texts) >= 2 * KERNEL_MIN and model.embedding.dtype in (np.float16, np.float32):
                _kernel(), _table32(model)  # loaded once, before a fork: shared with the second process, not made again
            parts = in_halves(part, texts, SPLIT_MIN, step=BATCH, what="embedding")
            if len(parts) > 1:
                bar.update(len(parts[1]))
            return normalise_rows(parts[0] if len(parts) == 1 else np.concatenate(parts), in_place=True)  # (ours)


BATCH = 1024  # model2vec's batch size: the means below are computed per batch, as its are
#: From this many texts, the second half is embedded in a second process (:mod:`workbench._runtime.halves`):
#: the token ids are Python work.
SPLIT_MIN = 4_000
#: Texts from which the compiled means (numba) pay for loading them: in one call, or in this
#: process so far (a Dask worker embeds partitions of 5,000 texts, one call each: at a million
#: papers, the compiled means took a partition's means from ~4.7 s to ~2.1 s here).
KERNEL_MIN = 20_000
_encoded = {"texts": 0}  # texts this process has encoded


def encode(model, texts: Sequence[str], threads: int | None = None, progress=None,
           pieces: WordPieces | None = None) -> np.ndarray:
    """``model.encode(texts)`` of a model2vec ``StaticModel``, the same array, faster.

    ``pieces`` (a :class:`WordPieces` of the model's tokenizer, kept between calls) gives the
    token ids in this thread while the means of earlier batches are taken on another; without
    it, the tokenizer does, on ``threads`` threads (default: up to 4, one per CPU).
    ``progress(n)`` is called as each batch of n texts is done. A model with a token mapping or
    weights goes to model2vec itself.
    """
    if model.token_mapping is not None or model.weights is not None:
        return model.encode(list(texts))
    progress = progress or (lambda n: None)
    limit = model.max_length
    if limit is not None:
        texts = [text[: limit * model.median_token_length] for text in texts]
        model.tokenizer.enable_truncation(limit)
    else:
        model.tokenizer.no_truncation()
    if pieces is not None and pieces.max_tokens != limit:
        raise ValueError(f"WordPieces truncates at {pieces.max_tokens} tokens, the model at {limit}")
    batches = [texts[i : i + BATCH] for i in range(0, len(texts), BATCH)]
    if not batches:
        return np.zeros((0, model.dim), dtype=_out_dtype(model))
    many = len(texts) >= KERNEL_MIN or _encoded["texts"] >= KERNEL_MIN
    _encoded["texts"] += len(texts)
    means = partial(_means, model, _kernel() if many else None, progress)
    threads = threads or min(4, os.cpu_count() or 1)
    os.environ["TOKENIZERS_PARALLELISM"] = "false"  # as model2vec does: the threads are the parallelism
    with ThreadPoolExecutor(max(1, threads)) as pool:
        if pieces is not None:
            parts = [pool.submit(means, *pieces.batch(batch)) for batch in batches]
        else:
            parts = [pool.submit(lambda b: means(*_tokenize(model.tokenizer, b)), batch) for batch in batches]
        return np.concatenate([part.result() for part in parts], axis=0)


def _out_dtype(model) -> np.dtype:
    return np.dtype(np.float32) if model.embedding.dtype == np.int8 else model.embedding.dtype


def _tokenize(tokenizer, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    encodings = tokenizer.encode_batch_fast(texts, add_special_tokens=False)
    counts = np.fromiter(map(len, encodings), dtype=np.int64, count=len(encodings))
    ids = np.fromiter(chain.from_iterable(e.ids for e in encodings), dtype=np.int64, count=int(counts.sum()))
    return ids, counts


def _means(model, kernel, progress, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """model2vec's ``StaticModel._encode_batch`` (no token mapping, no weights) on numpy ids:
    its float16 means (float32 sums, token by token), by ``kernel`` or its own numpy calls."""
    if model.unk_token_id is not None:  # model2vec drops unknown tokens before it averages
        kept = ids != model.unk_token_id
        counts = np.bincount(np.repeat(np.arange(len(counts)), counts)[kept], minlength=len(counts))
        ids = ids[kept]
    starts = np.cumsum(counts) - counts
    out = np.zeros((len(counts), model.dim), dtype=_out_dtype(model))
    if kernel is not None and model.embedding.dtype in (np.float16, np.float32):
        sums = np.zeros((len(counts), model.dim), dtype=np.float32)
        kernel(_table32(model), ids, counts, sums)
        out[:] = sums
    else:
        order = np.argsort(counts, kind="stable")  # texts of one token count, in order: a bucket
        lengths, firsts = np.unique(counts[order], return_index=True)
        for length, rows in zip(lengths, np.split(order, firsts[1:])):
            if length:
                out[rows] = model.embedding[ids[starts[rows][:, None] + np.arange(length)]].mean(axis=1)
    if model.normalize:
        out32 = out.astype(np.float32)
        norm = np.linalg.norm(out32, axis=1, keepdims=True) + 1e-32
        out = (out32 / norm).astype(out.dtype)
    progress(len(out))
    return out


_TABLES: dict = {}  # id of a model's vectors -> (those vectors, kept so the id stays theirs; float32)


def _table32(model) -> np.ndarray:
    kept = _TABLES.get(id(model.embedding))
    if kept is None or kept[0] is not model.embedding:
        kept = (model.embedding, model.embedding.astype(np.float32))  # exact for float16
        _TABLES.clear()
        _TABLES[id(model.embedding)] = kept
    return kept[1]


@functools.cache
def _kernel():
    """numpy's ``table[ids].mean(axis=1)`` of each text: float32 sums from 0, token by token,
    divided by the count, without building the (texts, tokens, dims) array. Compiled once
    (numba, kept on disk) and run without the GIL."""
    from .._runtime.numba_cache import use_cache_dir

    cache = use_cache_dir()
    import numba

    @numba.njit(nogil=True, cache=cache)
    def means(table, ids, counts, out):
        start = 0
        for text in range(counts.shape[0]):
            n = counts[text]
            row = out[text]
            for t in range(start, start + n):
                vector = table[ids[t]]
                for j in range(row.shape[0]):
                    row[j] += vector[j]
            if n:
                for j in range(row.shape[0]):
                    row[j] = row[j] / np.float32(n)
            start += n

    return means
