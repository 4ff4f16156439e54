"""Opening a large review in a kernel: its memory, with the papers' texts left in papers.jsonl.

    nice -n 5 python benchmarks/bench_open.py --review DIR [--sizes 50000 1000000] [--before CHECKOUT]

``--review`` is a built review (``scale.py``'s 50,000-paper one, or any). For each size a review
of that many papers is made once under ``benchmarks/out/open/`` from its files: its papers.jsonl
lines repeated with new ids (and DOIs), its topic labels and map coordinates repeated, no store
(the files at the top level, as a review built before generations keeps them). Each size is
opened in a fresh process, which reports its RSS after each step:

- ``import``: ``import workbench``;
- ``open``: ``open_review``: every paper's metadata, the texts left in the file;
- ``frame``: ``Review.papers_frame()`` (the explore view's table);
- ``previews``: every paper's first 240 characters of text read once (what the map's hovers
  hold), with the seconds that took;
- ``texts held``: every abstract and clean text held in the process as well (what a review
  that kept its texts in memory would take);

and the peak (``ru_maxrss``). ``--before`` runs the same steps with the workbench of another
checkout (e.g. a worktree at an older commit) in the same run, alternating, for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "open"

CHILD = r"""
import json, resource, sys, time

def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

out = {}
import workbench
assert workbench.__file__.startswith(sys.argv[2]), workbench.__file__
out["import"] = rss()
review = workbench.open_review(sys.argv[1])
out["open"] = rss()
frame = review.papers_frame()
out["frame"] = rss()
t = time.perf_counter()
if hasattr(review, "paper_texts"):
    previews = [text[:240] for _, text in review.paper_texts]
else:  # (a workbench whose papers read their own texts)
    previews = [p.text[:240] for p in review.papers]
out["previews_s"] = time.perf_counter() - t
out["previews"] = rss()
if hasattr(review, "paper_texts"):
    held = list(review.paper_texts)
else:
    held = [(p.abstract, p.text) for p in review.papers]
out["texts held"] = rss()
out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["papers"] = len(review)
print(json.dumps(out))
"""

STEPS = ["import", "open", "frame", "previews", "texts held", "peak"]


def files_of(review: Path) -> Path:
    """Where a review's current files are (its newest generation, or the top level)."""
    generations = sorted((review / "generations").glob("[0-9]*"), key=lambda p: p.stat().st_mtime)
    complete = [g for g in generations if (g / "build.json").exists()]
    return complete[-1] if complete else review


def make_review(source: Path, size: int) -> Path:
    """A review of ``size`` papers made of ``source``'s files (see the module docstring), once."""
    target = OUT / f"review_{size}"
    if (target / "build.json").exists():
        return target
    import numpy as np
    from safetensors.numpy import load_file, save_file

    files = files_of(source)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    lines = (files / "papers.jsonl").read_text(encoding="utf-8").splitlines()
    n = len(lines)
    with open(target / "papers.jsonl", "w", encoding="utf-8") as out:
        for i in range(size):
            record = json.loads(lines[i % n])
            if i >= n:  # a copy: another paper
                record["id"] = f"{record['id']}-{i // n}"
                record["aliases"] = []
                if record.get("doi"):
                    record["doi"] = f"{record['doi']}-{i // n}"
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    arrays = load_file(str(files / "arrays.safetensors"))
    take = np.arange(size) % n
    save_file({name: np.ascontiguousarray(value[take]) for name, value in arrays.items()},
              str(target / "arrays.safetensors"))
    manifest = json.loads((files / "build.json").read_text(encoding="utf-8"))
    manifest["n_papers"] = size
    (target / "topics.json").write_text((files / "topics.json").read_text(encoding="utf-8"), encoding="utf-8")
    (target / "build.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


def run(checkout: Path, review: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", CHILD, str(review.team.resolve()), str(checkout)], capture_output=True, text=True,
                         env=env, cwd=checkout, timeout=3600)  # (cwd: "-c" puts it first on the path)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--review", required=True, type=Path, help="a built review to make the others of")
    parser.add_argument("--sizes", nargs="+", type=int, default=[50_000, 1_000_000])
    parser.add_argument("--before", type=Path, help="another checkout of the workbench, measured alternately")
    args = parser.parse_args()
    versions = [("this checkout", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"# Opening a review, {time.strftime('%Y-%m-%d %H:%M')}, load average {load}\n")
    print("| papers | workbench | " + " | ".join(f"{s} MB" for s in STEPS) + " | previews s |")
    print("|---:|---|" + "---:|" * len(STEPS) + "---:|")
    for size in args.sizes:
        review = make_review(args.review, size)
        for name, checkout in versions:
            got = run(checkout, review)
            version = name if checkout == ROOT else f"{name} ({_head(checkout)})"
            print(f"| {got['papers']:,} | {version} | " + " | ".join(f"{got[s]:,.0f}" for s in STEPS)
                  + f" | {got['previews_s']:.1f} |", flush=True)


def _head(checkout: Path) -> str:
    try:
        out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=30)
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


if __name__ == "__main__":
    main()
