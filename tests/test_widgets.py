"""The widgets' state and actions, without a browser: every action reaches the store at once,
and paper text stays inert HTML everywhere."""

import json
import re

import numpy as np
import pytest

import workbench
from workbench.errors import InputError, StoreError
from workbench.store import Store
from workbench.widgets import Comparison, ScreeningQueue, Session, compare, explore, screen, topics
from workbench.session.text import escape, highlight

from conftest import ROOT, write_seed_file

EVIL = [
    "Agents that plan <script>alert('x')</script> with memory and tools over long horizons in the web.",
    'Reward models <img src=x onerror="alert(1)"> for alignment from human feedback and preferences.',
]


@pytest.fixture(scope="module")
def review_path(tmp_path_factory):
    folder = tmp_path_factory.mktemp("widgets")
    src = write_seed_file(folder / "evil.txt", EVIL, collection="<b>Evil</b> & co")
    workbench.build([ROOT / "seeds", src], review=folder / "review", embedder="fake")
    return folder / "review"


@pytest.fixture
def session(review_path):
    s = Session.open(review_path, reviewer="tester")
    yield s
    s.close()


def _store(review_path):
    return Store.open(review_path)


def test_session_actions_are_saved_at_once(session, review_path):
    ids = session.ids[:3]
    session.tag(ids, "to-read", "survey")
    session.note(ids[0], "a note")
    session.decide(ids[1], "include", reason="on topic")
    with _store(review_path) as other:  # another connection sees it without any save step
        assert other.tags.of(ids[0]) == ["survey", "to-read"]
        assert [n.text for n in other.notes.of(ids[0])] == ["a note"]
        assert other.decisions.of(ids[1], reviewer="tester").decision == "include"
    session.undo()
    with _store(review_path) as other:
        assert other.decisions.of(ids[1], reviewer="tester") is None


def test_frame_carries_tags_and_decisions_for_colouring(session):
    pid = session.ids[5]
    session.tag(pid, "colour-me")
    session.decide(pid, "exclude")
    row = session.frame().set_index("id").loc[pid]
    assert "colour-me" in row.tags and row.decision == "exclude" and row.first_tag != "untagged"


def test_bad_actions_are_clear_errors(session):
    with pytest.raises(InputError, match="no papers selected"):
        session.tag([], "x")
    with pytest.raises(InputError, match="decision 'yes'"):
        session.decide(session.ids[0], "yes")
    with pytest.raises(InputError, match="note is empty"):
        session.note(session.ids[0], "   ")


def test_keyword_and_semantic_search(session):
    hits = session.review.keyword_search("reward model")
    assert hits and all(re.search(r"reward", session.review.paper(h).text, re.I) for h in hits)
    assert session.review.keyword_search("the of and") == []
    result = session.review.search("reward models for alignment", k=5)
    assert len(result.semantic) == 5 and result.semantic[0][1] >= result.semantic[-1][1]
    assert result.ids[: len(result.keyword)] == result.keyword


def test_neighbours_and_recluster(session):
    near = session.review.neighbours(session.ids[0], k=3)
    assert len(near) == 3 and session.ids[0] not in [n for n, _ in near]
    table = session.review.recluster(session.ids[:60])
    assert list(table.columns) == ["id", "title", "subtopic", "subtopic_label"]
    assert table.subtopic.nunique() >= 2


def test_screening_queue_filters_moves_and_keys(session):
    q = ScreeningQueue(session, show="untagged")
    n = len(q.ids)
    first = q.current_id
    assert q.press("j") == "next" and q.current_id != first
    assert q.press("k") == "previous" and q.current_id == first
    q.add_tag("key-test")
    assert q.press("i") == "decide"  # include and move on
    assert session.store.decisions.of(first).decision == "include"
    numbered = q.tags()  # in the order they were made: a new tag never renumbers the others
    q.press(str(numbered.index("key-test") + 1))  # toggles key-test on the new current paper
    assert "key-test" in session.store.tags.of(q.current_id)
    assert q.press("u") == "undo"
    assert "key-test" not in session.store.tags.of(q.current_id)
    assert q.press("?") is None
    assert q.refilter(show="untagged") < n
    screened, total = q.progress()
    assert total == len(session.ids) and screened >= 1


def test_queue_search_filters_and_highlights(session):
    q = ScreeningQueue(session, search="reward")
    assert q.ids and len(q.ids) < len(session.ids)
    card = q.card()
    assert '<mark class="wb-hit">' in card.abstract_html
    with pytest.raises(InputError, match="filter 'weird'"):
        q.refilter(show="weird")


def test_comparison_terms_similarity_and_shared_note(session):
    ids = session.review.keyword_search("reward")[:3]
    c = Comparison(session, ids)
    shared, distinctive = c.terms()
    assert shared and set(distinctive) == set(ids)
    for pid in ids:
        assert not set(distinctive[pid]) & set(shared)
    sim = c.similarity()
    assert sim.shape == (3, 3) and all(abs(sim.iloc[i, i] - 1) < 1e-3 for i in range(3))
    papers = c.papers(k_neighbours=2)
    assert 'class="wb-shared"' in papers[0].abstract_html and len(papers[0].neighbours) == 2
    c.note("these disagree on the reward model")
    for pid in ids:
        assert any("disagree" in n.text for n in session.store.notes.of(pid))
    with pytest.raises(InputError, match="compare 2 to 4 papers"):
        Comparison(session, ids[:1])


def test_paper_text_is_escaped_everywhere(session, review_path):
    evil_ids = session.review.keyword_search("script alert") + session.review.keyword_search("onerror")
    assert len(evil_ids) == 2
    q = ScreeningQueue(session)
    for pid in evil_ids:
        q.go(pid)
        card = q.card()
        for html in (card.title_html, card.abstract_html, card.collection):
            assert "<script" not in html and "<img" not in html and "<b>" not in html
        assert "&lt;script&gt;" in card.abstract_html or "&lt;img" in card.abstract_html
    view = screen(session)
    view.queue.go(evil_ids[0])
    view.render()
    assert "<script" not in view.card.shown() and "&lt;script&gt;" in view.card.shown()
    cmp_view = compare(session, evil_ids)
    assert "<script" not in cmp_view.columns.value and "<img src" not in cmp_view.columns.value
    session.tag(evil_ids, "<i>evil</i>")
    session.note(evil_ids[0], "<script>alert('note')</script>")
    written = workbench.write_report(session.review, image=False, reviewer=session.reviewer)
    html = written["html"].read_text()
    assert "<script" not in html and "<img src=x" not in html and "<i>evil" not in html
    assert "&lt;script&gt;alert(&#x27;note&#x27;)" in html and "&lt;i&gt;evil&lt;/i&gt;" in html
    map_html = (review_path / "map.html").read_text()
    assert "<script>alert(" not in map_html and "<img src=x onerror" not in map_html
    assert highlight("<b>x</b> reward", ["reward"]) == '&lt;b&gt;x&lt;/b&gt; <mark class="wb-hit">reward</mark>'


def test_explore_view_plays_actions_through_the_click_handlers(session, review_path):
    view = explore(session)
    view.play([
        {"select": "search:reward model", "tag": "from-search"},
        {"select": "topic:0", "decide": "maybe", "reason": "check later"},
        {"rename_topic": 1, "label": "Renamed by a click"},
        {"select": session.ids[:50], "recluster": True},
    ])
    with _store(review_path) as other:
        assert len(other.tags.papers_with("from-search")) == len(session.review.search("reward model").ids)
    assert "Renamed by a click" in set(session.review.topics.label)
    assert "sub-topics" in view.recluster_act.line.value and "✓" in view.recluster_act.line.value
    assert view.scatter.widget.selection is not None and len(view.scatter.widget.selection) == 50
    assert session.load_selection() == session.ids[:50]


def test_hover_previews_are_the_title_and_the_abstracts_start_cut_after_a_word(session):
    from workbench.corpus.texts import shorten  # (what Review.text_starts cuts with)

    view = explore(session)
    paper = session.review.paper(session.review.papers[0].id)
    preview = view.frame["preview"].iloc[0]
    title, cut = preview.split("\n")
    assert title == paper.title and len(cut) <= 260
    words = " ".join(paper.text.split())
    assert words.startswith(cut.removesuffix(" …")) and (cut.endswith(" …") or cut == words)
    assert shorten("one  two\nthree") == "one two three"
    assert shorten("word " * 100) == ("word " * 51).strip() + " …"
    assert shorten("x" * 300) == "x" * 258 + " …"  # no word boundary: cut in the word


def test_a_lasso_over_every_paper_fills_a_sortable_paged_table(session):
    view = explore(session)
    n = len(session.ids)
    view.scatter.widget.selection = np.arange(n)  # what a lasso over the whole map sends
    assert view.selected == session.ids and session.load_selection() == session.ids
    assert f"{n} selected" in view.selection_html.value and "on the map" in view.selection_html.value
    table = view.table
    assert (table.total, table.pages, len(table.rows)) == (n, -(-n // 10), 10)
    assert set(table.rows[0]) == {"id", "title", "year", "topic", "decision", "tags"}
    topics = [int(r["topic"].split(":")[0]) if r["topic"] != "Unassigned" else 99 for r in table.rows]
    assert topics == sorted(topics), "sorted by topic first"
    table.sort("title")
    titles = [r["title"].casefold() for r in table.rows]
    assert titles == sorted(titles) and table.page == 0
    table.sort("title")  # again: the other way
    assert [r["title"].casefold() for r in table.rows] == sorted((p.title.casefold() for p in session.review.papers),
                                                               reverse=True)[:10]
    table.go(table.pages - 1)
    assert len(table.rows) == n - 10 * (table.pages - 1)
    with pytest.raises(ValueError, match="no column 'size'"):
        table.sort("size")
    view.scatter.widget.selection = np.array([3, 1])
    assert view.selected == [session.ids[3], session.ids[1]] and table.total == 2 and table.page == 0
    view.scatter.widget.selection = None
    assert view.selected == [] and "0 selected" in view.selection_html.value and table.layout.display == "none"


def test_a_row_opens_the_papers_card_and_lights_it_up_on_the_map(session):
    view = explore(session)
    view.play([{"select": "topic:1"}])
    members = [pid for pid, t in zip(session.ids, session.review.labels) if t == 1]
    assert sorted(view.selected) == sorted(members) and "topic 1: " in view.selection_html.value
    pid = view.table.rows[2]["id"]
    session.tag(pid, "card-tag")
    session.note(pid, "a note <b>inert</b>")
    view.table.dispatch({"event": "open", "id": pid})  # what a click on the row sends
    card = view.card.card  # the card component beside the map (02's, in its "paper" mode)
    paper = session.paper(pid)
    assert view.card.mode == "paper" and card["id"] == pid and card["where"] == f"3 of {len(members)} selected"
    assert card["title_html"] == escape(paper.title) and card["abstract_html"] == escape(paper.text)
    assert card["tags"] == ["card-tag"] and card["notes_html"] == ["a note &lt;b&gt;inert&lt;/b&gt;"]
    assert card["decision"] == "" and view.table.opened == pid
    row = session.rows_of([pid])[0]
    (box,) = view.scatter.annotations()["annotations"]  # in data space
    assert box.x_start < view.frame.at[row, "x"] < box.x_end and box.y_start < view.frame.at[row, "y"] < box.y_end
    assert view.scatter.widget.hovering == row
    session.decide(pid, "include", reason="fits")  # another view decides: the card follows
    assert (view.card.card["decision"], view.card.card["reason"]) == ("include", "fits")
    assert next(r for r in view.table.rows if r["id"] == pid)["decision"] == "include"
    session.undo(3)  # the decision, the note and the tag: the module's review as it was


def test_the_legend_lists_topics_in_order_with_palette_colours_and_a_rename_keeps_them(session):
    from workbench.space.palette import topic_colour

    view = explore(session)
    entries = view.map.legend.entries
    topics = [e["key"] for e in entries]
    assert topics == sorted(t for t in topics if t >= 0) + [t for t in topics if t < 0]
    assert all(e["colour"] == topic_colour(e["key"]) and e["label"].startswith(f"{e['key']}:") for e in entries if e["key"] >= 0)
    points = view.scatter.widget.points.copy()
    view.play([{"rename_topic": 0, "label": "Legend rename"}])
    after = {e["key"]: e for e in view.map.legend.entries}
    assert after[0]["label"] == "0: Legend rename" and after[0]["colour"] == topic_colour(0)
    assert (view.scatter.widget.points == points).all(), "a rename moves no colour"
    view.map.legend.pick(0)
    assert len(view.selected) == after[0]["count"]
    session.undo()


def test_screen_these_fills_the_queue_of_a_screen_view_in_another_kernel(session, review_path):
    view = explore(session)
    with Session.open(review_path, reviewer="other-kernel") as elsewhere:
        queue_view = screen(elsewhere)
        assert queue_view.queue.show == "undecided"
        view.play([{"select": "topic:2", "screen_these": True}])
        sent = sorted(view.selected)
        assert "papers sent to the screening queue" in view.screen_act.line.value
        queue_view.on_reload()
        assert queue_view.show.value == "sent" and sorted(queue_view.queue.ids) == sent
        assert f"{len(sent)} papers sent from the map (topic 2: " in queue_view.filter_act.line.value
        queue_view.on_reload()  # nothing new: the queue stays
        assert sorted(queue_view.queue.ids) == sent and "papers in the queue" in queue_view.filter_act.line.value


def test_map_colours_follow_actions_without_rebuilding_the_frame(session, review_path):
    view = explore(session)
    frame, points = view.frame, view.scatter.widget.points
    first = session.ids[0]
    view.select([first])
    view.tag_text.value = "aaa-first-tag"
    view.on_tag()  # coloured by topic: the tag reaches the frame, the map's points are not sent again
    assert view.frame is frame and view.scatter.widget.data is frame  # what tooltips read
    assert frame.loc[0, "first_tag"] == "aaa-first-tag" and "aaa-first-tag" in frame.loc[0, "tags"]
    assert view.scatter.widget.points is points
    view.colour.value = "tag"
    recoloured = view.scatter.widget.points
    assert recoloured is not points
    view.decision.value = "exclude"
    view.on_decide()  # coloured by tag: a decision changes no colour, so nothing is sent
    assert frame.loc[0, "decision"] == "exclude" and view.scatter.widget.points is recoloured
    with _store(review_path) as other:  # another notebook decides; the next recolour shows it
        other.decisions.decide(session.ids[2], "maybe")
    view.colour.value = "decision"
    assert view.frame is frame and frame.loc[2, "decision"] == "maybe"
    assert view.scatter.color()["by"] == "decision"


def test_a_note_on_the_selection_is_one_undo(session):
    view = explore(session)
    chosen = session.ids[60:64]
    view.select(chosen)
    view.note_text.value = "read the appendix of each"
    view.on_note()
    assert "note added to 4 papers" in view.note_act.line.value and view.note_text.value == ""
    assert all([n.text for n in session.store.notes.of(p)][-1:] == ["read the appendix of each"] for p in chosen)
    assert view.frame.loc[60, "notes"] >= 1
    session.undo()
    assert not any("appendix" in n.text for p in chosen for n in session.store.notes.of(p))


def test_an_action_on_many_papers_asks_first_and_clears_its_box_once_answered(session, review_path):
    view = explore(session)
    chosen = session.ids[:25]
    view.select(chosen)
    view.tag_text.value = "asked-first"
    view.on_tag()  # a click: more than 20 papers, so it asks
    assert view.tag_act.waiting and view.tag_act.yes.description == "Yes, tag 25 papers"
    assert session.store.tags.papers_with("asked-first") == [] and view.tag_text.value == "asked-first"
    view.tag_act.yes.click()
    assert sorted(session.store.tags.papers_with("asked-first")) == sorted(chosen)
    assert view.tag_text.value == "" and "tagged 25 papers" in view.tag_act.line.value
    view.tag_text.value = "not-wanted"
    view.on_tag()
    view.tag_act.no.click()
    assert session.store.tags.papers_with("not-wanted") == [] and view.tag_text.value == "not-wanted"
    assert "cancelled" in view.tag_act.line.value
    session.undo()


def test_the_late_echo_of_a_submitted_box_does_not_put_its_text_back(session):
    view = compare(session, session.ids[:2])
    view.keys.dispatch({"event": "submit", "name": "note", "value": "late-echo"})  # Ctrl+Enter in the note box
    assert any(n.text.startswith("late-echo") for n in session.store.notes.of(session.ids[0])) and view.note.value == ""
    view.note.value = "late-echo"  # the box's own update, held back while the kernel was busy
    assert view.note.value == "", "the late echo is dropped"
    view.note.value = "l"  # typing again afterwards is kept
    view.note.value = "late-echo"
    assert view.note.value == "late-echo"
    session.undo()


def test_screen_view_plays_keys_and_clicks(session):
    view = screen(session, show="all")
    start = view.queue.current_id
    view.play([{"add_tag": "clicked"}, {"decide": "exclude", "reason": "off topic"}, {"key": "k"}, {"note": "seen"}])
    assert "clicked" in session.store.tags.of(start)
    d = session.store.decisions.of(start)
    assert d.decision == "exclude" and d.reason == "off topic"
    assert [n.text for n in session.store.notes.of(start)][-1] == "seen"
    assert "screened" in view.card.progress["label"]
    view.on_decide("nonsense")
    assert view.card.message["kind"] == "err"
    assert view.card.message["text"].startswith("decision 'nonsense'; expected one of include")


def test_report_files(session):
    session.decide(session.ids[0], "include")
    written = workbench.write_report(session.review, image=False, reviewer=session.reviewer)
    for key in ("markdown", "html", "csv", "bibtex", "ris", "jsonl"):
        assert written[key].exists() and written[key].stat().st_size > 0
    md = written["markdown"].read_text()
    # the module's earlier tests may have left an inclusion too (the queue's "i" on its first paper)
    included = [pid for pid in session.ids if getattr(session.store.decisions.of(pid), "decision", None) == "include"]
    assert session.ids[0] in included
    assert md.startswith("# ") and "Representative papers" in md and f"## Included ({len(included)})" in md


def test_state_classes_do_not_import_ipywidgets():
    import subprocess
    import sys

    code = (
        "import sys; import workbench.widgets as w; from workbench.session import session, queue, compare, text; import workbench.review.report;"
        "print('ipywidgets' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def _files(folder) -> dict[str, str]:
    """Every file under ``folder`` (but the store, its journal and snapshots) with its hash."""
    import hashlib

    skip = ("annotations.sqlite", "backups/", "cache/")
    return {str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
            for f in sorted(folder.rglob("*")) if f.is_file() and not str(f.relative_to(folder)).startswith(skip)}


@pytest.fixture
def fresh_review(tmp_path):
    workbench.build([ROOT / "seeds"], review=tmp_path / "review", embedder="fake", seed=42)
    return tmp_path / "review"


def test_show_themes_is_a_view_that_changes_nothing_on_disk(fresh_review):
    review = workbench.open_review(fresh_review)
    default_labels, coords = review.labels.copy(), review.coords.copy()
    with Session.open(fresh_review, reviewer="tester") as session:
        session.topics.rename(0, "Kept by hand")
        session.tag(session.ids[:5], "kept-tag")
        on_disk = _files(fresh_review)
        with Store.open(fresh_review) as other:
            stored = other.topics.current()
        view = explore(session)
        view.play([{"themes": 3}])
        assert int((session.review.topics.topic >= 0).sum()) == 3 and view.topic_tools.themes.value == 3
        assert view.frame.topic_label.nunique() == 3, "the map's colours follow the themes"
        assert "Looking at 3 themes" in view.topic_tools.overview.value and "not saved" in view.topic_tools.show_act.line.value
        assert "Kept by hand" in set(session.review.topics.label), "a human name carries over to its theme"
        np.testing.assert_allclose(session.review.coords, coords, atol=1e-4)  # the map stays put
        for t in set(default_labels.tolist()):  # themes are unions of the default topics
            assert len(set(session.review.labels[default_labels == t].tolist())) == 1
        assert _files(fresh_review) == on_disk, "looking at themes writes nothing"
        with Store.open(fresh_review) as other:
            assert other.topics.current() == stored
        view.play([{"rename_topic": 1, "label": "not while looking"}])
        assert "only being looked at" in view.topic_tools.rename_act.line.value
        view.play([{"stability": [1, 2]}])
        assert set(session.stability) == set(session.review.topics.topic[session.review.topics.topic >= 0])
        assert ">stable</th>" in view.topic_tools.overview.value and "topics below 80 %" in view.topic_tools.stability_act.line.value
        view.play([{"themes": 1}])
        assert "✗" in view.topic_tools.show_act.line.value and "ask for 2 or more" in view.topic_tools.show_act.line.value
        view.play([{"back_to_saved": True}])
        np.testing.assert_array_equal(session.review.labels, review.labels)
        assert session.topic_label(0) == "Kept by hand" and session.preview is None
        assert ">stable</th>" not in view.topic_tools.overview.value, "stability is checked again for new topics"
        assert _files(fresh_review) == on_disk and len(session.store.tags.papers_with("kept-tag")) == 5


def test_save_these_themes_then_one_undo_brings_back_the_topics_and_the_files(fresh_review):
    with Session.open(fresh_review, reviewer="tester") as session:
        session.topics.rename(0, "Kept by hand")
        before_files, generation = _files(fresh_review), session.review.generation
        before_labels, before_names = session.review.labels.copy(), session.review.topic_labels()
        n_before = int((session.review.topics.topic >= 0).sum())
        view = explore(session)
        view.play([{"themes": 3}, {"save_themes": True}])
        assert "3 topics saved" in view.topic_tools.save_act.line.value
        saved = workbench.open_review(fresh_review)
        assert saved.generation != generation and int((saved.topics.topic >= 0).sum()) == 3
        assert len([t for t in json.loads((saved.files / "topics.json").read_text())["topics"] if t["topic"] >= 0]) == 3
        map_html = (fresh_review / "map.html").read_text()
        assert "3 topics" in map_html and "Kept by hand" in map_html
        with Store.open(fresh_review) as other:
            assert other.history(limit=1)[0].action == "topic-run"

        view.play([{"undo": True}])
        assert "undid saved topics (3 topics" in view.undo_act.line.value
        assert session.review.generation == generation and session.preview is None
        np.testing.assert_array_equal(session.review.labels, before_labels)
        assert session.review.topic_labels() == before_names
        reopened = workbench.open_review(fresh_review)
        assert reopened.generation == generation and reopened.topic_labels() == before_names
        after = _files(fresh_review)
        assert {f: h for f, h in after.items() if not f.startswith("generations/" + saved.generation)} == {
            **before_files, "map.html": after["map.html"]}, "the previous files are the review's again, untouched"
        assert f"{n_before} topics" in (fresh_review / "map.html").read_text()
        assert "Kept by hand" in view.topic_tools.overview.value
        assert set(view.frame.topic_label) == set(before_names[t] for t in before_labels)


def test_undoing_a_topic_run_whose_files_are_gone_is_refused(fresh_review):
    import shutil

    with Session.open(fresh_review, reviewer="tester") as session:
        generation = session.review.generation
        session.topics.show_themes(3, save=True)
        shutil.rmtree(fresh_review / "generations" / generation)
        with pytest.raises(StoreError, match="previous files .* are no longer in"):
            session.undo()
        assert workbench.open_review(fresh_review).generation == session.review.generation != generation


def test_undoing_a_topic_rename_shows_the_old_name_again_everywhere(fresh_review):
    with Session.open(fresh_review, reviewer="tester") as session:
        view, table, queue_view = explore(session), topics(session), screen(session)
        before = session.topic_label(0)
        view.play([{"rename_topic": 0, "label": "A name to take back"}])
        for html in (view.topic_tools.overview.value, table.table.value, (fresh_review / "map.html").read_text()):
            assert "A name to take back" in html
        assert "A name to take back" in set(view.frame.topic_label)
        assert any("A name to take back" in label for label, _ in queue_view.topic.options)
        view.play([{"undo": True}])
        assert session.topic_label(0) == before and "undid rename topic 0" in view.undo_act.line.value
        for html in (view.topic_tools.overview.value, table.table.value, (fresh_review / "map.html").read_text()):
            assert "A name to take back" not in html
        assert "A name to take back" not in set(view.frame.topic_label)
        assert all("A name to take back" not in label for label, _ in view.topic_tools.topic_pick.options)
        assert all("A name to take back" not in label for label, _ in queue_view.topic.options)


CJK_ABSTRACTS = [
    "本文提出一种基于强化学习的机器人导航方法，在仿真环境中提高了导航成功率。",
    "我们构建了一个大规模中文医学问答数据集，并评估了多种语言模型的表现。",
    "本研究では、大規模言語モデルを用いた要約手法を提案し、ニュース記事で評価した。",
    "私たちは、ロボットの把持動作を学習するための新しいデータセットを構築しました。",
    "본 연구는 강화학습을 이용한 자율주행 차량의 경로 계획 방법을 제안한다.",
    "우리는 한국어 의료 질의응답 데이터셋을 구축하고 여러 언어 모델을 평가하였다.",
]


@pytest.fixture(scope="module")
def cjk_session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cjk")
    src = write_seed_file(folder / "cjk.txt", CJK_ABSTRACTS, collection="CJK")
    workbench.build([src], review=folder / "review", embedder="fake")
    s = Session.open(folder / "review", reviewer="tester")
    yield s
    s.close()


@pytest.mark.parametrize(
    "query, expected",
    [
        ("强化学习", [0]),  # inside a sentence without spaces
        ("数据集", [1]),
        ("言語モデル", [2]),
        ("学習", [3]),
        ("학습", [4]),  # inside 강화학습을: a word start is not needed
        ("데이터셋 모델", [5]),
        ("学习方法", []),  # every bigram must be there: 习方 is not
    ],
)
def test_keyword_search_finds_chinese_japanese_and_korean_words(cjk_session, query, expected):
    by_text = {p.text: p.id for p in cjk_session.review.papers_with_texts()}
    assert cjk_session.review.keyword_search(query) == [by_text[CJK_ABSTRACTS[i]] for i in expected]


def test_cjk_search_terms_are_highlighted_where_they_are():
    marked = highlight(CJK_ABSTRACTS[0], ["强化", "学习"])
    assert '基于<mark class="wb-hit">强化</mark><mark class="wb-hit">学习</mark>的' in marked
    assert highlight("강화학습을 이용한", ["학습"]) == '강화<mark class="wb-hit">학습</mark>을 이용한'
