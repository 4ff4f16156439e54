"""Real JupyterLab in a real Chromium: click tags and decisions, lasso on the map, find it on disk.

Starts JupyterLab on 127.0.0.1 with a throw-away workspace (the notebooks and a review built
from the seeds), drives Debian's Chromium with Playwright, and reads the SQLite store directly.
Screenshots go to test-output/browser/. Needs /usr/bin/chromium (`apt-get install chromium`;
.ci/run installs it); skipped without it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

import workbench
from workbench._lab import ThrowawayLab

from _browser import ARGS, CHROMIUM, lasso, open_and_run_all, shot
from conftest import ROOT

pytestmark = pytest.mark.browser

REVIEWER = "browser-user"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    ws = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", ws / "notebooks")
    workbench.build([ROOT / "seeds"], review=ws / "review", embedder="fake", seed=42)
    server = ThrowawayLab(ws, "wb-test-token", env={"WORKBENCH_REVIEWER": REVIEWER})
    yield {"url": server.url, "token": server.token, "ws": ws}
    server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _store_rows(lab, sql, *args):
    with sqlite3.connect(lab["ws"] / "review" / "annotations.sqlite") as db:
        return db.execute(sql, args).fetchall()


def test_screening_clicks_reach_the_store(browser, lab):
    page = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb")
    page.wait_for_selector(".wb-card h3", timeout=180_000)
    first_id = page.locator(".wb-card code").first.inner_text()

    page.get_by_placeholder("new tag(s), comma separated").fill("browser-tag")
    page.get_by_role("button", name="Add tag").click()
    toggle = page.get_by_role("button", name="1 browser-tag")
    toggle.wait_for(timeout=30_000)
    page.get_by_role("button", name="include (i)").click()  # decides and moves to the next paper
    page.wait_for_function(
        "id => !document.querySelector('.wb-card code') || document.querySelector('.wb-card code').innerText !== id",
        arg=first_id, timeout=30_000,
    )
    second_id = page.locator(".wb-card code").first.inner_text()
    page.get_by_role("button", name="1 browser-tag").click()  # the tag button, on the second paper
    page.get_by_text("tagged browser-tag").wait_for(timeout=30_000)
    page.get_by_role("button", name="maybe (m)").click()
    page.get_by_text("maybe:").wait_for(timeout=30_000)
    third_id = page.locator(".wb-card code").first.inner_text()
    # Keyboard shortcut: with the pointer over the view, "e" excludes the paper showing.
    page.locator(".wb-card h3").first.click()
    page.keyboard.press("e")
    page.get_by_text(f"exclude: {third_id}").wait_for(timeout=30_000)
    shot(page, "02_tag_and_screen.png")

    tagged = {r[0] for r in _store_rows(lab, "SELECT paper_id FROM paper_tags WHERE tag = ?", "browser-tag")}
    assert tagged == {first_id, second_id}
    decisions = dict(_store_rows(lab, "SELECT paper_id, decision FROM decisions WHERE reviewer = ?", REVIEWER))
    assert decisions[first_id] == "include" and decisions[second_id] == "maybe"
    assert decisions[third_id] == "exclude"
    page.close()


def test_lasso_on_the_map_then_tag_the_selection(browser, lab):
    page = open_and_run_all(browser, lab, "01_explore.ipynb")
    hint = page.get_by_text("Drag on the map to select papers (lasso or box).")
    hint.wait_for(state="attached", timeout=180_000)
    count = lasso(page)
    assert count > 0
    page.get_by_placeholder("tag(s), comma separated").fill("lasso-tag")
    page.get_by_role("button", name="Tag selected").click()
    page.get_by_text(f"tagged {count} papers: lasso-tag").wait_for(timeout=30_000)
    shot(page, "01_explore.png")

    tagged = _store_rows(lab, "SELECT paper_id, reviewer FROM paper_tags WHERE tag = ?", "lasso-tag")
    assert len(tagged) == count and {r[1] for r in tagged} == {REVIEWER}
    page.close()


def test_show_themes_and_check_stability(browser, lab):
    page = open_and_run_all(browser, lab, "01_explore.ipynb")
    page.get_by_text("Drag on the map to select papers (lasso or box).").wait_for(state="attached", timeout=180_000)
    page.locator(".jupyter-widget-Collapse-header", has_text="Topics").first.click()  # open the accordion
    themes = page.get_by_label("themes")
    themes.wait_for(timeout=30_000)
    themes.fill("3")
    themes.press("Enter")
    page.get_by_role("button", name="Show themes").click()
    page.get_by_text("✓ 3 topics", exact=True).wait_for(timeout=120_000)
    files = workbench.open_review(lab["ws"] / "review").files  # the generation the store names
    manifest = json.loads((files / "build.json").read_text())
    assert manifest["topic_params"]["nr_topics"] == 3
    topics = json.loads((files / "topics.json").read_text())["topics"]
    assert len([t for t in topics if t["topic"] >= 0]) == 3, "the themes are saved to the review"

    page.get_by_role("button", name="Check stability").click()
    page.get_by_text("topics below 80 %").wait_for(timeout=120_000)
    header = page.locator("table.wb-bars th", has_text="stable").first
    header.wait_for(timeout=30_000)
    cells = page.locator("table.wb-bars td.wb-meta", has_text="%")
    assert cells.count() == 3
    shot(page, "01_explore_themes.png")
    page.close()
