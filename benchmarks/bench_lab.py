"""The screen as a reviewer meets it, in JupyterLab in Chromium: issue 45 point 7's figures, each
beside the floor measured in the same run.

    python benchmarks/bench_lab.py [--size 50000] [--review50k PATH] [--presses 30] [--just-built]

JupyterLab on 127.0.0.1 (a free port, throw-away settings, stopped by its PID: tests/_lab.py),
Debian's Chromium at /usr/bin/chromium through Playwright (never ``playwright install``), a copy
of the notebooks and of the review in a temporary folder, reviewer ``bench-lab``. Every figure
starts from a freshly started kernel: the notebook is opened, its kernel's websocket is waited
for and the kernel is idle, then Run All is clicked (the clock starts at that click). The
kernels of one notebook are shut down before the next is opened.

Rows, for the seeds (133 papers, built once with MiniLM into benchmarks/out/lab/review_seeds)
and with ``--size 50000`` a 50,000-paper review (``--review50k``, else benchmarks/out/lab/
review_50000 built once from benchmarks/scale.py's corpus with the static embedder):

- **floor**: Run All of a notebook that only imports workbench and opens the review, until its
  last cell has printed (what no notebook of the review can beat);
- **02: Run All -> first card**: until the card's title is on the page (the review has one
  include and one exclude, made before, so the queue is ranked);
- **02: next card after a key**: **e** pressed on the focused view (exclude: the decision is
  saved, the ranker refitted, the queue reordered) until the next card's title is drawn; p50
  and p95 over ``--presses`` presses;
- **01: first / later meaning search**: a question typed in 01's search box and Enter, until the
  view says how many papers are nearest in meaning (first: the first search of the kernel, typed
  ``--read`` seconds (5) after the map showed, the time to look and type; later: the median of
  three other questions);
- **01: Run All -> map ready**: until the map's canvas shows points.

With ``--just-built`` each review is also measured as ``workbench build`` leaves it (a copy of
the built folder, never opened: no decision, nothing a first use keeps in ``cache/``), as a user
opening 02 and 01 right after a build meets it. Its first card is then the order before a model
(one paper per topic), its key presses answer while 02's warm-up makes the ranked queue's
TF-IDF, and one more row times the press that ranks the queue: **i** after the **e** presses
(the first include beside excludes), until the next card is drawn.

Targets (issue 45): first card <= 5 s (seeds), <= 10 s (50,000); next card p95 <= 0.3 s; first
meaning search <= 3 s, later <= 0.5 s; map <= 8 s at 50,000. The machine is shared: compare
figures with the floor of the same run, and read the load average printed with them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tests"))  # the throw-away JupyterLab of the browser tests

from bench_map import CHROMIUM, Page, _notebook  # noqa: E402
from _lab import ThrowawayLab  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out" / "lab"
REVIEWER = "bench-lab"
QUESTIONS = ("how do reward models learn what people prefer",
             "agents that use tools to answer questions",
             "detecting contamination of benchmarks",
             "safety of language models against jailbreaks")
TARGETS = {"02: Run All -> first card": (5.0, 10.0), "02: next card after a key, p95": (0.3, 0.3),
           "01: first meaning search": (3.0, 3.0), "01: later meaning search (median)": (0.5, 0.5),
           "01: Run All -> map ready": (None, 8.0)}


def seeds_review() -> Path:
    """The seeds built once with MiniLM (what the notebooks' defaults build)."""
    import workbench

    path = OUT / "review_seeds"
    if not workbench.review.is_review(path):
        workbench.build([ROOT / "seeds"], review=path, embedder="minilm", seed=42)
    return path


def large_review(given: str | None) -> Path:
    """``given``, else a 50,000-paper review built once from benchmarks/scale.py's corpus."""
    import workbench

    if given:
        return Path(given)
    path = OUT / "review_50000"
    if not workbench.review.is_review(path):
        from scale import make_corpus

        print(f"building {path} (once; static embedder) ...", file=sys.stderr)
        workbench.build([make_corpus(50_000)], review=path, embedder="static", seed=42)
    return path


def workspace(review: Path, used: bool = True) -> Path:
    """A temporary folder with the notebooks, a copy of ``review`` and the floor notebook. ``used``:
    the review as a reviewer has it after a first session (one include and one exclude made, so
    the queue is ranked; the ranked queue's TF-IDF, the embeddings in the papers' order and the
    map's tooltips kept in its cache/); else as the build left it."""
    import json

    import workbench

    ws = Path(tempfile.mkdtemp(prefix="bench-lab-"))
    shutil.copytree(ROOT / "notebooks", ws / "notebooks")
    shutil.copytree(review, ws / "review")
    if used:
        opened = workbench.open_review(ws / "review")
        ranking = opened.screening.rank(next=2, reviewer=REVIEWER)  # cold: one paper per topic
        opened.screening.decide(ranking.ids[0], "include", reviewer=REVIEWER)
        opened.screening.decide(ranking.ids[1], "exclude", reviewer=REVIEWER)
        opened.screening.rank(next=1, reviewer=REVIEWER)  # the ranked queue's TF-IDF kept
        opened.text_starts()  # the map's tooltips and the embeddings by row, kept in cache/ by a first
        opened.embeddings()  # opening of 01
    floor = _notebook(["import workbench", "review_dir = '../review'",
                       "review = workbench.open_review(review_dir)\nprint('floor ready', len(review))"])
    (ws / "notebooks" / "floor.ipynb").write_text(json.dumps(floor), encoding="utf-8")
    return ws


class NotebookPage(Page):
    """bench_map's Page (the kernel's idle messages watched) for a notebook under notebooks/."""

    def __init__(self, browser, lab, notebook: str):
        self.page = page = browser.new_page(viewport={"width": 1440, "height": 900})
        self.idle_at, self.sockets = [], []
        page.on("websocket", self._on_socket)
        workspace = Path(notebook).stem.replace("_", "-")
        page.goto(f"{lab.url}/lab/workspaces/{workspace}/tree/{notebook}?reset&token={lab.token}")
        page.wait_for_selector(".jp-NotebookPanel", timeout=180_000)
        deadline = time.time() + 180
        while not self.sockets:  # the kernel's websocket, before Run All
            if time.time() > deadline:
                raise SystemExit("the kernel websocket never opened")
            page.wait_for_timeout(250)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=180_000)


class Lab(ThrowawayLab):
    def __init__(self, ws: Path):
        try:
            super().__init__(ws, "bench-lab-token", env={"WORKBENCH_REVIEWER": REVIEWER, "WORKBENCH_PROGRESS": "0",
                                                         "HF_HUB_OFFLINE": "1"})
        except RuntimeError as err:
            raise SystemExit(str(err)) from None


def _until(page, selector: str, t0: float, timeout: float = 600) -> float:
    page.page.wait_for_selector(selector, state="attached", timeout=timeout * 1000)
    return time.perf_counter() - t0


def floor(browser, lab) -> float:
    page = NotebookPage(browser, lab, "notebooks/floor.ipynb")
    t0 = page.run_all()
    seconds = _until(page, ".jp-OutputArea-output:has-text('floor ready')", t0)
    page.page.close()
    return seconds, os.getloadavg()[0]


def _press(p, shown: str, key: str) -> float:
    """Seconds from ``key`` pressed to the next card's id drawn."""
    before = p.locator(shown).first.inner_text()
    t0 = time.perf_counter()
    p.keyboard.press(key)
    p.wait_for_function(f"(before) => {{ const c = document.querySelector('{shown}');"
                        " return c && c.textContent !== before; }", arg=before, timeout=600_000, polling="raf")
    return time.perf_counter() - t0


def screen(browser, lab, presses: int, used: bool = True) -> dict:
    page = NotebookPage(browser, lab, "notebooks/02_tag_and_screen.ipynb")
    t0 = page.run_all()
    out = {"02: Run All -> first card": (_until(page, ".wb-card h3", t0), os.getloadavg()[0])}
    p = page.page
    p.wait_for_selector(".wb-screen [data-attached='true']", state="attached", timeout=120_000)
    page.quiet()  # the queue's first render and the stopping line are done
    title = p.locator(".wb-card h3").first
    title.click()  # the view takes the keys once clicked
    shown = ".wb-card code"  # the paper's id on the card (two papers may share a derived title)
    times = sorted(_press(p, shown, "e") for _ in range(presses))
    load = os.getloadavg()[0]
    out["02: next card after a key, p50"] = (statistics.median(times), load)
    out["02: next card after a key, p95"] = (times[min(len(times) - 1, round(0.95 * (len(times) - 1)))], load)
    if not used:  # the first include beside the excludes: the queue ranked, with the warm-up's TF-IDF
        out["02: the press that ranks the queue (i)"] = (_press(p, shown, "i"), os.getloadavg()[0])
    p.close()
    return out


def explore(browser, lab, read: float) -> dict:
    page = NotebookPage(browser, lab, "notebooks/01_explore.ipynb")
    t0 = page.run_all()
    out = {"01: Run All -> map ready": (page.wait_for_points(t0, timeout=600), os.getloadavg()[0])}
    p = page.page
    p.wait_for_selector(".wb-explore [data-attached='true']", state="attached", timeout=120_000)
    box = p.get_by_placeholder("keywords or a question (Enter searches)")
    p.wait_for_timeout(read * 1000)  # the user looks at the map and types a question
    seconds = []
    for question in QUESTIONS:
        p.locator(".wb-explore .wb-ok, .wb-explore .wb-err").evaluate_all("els => els.forEach(e => e.remove())")
        box.scroll_into_view_if_needed()
        box.click()
        box.fill(question)
        t0 = time.perf_counter()
        box.press("Enter")
        p.wait_for_selector(".wb-explore .wb-ok:has-text('nearest in meaning'), .wb-explore .wb-err",
                            timeout=300_000)
        if p.locator(".wb-explore .wb-err").count():
            raise SystemExit(f"the search said: {p.locator('.wb-explore .wb-err').first.inner_text()}")
        seconds.append(time.perf_counter() - t0)
    load = os.getloadavg()[0]
    out["01: first meaning search"] = (seconds[0], load)
    out["01: later meaning search (median)"] = (statistics.median(seconds[1:]), load)
    p.close()
    return out


def stop_kernels(lab) -> None:
    """Shut down every kernel of ``lab`` (through its REST API), so that what one notebook's
    kernel still does (02's warm-up making a TF-IDF) never runs beside the next measurement."""
    import json
    import urllib.request

    with urllib.request.urlopen(f"{lab.url}/api/kernels?token={lab.token}", timeout=30) as answer:
        kernels = json.load(answer)
    for kernel in kernels:
        request = urllib.request.Request(f"{lab.url}/api/kernels/{kernel['id']}?token={lab.token}", method="DELETE")
        urllib.request.urlopen(request, timeout=60).close()


def measure(review: Path, presses: int, read: float, used: bool = True) -> dict:
    from playwright.sync_api import sync_playwright

    ws = workspace(review, used)
    lab = Lab(ws)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                                          "--disable-dev-shm-usage"])
            try:
                # each notebook in a kernel of its own, started when it is opened: a fresh kernel
                rows = {"floor (import workbench, open the review)": floor(browser, lab)}  # (seconds, load)
                stop_kernels(lab)
                rows.update(screen(browser, lab, presses, used))
                stop_kernels(lab)  # 02's warm-up may still be making the TF-IDF of a review just built
                rows.update(explore(browser, lab, read))
            finally:
                browser.close()
    finally:
        lab.stop()
        shutil.rmtree(ws, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, choices=(50_000,), default=None,
                        help="also measure a 50,000-paper review")
    parser.add_argument("--review50k", default=None, help="a built review of 50,000 papers to use")
    parser.add_argument("--presses", type=int, default=30, help="key presses for the next-card figure")
    parser.add_argument("--read", type=float, default=5.0,
                        help="seconds between the map shown and the first search (a user reading and typing)")
    parser.add_argument("--just-built", action="store_true",
                        help="also measure each review as the build left it (never opened, no decision)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"no {CHROMIUM}: apt-get install -y chromium")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    reviews = {"seeds": seeds_review()}
    if args.size:
        reviews[f"{args.size:,}"] = large_review(args.review50k)
    import workbench

    sizes = {name: len(workbench.open_review(path).ids) for name, path in reviews.items()}
    runs = [(name, path, True) for name, path in reviews.items()]
    if args.just_built:
        runs = [run for name, path in reviews.items() for run in ((name, path, True), (name, path, False))]
    results = {}
    for name, path, used in runs:
        column = f"{name} ({sizes[name]:,})" + ("" if used else " built")
        load = os.getloadavg()[0]
        results[column] = measure(path, args.presses, args.read, used)
        results[column]["load average (1 min) before"] = (load, load)
        print(f"measured {column}", file=sys.stderr)
    names = list(results)
    width = max(24, *(len(n) + 2 for n in names))
    print(f"\nbench_lab: JupyterLab + Chromium, {os.cpu_count()} cores; seconds (1-minute load average when "
          "measured); floor measured in the same run; 'built': as the build left the review\n")
    print(f"{'figure':<44}" + "".join(f"{n:>{width}}" for n in names) + "   target")
    keys = list(dict.fromkeys(k for n in names for k in results[n] if not k.startswith("load")))
    for key in keys:
        target = TARGETS.get(key.replace(", p50", ", p95") if key.endswith("p50") else key)
        cells = "".join(f"{results[n][key][0]:.2f} ({results[n][key][1]:.1f})".rjust(width) if key in results[n]
                        else f"{'-':>{width}}" for n in names)
        wanted = ""
        if target and not key.endswith("p50"):
            wanted = " / ".join(f"<= {t:g}" if t else "-" for t in target[: len(reviews)])
        print(f"{key:<44}{cells}   {wanted}")
    print(f"{'load average (1 min) before':<44}" + "".join(f"{results[n]['load average (1 min) before'][0]:>{width}.2f}"
                                                          for n in names))


if __name__ == "__main__":
    main()
