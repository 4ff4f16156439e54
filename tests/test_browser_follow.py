"""Issue 45, points 1-3, in a real JupyterLab and Chromium: 01 and 02 open at once (a kernel
each), a new search added in 02, then Reload and "colour by decision" in 01 (the legend counts the
new total, no error shown); a tag's answer in 01 gone once the selection changes; Enter in the
Resolve "why" box of a third kernel resolves the conflict. One lab for the module; needs
/usr/bin/chromium.
"""

from __future__ import annotations

import re

import pytest

from _browser import (forget_answers, lasso, open_and_run_all, press_enter_in, said, shot, store, view_ready)
from conftest import seed_abstracts, write_csv

pytestmark = pytest.mark.browser

WHY = "why (for an exclusion: the reason PRISMA counts)"


def legend_total(page) -> int:
    counts = page.locator(".wb-explore .wb-legend-entry .wb-legend-count").all_inner_texts()
    return sum(int(c) for c in counts)


def test_a_new_search_in_02_then_reload_and_colour_by_decision_in_01(browser, lab):
    texts = seed_abstracts()
    write_csv(lab["ws"] / "scopus-2025.csv",
              [[f"A record of the new search number {i} on evaluation", texts[20 * i + 5][::-1][:600], f"10.5555/s{i}",
                2025, "Newcomer, N"] for i in range(3)])
    explore = open_and_run_all(browser, lab, "01_explore.ipynb", workspace="follow-01")
    screen = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb", workspace="follow-02")
    try:
        view_ready(explore, "explore")
        explore.wait_for_selector(".wb-explore .wb-legend-entry", timeout=60_000)
        before = legend_total(explore)

        view_ready(screen, "screen")
        panel = screen.locator(".wb-living")
        panel.get_by_text("Add a new search").click()
        screen.get_by_placeholder("the new search's exports, one per line (e.g. ../pubmed-2025.ris)").fill(
            "../scopus-2025.csv")
        screen.get_by_placeholder("e.g. PubMed").fill("Scopus")
        screen.get_by_role("button", name="Add to the review").click()
        said(screen, "3 new papers", timeout=180, scope=panel)

        explore.get_by_role("button", name="Reload").click()
        answer = said(explore, "", timeout=120, scope=explore.locator(".wb-explore .widget-hbox",
                                                                        has=explore.get_by_role("button", name="Reload")).first)
        assert "3 new papers" in answer, answer
        explore.locator(".wb-explore .widget-toggle-button", has_text=re.compile(r"^decision$")).click()
        explore.wait_for_selector(".wb-legend-title:has-text('your decision')", timeout=60_000)
        explore.wait_for_function(f"() => [...document.querySelectorAll('.wb-explore .wb-legend-count')]"
                                  f".reduce((n, e) => n + Number(e.textContent), 0) === {before + 3}", timeout=60_000)
        assert explore.locator(".wb-explore .wb-err").count() == 0
        assert f"{before + 3} papers" in explore.locator(".wb-explore h3").first.inner_text()
        shot(explore, "follow_01_after_update.png")

        # A tag's answer belongs to the selection it was about
        selected = lasso(explore)
        assert selected > 0
        row = explore.locator(".widget-hbox", has=explore.get_by_role("button", name=re.compile(r"Tag selected$"))).last
        forget_answers(row)
        press_enter_in(explore, "tag(s), comma separated", "looked-at")
        if selected > 20:
            explore.get_by_role("button", name=f"Yes, tag {selected} papers").click()
        said(explore, "tagged ", scope=row)
        with store(lab) as s:
            assert len(s.tags.papers_with("looked-at")) == selected
        explore.locator(".wb-explore .widget-toggle-button", has_text=re.compile(r"^topic$")).click()
        explore.locator(".wb-legend-entry").first.click()  # another selection: a topic's papers
        explore.wait_for_function("() => !document.querySelector('.wb-explore .wb-selcount')"
                                  f".textContent.startsWith('{selected} ')", timeout=30_000)
        explore.wait_for_function("(el) => el.querySelector('.wb-ok') === null", arg=row.element_handle(),
                                  timeout=30_000)
        assert explore.locator(".wb-explore .wb-err").count() == 0
    finally:
        explore.close()
        screen.close()


def test_enter_in_the_resolve_why_box_resolves(browser, lab):
    from workbench import open_review

    pid = open_review(lab["review"]).papers[7].id
    for who, decision in (("ana", "include"), ("ben", "exclude")):
        with store(lab, who) as s:
            s.decisions.decide(pid, decision)
    page = open_and_run_all(browser, lab, "02_tag_and_screen.ipynb", workspace="follow-resolve")
    try:
        view_ready(page, "screen")
        page.locator(".wb-show select").select_option(label="conflicts to resolve")
        said(page, "1 papers in the queue")
        page.locator(".wb-final select").select_option(label="exclude")
        press_enter_in(page, WHY, "wrong topic")  # Enter, no click on Resolve
        answer = said(page, "resolved “", timeout=30)
        assert pid not in answer
        page.wait_for_selector(".wb-conflicts:has-text('0 open conflicts')", timeout=30_000)
    finally:
        page.close()
    with store(lab, "lead") as s:
        final = s.team.final(pid)
    assert (final.decision, final.reason) == ("exclude", "wrong topic")
