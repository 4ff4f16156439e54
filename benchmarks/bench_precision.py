"""MiniLM three ways on one labelled corpus: sentence-transformers, the torch-only encoder in
float32, and in bfloat16, side by side in one process.

    python benchmarks/bench_precision.py [--corpus arxiv_lite] [--limit 1550] [--seeds 0 1 2 3 4]

sentence-transformers is shown twice: called 32 texts at a time, as ``MiniLMEmbedder`` called it
before (for its progress bar; each call sorts only its own 32 texts by length), and once for
every text (it sorts them all by length, as the torch-only encoder does by token count).
For each way it prints the time to embed the corpus's documents (the model already loaded,
after one warm-up batch), the cosine of each vector with sentence-transformers' (min and mean),
how many of each paper's 10 nearest neighbours are sentence-transformers' (mean), and the
topics' quality: the workbench's ``TopicModel`` fitted once per seed, NMI of its topics (and of
its topics merged to the number of labels) against the corpus's labels, mean ± sd over the
seeds. bfloat16 is shown only where the CPU has it natively (``minilm.native_bf16``), as
``precision="auto"`` chooses.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import have_data, load_corpus, machine  # noqa: E402


def neighbours(X: np.ndarray, k: int = 10) -> np.ndarray:
    sims = X @ X.T
    np.fill_diagonal(sims, -np.inf)
    return np.argsort(-sims, axis=1)[:, :k]


def topic_nmi(texts, X, truth, seeds) -> tuple[list[float], list[float]]:
    from sklearn.metrics import normalized_mutual_info_score as nmi

    from workbench.topics import TopicModel, merge_topics

    own, merged = [], []
    for seed in seeds:
        model = TopicModel(seed=seed)
        labels = model.cluster(X)
        own.append(nmi(truth, labels))
        merged.append(nmi(truth, merge_topics(X, model.fine_labels_, k=len(set(truth.tolist())))))
    return own, merged


class _OneCall:
    """sentence-transformers' own ``encode`` over every text at once."""

    def __init__(self, model):
        self.model = model

    def encode(self, texts, bf16=False):
        return self.model.encode(list(texts), batch_size=32, normalize_embeddings=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", default="arxiv_lite")
    parser.add_argument("--limit", type=int, default=1550)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--torch-only", action="store_true",
                        help="only the torch-only encoder's two precisions (cosines then to its float32)")
    args = parser.parse_args()
    if not have_data():
        raise SystemExit("../shared/data is absent: this benchmark needs a labelled corpus")

    from workbench.embed.minilm import MiniLMEmbedder, _SentenceTransformer, minilm_path, native_bf16

    corpus = load_corpus(args.corpus)
    texts, truth = corpus.texts("document")[: args.limit], corpus.labels[: args.limit]
    encoder = MiniLMEmbedder(progress=False).model()
    ways = [("torch-only encoder, float32", encoder, False)]
    if not args.torch_only:
        st = _SentenceTransformer(minilm_path())
        ways[:0] = [("sentence-transformers, float32, 32 texts a call (as the workbench called it)", st, False),
                    ("sentence-transformers, float32, one call (sorted by length throughout)", _OneCall(st.model), False)]
    if native_bf16():
        ways.append(("torch-only encoder, bfloat16", encoder, True))

    rows, reference = [], None
    for name, model, bf16 in ways:
        model.encode(texts[:32], bf16=bf16)
        start = time.perf_counter()
        X = model.encode(texts, bf16=bf16)
        seconds = time.perf_counter() - start
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        if reference is None:
            reference, ref_nn = X, neighbours(X)
        cos = (X * reference).sum(1)
        nn = neighbours(X)
        overlap = np.mean([len(set(a) & set(b)) for a, b in zip(nn, ref_nn)])
        own, merged = topic_nmi(texts, X, truth, args.seeds)
        rows.append((name, seconds, cos.min(), cos.mean(), overlap, own, merged))
        print(f"done: {name} ({seconds:.1f} s)", flush=True)

    print(f"\nMiniLM precision: {args.corpus}, {len(texts)} documents, seeds {args.seeds}; {machine()}\n")
    print(f"| way | embed s | docs/s | cosine to {'float32' if args.torch_only else 'ST'}, min | mean | 10-NN shared | topics NMI | merged to labels NMI |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, seconds, cmin, cmean, overlap, own, merged in rows:
        print(f"| {name} | {seconds:.1f} | {len(texts) / seconds:.0f} | {cmin:.6f} | {cmean:.6f} | {overlap:.2f} / 10 |"
              f" {np.mean(own):.3f} ± {np.std(own):.3f} | {np.mean(merged):.3f} ± {np.std(merged):.3f} |")


if __name__ == "__main__":
    main()
