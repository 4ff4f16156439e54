"""Words fit their boxes: no button or table header of 01 and 03 is cut, at 1280x800 and 1920x1080.

Real JupyterLab in Debian's Chromium (see tests/test_browser.py); skipped without /usr/bin/chromium.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbench
from _lab import ThrowawayLab

from _browser import CHROMIUM, lasso, open_and_run_all, shot
from conftest import ROOT

# Extended tests (make test-long, not CI): test_browser_map checks that no button or header of
# any notebook is cut at both sizes; this module adds the sub-topics' table and 03's titles.
pytestmark = [pytest.mark.browser, pytest.mark.extended]

SIZES = [(1280, 800), (1920, 1080)]

# Buttons and table headers in the notebooks' outputs whose text is wider than their box.
CUT = """() => [...document.querySelectorAll('.jp-OutputArea-output .jupyter-button, .jp-OutputArea-output th')]
  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map(e => (e.innerText || e.title || e.outerHTML.slice(0, 80)).trim())"""


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    ws = tmp_path_factory.mktemp("lab_words")
    shutil.copytree(ROOT / "notebooks", ws / "notebooks")
    workbench.build([ROOT / "seeds"], review=ws / "review", embedder="fake", seed=42)
    server = ThrowawayLab(ws, "wb-words-token", env={"WORKBENCH_REVIEWER": "browser-words"})
    yield {"url": server.url, "token": server.token, "ws": ws}
    server.stop()


@pytest.mark.parametrize("width, height", SIZES)
def test_compare_names_papers_by_title_and_cuts_no_words(browser, lab, width, height):
    page = open_and_run_all(browser, lab, "03_compare.ipynb", workspace=f"compare-{width}")
    page.set_viewport_size({"width": width, "height": height})
    page.locator(".jp-OutputArea-output b", has_text="pairwise similarity").first.wait_for(timeout=180_000)
    page.locator(".jp-OutputArea-output table.wb-bars").first.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    shot(page, f"words_03_compare_{width}x{height}.png")
    assert page.evaluate(CUT) == []
    headers = page.locator(".jp-OutputArea-output table.wb-bars th").all_inner_texts()
    assert len([h for h in headers if h.strip()]) >= 4 and all(len(h) > 8 for h in headers if h.strip()), headers
    page.close()


@pytest.mark.parametrize("width, height", SIZES)
def test_explore_buttons_topic_table_and_sub_topics_are_not_cut(browser, lab, width, height):
    page = open_and_run_all(browser, lab, "01_explore.ipynb", workspace=f"explore-{width}")
    page.set_viewport_size({"width": width, "height": height})
    page.get_by_role("button", name="Re-cluster selection").wait_for(timeout=180_000)
    page.get_by_text("Topics", exact=True).last.click()  # open the accordion with the topic table
    typical = page.locator(".jp-OutputArea-output th", has_text="typical papers").first
    typical.wait_for(timeout=30_000)
    typical.scroll_into_view_if_needed()
    shot(page, f"words_01_topics_{width}x{height}.png")
    assert lasso(page) > 0
    page.get_by_role("button", name="Re-cluster selection").click()
    page.locator(".jp-OutputArea-output b", has_text="Sub-topics of the selection").wait_for(timeout=120_000)
    page.locator(".jp-OutputArea-output b", has_text="Sub-topics of the selection").scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    shot(page, f"words_01_explore_{width}x{height}.png")
    assert page.evaluate(CUT) == []
    assert page.locator("table.wb-bars th", has_text="sub-topic").count() == 1
    page.close()
