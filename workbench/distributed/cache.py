"""Embeddings cached as Parquet files that workers on other machines can share.

One folder per embedder key (``<root>/<name>-<version>/``, the key made safe for a file
name); one file per partition of texts, named by the SHA-256 of the partition's text hashes
(:func:`~workbench.embed.text_hash`), with two columns: ``hash`` and ``vector`` (a fixed-size
list of float32). A worker reads the file of its partition when it exists, else embeds the
partition and writes the file: to a temporary name first, then renamed, so a worker killed
while writing leaves no half file (a rename is atomic on a local disk and on NFS). The folder
can be on any file system every worker sees at the same path (a shared mount).

The SQLite cache (:class:`workbench.embed.EmbeddingCache`) stays the single-machine cache:
many writers on a network file system are what SQLite cannot take.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from pathlib import Path
from typing import Sequence

import numpy as np

__all__ = ["CACHE_DIR", "ParquetCache", "partition_digest"]

#: Under the review folder.
CACHE_DIR = Path("cache") / "embeddings-parquet"


def partition_digest(hashes: Sequence[str]) -> str:
    """The name of a partition's file: the SHA-256 of its text hashes, in order."""
    return hashlib.sha256("\n".join(hashes).encode("ascii")).hexdigest()[:40]


class ParquetCache:
    """Vectors of whole partitions, in Parquet files under ``root`` (see the module docstring)."""

    def __init__(self, root: str | os.PathLike, key: str):
        self.root = Path(root)
        self.key = key
        self.folder = self.root / re.sub(r"[^A-Za-z0-9_.-]+", "-", key)

    def __repr__(self) -> str:
        return f"ParquetCache({str(self.folder)!r})"

    def path(self, hashes: Sequence[str]) -> Path:
        return self.folder / f"{partition_digest(hashes)}.parquet"

    def get(self, hashes: Sequence[str]) -> np.ndarray | None:
        """The vectors of a partition of texts (by their hashes), or None when not cached whole."""
        import pyarrow.parquet as pq

        path = self.path(hashes)
        if not path.exists():
            return None
        table = pq.read_table(path)
        if table.column("hash").to_pylist() != list(hashes):  # a digest collision or a damaged file
            return None
        return _matrix(table)

    def put(self, hashes: Sequence[str], vectors: np.ndarray) -> Path:
        """Write a partition's vectors (temporary file, then renamed); returns the file."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(hashes)
        column = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1])
        tmp = path.with_name(f".{path.stem}.{secrets.token_hex(4)}.tmp")
        try:
            pq.write_table(pa.table({"hash": pa.array(list(hashes), pa.string()), "vector": column}), tmp)
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return path

    def lookup(self, hashes: Sequence[str]) -> np.ndarray | None:
        """The vectors of any texts (by hash) from every file of this key; None when one is missing.

        Reads the whole folder: what a review opened in one kernel does once
        (:meth:`workbench.Review.embeddings`), not what workers do per partition.
        """
        import pyarrow.parquet as pq

        files = sorted(self.folder.glob("*.parquet")) if self.folder.is_dir() else []
        if not files:
            return None
        row: dict[str, tuple[int, int]] = {}
        blocks = []
        for i, file in enumerate(files):
            table = pq.read_table(file)
            blocks.append(_matrix(table))
            row.update((h, (i, j)) for j, h in enumerate(table.column("hash").to_pylist()))
        try:
            where = [row[h] for h in hashes]
        except KeyError:
            return None
        out = np.empty((len(hashes), blocks[0].shape[1]), np.float32)
        for k, (i, j) in enumerate(where):
            out[k] = blocks[i][j]
        return out


def _matrix(table) -> np.ndarray:
    column = table.column("vector").combine_chunks()
    dims = column.type.list_size
    return column.values.to_numpy(zero_copy_only=False).astype(np.float32, copy=False).reshape(-1, dims)
