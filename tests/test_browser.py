"""Real JupyterLab in a real Chromium at 1280x800: click tags and decisions, lasso on the map,
look at themes, add a new search from 02's folded panel, find it all in the store.

Starts JupyterLab on 127.0.0.1 with a throw-away workspace (the notebooks and a review built
from the seeds), drives Debian's Chromium with Playwright, and reads the SQLite store from the
test process after each action. Screenshots go to test-output/browser/. Needs /usr/bin/chromium
(`apt-get install chromium`; .ci/run installs it); skipped without it.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

import workbench

from _browser import REVIEWER, doc_shot, lasso, open_and_run_all, said, shot, store, title_of, view_ready

pytestmark = pytest.mark.browser


def next_card(page, shown: str) -> str:
    """Wait until the screening card shows another paper than ``shown``; returns its id."""
    page.wait_for_function(
        "id => !document.querySelector('.wb-card code') || document.querySelector('.wb-card code').innerText !== id",
        arg=shown, timeout=30_000)
    return page.locator(".wb-card code").first.inner_text()


def test_screening_clicks_reach_the_store(browser, lab):
    page = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb")
    view_ready(page, "screen")
    first_id = page.locator(".wb-card code").first.inner_text()

    page.get_by_placeholder("new tag(s), comma separated").fill("browser-tag")
    page.get_by_role("button", name="Add tag").click()
    said(page, "tagged browser-tag")
    expect(page.get_by_placeholder("new tag(s), comma separated")).to_have_value("")  # the tag box is cleared
    toggle = page.get_by_role("button", name="✓ 1 · browser-tag")  # on: filled, with a tick
    toggle.wait_for(timeout=30_000)
    page.get_by_role("button", name="include (i)").click()  # decides and moves to the next paper
    second_id = next_card(page, first_id)
    page.get_by_role("button", name="1 · browser-tag", exact=True).click()  # off on the second paper: turn it on
    said(page, "added tag browser-tag")
    page.get_by_role("button", name="maybe (m)").click()
    said(page, f"maybe: “{title_of(lab, second_id)}”")
    third_id = page.locator(".wb-card code").first.inner_text()
    page.get_by_role("button", name="◀ previous (k)").click()
    next_card(page, third_id)
    page.get_by_role("button", name="✓ maybe (m)").wait_for(timeout=30_000)  # its decision, highlighted
    page.get_by_role("button", name="next (j) ▶").click()
    assert next_card(page, second_id) == third_id
    # Keyboard shortcut: a click on the paper gives the view the keys; "e" excludes it.
    page.locator(".wb-card h3").first.click()
    page.keyboard.press("e")
    said(page, f"exclude: “{title_of(lab, third_id)}”")
    shot(page, "02_tag_and_screen.png")

    with store(lab) as s:
        assert set(s.tags.papers_with("browser-tag")) == {first_id, second_id}
        assert s.decisions.of(first_id, reviewer=REVIEWER).decision == "include"
        assert s.decisions.of(second_id, reviewer=REVIEWER).decision == "maybe"
        assert s.decisions.of(third_id, reviewer=REVIEWER).decision == "exclude"
    page.close()


def test_lasso_on_the_map_then_tag_the_selection(browser, lab):
    page = open_and_run_all(browser, lab, "01_explore.ipynb")
    view_ready(page, "explore")
    count = lasso(page)
    assert count > 20, "the lasso covers most of the map"
    page.get_by_placeholder("tag(s), comma separated").fill("lasso-tag")
    page.get_by_role("button", name="Tag selected").click()
    yes = page.get_by_role("button", name=f"Yes, tag {count} papers")  # more than 20: asked first
    yes.wait_for(timeout=30_000)
    with store(lab) as s:
        assert s.tags.papers_with("lasso-tag") == [], "nothing is tagged before the answer"
    yes.click()
    said(page, f"tagged {count} papers: lasso-tag")
    shot(page, "01_explore.png")

    with store(lab) as s:
        tagged = s.tags.papers_with("lasso-tag")
        assert len(tagged) == count
        assert {e.reviewer for e in s.history(limit=5) if "lasso-tag" in e.summary} == {REVIEWER}
    page.close()


def test_show_themes_then_save_them_and_check_stability(browser, lab):
    page = open_and_run_all(browser, lab, "01_explore.ipynb")
    view_ready(page, "explore")
    page.locator(".jupyter-widget-Collapse-header", has_text="Topics").first.click()  # open the accordion
    themes = page.get_by_label("themes")
    themes.wait_for(timeout=30_000)
    themes.fill("3")
    generation = workbench.open_review(lab["review"]).generation
    page.get_by_role("button", name="Show themes").click()
    said(page, "3 topics", timeout=120)
    assert workbench.open_review(lab["review"]).generation == generation, "looking at themes saves nothing"
    page.get_by_role("button", name="Save these themes").click()
    said(page, "3 topics saved", timeout=120)
    files = workbench.open_review(lab["review"]).files  # the generation the store names
    manifest = json.loads((files / "build.json").read_text())
    assert manifest["topic_params"]["nr_topics"] == 3
    topics = json.loads((files / "topics.json").read_text())["topics"]
    assert len([t for t in topics if t["topic"] >= 0]) == 3, "the themes are saved to the review"
    with store(lab) as s:
        assert s.history(limit=1)[0].action == "topic-run"

    page.get_by_role("button", name="Check stability").click()
    said(page, "stability checked", timeout=120)
    header = page.locator(".wb-explore table.wb-bars th", has_text="stable").first
    header.wait_for(timeout=30_000)
    cells = page.locator(".wb-explore table.wb-bars td.wb-meta", has_text=re.compile(r"^\d+%$"))
    assert cells.count() == 3
    doc_shot(page, "explore_themes.png")
    page.close()


def test_add_a_new_search_from_02_then_screen_the_new_papers(browser, lab):
    """02's folded "Add a new search": the files and provenance typed, the button answers beside
    itself, the queue switches to the new papers and the card says "new since". Last in the module:
    it adds papers to the review the other tests use."""
    from conftest import seed_abstracts, write_seed_file

    new = ["Robots that learn kitchen chores from people by watching videos and asking questions.",
           "A survey of benchmark contamination in large language model evaluation and how to detect it."]
    write_seed_file(lab["ws"] / "pubmed-2025.txt", seed_abstracts()[:3] + new)
    page = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb", workspace="living")
    view_ready(page, "screen")
    panel = page.locator(".wb-living")
    panel.get_by_text("Add a new search").click()
    page.get_by_placeholder("the new search's exports, one per line (e.g. ../pubmed-2025.ris)").fill("../pubmed-2025.txt")
    page.get_by_placeholder("e.g. PubMed").fill("PubMed")
    page.get_by_placeholder("YYYY-MM-DD").fill("2025-03-01")
    page.get_by_role("button", name="Add to the review").click()
    answer = said(page, "2 new papers", timeout=180, scope=panel)
    assert "3 records already in the review" in answer
    expect(panel.locator(".wb-update")).to_contain_text("pubmed-2025.txt (database PubMed, searched 2025-03-01): 5 records")
    expect(page.locator(".wb-card .wb-new").first).to_contain_text("new since")
    page.locator(".wb-card h3").first.click()
    page.keyboard.press("e")
    said(page, "exclude:")
    panel.get_by_text("Possible duplicates").click()
    expect(panel.locator(".wb-dup-count")).to_contain_text("left to settle", timeout=60_000)
    shot(page, "02_living.png")
    assert len(workbench.open_review(lab["review"]).updates.new_papers(unscreened=True)) == 1
    page.close()
