"""Shared by the benchmark scripts: the labelled corpora, cached embeddings, child processes.

The corpora are the labelled CSVs in ``../shared/data/corpora`` (see its MANIFEST.md):

- arxiv_lite: 1,550 arXiv papers, label ``category`` (8 fields), text = title + summary;
- medical: 2,888 abstracts, label ``condition_label`` (5 conditions), title and abstract are
  already run together in one field;
- synergy: the 6,938 SYNERGY records with an abstract, label ``dataset`` (9 reviews).

Each corpus gives ``titles``, ``abstracts`` (clean, as the workbench's readers clean them) and
``labels``. Embeddings are cached on disk in one :class:`workbench.embed.EmbeddingCache`
(``$WORKBENCH_BENCH_CACHE`` or ``~/.cache/workbench/bench``), keyed by embedder version and
text hash like a review's cache, so MiniLM (about 20 abstracts/s here) runs once per text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = (ROOT / ".." / "shared" / "data" / "corpora").resolve()
CORPORA = ("arxiv_lite", "medical", "synergy")


def bench_cache_dir() -> Path:
    from workbench._runtime.fsutil import workbench_cache_dir

    return Path(os.environ.get("WORKBENCH_BENCH_CACHE") or workbench_cache_dir() / "bench")


@dataclass
class Corpus:
    name: str
    titles: list[str]
    abstracts: list[str]
    labels: np.ndarray  # int codes
    label_names: list[str]
    has_titles: bool = True  # False where the title is already inside the abstract

    def __len__(self) -> int:
        return len(self.abstracts)

    @property
    def k(self) -> int:
        return len(self.label_names)

    def texts(self, mode: str = "document") -> list[str]:
        """``document``: what ``review.document_text`` embeds (title + abstract, or the abstract
        alone when the title adds no word); ``abstract``: the abstract alone."""
        if mode == "abstract" or not self.has_titles:
            return list(self.abstracts)
        from workbench.corpus.paper import Paper
        from workbench.review import document_text

        return [document_text(Paper(id="", title=t, abstract=a, text=a)) for t, a in zip(self.titles, self.abstracts)]


def load_corpus(name: str) -> Corpus:
    import pandas as pd

    from workbench.corpus.clean import clean_text

    if name == "arxiv_lite":
        df = pd.read_csv(DATA / "arxiv_lite_8fields" / "arxiv_lite.csv")
        titles, abstracts, labels = df["title"], df["summary"], df["category"]
        has_titles = True
    elif name == "medical":
        df = pd.read_csv(DATA / "medical_abstracts_tc" / "medical_tc_test.csv")
        titles, abstracts, labels = [""] * len(df), df["medical_abstract"], df["condition_label"]
        has_titles = False
    elif name == "synergy":
        df = pd.read_csv(DATA / "synergy" / "synergy_v1_flat.csv")
        df = df[df["abstract"].fillna("").str.strip() != ""]
        titles, abstracts, labels = df["title"].fillna(""), df["abstract"], df["dataset"]
        has_titles = True
    else:
        raise SystemExit(f"unknown corpus {name!r}; expected one of {', '.join(CORPORA)}")
    codes, names = pd.factorize(pd.Series(list(labels)).astype(str), sort=True)
    return Corpus(
        name=name,
        titles=[clean_text(t) for t in titles],
        abstracts=[clean_text(a) for a in abstracts],
        labels=np.asarray(codes),
        label_names=[str(n) for n in names],
        has_titles=has_titles,
    )


def have_data() -> bool:
    return DATA.is_dir()


def embed_cached(texts: list[str], embedder_name: str) -> np.ndarray:
    """Embeddings of ``texts`` from the benchmark cache (computing the missing ones)."""
    from workbench.embed import EmbeddingCache, embed_with_cache, get_embedder

    embedder = get_embedder(embedder_name)
    path = bench_cache_dir() / "embeddings.sqlite"
    with EmbeddingCache(path) as cache:
        X, _ = embed_with_cache(texts, embedder, cache, corpus=True)
    return X


def run_child(code: str, args: list[str], env: dict | None = None, timeout: float = 3600,
              watch=None) -> tuple[dict, float, float]:
    """Run ``python -c code args`` in a fresh process: (last JSON line of stdout, wall s, peak RSS MB).
    ``env`` adds to the environment; its ``PYTHONPATH`` picks the checkout whose workbench runs.
    ``watch``: a :class:`_memwatch.MemWatch` that follows the process from its start to its end."""
    # The child imports the workbench on PYTHONPATH (default: this checkout's), never the current
    # directory's: "-c" would put that first on the path, so a --before run started from a
    # checkout's root imported that checkout's code on both sides (PYTHONSAFEPATH: Python 3.11+).
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "WORKBENCH_PROGRESS": "0", "TOKENIZERS_PARALLELISM": "false",
           "PYTHONPATH": str(ROOT), "PYTHONSAFEPATH": "1", **(env or {})}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    if watch is not None:
        watch.follow(proc.pid)
    out: list[str] = []
    err: list[str] = []
    threads = [threading.Thread(target=lambda s=s, k=k: k.append(s.read())) for s, k in ((proc.stdout, out), (proc.stderr, err))]
    for t in threads:
        t.start()
    _, status, usage = os.wait4(proc.pid, 0)
    if watch is not None:
        watch.stop()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"benchmark child failed:\n{''.join(err)[-3000:]}")
    return json.loads("".join(out).strip().splitlines()[-1]), wall, usage.ru_maxrss / 1024


def machine() -> str:
    import platform

    try:
        cpu = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor() or "unknown CPU"
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"
