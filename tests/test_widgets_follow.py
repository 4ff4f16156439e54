"""Every view follows the review as another process changes it (issue 45, point 1), without a
browser: the views of 01, 02, 03 and 04 open in this process, each on a session of its own as in
a notebook kernel, while the ``workbench`` command line (a process of its own, on the same SQLite
file) tags, decides, notes, adds a new search, merges duplicates, renames a topic and rebuilds.
The view's next action (what the browser sends first on any click, focus or key: ``keys.touch()``)
or its Reload shows the change, with no error; a view that cannot follow says so in one line with
Reopen. Also the answers that belong to a selection or a conflict (point 2) and Enter in the
boxes beside a button (point 3)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.widgets import Session, compare, explore, screen, snowball, topics

from _kernels import child_env, workbench_command
from conftest import ROOT, seed_abstracts, write_csv


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("follow")
    workbench.build([ROOT / "seeds"], review=folder / "review", embedder="fake", seed=42, progress=False)
    texts = seed_abstracts()
    # Three new records: abstracts of their own (a few seed sentences in another order)
    rows = [[f"A new search record number {i} on language model evaluation",
             " ".join(reversed(texts[10 * i + 3].split(". "))) + " Evaluated on new benchmarks.",
             f"10.5555/new{i}", 2025, "Newcomer, N"] for i in range(3)]
    write_csv(folder / "new-search.csv", rows)
    return folder


@pytest.fixture
def case(built, tmp_path):
    return Path(shutil.copytree(built, tmp_path / "case"))


def cli(case: Path, *args: str, reviewer: str = "ben") -> str:
    """A ``workbench`` command in a process of its own, on the review's store."""
    done = subprocess.run([*workbench_command(), *args, "--review", str(case / "review")], capture_output=True,
                          text=True, timeout=300, env=child_env(WORKBENCH_REVIEWER=reviewer))
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def sessions(case):
    opened = []

    def open_one():
        s = Session.open(case / "review", reviewer="ana")
        opened.append(s)
        return s

    yield open_one
    for s in opened:
        s.close()


def legend_counts(view) -> dict:
    return {e["key"]: e["count"] for e in view.map.legend.entries}


def no_error(*lines) -> None:
    for line in lines:
        assert "wb-err" not in line.value, line.value


def test_tags_decisions_and_notes_from_another_process_show_on_the_next_action(case, sessions):
    one, two, three = sessions(), sessions(), sessions()
    ex, sc, co = explore(one), screen(two), compare(three, one.ids[:2])
    ex.colour.value = "tag"
    first, second, third = one.ids[:3]
    cli(case, "tag", first, "from-cli")
    cli(case, "decide", second, "include")
    cli(case, "note", first, "a note typed in a terminal")

    assert "from-cli" not in legend_counts(ex)  # nothing is read before the user acts
    ex.keys.touch()  # what the browser sends before a click in the view
    assert "read changes made elsewhere" in ex.reload_act.line.value
    said = ex.reload_act.line.value
    assert all(words in said for words in ("1 tag added", "1 decision", "1 note", "by ben")), said
    assert legend_counts(ex)["from-cli"] == 1
    ex.select([first])
    ex.open_paper(first)
    assert ex.card.card["id"] == first and "a note typed in a terminal" in ex.card.shown()

    sc.keys.press("j")  # a key press: the change is read before the key's action
    sc.play([{"go": first}])
    assert "from-cli" in on_card(sc)
    co.keys.touch()
    assert "from-cli" in co.columns.value and "read changes made elsewhere" in co.reload_act.line.value
    no_error(ex.map.line, ex.following.note, sc.following.note, co.following.note)


def on_card(screen) -> set[str]:
    """The tags the screening card shows on for its paper."""
    return {t["name"] for t in screen.card.tags if t["on"]}


def test_a_new_search_added_elsewhere_then_reload_and_colour_by_decision(case, sessions):
    """Issue 45's first complaint: after an update elsewhere, Reload in 01 said `✗ unexpected
    error (ValueError: Length of values (136) does not match length of index (133))`, the legend
    kept counting 133 and "colour by decision" did nothing."""
    s = sessions()
    view, table = explore(s), topics(s)
    before = len(s.ids)
    coords = s.review.coords.copy()
    view.select(s.ids[:5], what="five papers")
    cli(case, "update", str(case / "new-search.csv"), "--database", "Scopus", "--searched", "2025-03-01")

    view.on_reload()
    line = view.reload_act.line.value
    assert "✓" in line and "3 new papers, placed on the map beside their most similar papers" in line, line
    view.colour.value = "decision"
    assert sum(legend_counts(view).values()) == before + 3 == len(view.frame)
    assert len(view.scatter.get_point_list()) == len(view.scatter.widget.points) == before + 3
    assert np.allclose(view.frame[["x", "y"]].to_numpy()[:before], coords)  # the old papers stay put
    assert f"{before + 3} papers" in view.title.value
    assert view.selected == s.ids[:5] and len(view.table.rows) == 5  # the selection stays, on the new points
    view.colour.value = "topic"
    assert sum(legend_counts(view).values()) == before + 3
    new = [p for p in s.ids if p not in set(s.ids[:before])]
    view.select(new)
    view.open_paper(new[0])
    assert "A new search record number" in view.card.card["title_html"]
    assert "topics (saved)" in table.table.value
    no_error(view.map.line, view.following.note, view.reload_act.line)


def test_a_new_search_elsewhere_reaches_02_on_its_next_action(case, sessions):
    s = sessions()
    view = screen(s)
    before = view.queue.progress()[1]
    cli(case, "update", str(case / "new-search.csv"))
    view.keys.press("j")
    assert "3 new papers" in view.reload_act.line.value
    assert any(v.startswith("new since") for _, v in view.show.options)
    view.on_reload()  # Reload: the queue is filtered again, with the new papers
    assert view.queue.progress()[1] == before + 3
    no_error(view.following.note, view.filter_act.line)


def test_a_merge_and_a_topic_rename_elsewhere(case, sessions):
    one, two = sessions(), sessions()
    ex, sc = explore(one), screen(two, show="all", order="map")
    kept, gone = sc.queue.ids[0], sc.queue.ids[1]
    ex.select([kept, gone], what="two papers")
    topic = int(one.review.labels[one.review.row(kept)])
    cli(case, "tag", gone, "on-the-merged-one")
    cli(case, "duplicates", "--same", kept, gone)
    cli(case, "rename-topic", str(topic), "Renamed in a terminal")

    ex.keys.touch()
    assert "1 duplicate merged" in ex.reload_act.line.value and "1 topic renamed" in ex.reload_act.line.value
    assert any("Renamed in a terminal" in e["label"] for e in ex.map.legend.entries)
    assert "Renamed in a terminal" in ex.topic_tools.overview.value
    sc.keys.touch()
    assert gone not in sc.queue.ids and kept in sc.queue.ids  # the merged-away paper left the queue
    sc.play([{"go": kept}])
    assert "on-the-merged-one" in on_card(sc)  # its annotations followed it
    assert ex.selected == [kept]  # the selection holds the papers as they are now
    ex.play([{"tag": "after the merge"}])
    assert "after the merge" in one.store.tags.of(kept)
    no_error(ex.map.line, ex.following.note, sc.following.note)


def test_a_rebuild_elsewhere_redraws_the_map(case, sessions):
    s = sessions()
    view = explore(s)
    view.colour.value = "decision"
    before = s.review.coords.copy()
    cli(case, "build", str(ROOT / "seeds"), "--embedder", "fake", "--seed", "7")
    view.keys.touch()
    assert "read changes made elsewhere" in view.reload_act.line.value
    assert not np.allclose(view.frame[["x", "y"]].to_numpy(), before)  # drawn at the new places
    assert np.allclose(view.frame[["x", "y"]].to_numpy(), s.review.coords)
    assert view.map.drawn_as_shown()
    no_error(view.map.line, view.following.note)


def test_a_view_that_cannot_follow_says_so_in_one_line_and_reopen_brings_it_back(case, sessions):
    s = sessions()
    view = explore(s)
    n = len(s.ids)
    cli(case, "update", str(case / "new-search.csv"))
    # The new files, half there (as while another process still writes them)
    current = max((case / "review" / "generations").iterdir(), key=lambda p: p.stat().st_mtime)
    (current / "papers.jsonl").rename(current / "papers.jsonl.away")
    view.keys.touch()
    assert view.following.stale
    said = view.following.note.value
    assert "wb-err" in said and "could not be read" in said and "Reopen" in said
    assert len(view.frame) == n  # the view still shows the review it had
    (current / "papers.jsonl.away").rename(current / "papers.jsonl")
    view.following.on_reopen()
    assert not view.following.stale
    assert len(view.frame) == n + 3 and "reopened" in view.reload_act.line.value


def test_a_tag_answer_goes_when_the_selection_changes_and_names_papers_by_title(case, sessions):
    s = sessions()
    view = explore(s)
    a, b, c = s.ids[:3]
    view.select([a])
    view.play([{"tag": "key"}])
    title = s.review.paper(a).title
    assert "✓ tagged “" in view.tag_act.line.value and title.split()[0] in view.tag_act.line.value
    view.select([b, c])
    assert view.tag_act.line.value == ""  # it spoke of the previous selection
    view.play([{"note": "both"}])
    assert "note added to “" in view.note_act.line.value and " and “" in view.note_act.line.value
    view.select_topic(0)
    assert view.note_act.line.value == ""


def test_enter_in_the_resolve_why_box_resolves_and_its_answer_goes_with_the_conflict(case):
    ids = [p.id for p in workbench.open_review(case / "review").papers]
    for who, decision in (("ana", "include"), ("ben", "exclude")):
        cli(case, "decide", ids[0], decision, reviewer=who)
        cli(case, "decide", ids[1], decision, reviewer=who)
    with Session.open(case / "review", reviewer="lead") as s:
        view = screen(s, show="conflicts")
        first = view.queue.current_id
        view.team.final.value = "exclude"
        view.keys.enter("resolve", "wrong topic")  # Enter in the why box
        final = s.store.team.final(first)
        assert (final.decision, final.reason) == ("exclude", "wrong topic")
        answer = view.team.resolve_act.line.value
        assert "✓ resolved “" in answer and first not in answer and "the next conflict is shown" in answer
        view.keys.press("j")
        view.keys.press("k")
        assert view.team.resolve_act.line.value == ""


def test_enter_in_the_boxes_beside_a_button(case, sessions):
    s = sessions()
    ex, sc, sb = explore(s), screen(s), snowball(s)
    ex.select(s.ids[:2])
    ex.keys.enter("bulk-reason", "off topic")  # asks first, as the button does
    assert ex.bulk.bulk_act.waiting
    sc.living.update.files.value = str(case / "new-search.csv")
    sc.keys.enter("update-searched", "not a date")
    assert "YYYY-MM-DD" in sc.living.update.update_act.line.value
    sb.keys.enter("path", "")
    assert "press Find first" in sb.write_act.line.value


def test_undo_says_exactly_what_it_undid_naming_papers_by_title(case, sessions):
    s = sessions()
    view = explore(s)
    a, b = s.ids[:2]
    short = s.review.paper(a).title.split()[0]
    view.select_topic(0)
    n = len(view.selected)
    view.play([{"tag": "rlhf, key"}, {"undo": True}])
    assert view.undo_act.line.value.endswith(f"✓ undid the tags rlhf, key on {n} papers</span>")
    view.play([{"select": [a]}, {"decide": "exclude", "reason": "off topic"}, {"undo": True}])
    said = view.undo_act.line.value
    assert "undid the decision exclude (off topic) on “" in said and short in said and a not in said
    view.play([{"select": [a, b]}, {"note": "read twice"}, {"undo": True}])
    assert "undid the note “read twice” on “" in view.undo_act.line.value
    s.living.settle_duplicates(a, b, "same")
    view.on_undo()
    assert "undid the merge of “" in view.undo_act.line.value and a not in view.undo_act.line.value


def test_reload_after_its_own_click_read_the_changes_says_what_they_were(case, sessions):
    s = sessions()
    view = explore(s)
    cli(case, "tag", s.ids[0], "from-cli")
    view.keys.touch()  # the click on Reload is checked first: it reads the change
    view.on_reload()
    assert "1 tag added by ben" in view.reload_act.line.value
    view.on_reload()
    assert "no changes elsewhere" in view.reload_act.line.value
