"""Benchmark screening from the map (01_explore, issue 16) on a built review, beside bare
jupyter-scatter in the same run.

    python benchmarks/bench_mapscreen.py --review benchmarks/out/mapscreen/review_10000

Build the review first, e.g. from the scale corpus (``benchmarks/scale.py``)::

    python -c "import workbench; workbench.build(['benchmarks/out/scale/corpus_10000.csv'],
               review='benchmarks/out/mapscreen/review_10000', embedder='tfidf', seed=42)"

On a throw-away copy of the review, through the explore view's handlers (no browser): colour by
decision and by predicted relevance; a decision on one paper while coloured by topic (the map
is not sent) and while coloured by relevance (the ranker refitted and the map recoloured); the
preview of a bulk exclusion of the largest topic, the exclusion itself with the map recoloured,
and the undo. For each step: wall time and whether the points went to the browser again
(``widget.points`` replaced). Baseline: a bare ``jscatter.Scatter`` of the same x/y recoloured
by a categorical column (what any colour change costs at the least). A script, not a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

REVIEWER = "bench-mapscreen"


def _timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def _step(rows: list, view, name: str, fn, *args) -> object:
    """Time ``fn(*args)``; note whether the map's points were sent to the browser again."""
    points = view.scatter.widget.points
    seconds, out = _timed(fn, *args)
    rows.append((name, seconds, view.scatter.widget.points is not points))
    return out


def measure(review_dir: Path) -> tuple[int, list]:
    import jscatter
    import pandas as pd

    import workbench
    from workbench.widgets import Session, explore

    session = Session.open(workbench.open_review(review_dir), reviewer=REVIEWER)
    view = explore(session)
    n, rows = len(session.ids), []
    ids, labels = session.ids, [int(t) for t in session.review.labels]
    largest = Counter(t for t in labels if t >= 0).most_common(1)[0][0]
    _step(rows, view, "colour by decision", setattr, view.colour, "value", "decision")
    _step(rows, view, "colour by relevance (no model yet)", setattr, view.colour, "value", "relevance")
    view.colour.value = "topic"
    _step(rows, view, "first decision of the session, coloured by topic", session.decide, ids[0], "include")
    session.decide(ids[1], "exclude")  # a model from here on
    rows.append(("colour by relevance (first fit)", *_switch(view, "relevance")))
    _step(rows, view, "decide 1 paper, coloured by relevance (refit + recolour)", session.decide, ids[2], "exclude")
    _step(rows, view, "decide 1 more, coloured by relevance (refit + recolour)", session.decide, ids[3], "exclude")
    view.select_topic(largest)
    members = len(view.selected)
    _step(rows, view, f"preview: exclude topic {largest} ({members} papers)", view.on_bulk, "exclude")
    _step(rows, view, "Yes: bulk exclusion + relevance recolour", view.bulk.bulk_act.answer, True)
    _step(rows, view, "Undo the bulk exclusion + recolour", view.on_undo)
    view.colour.value = "decision"
    view.select_topic(largest)
    view.on_bulk("exclude")
    _step(rows, view, "Yes: bulk exclusion, coloured by decision", view.bulk.bulk_act.answer, True)
    session.close()

    coords = session.review.coords
    df = pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1], "topic": [str(t) for t in labels],
                       "group": [("a", "b", "c")[i % 3] for i in range(n)]})
    sc = jscatter.Scatter(data=df, x="x", y="y", height=520)
    sc.show()
    sc.color(by="topic")
    seconds, _ = _timed(sc.color, by="group")
    rows.append(("baseline: bare jupyter-scatter, recolour by a column", seconds, True))
    return n, rows


def _switch(view, mode: str) -> tuple[float, bool]:
    view.colour.value = "topic"
    points = view.scatter.widget.points
    seconds, _ = _timed(setattr, view.colour, "value", mode)
    return seconds, view.scatter.widget.points is not points


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--review", type=Path, required=True)
    args = parser.parse_args(argv)
    os.environ.setdefault("WORKBENCH_PROGRESS", "0")
    work = Path(tempfile.mkdtemp(prefix="bench_mapscreen_"))
    try:
        copy = shutil.copytree(args.review, work / "review",
                               ignore=shutil.ignore_patterns("selection.json", "queue.json", "report"))
        n, rows = measure(copy)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{n:,} papers ({args.review})\n")
    print("| step | ms | points sent again |\n|---|---:|:---:|")
    for name, seconds, sent in rows:
        print(f"| {name} | {seconds * 1000:.0f} | {'yes' if sent else 'no'} |")


if __name__ == "__main__":
    main()
