"""Soak the annotation store: eight processes sharing one 50,000-paper review for five minutes.

    python benchmarks/soak_store.py [--seconds 300] [--papers 50000] [--processes 8] [--dir DIR]

Half the processes work like notebook kernels (one Store open all along, and every few actions
a second handle opened, used and closed in the same process), half like the command line (a
Store opened and closed for every action, after a pause like a person typing). Each mixes tag,
note, decide, undo (of a tag it has just made) and import (a colleague's JSONL export), exports
(to the review's ``report/``) every ``--export-every`` seconds, and writes a line for every call
that returned, after it returned. At the end a fresh process
checks ``PRAGMA integrity_check`` and that every acknowledged write is in the store.

Prints one table: actions per second, p50 / p99 latency per kind of action, busy errors shown
to users (goal 0), other errors, acknowledged writes lost (must be 0) and integrity. Exits 1
when a write was lost or the store is damaged. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from _common import ROOT, machine
from bench_store import WORDS, papers

sys.path.insert(0, str(ROOT / "tests"))
from _kernels import Ledger, book, make_import_file, read_store  # noqa: E402

KINDS = ("tag", "note", "decide", "undo", "import")
WEIGHTS = (40, 15, 20, 10, 2)
EXPORT_FORMATS = ("jsonl", "csv", "bibtex", "ris", "markdown")
SECOND_HANDLE_EVERY = 10  # a kernel-like process opens a second store this often


def make_review(folder: Path, n: int, seed: int) -> list[str]:
    """A store synced with ``n`` generated papers and one topic run; returns the paper ids."""
    from workbench.store import Store

    rng = random.Random(seed)
    rows = papers(n, rng)
    ids = [r["id"] for r in rows]
    with Store.open(folder, reviewer="setup") as store:
        store.sync_papers(rows)
        store.topics.record({pid: rng.randrange(50) for pid in ids},
                            {t: f"topic {t}" for t in range(50)},
                            {t: WORDS[t % 10:t % 10 + 5] for t in range(50)})
    return ids


def worker(review: str, slot: int, role: str, seed: int, start: float, deadline: float,
           ids: list[str], out_path: str, think: float, export_every: float) -> None:
    """Act from ``start`` until ``deadline``; a JSON line per returned call or error shown."""
    from workbench.store import Store

    rng = random.Random(seed)
    reviewer, colleague = f"soak-{slot}", f"colleague-{slot}"
    side = Path(tempfile.mkdtemp(prefix=f"soak_side_{slot}_"))
    report = Path(review) / "report"
    held = Store.open(review, reviewer=reviewer) if role == "kernel" else None
    time.sleep(max(0.0, start - time.time()))

    def act(fn):
        if held is not None:
            return fn(held)
        with Store.open(review, reviewer=reviewer) as store:
            return fn(store)

    with open(out_path, "w", encoding="utf-8") as out:
        def emit(**doc) -> None:
            out.write(json.dumps(doc) + "\n")
            out.flush()

        def timed(kind: str, fn):
            t0 = time.perf_counter()
            result = act(fn)
            emit(ms=(time.perf_counter() - t0) * 1000, kind=f"{kind} ({role})")
            return result

        n = 0
        next_export = start + rng.uniform(0, export_every)
        while time.time() < deadline:
            n += 1
            if role == "cli" and think > 0:
                time.sleep(rng.expovariate(1 / think))  # a person typing the next command
            kind = rng.choices(KINDS, WEIGHTS)[0]
            if time.time() >= next_export:  # an export of 50,000 papers takes seconds
                kind, next_export = "export", next_export + export_every
            paper = rng.choice(ids)
            try:
                if held is not None and n % SECOND_HANDLE_EVERY == 0:
                    tag = f"s{slot}-{n}-second"
                    t0 = time.perf_counter()
                    with Store.open(review, reviewer=reviewer) as other:
                        other.tags.add(paper, tag)
                    emit(ms=(time.perf_counter() - t0) * 1000, kind="tag (second handle)")
                    emit(ack="tag", paper=paper, tag=tag)
                elif kind == "tag":
                    tag = f"s{slot}-{rng.randrange(40)}"  # a small vocabulary, as people use
                    timed("tag", lambda s: s.tags.add(paper, tag))
                    emit(ack="tag", paper=paper, tag=tag)
                elif kind == "note":
                    text = f"soak note {slot}-{n}: " + " ".join(rng.choices(WORDS, k=12))
                    timed("note", lambda s: s.notes.add(paper, text))
                    emit(ack="note", paper=paper, text=text)
                elif kind == "decide":
                    decision = rng.choice(["include", "exclude", "maybe"])
                    emit(attempt="decide", paper=paper, decision=decision)
                    timed("decide", lambda s: s.decisions.decide(paper, decision))
                    emit(ack="decide", paper=paper, decision=decision)
                elif kind == "undo":
                    tag = f"undo-me-{slot}-{n}"
                    timed("tag", lambda s: s.tags.add(paper, tag))
                    emit(ack="tag", paper=paper, tag=tag)
                    undone = timed("undo", lambda s: [e.summary for e in s.undo()])
                    if len(undone) == 1 and paper in undone[0] and tag in undone[0]:
                        emit(ack="undo", paper=paper, tag=tag)
                    else:
                        emit(error=f"undo took back {undone}, not tag {paper} +{tag}",
                             kind="undo")
                elif kind == "export":
                    fmt = rng.choice(EXPORT_FORMATS)
                    timed("export", lambda s: s.files.export(fmt, report / f"soak-{slot}.{fmt}"))
                else:
                    path, carries = make_import_file(side, f"imp{n}", rng.sample(ids, 5),
                                                     reviewer=colleague)
                    timed("import", lambda s: s.files.import_annotations(path))
                    for p, t in sorted(carries.tags):
                        emit(ack="tag", paper=p, tag=t)
                    for p, text in sorted(carries.notes):
                        emit(ack="note", paper=p, text=text)
                    for (p, who), values in sorted(carries.decisions.items()):
                        emit(ack="decide", paper=p, decision=next(iter(values)), reviewer=who)
            except Exception as err:  # noqa: BLE001 - a message a user would see: counted
                busy = "busy" in str(err) or "locked" in str(err)
                emit(error=f"{kind}: {type(err).__name__}: {err}", kind=f"{kind} ({role})",
                     busy=busy)
                time.sleep(0.1)  # a user reads the message before trying again
    if held is not None:
        held.close()
    shutil.rmtree(side, ignore_errors=True)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300.0, help="how long to soak (default: 300)")
    ap.add_argument("--papers", type=int, default=50_000)
    ap.add_argument("--processes", type=int, default=8, help="half kernel-like, half CLI-like")
    ap.add_argument("--think", type=float, default=0.5,
                    help="mean pause in s before each command-line-like action (default: 0.5)")
    ap.add_argument("--export-every", type=float, default=30.0, metavar="S",
                    help="each process exports every S seconds (default: 30)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", type=Path, default=None, help="where to build (default: a temp dir)")
    args = ap.parse_args(argv)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="soak_store_"))
    review = folder / "review"
    t0 = time.perf_counter()
    ids = make_review(review, args.papers, args.seed)
    (review / "report").mkdir(exist_ok=True)
    print(f"made a store of {args.papers:,} papers in {time.perf_counter() - t0:.1f} s; soaking "
          f"{args.processes} processes for {args.seconds:.0f} s on {machine()}", flush=True)

    ctx = multiprocessing.get_context("spawn")
    deadline = time.time() + 10 + args.seconds  # the first seconds go to starting up
    start = deadline - args.seconds
    roles = ["kernel" if i % 2 == 0 else "cli" for i in range(args.processes)]
    outs = [folder / f"worker-{i}.jsonl" for i in range(args.processes)]
    procs = [ctx.Process(target=worker, args=(str(review), i, roles[i], args.seed * 100 + i,
                                              start, deadline, ids, str(outs[i]), args.think,
                                              args.export_every))
             for i in range(args.processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    crashed = [i for i, p in enumerate(procs) if p.exitcode != 0]

    ledger = Ledger()
    latency: dict[str, list[float]] = defaultdict(list)
    errors: Counter = Counter()
    busy, other_errors = 0, []
    for i, path in enumerate(outs):
        for line in path.read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            if "ms" in doc:
                latency[doc["kind"]].append(doc["ms"])
            elif "error" in doc:
                errors[doc["kind"]] += 1
                busy += bool(doc.get("busy"))
                if not doc.get("busy"):
                    other_errors.append(f"worker {i} ({roles[i]}): {doc['error']}")
            else:
                book(ledger, f"soak-{i}", doc)
    t_check = time.perf_counter()
    view = read_store(review, timeout=1800)
    t_check = time.perf_counter() - t_check
    problems = ledger.missing(view, "from a fresh process")
    lost = ledger.lost(view)

    elapsed = time.time() - start
    n_actions = sum(len(v) for v in latency.values())
    print(f"\n{'action':<22} {'done':>7} {'per s':>7} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'errors':>7}")
    print(f"{'-' * 22} {'-' * 7} {'-' * 7} {'-' * 8} {'-' * 8} {'-' * 8} {'-' * 7}")
    for kind in sorted(set(latency) | set(errors)):
        ms = latency.get(kind) or [float("nan")]
        done = len(latency.get(kind, ()))
        print(f"{kind:<22} {done:>7} {done / elapsed:>7.1f} {pct(ms, 50):>8.1f} "
              f"{pct(ms, 99):>8.1f} {max(ms):>8.1f} {errors[kind]:>7}")
    print(f"{'all actions':<22} {n_actions:>7} {n_actions / elapsed:>7.1f} {'':>8} {'':>8} {'':>8} "
          f"{sum(errors.values()):>7}")
    print()
    rows = [
        ("processes", f"{args.processes} ({roles.count('kernel')} kernel-like, "
                      f"{roles.count('cli')} command-line-like), {elapsed:.0f} s"),
        ("busy errors shown to users", f"{busy} (goal 0)"),
        ("other errors shown to users", str(len(other_errors))),
        ("workers that crashed", str(len(crashed))),
        ("acknowledged writes", f"{ledger.acknowledged:,} {dict(ledger.counts)}"),
        ("acknowledged writes lost", f"{lost} (must be 0; checked from a fresh process "
                                     f"in {t_check:.1f} s)"),
        ("integrity_check", (view.error or view.integrity).replace("\n", "; ")),
        ("store size", f"{(review / 'annotations.sqlite').stat().st_size / 1e6:.0f} MB"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    for line in (other_errors[:5] + problems[:10]):
        print("  " + line[:300])
    print(f"\nreview: {review}")
    return 0 if not problems and not crashed else 1


if __name__ == "__main__":
    sys.exit(main())
