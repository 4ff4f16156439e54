"""MiniLM on the seeds in a fresh process, alone and after a UMAP fit, in each precision.

    python benchmarks/bench_minilm_threads.py [--repeat 2]

A notebook kernel fits topics (UMAP, which starts numba's OpenMP runtime) before it embeds a
query or label words; a build embeds first. Each row is a fresh process that loads the
torch-only MiniLM, optionally fits the workbench's ``TopicModel`` on random vectors first, then
embeds the 133 seed abstracts twice (torch is imported after the fit, as in a kernel: which
OpenMP runtime loads first decides); the table shows the second embedding (the first also pays
for oneDNN's kernel choices). With ``--attention bfloat16`` the attention runs in bfloat16
too, as it did before commit "attention stays float32": the row that shows why it does not.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, run_child  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, sys, time
import numpy as np
precision, after_umap, attention = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
from workbench import read_sources
from workbench.embed.minilm import MiniLMEmbedder  # imports no torch: that comes after the fit
texts = [p.text for p in read_sources([sys.argv[4]])[0]]
if after_umap:
    from workbench.topics import TopicModel
    TopicModel(seed=1).cluster(np.random.default_rng(0).standard_normal((len(texts), 64)).astype(np.float32))
if attention == "bfloat16":
    from torch.nn import functional as F
    from workbench.embed import _bert
    def forward(self, x, mask):
        batch, length, hidden = x.shape
        q, k, v = (self.self[n](x).view(batch, length, self.heads, -1).transpose(1, 2) for n in ("query", "key", "value"))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.dtype)).transpose(1, 2).reshape(batch, length, hidden)
        return self.output["LayerNorm"](x + self.output["dense"](out))
    _bert._Attention.forward = forward
embedder = MiniLMEmbedder(progress=False, precision=precision)
times = []
for _ in range(2):
    t = time.perf_counter(); embedder.embed(texts); times.append(time.perf_counter() - t)
print(json.dumps({"first": times[0], "second": times[1]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    rows = [("float32", "0", "float32"), ("float32", "1", "float32"), ("bfloat16", "0", "float32"),
            ("bfloat16", "1", "float32"), ("bfloat16", "0", "bfloat16"), ("bfloat16", "1", "bfloat16")]
    results = {row: [] for row in rows}
    for _ in range(args.repeat):
        for row in rows:
            out, _, _ = run_child(CHILD, [*row, str(ROOT / "seeds")])
            results[row].append(out["second"])
    print(f"\nMiniLM on the 133 seed abstracts, the second embedding in a fresh process; {machine()}\n")
    print("| precision | attention in | after a UMAP fit | seconds (each run) |")
    print("|---|---|---|---|")
    for (precision, after, attention), seconds in results.items():
        print(f"| {precision} | {attention} | {'yes' if after == '1' else 'no'} | {', '.join(f'{s:.2f}' for s in seconds)} |")


if __name__ == "__main__":
    main()
