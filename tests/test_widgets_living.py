"""02's living-review panels without a browser: adding a new search (what it read, errors that
name the file and change nothing), the "new since" filter and card, and the duplicates queue
(same paper, different, undo) with annotations following."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import workbench
from workbench.errors import InputError
from workbench.store import Store, Tags
from workbench.widgets import ScreeningQueue, Session, screen
from workbench.session.living import DuplicateQueue, split_paths

from conftest import seed_abstracts, write_csv

ANA = "ana"
PAIRS = [  # alike titles, different DOIs: pairs the rules keep apart
    ("Deep learning for protein structure prediction in bacteria", "10.1000/aaa", 2020, "Smith, J"),
    ("Deep learning for protein structure prediction in bacterium", "10.1000/bbb", 2020, "Smith, J"),
]


def row(i: int, title: str | None = None, doi: str | None = None, text: int | None = None) -> list:
    abstract = seed_abstracts()[i if text is None else text]
    title = title or " ".join(seed_abstracts()[i].split()[:10])
    return [title, abstract, doi or f"10.1000/p{i}", 2020 + i % 5, f"Author{i}, A"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Records 0-29 and one alike pair, records 0-5 included by Ana (3 also tagged); pubmed.csv:
    record 4, records 25-39, 35 again, one with no text, and record 3's title under another DOI and text."""
    folder = tmp_path_factory.mktemp("living_widgets")
    pairs = [[t, seed_abstracts()[60 + k], doi, year, who] for k, (t, doi, year, who) in enumerate(PAIRS)]
    write_csv(folder / "a.csv", [row(i) for i in range(30)] + pairs)
    write_csv(folder / "pubmed.csv", [row(4)] + [row(i) for i in range(25, 40)]
              + [row(35, "The same record under another title"), ["", "", "", "", "Nobody, N"],
                 row(3, " ".join(seed_abstracts()[3].split()[:10]) + " revisited", "10.1000/other", text=90)])
    (folder / "junk.ris").write_bytes(b"\x00\x01 not an export")
    review = workbench.build([folder / "a.csv"], review=folder / "r", embedder="fake", seed=42, progress=False)
    ids = [p.id for p in review.papers]
    review.screening.decide(ids[0:6], "include", reviewer=ANA)
    with Store.open(review.path, reviewer=ANA) as store:
        store.tags.add(ids[3], "key paper")
        store.notes.add(ids[3], "the one we cite")
    return folder


@pytest.fixture
def case(built, tmp_path):
    return Path(shutil.copytree(built, tmp_path / "case"))


@pytest.fixture
def session(case):
    s = Session.open(case / "r", reviewer=ANA)
    yield s
    s.close()


def added(view, folder: Path, **more):
    view.play([{"update": str(folder / "pubmed.csv"), "database": "PubMed", "searched": "2025-03-01", **more}])


def test_split_paths_takes_lines_commas_and_quotes():
    assert split_paths(' "a.ris", b.csv\n\n c d.txt \n') == ["a.ris", "b.csv", "c d.txt"]
    assert split_paths(["x.ris", " "]) == ["x.ris"]


def test_adding_a_search_says_what_it_read_and_shows_the_new_papers(case, session):
    view = screen(session)
    before = len(session.ids)
    added(view, case)
    line = view.living.update.update_act.line.value
    assert "✓ 11 new papers" in line and "6 records already in the review, 1 of them screened papers" in line
    result = view.living.update.result.value
    assert ("pubmed.csv (database PubMed, searched 2025-03-01): 19 records: 11 new, 6 already in the review, "
            "1 duplicates within the search, 1 without a title or abstract (skipped)") in result
    assert "pubmed.csv:2 is the screened paper" in result and "(include; same DOI 10.1000/p4)" in result
    assert len(session.ids) == before + 11  # the session shows the updated review
    since = session.living.new_dates()[0]
    assert view.queue.show == f"new since {since}" and len(view.queue.ids) == 11
    assert f"new since {since}" in [v for _, v in view.show.options]
    assert view.card.card["new_since"] == since  # the card says so
    assert len(view.card.map_xy) == 8 * len(session.ids) and len(view.card.map_codes) == len(session.ids)
    assert view.card.current == session.rows_of([view.queue.current_id])[0], "the new paper's point is ringed"
    panel = view.living.update  # the next search starts empty: its provenance is its own
    assert (panel.files.value, panel.database.value, panel.searched.value, panel.query.value) == ("", "", "", "")
    with Store.open(case / "r") as store:  # provenance recorded as given
        (source,) = [s for s in store.sources.recorded() if s.path.endswith("pubmed.csv")]
        assert (source.name, source.searched_on, source.identified) == ("PubMed", "2025-03-01", 19)


def test_a_bad_file_is_named_and_nothing_is_changed(case, session):
    view = screen(session)
    generation, n = session.saved.generation, len(session.ids)
    panel = view.living.update
    for given, said in ((case / "missing.ris", "missing.ris: no such file"), (case / "junk.ris", "junk.ris: this is binary")):
        view.play([{"update": str(given)}])
        assert said in panel.update_act.line.value
        assert "nothing was changed: the review is as it was" in panel.update_act.line.value
    view.play([{"update": str(case / "pubmed.csv"), "searched": "March 2025"}])
    assert "expected YYYY-MM-DD" in panel.update_act.line.value
    view.play([{"update": " "}])
    assert "no file given" in panel.update_act.line.value
    assert workbench.open_review(case / "r").generation == generation and len(session.ids) == n
    with Store.open(case / "r") as store:
        assert not any(s.path.endswith("pubmed.csv") for s in store.sources.recorded(in_build=False))


def test_a_save_that_fails_says_the_review_is_as_it_was(case, session, monkeypatch):
    view = screen(session)
    n = len(session.ids)

    def broken(self, *args):
        raise OSError("disk full")

    monkeypatch.setattr(Tags, "add", broken)  # the last step of an update's save
    added(view, case)
    monkeypatch.undo()
    line = view.living.update.update_act.line.value
    assert "disk full" in line and "nothing was changed: the review is as it was" in line
    assert len(workbench.open_review(case / "r").ids) == n and session.living.new_dates() == []


def test_reading_a_file_again_asks_first(case, session):
    view = screen(session)
    added(view, case)
    n = len(session.ids)
    panel = view.living.update
    panel.files.value = str(case / "pubmed.csv")
    panel.on_update()
    assert panel.update_act.waiting and "pubmed.csv was read into this review before" in panel.update_act.line.value
    panel.update_act.answer(False)
    assert "cancelled: nothing was changed" in panel.update_act.line.value and len(session.ids) == n
    added(view, case, again=True)  # a script says yes: all found again, none new
    assert "✓ 0 new papers, 17 records already in the review, 1 of them screened" in panel.update_act.line.value


def test_new_since_filter_card_and_tags(case, session):
    with pytest.raises(InputError, match="never updated"):
        ScreeningQueue(session, show="new")
    report = session.living.update([str(case / "pubmed.csv")], "PubMed").report
    queue = ScreeningQueue(session, show="new")
    assert queue.show == f"new since {report.since}" and set(queue.ids) == set(report.new)
    card = queue.card()
    assert card.new_since == report.since and "new since" not in " ".join(queue.tags() + card.tags)
    queue.decide("exclude")
    assert queue.refilter() == 10  # a decided new paper leaves the queue
    everything = ScreeningQueue(session, show="all", order="map")
    everything.go(session.ids[0])  # an old paper
    assert everything.card().new_since is None
    with pytest.raises(InputError, match=f"new since {report.since}"):
        ScreeningQueue(session, show="new since 1999-01-01")


def test_duplicates_queue_same_different_and_undo(case, session):
    session.living.update([str(case / "pubmed.csv")], "PubMed", "2025-03-01")
    queue = DuplicateQueue(session)
    ids = {p.title: p.id for p in session.saved.papers}
    old3 = ids[" ".join(seed_abstracts()[3].split()[:10])]
    assert queue.left == 2
    pair = {queue.pairs[0].first, queue.pairs[0].second}
    queue.position = next(i for i, c in enumerate(queue.pairs) if old3 in (c.first, c.second))
    card = queue.card()
    sides = {card.first.id: card.first, card.second.id: card.second}
    new3 = next(pid for pid in sides if pid != old3)
    assert sides[old3].tags == ["key paper"] and sides[old3].decisions == {ANA: "include"}
    assert sides[old3].notes == ["the one we cite"] and sides[new3].new_since and not sides[old3].new_since
    assert sides[new3].doi == "10.1000/other" and sides[new3].abstract and sides[new3].year
    session.tag(new3, "second look")
    queue.same()  # the screened paper is kept; the new one's tag follows
    assert queue.left == 1 and f"{new3} merged into {old3}" in queue.last
    with Store.open(case / "r", reviewer=ANA) as store:
        assert store.tags.of(old3) == ["key paper", "second look"] and store.decisions.of(old3).decision == "include"
    assert new3 not in ScreeningQueue(session, show="all").ids  # merged away: no queue shows it
    assert new3 not in session.saved.updates.new_papers()
    undone = queue.undo()
    assert "undid the merge of “" in undone.text
    assert queue.left == 2 and {queue.current.first, queue.current.second} == {old3, new3}
    with Store.open(case / "r", reviewer=ANA) as store:
        assert store.tags.of(new3) == [f"new since {session.living.new_dates()[0]}", "second look"]
        assert store.tags.of(old3) == ["key paper"]
    queue.different()
    queue.position = 0
    assert {queue.current.first, queue.current.second} == pair - {old3, new3} or queue.left == 1
    assert all({c.first, c.second} != {old3, new3} for c in DuplicateQueue(session).pairs)


def test_duplicates_panel_buttons_answer_beside_themselves(case, session):
    view = screen(session)
    view.play([{"duplicates": "open"}])
    panel = view.living.duplicates
    assert "1 pair left to settle" in panel.count.value and "Deep learning for protein" in panel.pair.value
    assert view.living.widget.get_title(1) == "Possible duplicates (1 pair left)"
    view.play([{"duplicates": "different"}])
    assert "✓ different papers" in panel.different_act.line.value and "0 pairs left" in panel.count.value
    assert "No pairs left to settle" in panel.pair.value
    view.play([{"duplicates": "same"}])
    assert "✗ no pairs left to settle" in panel.same_act.line.value
    view.play([{"duplicates": "undo"}])
    assert "1 pair left to settle" in panel.count.value and "✓" in panel.undo_act.line.value
    view.play([{"duplicates": "same"}])
    assert "✓ same paper" in panel.same_act.line.value and "0 pairs left" in panel.count.value
    gone = session.saved.updates.merged_away()
    assert len(gone) == 1 and not gone & set(view.queue.ids)  # the queue left the merged paper at once
