"""Citation searching (issue 48): the works the included papers cite (or that cite them) outside
the review, counted exactly on an OpenAlex export the test writes, their lookup files, and the
records found that way added with ``--method citation-search`` and counted in PRISMA 2020's
other-methods column, recounted from the store."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from conftest import SHARED_DATA, seed_abstracts

import workbench
from workbench.cli import main
from workbench.corpus.paper import PaperInfo
from workbench.errors import InputError
from workbench.field import Snowball, snowball
from workbench.store import AnnotationInputError, Store

#: Each work of the review: its references (OpenAlex ids); W1000-W1002 are included, W1003 excluded.
REFERENCES = {1000: [1001, 2000, 2001, 2002], 1001: [2000, 2001, 1003], 1002: [2000, 2003], 1003: [2004, 2000]}
N_WORKS = 24


def _work(n: int, abstract: str, refs=()) -> dict:
    return {"id": f"https://openalex.org/W{n}", "doi": f"https://doi.org/10.5555/snow.{n}",
            "title": f"Work {n}: {' '.join(abstract.split()[:8])}", "abstract": abstract, "publication_year": 2020,
            "authorships": [{"author": {"display_name": f"Author {n}"}}],
            "referenced_works": [f"https://openalex.org/W{r}" for r in refs]}


def _jsonl(path: Path, works: list[dict]) -> Path:
    path.write_text("".join(json.dumps(w) + "\n" for w in works), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("snowball")
    texts = seed_abstracts()
    _jsonl(folder / "openalex.jsonl", [_work(1000 + i, texts[i], REFERENCES.get(1000 + i, ())) for i in range(N_WORKS)])
    # what citation searching found: three new works, one the review has (W1000 again), one without text
    found = [_work(2000 + i, texts[60 + i]) for i in range(3)] + [_work(1000, texts[0]),
                                                                  {"id": "https://openalex.org/W2009", "title": ""}]
    _jsonl(folder / "refs.jsonl", found)
    workbench.build([folder / "openalex.jsonl"], review=folder / "review", embedder="fake", seed=5,
                    provenance={"openalex.jsonl": {"database": "OpenAlex", "searched_on": "2024-05-01"}})
    return folder


@pytest.fixture
def review(built, tmp_path):
    shutil.copy(built / "refs.jsonl", tmp_path / "refs.jsonl")
    return workbench.open_review(shutil.copytree(built / "review", tmp_path / "review"))


def _id(review, n: int) -> str:
    return next(p.id for p in review.papers if f"openalex:w{n}" in p.external_ids)


def _screen(review):
    """ana includes W1000-W1002 and excludes W1003 at title/abstract (one reviewer per paper)."""
    with review.store("ana") as s:
        s.decisions.decide([_id(review, n) for n in (1000, 1001, 1002)], "include")
        s.decisions.decide(_id(review, 1003), "exclude", reason="off topic")


# ----------------------------------------------------------------------------- the counts

def test_backward_snowballing_counts_each_work_outside_the_review_exactly(review):
    _screen(review)
    found = review.field.snowball()
    assert found.basis == "the 3 papers included at title/abstract"
    assert sorted(found.from_ids) == sorted(_id(review, n) for n in (1000, 1001, 1002))
    assert (found.entries, found.inside, found.with_lists) == (9, 2, 3)
    assert [(c.openalex, c.count) for c in found.candidates] == [("W2000", 3), ("W2001", 2), ("W2002", 1), ("W2003", 1)]
    assert set(found.candidates[1].by) == {_id(review, 1000), _id(review, 1001)}
    assert found.lookup("openalex") == "openalex:W2000|W2001|W2002|W2003\n"
    assert found.lookup("dois") == ""  # OpenAlex's referenced_works carry ids, no DOIs
    everyone = review.field.snowball(from_="all")
    assert [(c.openalex, c.count) for c in everyone.candidates][:2] == [("W2000", 4), ("W2001", 2)]
    assert "W2004" in {c.openalex for c in everyone.candidates}
    frame = found.frame()
    assert list(frame["count"]) == [3, 2, 1, 1] and list(frame.key)[0] == "openalex:W2000"


def test_included_means_full_text_once_anything_was_decided_there(review):
    _screen(review)
    review.screening.decide(_id(review, 1002), "include", stage="full_text", reviewer="ana")
    found = review.field.snowball()
    assert found.from_ids == (_id(review, 1002),) and found.basis == "the 1 papers included at full text"
    assert [c.openalex for c in found.candidates] == ["W2000", "W2003"]


def test_nothing_included_is_said_and_bad_arguments_name_what_is_expected(review):
    found = review.field.snowball()
    assert found.from_ids == () and len(found) == 0 and "from 0 papers" in found.lines()[0]
    with pytest.raises(InputError, match="direction 'sideways'"):
        review.field.snowball("sideways")
    with pytest.raises(InputError, match="from_='some'"):
        review.field.snowball(from_="some")
    with pytest.raises(InputError, match="lookup 'xml'"):
        found.lookup("xml")


def test_entries_sharing_a_key_are_one_work_and_forward_lookups_ask_for_the_citing_works():
    a = PaperInfo(id="a", title="A", external_ids=("openalex:w1",), references=("openalex:w100", "doi:10.1/in"),
                  cited_by=("openalex:w9 doi:10.9/nine", "openalex:w2"))
    b = PaperInfo(id="b", title="B", doi="10.1/in", external_ids=("openalex:w2",),
                  references=("doi:10.9/z openalex:w100", "openalex:w100"))
    back = snowball([a, b], ["a", "b"], "backward")
    assert [(c.doi, c.openalex, c.count, c.by) for c in back.candidates] == [("10.9/z", "W100", 2, ("a", "b"))]
    assert (back.entries, back.inside) == (4, 1) and back.dois() == ["10.9/z"]
    forward = snowball([a, b], ["a"], "forward")
    assert [(c.key, c.count) for c in forward.candidates] == [("doi:10.9/nine", 1)]
    assert forward.openalex_filters() == ["openalex:W9", "cites:W1"]
    many = PaperInfo(id="m", title="M", references=tuple(f"openalex:w{5000 + i}" for i in range(150)))
    filters = snowball([many], ["m"]).openalex_filters()
    assert [f.count("|") + 1 for f in filters] == [100, 50] and filters[1].startswith("openalex:W5100|")
    with pytest.raises(InputError, match="not in the review"):
        snowball([a], ["zz"])


# ----------------------------------------------------------------------------- the command line

def test_the_command_lists_the_works_and_writes_the_lookup_file_never_onto_the_review(review, tmp_path, capsys):
    _screen(review)
    args = ["--review", str(review.path), "--reviewer", "ana"]
    assert main(["snowball", "--format", "json", *args]) == 0
    got = capsys.readouterr()
    assert [r["openalex"] for r in json.loads(got.out)] == ["W2000", "W2001", "W2002", "W2003"]
    assert "9 references, 2 of them to papers already in the review" in got.err
    assert main(["snowball", "--lookup", "openalex", "-o", str(review.path / "report" / "lookup.txt"), *args]) == 0
    assert (review.path / "report" / "lookup.txt").read_text() == "openalex:W2000|W2001|W2002|W2003\n"
    assert "--method citation-search" in capsys.readouterr().err
    before = (review.path / "annotations.sqlite").read_bytes()
    assert main(["snowball", "--lookup", "dois", "-o", str(review.path / "annotations.sqlite"), *args]) == 1
    assert "only the workbench may write" in capsys.readouterr().err
    assert (review.path / "annotations.sqlite").read_bytes() == before


# ----------------------------------------------------------------------------- PRISMA's other methods

def _other_recount(review, store, tagged: set[str] | None = None) -> dict:
    """The other-methods boxes counted straight from the store's rows (not through _prisma)."""
    files = {s.path for s in store.sources.recorded() if s.kind == "other"}
    papers = {p.id for p in review.papers if p.source.rpartition(":")[0] in files}
    if tagged is not None:
        papers &= tagged
    ta = {d.paper_id: d.decision for d in store.decisions.every("title_abstract", all_reviewers=True)}
    ft = {d.paper_id: d for d in store.decisions.every("full_text", all_reviewers=True)}
    sought = {p for p in papers if ta.get(p) in ("include", "maybe")}
    return {"identified": sum(s.identified for s in store.sources.recorded() if s.kind == "other"), "sought": len(sought),
            "assessed": sum(1 for p in sought if p in ft and ft[p].reason != "not retrieved"),
            "included": sum(1 for p in sought if p in ft and ft[p].decision == "include")}


def test_records_found_by_citation_search_count_in_the_other_methods_column_of_both_diagrams(review, tmp_path):
    _screen(review)
    args = ["--review", str(review.path), "--reviewer", "ana"]
    assert main(["update", str(tmp_path / "refs.jsonl"), "--method", "citation-search", "--searched", "2025-03-01",
                 "--query", "backward snowballing of 3 included papers", *args]) == 0
    updated = workbench.open_review(review.path)
    with updated.store() as store:
        (source,) = [s for s in store.sources.recorded() if s.kind == "other"]
    assert (source.name, source.searched_on, source.identified, source.merged, source.skipped) == \
        ("Citation searching", "2025-03-01", 5, 1, 1)
    new = {n: _id(updated, n) for n in (2000, 2001, 2002)}
    with updated.store("ana") as s:
        s.decisions.decide([new[2000], new[2001]], "include")
        s.decisions.decide(new[2002], "exclude", reason="off topic")
        s.decisions.decide(new[2000], "include", stage="full_text")
        s.decisions.decide(new[2001], "exclude", reason="wrong design", stage="full_text")
        s.decisions.decide(_id(updated, 1000), "include", stage="full_text")
        s.decisions.decide(_id(updated, 1001), "exclude", reason="not retrieved", stage="full_text")
    plain = updated.team.prisma(write=False, update=False)
    other = plain.other
    assert dict(other.identified) == {"Citation searching": 5}
    assert (other.sought, other.not_retrieved, other.assessed, dict(other.excluded), other.awaiting) == \
        (2, 0, 2, {"wrong design": 1}, 0)
    assert dict(plain.databases) == {"OpenAlex": N_WORKS} and plain.records_screened + plain.records_awaiting == N_WORKS
    assert (plain.reports_sought, plain.reports_not_retrieved, plain.reports_awaiting) == (3, 1, 1)
    assert plain.studies_included == 1 + 1
    latest = updated.team.prisma(write=False)
    assert latest.updated and latest.previous_studies == 1 and latest.identified == 0
    assert latest.other == other and latest.studies_included == 1
    tagged = set(updated.updates.new_papers())
    with updated.store() as store:
        for counted in (_other_recount(updated, store), _other_recount(updated, store, tagged)):
            assert counted == {"identified": 5, "sought": 2, "assessed": 2, "included": 1}
            assert (other.sought, other.assessed, other.included) == (counted["sought"], counted["assessed"],
                                                                      counted["included"])
    rows = {box: n for stage, box, n in latest.rows() if stage.endswith("(other methods)")}
    assert rows["Records identified from Citation searching"] == 5 and rows["Reports excluded: wrong design"] == 1
    svg, _ = workbench.review.write_diagram(latest, tmp_path / "out")
    drawn = svg.read_text(encoding="utf-8")
    assert "Citation searching (n = 5)" in drawn and "wrong design (n = 1)" in drawn


def test_a_bad_method_provenance_is_refused_before_reading(review, tmp_path):
    with pytest.raises(InputError, match="database and method"):
        workbench.update([tmp_path / "refs.jsonl"], review, provenance={"refs.jsonl": {"database": "X", "method": "citation-search"}})


def test_a_version_5_store_migrates_to_sources_of_other_methods(review):
    db = review.path / "annotations.sqlite"
    with closing(sqlite3.connect(db)) as conn, conn:  # the sources table as version 5 made it
        conn.execute("ALTER TABLE sources RENAME TO sources_new")
        conn.execute(conn.execute("SELECT sql FROM sqlite_master WHERE name = 'sources_new'").fetchone()[0]
                     .replace("sources_new", "sources").replace(", 'other'", ""))
        conn.execute("INSERT INTO sources SELECT * FROM sources_new")
        conn.execute("DROP TABLE sources_new")
        conn.execute("PRAGMA user_version = 5")
    with closing(sqlite3.connect(db)) as conn:
        with pytest.raises(sqlite3.IntegrityError):
            conn.execute("UPDATE sources SET kind = 'other'")
    with Store.open(review.path, reviewer="ana") as store:
        (s,) = store.sources.recorded()
        assert (s.name, s.identified) == ("OpenAlex", N_WORKS)
        assert store.sources.set_provenance(s.path, kind="other", name="Citation searching").kind == "other"
        with pytest.raises(AnnotationInputError, match="source kind 'web'"):
            store.sources.set_provenance(s.path, kind="web")
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 6


# ----------------------------------------------------------------------------- real data

def test_synergy_openalex_works_carry_references_when_the_shared_data_has_them():
    """The SYNERGY works as OpenAlex gives them carry referenced_works; the shared copy here is
    flattened to a CSV without them, so this runs only where a JSON export of them is present."""
    exports = sorted((SHARED_DATA / "corpora" / "synergy").glob("*.json*")) if SHARED_DATA.exists() else []
    if not exports:
        pytest.skip("no SYNERGY OpenAlex JSON export (with referenced_works) in the shared data")
    papers, _ = workbench.read_sources([exports[0]])
    with_refs = [p for p in papers if p.references]
    assert with_refs, "an OpenAlex export carries referenced_works"
    found = snowball(papers, [p.id for p in with_refs[:50]])
    assert isinstance(found, Snowball) and found.entries >= len(found.candidates)


# ----------------------------------------------------------------------------- the notebook panel

def test_the_snowball_panel_lists_the_candidates_and_writes_the_lookup_file(review):
    from workbench.session.snowball import SnowballPanel
    from workbench.widgets import Session
    from workbench.widgets import snowball as snowball_view

    _screen(review)
    with Session.open(review, reviewer="ana") as session:
        with pytest.raises(InputError, match="press Find first"):
            SnowballPanel(session).write()
        view = snowball_view(session)
        view.on_find()
        assert [(r.openalex, r.count) for r in view.panel.rows()] == [("W2000", 3), ("W2001", 2), ("W2002", 1),
                                                                      ("W2003", 1)]
        assert view.panel.rows()[0].titles[0].startswith("Work 100")
        assert "openalex:W2000" in view.table.value and "9 references" in view.summary.value
        view.kind.value = "openalex"
        view.on_write()
        written = review.path / "report" / "snowball-backward-openalex.txt"
        assert written.read_text(encoding="utf-8") == "openalex:W2000|W2001|W2002|W2003\n"
        assert "wrote 1 lines" in view.write_act.line.value
        view.path.value = str(review.path / "annotations.sqlite")
        view.on_write()
        assert "only the workbench may write" in view.write_act.line.value
