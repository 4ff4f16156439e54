"""Two notebooks open on one review in a real JupyterLab, both tagging through their widgets, and
the command line tagging in between: a fresh process must then find every tag in the store.

On the way the screening notebook undoes a tag and the explore notebook shows 3 themes and then
the default topics, as the user of issue 10 did (each of these opens a second store handle in
the kernel). The store is read while both notebooks are open and again after JupyterLab stopped.
Needs /usr/bin/chromium (`apt-get install chromium`); skipped without it. Screenshots go to
test-output/browser/.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import workbench
from _lab import ThrowawayLab

from _browser import ARGS, CHROMIUM, ViewError, forget_answers, lasso, open_and_run_all, shot, status, view_ready
from _kernels import Cli, Ledger, read_store
from conftest import ROOT

pytestmark = pytest.mark.browser

REVIEWER = "browser-user"


@pytest.fixture
def workspace(tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip("no /usr/bin/chromium (apt-get install -y chromium)")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    review = workbench.build([ROOT / "seeds"], review=tmp_path / "review", embedder="fake", seed=42)
    return tmp_path, [p.id for p in review.papers], review.manifest["topics"]["count"]


def tag_selection(explore, selected: int, tag: str) -> None:
    """Tag the map selection through its box and button (answering the question over 20)."""
    row = explore.locator(".widget-hbox", has=explore.get_by_role("button", name=re.compile(r"Tag selected$"))).last
    forget_answers(row)
    explore.get_by_placeholder("tag(s), comma separated").fill(tag)
    explore.get_by_role("button", name=re.compile(r"Tag selected$")).click()
    if selected > 20:
        explore.get_by_role("button", name=f"Yes, tag {selected} papers").click()
    status(explore, f"tagged {selected} papers: {tag}", scope=row)


def test_two_notebooks_and_the_command_line_keep_every_tag(workspace):
    from playwright.sync_api import sync_playwright

    ws, ids, n_default = workspace
    review = ws / "review"
    ledger = Ledger()
    cli = Cli(review, ledger)
    lab = ThrowawayLab(ws, "wb-shared-token", env={"WORKBENCH_REVIEWER": REVIEWER})
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            server = {"url": lab.url, "token": lab.token}
            screen = open_and_run_all(browser, server, "02_tag_and_screen.ipynb")
            explore = open_and_run_all(browser, server, "01_explore.ipynb")

            selected, lasso_tags = None, []
            try:
                # Notebook 1 (screening): a new tag on the first paper.
                screen.wait_for_selector(".wb-card h3", timeout=180_000)
                first = screen.locator(".wb-card code").first.inner_text()
                screen.get_by_placeholder("new tag(s), comma separated").fill("screen-1")
                screen.get_by_role("button", name="Add tag").click()
                status(screen, "tagged screen-1")
                ledger.tagged([first], ["screen-1"])
                screen.get_by_placeholder("new tag(s), comma separated").fill("oops")
                screen.get_by_role("button", name="Add tag").click()
                status(screen, "tagged oops")
                screen.get_by_role("button", name=re.compile(r"Undo \(u\)$")).click()  # re-reads the topics, too
                status(screen, "undid")
                ledger.untagged_by_undo(first, "oops")

                # Notebook 2 (explore): 3 themes, then a lasso and a tag on the selection.
                view_ready(explore, "explore")
                explore.locator(".jupyter-widget-Collapse-header", has_text="Topics").first.click()
                themes = explore.get_by_label("themes")
                themes.fill("3")
                themes.press("Enter")
                status(explore, "3 topics", timeout=120)  # Enter in the box shows them
                ledger.showed_topics(3)
                cli.tag(ids[0], "cli-1")
                selected = lasso(explore)
                assert selected > 0
                tag_selection(explore, selected, "lasso-1")
                lasso_tags.append("lasso-1")

                # Notebook 1 again: the next paper gets the same tag through its toggle.
                screen.get_by_role("button", name="next (j) ▶").click()
                screen.wait_for_function(
                    "id => document.querySelector('.wb-card code').innerText !== id", arg=first,
                    timeout=30_000)
                second = screen.locator(".wb-card code").first.inner_text()
                # the tag buttons are numbered in vocabulary order: cli-1 and lasso-1 now come first
                screen.get_by_role("button", name=re.compile(r"^\d+ · screen-1$")).click()
                status(screen, "added tag screen-1")
                ledger.tagged([second], ["screen-1"])
                cli.tag(ids[1], "cli-2")

                # Notebook 2: the default topics, then the selection gets a second tag.
                explore.get_by_role("button", name="Default topics").click()
                status(explore, f"{n_default} topics", timeout=120)
                ledger.showed_topics(n_default)
                tag_selection(explore, selected, "lasso-2")
                lasso_tags.append("lasso-2")

                # Notebook 1: one more new tag, after everything else.
                screen.get_by_placeholder("new tag(s), comma separated").fill("screen-2")
                screen.get_by_role("button", name="Add tag").click()
                status(screen, "tagged screen-2")
                ledger.tagged([second], ["screen-2"])
            except ViewError as err:  # an error shown to the user ends the session here
                ledger.failures.append(str(err))
            shot(screen, "shared_02_tag_and_screen.png")
            shot(explore, "shared_01_explore.png")
            while_open = read_store(review)
            browser.close()
    finally:
        lab.stop()  # the kernels shut down: their stores close
    after = read_store(review)

    def lasso_lost(view) -> int:
        return sum(max(0, selected - sum(1 for _, t in view.tags if t == tag))
                   for tag in lasso_tags)

    problems = []
    for where, view in (("while both notebooks were open", while_open),
                        ("after JupyterLab stopped", after)):
        problems += ledger.missing(view, where)
        for tag in lasso_tags:
            have = sum(1 for _, t in view.tags if t == tag)
            if have != selected:
                problems.append(f"{where}: {have} papers tagged {tag!r}, the view said {selected}")
    problems += [f"error shown to the user: {f}" for f in ledger.failures]
    acknowledged = ledger.acknowledged + (selected or 0) * len(lasso_tags)
    summary = (f"{acknowledged} writes acknowledged; "
               f"{ledger.lost(while_open) + lasso_lost(while_open)} tags lost while the notebooks "
               f"were open, {ledger.lost(after) + lasso_lost(after)} after JupyterLab stopped")
    print(summary)
    assert not problems, summary + "\n" + "\n".join(problems)
