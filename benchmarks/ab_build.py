"""Two versions of the workbench, the same cold build, alternating in one run.

    git worktree add /tmp/before <commit>        # (and link .venv into it, or use this one's)
    python benchmarks/ab_build.py --before /tmp/before --after . [--size 50000] [--rounds 2]

Each round runs, for each tree (in turn ABBA: before, after, then after, before), scale.py's
``CountVectorizer.fit_transform`` row and its cold ``workbench.build`` of the generated corpus
(static embedder, empty review), each a fresh process with that tree on ``PYTHONPATH``, so it
imports that tree's ``workbench``. This machine's speed moves up to 2x between runs, so a change is measured
against the code before it in the same run, never against a number from another day.

numba's disk cache is keyed by the source file's path: the first build in a new worktree may
compile what the other tree loads. Run two rounds and read the second.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale  # noqa: E402
from _common import run_child  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="folder of the version before (a git worktree)")
    parser.add_argument("--after", default=".", help="folder of the version after (default: here)")
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()

    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    corpus, folder = scale.make_corpus(args.size), scale.source_folder(args.size)
    work = Path(tempfile.mkdtemp(prefix="ab_build_"))
    print(f"| build | round | wall s | peak RSS MB | CountVectorizer s | {' | '.join(scale.STAGES)} | labels / CV |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(scale.STAGES) + "---:|")
    rows = []
    for round_ in range(1, args.rounds + 1):
        order = list(trees.items()) if round_ % 2 else list(reversed(trees.items()))
        for name, tree in order:
            vec, _, _ = run_child(scale.VECTORIZE, [str(corpus)], env={"PYTHONPATH": tree})
            review = work / f"{name}{round_}"
            result, wall, rss = run_child(scale.BUILD, [str(review), str(folder), "static", "0"], env={"PYTHONPATH": tree})
            shutil.rmtree(review, ignore_errors=True)
            stages = result.get("stages", {})
            rows.append((name, wall, vec["seconds"], stages.get("labels", 0.0)))
            cells = " | ".join(f"{stages.get(k, 0.0):.1f}" for k in scale.STAGES)
            print(f"| {name} | {round_} | {wall:.1f} | {rss:.0f} | {vec['seconds']:.1f} | {cells} "
                  f"| {stages.get('labels', 0.0) / vec['seconds']:.2f}x |", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    for name in trees:
        mine = [r for r in rows if r[0] == name]
        print(f"- {name}: mean wall {sum(r[1] for r in mine) / len(mine):.1f} s; labels / CountVectorizer "
              f"{sum(r[3] for r in mine) / sum(r[2] for r in mine):.2f}x (summed over rounds)")


if __name__ == "__main__":
    main()
