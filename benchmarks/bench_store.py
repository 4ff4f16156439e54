"""Benchmark the annotation store: write latency on a large review, and export time.

    python benchmarks/bench_store.py [--papers 50000] [--writes 2000] [--dir DIR]

Builds a store of ``--papers`` synthetic papers (abstracts of about 1,000 characters, 50
topics), measures single user actions (each its own transaction, as a widget click is), then
annotates every paper and times each export format. Prints one table; goal: tag p99 < 20 ms.
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from workbench.store import FORMATS, Store

WORDS = ["reward", "model", "preference", "alignment", "language", "agent", "benchmark", "retrieval", "reasoning", "policy", "gradient", "dataset", "evaluation", "transformer", "tokens", "safety", "planning", "memory"]


def papers(n: int, rng: random.Random) -> list[dict]:
    return [
        {"id": f"{rng.getrandbits(48):012x}", "title": " ".join(rng.choices(WORDS, k=8)),
         "abstract": " ".join(rng.choices(WORDS, k=130)),
         "authors": [f"Author{j}, A." for j in range(rng.randint(1, 8))],
         "year": rng.randint(2015, 2025), "doi": f"10.1234/{i}", "venue": "Conference",
         "url": f"https://example.org/{i}", "keywords": rng.choices(WORDS, k=3),
         "collection": "bench", "source": f"bench.bib:{i}"}
        for i in range(n)
    ]


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def latencies(fn, calls) -> list[float]:
    out = []
    for args in calls:
        t0 = time.perf_counter()
        fn(*args)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000, method="inclusive")[int(q * 10) - 1]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=50_000)
    ap.add_argument("--writes", type=int, default=2_000)
    ap.add_argument("--dir", type=Path, default=None, help="where to build (default: a temp dir)")
    args = ap.parse_args(argv)
    rng = random.Random(0)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_store_"))
    rows = papers(args.papers, rng)
    ids = [r["id"] for r in rows]
    table: list[tuple[str, str]] = []

    store = Store.open(folder, reviewer="bench")
    t_sync, _ = timed(store.sync_papers, rows)
    table.append((f"sync_papers ({args.papers:,} papers, new store)", f"{t_sync:.2f} s"))
    assign = {pid: rng.randrange(50) for pid in ids}
    labels = {t: f"topic {t}" for t in range(50)}
    t_rec, _ = timed(store.topics.record, assign, labels, {t: WORDS[:5] for t in range(50)})
    table.append(("record_topics (first run)", f"{t_rec:.2f} s"))
    refit = {pid: (t + 7) % 50 for pid, t in assign.items()}
    t_rec, report = timed(store.topics.record, refit, labels, {})
    table.append((f"record_topics (refit, {len(report.matched)} matched)", f"{t_rec:.2f} s"))

    picks = [rng.choice(ids) for _ in range(args.writes)]
    for name, fn, calls in (
        ("tag", store.tags.add, [(p, rng.choice(WORDS)) for p in picks]),
        ("tag by 8-char prefix", store.tags.add, [(p[:8], "prefixed") for p in picks]),
        ("note", store.notes.add, [(p, "A note of some length. " * 5) for p in picks[: args.writes // 2]]),
        ("decide", store.decisions.decide, [(p, rng.choice(["include", "exclude", "maybe"]))
                                  for p in picks[: args.writes // 2]]),
    ):
        ms = latencies(fn, calls)
        table.append((f"{name} latency p50 / p99 / max ({len(calls)} calls)",
                      f"{pct(ms, 50):.2f} / {pct(ms, 99):.2f} / {max(ms):.2f} ms"))
    ms = latencies(store.undo, [()] * 200)
    table.append(("undo latency p50 / p99 (200 calls)", f"{pct(ms, 50):.2f} / {pct(ms, 99):.2f} ms"))

    t_bulk, _ = timed(store.tags.add, ids, "bulk")  # one action over every paper
    table.append((f"tag {args.papers:,} papers in one action", f"{t_bulk:.2f} s"))
    t_dec, _ = timed(store.decisions.decide, ids, "include")
    table.append((f"decide {args.papers:,} papers in one action", f"{t_dec:.2f} s"))
    for pid in ids[: args.papers // 5]:
        store.notes.add(pid, "Annotated for the export benchmark.")
    for fmt in FORMATS:
        t_exp, text = timed(store.files.export, fmt, folder / f"export.{fmt}")
        table.append((f"export {fmt} ({args.papers:,} annotated papers)",
                      f"{t_exp:.2f} s, {len(text.encode()) / 1e6:.1f} MB"))
    t_imp, _ = timed(Store.open(folder / "copy", reviewer="bench").files.import_annotations,
                     folder / "export.jsonl")
    table.append(("import jsonl into a fresh review", f"{t_imp:.2f} s"))
    t_open, again = timed(Store.open, folder, reviewer="bench")
    table.append(("open existing store", f"{t_open * 1000:.1f} ms"))
    table.append(("store size", f"{(folder / 'annotations.sqlite').stat().st_size / 1e6:.0f} MB"))
    again.close()
    store.close()

    width = max(len(k) for k, _ in table)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 30}")
    for k, v in table:
        print(f"{k:<{width}}  {v}")
    print(f"\nstore: {folder}")


if __name__ == "__main__":
    main()
