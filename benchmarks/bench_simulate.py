"""``workbench simulate`` against ``asreview simulate``, per run, on the nine SYNERGY reviews.

    python benchmarks/bench_simulate.py [--reviews Donners_2021 ...] [--seeds 1] [--before PATH] [--model MODEL]

For every review (``_synergy.load_reviews``: all its records in file order, written as a CSV of
title, abstract, label_included) and seed S, in turn, each a fresh process timed from start to
exit:

- ASReview LAB 2.2's default (ELAS u4): ``asreview simulate FILE --n-prior-included 1
  --n-prior-excluded 1 --prior-seed S --seed S`` in ``benchmarks/.venv-asreview`` (see
  _asreview.py; ASReview is never a dependency of the workbench);
- ``workbench simulate FILE --embedder minilm --seed S --no-baseline`` (the run of seed S alone,
  as ASReview's) with the queue's default model (svm-both), the same file and the same starting
  include and exclude, its embeddings
  already in the workbench's cache (a cache of its own, ``WORKBENCH_CACHE``, filled from the
  benchmark cache's float32 MiniLM vectors; the replay's time does not depend on the vectors'
  precision);
- with ``--model MODEL``, ours replays that model instead of the default;
- with ``--before PATH`` (a worktree of an earlier commit), the same command run from there; a
  commit whose command has no ``--seed`` (only ``--seeds N``, seeds 1..N) runs seed S alone
  through ``simulate_file``, the function the command calls (without the command line's own
  imports, ~0.3 s).

The table gives each one's wall seconds and, in brackets, its CPU seconds (user and system, ASReview's
with its `asreview metrics` call:
what the load of other processes changes least), the ratio to ASReview's, WSS@95 and recall@10 % (ours
before and after must be equal: the replay measures the same thing), and the load average
(1 min) before each review's turn.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _asreview  # noqa: E402
from _common import ROOT, bench_cache_dir, machine  # noqa: E402
from _synergy import load_reviews  # noqa: E402

OUT = ROOT / "benchmarks" / "out" / "simulate"
KEY = "minilm:all-MiniLM-L6-v2/1"  # float32 MiniLM, as the benchmark cache holds it


def fill_cache(csv: Path, cache_dir: Path) -> None:
    """Put the float32 MiniLM vectors of ``csv``'s texts (as ``workbench simulate`` reads them)
    in ``cache_dir``'s embedding cache, embedding in the benchmark cache what it lacks."""
    from workbench.corpus.paper import bounded_text
    from workbench.embed import EmbeddingCache, MiniLMEmbedder, embed_with_cache
    from workbench.embed.protocol import text_hash
    from workbench.review import read_labelled

    texts, _ = read_labelled(csv)
    with EmbeddingCache(bench_cache_dir() / "embeddings.sqlite") as bench:
        vectors, _ = embed_with_cache(texts, MiniLMEmbedder(progress=False, precision="float32"), bench)
    with EmbeddingCache(cache_dir / "embeddings.sqlite") as cache:
        cache.put(KEY, [text_hash(bounded_text(t)) for t in texts], vectors)


def cpu_seconds() -> float:
    """User and system seconds of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# seed S alone where the command line has no --seed (its --seeds N runs seeds 1..N)
ONE_SEED = """import json, sys
from workbench.review import simulate_file, simulation_json
sim = simulate_file(sys.argv[1], seeds=[int(sys.argv[2])], model=sys.argv[3] or None, embedder="minilm", baseline=False)
sys.stdout.write(json.dumps(simulation_json(sim)))
"""


def run_ours(root: Path, csv: Path, seed: int, cache_dir: Path, model: str | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "WORKBENCH_CACHE": str(cache_dir), "HF_HUB_OFFLINE": "1",
           "WORKBENCH_EMBED_PRECISION": "float32", "WORKBENCH_PROGRESS": "0"}
    if has_seed_option(root):
        command = ["-m", "workbench.cli", "simulate", str(csv), "--embedder", "minilm", "--seed", str(seed),
                   "--no-baseline", "--format", "json", *(["--model", model] if model else [])]
    else:
        command = ["-c", ONE_SEED, str(csv), str(seed), model or ""]
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, *command], capture_output=True, text=True, env=env, cwd=root)
    seconds = time.perf_counter() - t
    if proc.returncode:
        raise SystemExit(f"workbench simulate failed in {root}:\n{proc.stderr[-3000:]}")
    run = next(r for r in json.loads(proc.stdout)["runs"] if r["seed"] == seed)
    return {"seconds": seconds, "wss@95": run["wss@95"], "recall@10%": run["recall@10%"],
            "priors": sorted([run["prior_include"], run["prior_exclude"]])}


@functools.cache
def has_seed_option(root: Path) -> bool:
    """Whether ``workbench simulate`` at ``root`` takes ``--seed S`` (one seed's run alone);
    asked once per root, before any run is timed (the children's CPU seconds count it)."""
    return "--seed S" in subprocess.run([sys.executable, "-m", "workbench.cli", "simulate", "--help"], check=False,
                                        capture_output=True, text=True, cwd=root,
                                        env={**os.environ, "PYTHONPATH": str(root)}).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reviews", nargs="+", default=None, help="default: all nine")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1])
    parser.add_argument("--before", type=Path, default=None, help="a worktree of the commit to compare with")
    parser.add_argument("--model", default=None, help="the model ours replays (default: the queue's default)")
    args = parser.parse_args()
    version = _asreview.ensure_venv()
    for root in [ROOT] + ([args.before.resolve()] if args.before else []):
        has_seed_option(root)
    reviews = load_reviews()
    names = args.reviews or list(reviews)
    (OUT / "data").mkdir(parents=True, exist_ok=True)
    print(f"# workbench simulate ({args.model or 'default model'}) vs asreview simulate {version}, per run, {time.strftime('%Y-%m-%d %H:%M')}, {machine()}\n")
    cols = ["review", "records", "includes", "seed", "load avg", "ASReview s (CPU s)", "ours s (CPU s)", "ours / ASReview"]
    cols += ["before s (CPU s)", "before / ASReview"] if args.before else []
    cols += ["WSS@95 ASReview", "WSS@95 ours", "recall@10 % ours"] + (["WSS@95 / recall@10 % before"] if args.before else [])
    print("| " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * (len(cols) - 1))
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(tmp)
        for name in names:
            df = reviews[name]
            csv = OUT / "data" / f"{name}.csv"
            df[["title", "abstract", "label_included"]].to_csv(csv, index=False)
            fill_cache(csv, cache_dir)
            for seed in args.seeds:
                load = os.getloadavg()[0]
                cpu = cpu_seconds()
                asr = _asreview.simulate(csv, seed, OUT / "asreview", version, fresh=True)
                asr_cpu, cpu = cpu_seconds() - cpu, cpu_seconds()
                ours = run_ours(ROOT, csv, seed, cache_dir, args.model)
                ours["cpu"], cpu = cpu_seconds() - cpu, cpu_seconds()
                before = run_ours(args.before.resolve(), csv, seed, cache_dir, args.model) if args.before else None
                if before:
                    before["cpu"] = cpu_seconds() - cpu
                if ours["priors"] != sorted(asr["priors"]):
                    raise SystemExit(f"{name} seed {seed}: ASReview started from {asr['priors']}, we from {ours['priors']}")
                ratios.append(ours["seconds"] / asr["seconds"])
                cells = [name, f"{len(df):,}", str(int(df.label_included.sum())), str(seed), f"{load:.1f}",
                         f"{asr['seconds']:.1f} ({asr_cpu:.1f})", f"{ours['seconds']:.1f} ({ours['cpu']:.1f})", f"{ratios[-1]:.2f}"]
                if before:
                    cells += [f"{before['seconds']:.1f} ({before['cpu']:.1f})", f"{before['seconds'] / asr['seconds']:.2f}"]
                cells += [f"{asr['metrics']['wss@95']:.3f}", f"{ours['wss@95']:.3f}", f"{ours['recall@10%']:.3f}"]
                if before:
                    cells += [f"{before['wss@95']:.3f} / {before['recall@10%']:.3f}"]
                print("| " + " | ".join(cells) + " |", flush=True)
    import numpy as np

    print(f"\nours / ASReview (wall): largest {max(ratios):.2f}, geometric mean {float(np.exp(np.log(ratios).mean())):.2f}")


if __name__ == "__main__":
    main()
