"""The ranked queue's first re-rank in a new kernel: building the TF-IDF against reading the
copy the review keeps in cache/screening-tfidf (workbench/review/_tfidf_cache.py).

    python benchmarks/tfidf_cache.py [--sizes 10000 50000] [--repeat 3]

Corpora: benchmarks/scale.py's (every real abstract we have, then generated variants).
Columns: build (scikit-learn's TfidfVectorizer, what every new kernel paid before), build and
keep (the first kernel: build plus writing the copy), read (every later kernel), the copy's size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def texts_of(size: int) -> list[str]:
    import pandas as pd
    from scale import make_corpus

    from workbench.corpus.paper import Paper
    from workbench.review import document_text

    df = pd.read_csv(make_corpus(size)).fillna("")
    return [document_text(Paper(id="", title=t, abstract=a, text=a)) for t, a in zip(df.title, df.abstract)]


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from workbench.review._tfidf_cache import FOLDER, load_or_build
    from workbench.screening import Features

    print("| papers | build s (before) | build and keep s (first kernel) | read s (later kernels) | read / build | copy MB |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        texts = texts_of(size)
        build, keep, read, mb = [], [], [], 0.0
        for _ in range(args.repeat):  # in turn, so a change in the machine's load falls on all three
            with tempfile.TemporaryDirectory() as tmp:
                build.append(timed(lambda: Features.from_texts(texts)))
                keep.append(timed(lambda: load_or_build(Path(tmp), texts)))
                read.append(timed(lambda: load_or_build(Path(tmp), texts)))
                mb = sum(f.stat().st_size for f in (Path(tmp) / FOLDER).rglob("*") if f.is_file()) / 1e6
        b, k, r = (statistics.mean(x) for x in (build, keep, read))
        print(f"| {size:,} | {b:.1f} | {k:.1f} | {r:.2f} | {r / b:.2f}x | {mb:.0f} |")


if __name__ == "__main__":
    main()
