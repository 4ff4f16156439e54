"""Benchmark the explore view's map at 133, 10,000 and 50,000 papers, beside bare jupyter-scatter.

    python benchmarks/bench_map.py [--reviews benchmarks/out/map] [--sizes 133 10000 50000]
                                   [--no-browser] [--no-python] [--lassos 3]

Needs reviews built beforehand (static embedder), one folder per size, ``review_<size>``::

    python -c "import workbench; workbench.build(['benchmarks/out/scale/corpus_50000.csv'],
               review='benchmarks/out/map/review_50000', embedder='static', seed=42)"

(``review_133`` from ``seeds/``). Every measurement runs on a throw-away copy of the review, so
the tags it adds never reach the built one.

Two parts, each with its baseline in the same run:

- **Python** (a fresh process per size, no browser): open the review and session,
  ``session.frame()``, build the ``ExploreView``, recolour by tag and by decision, a map selection
  of 5,000 and of every paper arriving from the widget (the selection panel renders), tagging
  and noting that selection, tagging and deciding every paper (each through the view's handler).
  Baseline: a bare ``jscatter.Scatter`` on the same x/y DataFrame.
- **Browser** (JupyterLab on 127.0.0.1 driven in /usr/bin/chromium with Playwright): Run All ->
  points on the map canvas (polled by screenshots of the canvas), a lasso drag -> "N selected"
  rendered by Python's answer, a recolour click -> kernel idle again and two animation frames,
  the "Tag selected" click -> its status line (workbench only), and the page's JS heap after a
  garbage collection (CDP ``Performance.getMetrics``). The baseline notebook shows a bare
  ``jscatter.Scatter`` of the same x/y, a one-line "N selected" label fed by the widget's
  ``selection`` trait (the least a round trip needs) and two colour buttons.

Prints markdown tables. Timings are wall clock on whatever else the machine is doing.
This is a script, not a test.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tests"))  # the throw-away JupyterLab of the browser tests

from _common import ROOT, machine, run_child  # noqa: E402

from _lab import ThrowawayLab  # noqa: E402
from workbench.widgets._feedback import CONFIRM_OVER  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
]
REVIEWER = "bench-map"
SELECT_SMALL = 5_000


def _copy_review(src: Path, dest: Path) -> Path:
    """A throw-away copy of a review (its store gets tagged); the embedding cache stays behind (no
    search here), the topics' remembered typical papers go with it (else the view embeds every paper)."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("selection.json", "notebooks", "report", "cache", "map.html"))
    typical = src / "cache" / "typical"
    if typical.is_dir():
        shutil.copytree(typical, dest / "cache" / "typical")
    return dest


# ---------------------------------------------------------------------------- Python side


def _timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def python_child(review_dir: str) -> None:
    """Runs in a fresh process: time each Python-side step, print one JSON line."""
    import numpy as np
    import pandas as pd

    os.environ.setdefault("WORKBENCH_PROGRESS", "0")
    work = Path(tempfile.mkdtemp(prefix="bench_map_"))
    try:
        path = _copy_review(Path(review_dir), work / "review")
        out: dict[str, float] = {}

        import jscatter  # imported before timing: both sides pay it once

        import workbench
        from workbench.widgets import Session, explore

        out["open"], session = _timed(lambda: Session.open(workbench.open_review(path), reviewer=REVIEWER))
        n = len(session.review.papers)
        out["frame"], _ = _timed(session.frame)
        out["view"], view = _timed(explore, session)
        out["recolour_tag"], _ = _timed(setattr, view.colour, "value", "tag")
        out["recolour_decision"], _ = _timed(setattr, view.colour, "value", "decision")
        rng = np.random.default_rng(0)
        small = sorted(rng.choice(n, size=min(SELECT_SMALL, n), replace=False).tolist())
        out["select_small"], _ = _timed(view._on_select, np.asarray(small, dtype=np.int64))
        out["select_small_n"] = len(small)
        view.tag_text.value = "bench-small"
        out["tag_small"], _ = _timed(view.on_tag)
        view.note_text.value = "a note on the selection"
        out["note_small"], _ = _timed(view.on_note)
        out["select_all"], _ = _timed(view._on_select, np.arange(n, dtype=np.int64))
        out["select_all_n"] = n
        view.tag_text.value = "bench-all"
        out["tag_all"], _ = _timed(view.on_tag)
        view.decision.value = "include"
        out["decide_all"], _ = _timed(view.on_decide)
        out["panel_chars"] = len(view.selection_html.value)
        session.close()

        # Baseline: jupyter-scatter alone on the same x/y (and a topic column to colour by).
        coords = session.review.coords
        df = pd.DataFrame({"x": coords[:, 0], "y": coords[:, 1],
                           "topic": [str(t) for t in session.review.labels],
                           "group": [("a", "b", "c")[i % 3] for i in range(n)]})
        out["base_view"], sc = _timed(lambda: jscatter.Scatter(data=df, x="x", y="y", height=520).show() and None)
        sc = jscatter.Scatter(data=df, x="x", y="y", height=520)
        sc.show()
        out["base_recolour"], _ = _timed(sc.color, by="topic")
        out["base_recolour2"], _ = _timed(sc.color, by="group")
        out["n"] = n
        print(json.dumps(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def python_side(reviews: dict[int, Path]) -> dict[int, dict]:
    code = "import sys; sys.path.insert(0, sys.argv[1]); from bench_map import python_child; python_child(sys.argv[2])"
    results = {}
    for size, path in reviews.items():
        res, wall, rss = run_child(code, [str(Path(__file__).resolve().parent), str(path)])
        res["rss_mb"] = rss
        results[size] = res
        print(f"python side, {size:,} papers: done in {wall:.0f} s", file=sys.stderr)
    return results


# ---------------------------------------------------------------------------- browser side

BASELINE_CELLS = [
    "import numpy as np\nimport pandas as pd\nimport ipywidgets as W\nimport jscatter",
    "xy = np.load(xy_path)\n"
    "df = pd.DataFrame({'x': xy[:, 0], 'y': xy[:, 1], 'topic': np.load(topic_path).astype(str)})\n"
    "df['group'] = np.array(['a', 'b', 'c'])[np.arange(len(df)) % 3]",
    "scatter = jscatter.Scatter(data=df, x='x', y='y', height=520)\n"
    "scatter.mouse(mode='lasso')\n"
    "count = W.HTML('<i>Drag on the map</i>')\n"
    "scatter.widget.observe(lambda ch: setattr(count, 'value', f\"<b class='wb-selcount'>{len(ch['new'] if ch['new'] is not None else [])} selected</b>\"), names=['selection'])\n"
    "colour = W.ToggleButtons(options=['none', 'topic', 'group'], value='none', description='colour by')\n"
    "colour.observe(lambda ch: scatter.color(by=None if ch['new'] == 'none' else ch['new']), names='value')\n"
    "W.VBox([colour, scatter.show(), count])",
]


def _notebook(cells: list[str]) -> dict:
    return {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [], "source": src}
                  for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _explore_notebook(review_dir: Path) -> dict:
    """notebooks/01_explore.ipynb with its parameters cell pointing at ``review_dir``."""
    nb = json.loads((ROOT / "notebooks" / "01_explore.ipynb").read_text())
    for cell in nb["cells"]:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            cell["source"] = (f"review_dir = {str(review_dir)!r}\nsources = []\nembedder = 'static'\nseed = 42\n"
                              f"reviewer = {REVIEWER!r}\nrebuild = False\nactions = []")
    return nb


class Lab(ThrowawayLab):
    """JupyterLab on 127.0.0.1 with throw-away settings (tests/_lab.py); stopped by its PID."""

    def __init__(self, ws: Path):
        try:
            super().__init__(ws, "bench-map-token", env={"WORKBENCH_REVIEWER": REVIEWER, "WORKBENCH_PROGRESS": "0"})
        except RuntimeError as err:
            raise SystemExit(str(err)) from None


class Page:
    """One notebook open in Chromium, with the kernel's websocket frames watched for idle."""

    def __init__(self, browser, lab: Lab, notebook: str):
        self.page = page = browser.new_page(viewport={"width": 1500, "height": 1100})
        self.idle_at: list[float] = []
        self.sockets: list = []
        page.on("websocket", self._on_socket)
        workspace = notebook.split(".")[0].replace("_", "-")
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{notebook}?reset&token={lab.token}")
        page.wait_for_selector(".jp-NotebookPanel", timeout=120_000)
        deadline = time.time() + 120
        while not self.sockets:
            if time.time() > deadline:
                raise SystemExit("the kernel websocket never opened")
            page.wait_for_timeout(250)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.send("Performance.enable")

    def _on_socket(self, ws) -> None:
        if "/api/kernels/" in ws.url:
            self.sockets.append(ws)
            ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload) -> None:
        raw = payload if isinstance(payload, (bytes, bytearray)) else str(payload).encode()
        if b'"execution_state": "idle"' in raw or b'"execution_state":"idle"' in raw:
            self.idle_at.append(time.perf_counter())

    def run_all(self) -> float:
        self.page.get_by_role("menuitem", name="Run", exact=True).click()
        t0 = time.perf_counter()
        self.page.locator("li[data-command='runmenu:run-all']").click()
        return t0

    def canvas(self):
        return self.page.locator(".jp-OutputArea-output canvas").first

    def wait_for_points(self, t0: float, timeout: float = 300) -> float:
        """Seconds from ``t0`` until the map canvas shows points (polled by screenshots)."""
        from PIL import Image

        canvas = self.canvas()
        canvas.wait_for(state="attached", timeout=timeout * 1000)
        canvas.scroll_into_view_if_needed()
        deadline = time.time() + timeout
        while time.time() < deadline:
            img = Image.open(io.BytesIO(canvas.screenshot())).convert("L")
            dark = sum(img.histogram()[:200])  # points are drawn darker than the white background
            if dark > 0.002 * img.width * img.height:
                return time.perf_counter() - t0
            self.page.wait_for_timeout(100)
        raise SystemExit("the map never showed points")

    def settle(self, since: float, timeout: float = 120) -> float:
        """Wait for the kernel to go idle after ``since``, then two animation frames; returns the time."""
        deadline = time.time() + timeout
        while not any(t > since for t in self.idle_at):
            if time.time() > deadline:
                raise SystemExit("the kernel never went idle")
            self.page.wait_for_timeout(10)
        self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return time.perf_counter()

    def quiet(self, seconds: float = 1.0) -> None:
        """Wait until no idle message has arrived for ``seconds`` (earlier messages all handled)."""
        while True:
            self.page.wait_for_timeout(seconds * 1000)
            if not self.idle_at or time.perf_counter() - self.idle_at[-1] > seconds:
                return

    def lasso(self, k: int) -> tuple[float, int]:
        """Drag a lasso (a different box each time); seconds from mouse-up to the new count shown."""
        page = self.page
        canvas = self.canvas()
        canvas.scroll_into_view_if_needed()
        page.evaluate("() => document.querySelectorAll('.wb-selcount').forEach(e => e.dataset.old = '1')")
        box = canvas.bounding_box()
        cx, cy = box["x"] + box["width"] * (0.45 + 0.05 * k), box["y"] + box["height"] / 2
        rx, ry = box["width"] * (0.25 + 0.05 * k), box["height"] * (0.25 + 0.05 * k)
        page.mouse.move(cx - rx, cy - ry)
        page.mouse.down()
        # ends halfway up the left side, not near the start: regl-scatterplot takes a mouse-up within
        # 3 px of the mouse-down for a click as well, which on a dense map selects the point there
        for x, y in ((cx + rx, cy - ry), (cx + rx, cy + ry), (cx - rx, cy + ry), (cx - rx, cy)):
            page.mouse.move(x, y, steps=10)
        t0 = time.perf_counter()
        page.mouse.up()
        handle = page.wait_for_function(
            "() => { const e = [...document.querySelectorAll('.wb-selcount')].find(e => !e.dataset.old);"
            " return e ? e.innerText : null; }", polling="raf", timeout=120_000)
        elapsed = time.perf_counter() - t0
        return elapsed, int(handle.json_value().split()[0])

    def click_and_settle(self, name: str) -> float:
        # not the selection table's header of the same name ("sort by decision")
        button = self.page.get_by_role("button", name=name, exact=True).and_(self.page.locator("button:not(.wb-sort)"))
        button.scroll_into_view_if_needed()
        self.quiet(0.5)
        t0 = time.perf_counter()
        button.click()
        return self.settle(t0) - t0

    def heap_mb(self) -> float:
        self.cdp.send("HeapProfiler.collectGarbage")
        metrics = {m["name"]: m["value"] for m in self.cdp.send("Performance.getMetrics")["metrics"]}
        return metrics["JSHeapUsedSize"] / 1e6


def browser_side(reviews: dict[int, Path], lassos: int) -> dict[int, dict]:
    import numpy as np
    from playwright.sync_api import sync_playwright

    import workbench

    if not Path(CHROMIUM).exists():
        raise SystemExit("no /usr/bin/chromium (apt-get install -y chromium)")
    ws = Path(tempfile.mkdtemp(prefix="bench_map_lab_"))
    results: dict[int, dict] = {}
    for size, path in reviews.items():
        review = workbench.open_review(path)
        np.save(ws / f"xy_{size}.npy", review.coords)
        np.save(ws / f"topic_{size}.npy", np.asarray(review.labels))
        base = _notebook([f"xy_path = {str(ws / f'xy_{size}.npy')!r}\ntopic_path = {str(ws / f'topic_{size}.npy')!r}"] + BASELINE_CELLS)
        (ws / f"base_{size}.ipynb").write_text(json.dumps(base))
        copy = _copy_review(path, ws / f"review_{size}")
        (ws / f"explore_{size}.ipynb").write_text(json.dumps(_explore_notebook(copy)))
    lab = Lab(ws)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            for size in reviews:
                for kind in ("base", "explore"):
                    results.setdefault(size, {})[kind] = _one_page(browser, lab, f"{kind}_{size}.ipynb", kind, lassos)
                    print(f"browser, {kind} {size:,}: {results[size][kind]}", file=sys.stderr)
            browser.close()
    finally:
        lab.stop()
        shutil.rmtree(ws, ignore_errors=True)
    return results


def _one_page(browser, lab: Lab, notebook: str, kind: str, lassos: int) -> dict:
    page = Page(browser, lab, notebook)
    out: dict = {"heap_before": page.heap_mb()}
    t0 = page.run_all()
    out["first_draw"] = page.wait_for_points(t0)
    page.settle(t0)
    page.quiet(1.0)
    out["heap_drawn"] = page.heap_mb()
    times, counts = [], []
    for k in range(lassos):
        elapsed, count = page.lasso(k)
        times.append(elapsed)
        counts.append(count)
        page.quiet(0.5)
    out["lasso"], out["lasso_n"] = statistics.median(times), int(statistics.median(counts))
    colours = ("topic", "group", "none") if kind == "base" else ("tag", "decision", "topic")
    out["recolour"] = statistics.median(page.click_and_settle(c) for c in colours)
    if kind == "explore":
        count = int(page.page.locator(".wb-selcount").first.inner_text().split()[0])
        out["kept_after_recolour"] = count == counts[-1]  # the recolours must not drop the selection
        page.page.get_by_placeholder("tag(s), comma separated").fill("bench-browser")
        page.quiet(0.5)
        page.page.get_by_role("button", name="Tag selected").click()
        if count > CONFIRM_OVER:  # the view asks first; timed from the "Yes"
            yes = page.page.get_by_role("button", name=f"Yes, tag {count} papers")
            yes.wait_for(timeout=60_000)
            page.quiet(0.5)
            t0 = time.perf_counter()
            yes.click()
        else:
            t0 = time.perf_counter()
        page.page.get_by_text(f"tagged {count} papers: bench-browser").wait_for(timeout=600_000)
        out["tag"] = time.perf_counter() - t0
        out["tag_n"] = count
    page.quiet(1.0)
    out["heap_after"] = page.heap_mb()
    page.page.close()
    return out


# ---------------------------------------------------------------------------- report


def _s(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def print_tables(py: dict[int, dict], br: dict[int, dict]) -> None:
    sizes = sorted(set(py) | set(br))
    head = "| measure | " + " | ".join(f"{s:,} papers" for s in sizes) + " |"
    rule = "|---|" + "---|" * len(sizes)
    if py:
        print("\n**Python side** (no browser; fresh process per size)\n")
        print(head)
        print(rule)
        rows = [
            ("open review + session", "open"), ("`session.frame()`", "frame"), ("build the ExploreView", "view"),
            ("recolour by tag", "recolour_tag"), ("recolour by decision", "recolour_decision"),
            ("map selection of 5,000 (all when fewer) -> panel", "select_small"),
            ("tag that selection", "tag_small"), ("note that selection", "note_small"),
            ("map selection of every paper -> panel", "select_all"),
            ("tag every paper", "tag_all"), ("decide every paper", "decide_all"),
            ("baseline: bare `jscatter.Scatter` on x/y, shown", "base_view"), ("baseline: `scatter.color(by=...)`", "base_recolour2"),
        ]
        for label, key in rows:
            print(f"| {label} | " + " | ".join(_s(py[s].get(key)) if s in py else "–" for s in sizes) + " |")
        print("| selection panel HTML (every paper selected) | " + " | ".join(f"{py[s]['panel_chars'] / 1000:.1f} kB" if s in py else "–" for s in sizes) + " |")
        print("| peak RSS of the process | " + " | ".join(f"{py[s]['rss_mb']:.0f} MB" if s in py else "–" for s in sizes) + " |")
    if br:
        print("\n**In the browser** (JupyterLab + Chromium; workbench / bare jupyter-scatter)\n")
        print(head)
        print(rule)

        def pair(key, fmt=_s):
            return " | ".join(
                f"{fmt(br[s]['explore'].get(key))} / {fmt(br[s]['base'].get(key))}" if s in br else "–" for s in sizes)

        print("| Run All -> points on the map | " + pair("first_draw") + " |")
        print("| lasso -> \"N selected\" from Python (median) | " + pair("lasso") + " |")
        print("| papers in that lasso (median) | " + " | ".join(f"{br[s]['explore']['lasso_n']:,} / {br[s]['base']['lasso_n']:,}" for s in sizes) + " |")
        print("| recolour click -> kernel idle + 2 frames (median of 3) | " + pair("recolour") + " |")
        print("| selection still shown after the recolours | " + " | ".join(
            ("yes" if br[s]["explore"]["kept_after_recolour"] else "no") + " / –" for s in sizes) + " |")
        print("| \"Tag selected\" -> status line | " + " | ".join(f"{_s(br[s]['explore']['tag'])} ({br[s]['explore']['tag_n']:,} papers)" for s in sizes) + " |")
        mb = lambda v: f"{v:.0f} MB"  # noqa: E731
        print("| JS heap: lab open, notebook not run | " + pair("heap_before", mb) + " |")
        print("| JS heap: map drawn | " + pair("heap_drawn", mb) + " |")
        print("| JS heap: after the interactions | " + pair("heap_after", mb) + " |")
    print(f"\n{machine()}; load average at the end {os.getloadavg()[0]:.1f}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reviews", type=Path, default=ROOT / "benchmarks" / "out" / "map")
    ap.add_argument("--sizes", type=int, nargs="+", default=[133, 10_000, 50_000])
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("--lassos", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write the raw numbers here")
    args = ap.parse_args(argv)
    reviews = {s: args.reviews / f"review_{s}" for s in args.sizes}
    from workbench.review import is_review

    missing = [str(p) for p in reviews.values() if not is_review(p)]  # (build.json is in generations/)
    if missing:
        raise SystemExit(f"no built review at {', '.join(missing)}; build them first (see the docstring)")
    py = {} if args.no_python else python_side(reviews)
    br = {} if args.no_browser else browser_side(reviews, args.lassos)
    if args.json:
        args.json.write_text(json.dumps({"python": py, "browser": br}, indent=1))
    print_tables(py, br)


if __name__ == "__main__":
    main()
