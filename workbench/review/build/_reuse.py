"""What a build reuses from the builds before it, in the review's ``cache/`` folder.

- ``cache/records/``: the papers of unchanged source files (:class:`~workbench.readers.cache.RecordCache`);
- ``cache/embeddings.sqlite``: embeddings by text (:class:`~workbench.embed.EmbeddingCache`);
- ``cache/topics/<key>/``: a topic fit's results (:mod:`workbench.topics.results`), keyed by the
  embeddings, the texts, the topic parameters and seed, the embedder and the versions;
- ``cache/map/<key>.safetensors``: the map's coordinates, keyed by the embeddings, the seed
  and the version;
- ``cache/typical/<key>.json``: each topic's typical papers (:mod:`._typical`);
- ``cache/terms/<key>.npz``: the labels' word counts of the papers' texts, as the build counted
  them beside the embedding (:class:`~workbench.topics.terms.DocumentTerms`, keyed by the texts,
  the version and the topics' code):
  a refit or "Show themes" of the opened review loads them instead of counting (~1 s against
  ~11 s at 50,000 papers). Only the newest is kept (~100 MB at 50,000 papers).

A changed file, text, embedding, parameter or version changes the key, so nothing is ever
served stale. Entries are written under a temporary name and renamed into place; the last
few are kept (:data:`KEEP`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..._version import __version__
from ..._runtime.fsutil import default_file_mode
from ...readers.cache import code_digest
from ...topics.results import RESULTS_VERSION
from ...topics.terms import DocumentTerms

__all__ = ["KEEP", "LAYOUT_CODE", "TOPICS_CODE", "BuildCache", "cache_keys", "digest"]

#: The code kept topics and a kept map are made by, in their keys (``readers.cache.code_digest``):
#: every module this code imports is here or cannot change them (a test checks). What the
#: reading code does reaches the topics' key through the texts.
TOPICS_CODE = ("topics", "embed", "corpus", "_runtime/memory.py", "space/neighbors.py", "space/_nndescent.py")
LAYOUT_CODE = ("space/layout.py", "space/neighbors.py", "space/_nndescent.py")

KEEP = 3  # entries kept per kind (the one just used and the newest others)


def digest(*parts) -> str:
    """A short hex digest of ``parts`` (bytes as they are, anything else by its repr)."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part if isinstance(part, (bytes, memoryview)) else repr(part).encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def embeddings_digest(X: np.ndarray) -> str:
    X = np.ascontiguousarray(X)
    return digest(str(X.dtype), X.shape, memoryview(X).cast("B"))


def texts_digest(texts: Sequence[str]) -> str:
    h = hashlib.blake2b(digest_size=16)
    for text in texts:
        h.update(text.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def cache_keys(report, merged: dict[str, str], X, texts, emb, params: dict) -> dict:
    """What the papers (the files read, the pairs kept apart: ``report.cache_key``; the papers
    ``merged``), the topics and the map of this build depend on (see the module docstring)."""
    papers = report.cache_key if report.cache_key is None or not merged else digest(report.cache_key, sorted(merged.items()))
    x_key = embeddings_digest(X)
    topics = digest("topics", x_key, texts_digest(texts), sorted(params.items()), emb.name, emb.version,
                    RESULTS_VERSION, __version__, code_digest(*TOPICS_CODE))
    layout = digest("map", x_key, params["seed"], __version__, code_digest(*LAYOUT_CODE))
    return {"papers": papers, "topics": topics, "map": layout}


class BuildCache:
    """The review's ``cache/`` folder; ``reused`` lists what came from it in this build."""

    def __init__(self, review_path: str | os.PathLike):
        self.folder = Path(review_path) / "cache"
        self.reused: list[str] = []

    def topics(self, key: str, fit: Callable, load: Callable):
        """The topic model of ``key``: ``load(folder)`` of the results kept for it, else ``fit()``
        (its results then kept)."""
        from ...topics.results import save_results

        entry = self.folder / "topics" / key
        if entry.is_dir():
            try:
                model = load(entry)
                self.reused.append("topics")
                _touch(entry)
                return model
            except Exception:  # incomplete or damaged (any library's error): fit again
                pass
        model = fit()
        self._put_folder(entry, lambda tmp: save_results(model, tmp))
        return model

    def has_topics(self, key: str) -> bool:
        """Whether topics of ``key`` are kept (:meth:`topics` may still fit them again, if damaged)."""
        return (self.folder / "topics" / key).is_dir()

    def has_layout(self, key: str) -> bool:
        """Whether the map of ``key`` is kept (:meth:`layout` may still lay it out again, if damaged)."""
        return self._map_path(key).is_file()

    def _map_path(self, key: str) -> Path:
        return self.folder / "map" / f"{key}.safetensors"

    def layout(self, key: str, fit: Callable[[], tuple[np.ndarray, str]]) -> tuple[np.ndarray, str]:
        """The map's (coordinates, method) of ``key``: kept, else ``fit()`` (then kept)."""
        from safetensors.numpy import load_file, save_file

        path = self._map_path(key)
        try:
            from safetensors import safe_open

            with safe_open(str(path), "numpy") as f:
                method = f.metadata()["method"]
            coords = load_file(str(path))["coords"]
            self.reused.append("map")
            _touch(path)
            return coords, method
        except Exception:  # absent or damaged (any library's error): lay out again
            pass
        coords, method = fit()
        self._put_file(path, lambda tmp: save_file({"coords": np.ascontiguousarray(coords)}, str(tmp),
                                                   metadata={"method": method}))
        return coords, method

    def terms(self, key: str) -> DocumentTerms | None:
        """The word counts kept for texts of ``key`` (:func:`~workbench.topics.terms.texts_key`),
        or None: what a topic model is handed as ``terms`` to ask for them."""
        path = self._terms_path(key)
        try:
            found = DocumentTerms.from_file(path)
        except (OSError, ValueError, KeyError):  # absent or damaged: counted again
            return None
        _touch(path)
        return found if found.key == key else None

    def has_terms(self, key: str) -> bool:
        """Whether word counts of texts of ``key`` are kept (:meth:`terms` may still find them damaged)."""
        return self._terms_path(key).is_file()

    def keep_terms(self, path: Path, key: str) -> None:
        """Keep the word counts written to ``path`` (a file in this cache's folder) as those of
        texts of ``key``, the only ones kept; ``path`` is gone either way."""
        final = self._terms_path(key)
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            _umask_modes(path)
            os.replace(path, final)
            for other in final.parent.iterdir():
                if other != final and not other.name.startswith("."):
                    other.unlink(missing_ok=True)
        except OSError:  # a full disk or a read-only folder: counted again when needed
            Path(path).unlink(missing_ok=True)

    def _terms_path(self, key: str) -> Path:
        return self.folder / "terms" / f"{digest('terms', key, __version__, code_digest(*TOPICS_CODE))}.npz"

    def typical(self, key: str, find: Callable[[], dict[int, list[str]]]) -> dict[int, list[str]]:
        """Each topic's typical paper ids of ``key``: kept, else ``find()`` (then kept)."""
        path = self.folder / "typical" / f"{key}.json"
        try:
            kept = json.loads(path.read_text("utf-8"))
            kept = {int(topic): [str(i) for i in ids] for topic, ids in kept.items()}
            self.reused.append("typical papers")
            _touch(path)
            return kept
        except (OSError, ValueError, AttributeError, TypeError):  # absent or damaged: find them again
            pass
        found = find()
        text = json.dumps({str(topic): ids for topic, ids in found.items()})
        self._put_file(path, lambda tmp: tmp.write_text(text, "utf-8"))
        return found

    # ------------------------------------------------------------------ writing, atomically

    def _put_folder(self, entry: Path, write: Callable[[Path], None]) -> None:
        tmp = entry.parent / f".{entry.name}.tmp{os.getpid()}.{secrets.token_hex(3)}"
        try:
            write(tmp)
            _umask_modes(tmp)
            if entry.exists():  # another build kept the same results meanwhile
                shutil.rmtree(entry, ignore_errors=True)
            tmp.rename(entry)
            _prune(entry.parent, keep=entry.name)
        except OSError:  # a full disk or a read-only folder: the next build fits again
            pass
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _put_file(self, path: Path, write: Callable[[Path], None]) -> None:
        tmp = path.parent / f".{path.name}.tmp{os.getpid()}.{secrets.token_hex(3)}"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write(tmp)
            _umask_modes(tmp)
            os.replace(tmp, path)
            _prune(path.parent, keep=path.name)
        except OSError:
            pass
        finally:
            tmp.unlink(missing_ok=True)


def _umask_modes(path: Path) -> None:
    """Files as the user's umask makes them (a team's folder: group-writable), not the 0600
    that libraries (safetensors) and temporary files give."""
    mode = default_file_mode()
    for file in [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]:
        os.chmod(file, mode)


def _touch(path: Path) -> None:
    try:
        os.utime(path)
    except OSError:
        pass


def _prune(folder: Path, keep: str) -> None:
    """Remove all but the :data:`KEEP` newest entries of ``folder`` (never ``keep``)."""
    entries = sorted((e for e in folder.iterdir() if not e.name.startswith(".")),
                     key=lambda e: e.stat().st_mtime, reverse=True)
    kept = 1
    for entry in entries:
        if entry.name == keep:
            continue
        if kept < KEEP:
            kept += 1
            continue
        shutil.rmtree(entry, ignore_errors=True) if entry.is_dir() else entry.unlink(missing_ok=True)
