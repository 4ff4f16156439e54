"""Update: a review built from half a corpus and screened in part, updated with the other half,
against a full rebuild of the whole corpus, in the same run.

    nice -n 5 python benchmarks/update.py [--size 20000] [--screen 1000] [--overlap 300] [--embedder static]

The corpus is scale.py's (every real abstract we have, then generated variants, up to ``--size``),
shuffled with a fixed seed and cut in two halves A and B; B also holds ``--overlap`` records of A
again (the same text, as a rerun search finds them). Steps, in one process:

1. build from A (static embedder);
2. screen by script: ``--screen`` papers of A decided (include when the text names "learning",
   else exclude), one of ten also tagged and noted;
3. ``workbench.update(B, review)``, timed: duplicates merged, new papers placed without refitting;
4. checks: decisions, tags and notes lost; screened papers in the new queue (by id, or as a copy
   of their text the update did not recognise); old papers whose
   map position or topic changed; overlap records found as duplicates;
5. a full rebuild of A and B (what a refit is), timed, in a copy of the review taken before the
   update: it reads and embeds B as the update did (A's records and embeddings from the cache);
6. agreement: ARI of the new papers' topics (placed) against the rebuild's topics for the same
   papers, beside the ARI of the old papers' topics (half build) against the rebuild's, the
   reference for how much a refit itself reshuffles topics.

Prints a table; the update/rebuild ratio is the issue's goal (<= 0.3 at 10,000 + 10,000).
"""

from __future__ import annotations

import argparse
import csv
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import make_corpus  # noqa: E402


def halves(size: int, overlap: int, folder: Path) -> tuple[Path, Path, int]:
    with open(make_corpus(size), newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    random.Random(7).shuffle(rows)
    a, b = rows[: len(rows) // 2], rows[len(rows) // 2:]
    b = b + a[:overlap]
    paths = []
    for name, part in (("a", a), ("b", b)):
        (folder / name).mkdir()
        path = folder / name / f"{name}.csv"
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows([["title", "abstract"], *part])
        paths.append(path)
    return paths[0], paths[1], len(b)


def screen(review, n: int) -> None:
    from workbench.store import Store

    ids = [p.id for p in review.papers[:n]]
    texts = review.texts()[:n]
    with Store.open(review.path, reviewer="script") as store, store.transaction():
        store.decisions.decide([i for i, t in zip(ids, texts) if "learning" in t.lower()], "include")
        store.decisions.decide([i for i, t in zip(ids, texts) if "learning" not in t.lower()], "exclude")
        for pid in ids[::10]:
            store.tags.add(pid, "checked")
            store.notes.add(pid, "scripted note")


def annotations(path: Path) -> dict:
    from workbench.store import Store

    with Store.open(path) as store:
        return {pid: (e["decision"], sorted(e["tags"]), e["notes"]) for pid, e in store.summary().items()}


def lost(before: dict, after: dict) -> int:
    """Papers whose decision changed, or that lost a tag or a note."""
    missing = (None, [], 0)
    return sum(1 for pid, (decision, tags, notes) in before.items()
               if after.get(pid, missing)[0] != decision or not set(tags) <= set(after.get(pid, missing)[1])
               or after.get(pid, missing)[2] < notes)


def again_in_queue(half, updated, screened: set[str]) -> int:
    """Screened papers in the new papers' queue: by id, or as a copy (a new paper with the text
    of a screened one, which the update failed to recognise)."""
    texts = {t for p, t in zip(half.papers, half.texts()) if p.id in screened}
    queue = set(updated.updates.new_papers(unscreened=True))
    return sum(1 for p, t in zip(updated.papers, updated.texts()) if p.id in queue and (p.id in screened or t in texts))


def run(args) -> dict:
    import workbench
    from sklearn.metrics import adjusted_rand_score

    work = Path(tempfile.mkdtemp(prefix="bench-update-"))
    a, b, n_b = halves(args.size, args.overlap, work)
    t = time.perf_counter()
    half = workbench.build([a.parent], review=work / "r", embedder=args.embedder, progress=False)
    t_half = time.perf_counter() - t
    screen(half, args.screen)
    before = annotations(half.path)
    half = workbench.open_review(half.path)  # as saved (float32 coordinates), what the update starts from
    shutil.copytree(half.path, work / "r-rebuild")  # the rebuild starts from the same state and caches
    t = time.perf_counter()
    updated = workbench.update([b.parent], half)
    t_update = time.perf_counter() - t
    after = annotations(half.path)
    reopened = workbench.open_review(half.path)
    n_old = len(half.papers)
    screened = {pid for pid, (decision, _, _) in before.items() if decision}
    moved = int((np.abs(reopened.coords[:n_old] - half.coords).max(axis=1) > 0).sum())
    retopiced = int((reopened.labels[:n_old] != half.labels).sum())
    new_ids = updated.update_report.new
    t = time.perf_counter()
    full = workbench.build([a.parent, b.parent], review=work / "r-rebuild", embedder=args.embedder, progress=False)
    t_full = time.perf_counter() - t
    full_topic = dict(zip((p.id for p in full.papers), full.labels.tolist()))
    placed = dict(zip((p.id for p in updated.papers), updated.labels.tolist()))
    common_new = [i for i in new_ids if i in full_topic]
    common_old = [p.id for p in half.papers if p.id in full_topic]
    old_topic = dict(zip((p.id for p in half.papers), half.labels.tolist()))
    after_rebuild = annotations(full.path)
    shutil.rmtree(work, ignore_errors=True)
    return {
        "papers": (n_old, n_b, len(full.papers)), "half build s": t_half, "update s": t_update,
        "rebuild s": t_full, "ratio": t_update / t_full, "update stages": updated.update_report.seconds,
        "new": len(new_ids), "duplicates found": len(updated.update_report.duplicates), "overlap": args.overlap,
        "lost": lost(before, after), "lost after rebuild": lost(before, after_rebuild),
        "screened in queue": again_in_queue(half, reopened, screened),
        "old moved": moved, "old retopiced": retopiced,
        "ari new": adjusted_rand_score([full_topic[i] for i in common_new], [placed[i] for i in common_new]),
        "ari old": adjusted_rand_score([full_topic[i] for i in common_old], [old_topic[i] for i in common_old]),
        "topics": (int((half.topics.topic >= 0).sum()), int((full.topics.topic >= 0).sum())),
        "rebuild topics report": str(full.build_report.topics), "annotated": len(before),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=20000)
    parser.add_argument("--screen", type=int, default=1000)
    parser.add_argument("--overlap", type=int, default=300)
    parser.add_argument("--embedder", default="static")
    args = parser.parse_args()
    r = run(args)
    old, b, total = r["papers"]
    print(f"update benchmark: {old:,} papers built, {b:,} records added ({r['overlap']} of them already in), "
          f"{total:,} after the rebuild; embedder {args.embedder}")
    rows = [
        ("half build (A)", f"{r['half build s']:.1f} s"),
        ("update (B), no refit", f"{r['update s']:.1f} s  {r['update stages']}"),
        ("full rebuild (A+B), same run", f"{r['rebuild s']:.1f} s"),
        ("update / rebuild", f"{r['ratio']:.2f}  (goal <= 0.30)"),
        ("new papers / duplicates found", f"{r['new']:,} / {r['duplicates found']} (overlap {r['overlap']})"),
        ("papers losing a decision, tag or note: update", f"{r['lost']} of {r['annotated']}"),
        ("  ... a full rebuild instead", f"{r['lost after rebuild']} of {r['annotated']}"),
        ("screened papers back in the queue", f"{r['screened in queue']}"),
        ("old papers moved / changed topic", f"{r['old moved']} / {r['old retopiced']}"),
        ("ARI new papers: placed vs refit", f"{r['ari new']:.3f}"),
        ("ARI old papers: half build vs refit", f"{r['ari old']:.3f}  (what a refit itself reshuffles)"),
        ("topics: half build, refit", f"{r['topics']}"),
        ("refit's topic matching", r["rebuild topics report"]),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


if __name__ == "__main__":
    main()
