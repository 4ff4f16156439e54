"""Seeing the field: citations kept by the readers and resolved inside a corpus through
deduplication, topics over time with the papers without a year counted, names normalised, the
Review methods, ``workbench links|trends|who``, the report's Field part and its figures, and
review folders written before citations were kept."""

import csv
import io
import json
import shutil
from contextlib import redirect_stdout

import pytest
from conftest import ROOT

import workbench
from workbench import read_sources
from workbench.cli import main
from workbench.field.figures import plot_field, plot_over_time, save_figure
from workbench.field import NO_YEAR, author_key, over_time, resolve_links, summarise, venue_key

FIXTURES = ROOT / "tests" / "data" / "field"
S2_A, S2_B, S2_C = "a" * 39 + "1", "b" * 39 + "2", "c" * 39 + "3"

# The links the fixtures carry (short titles): OpenAlex referenced_works, Semantic Scholar
# references (by DOI, by paperId of a record merged with an OpenAlex work) and citations,
# DOIs in a BibTeX cited-references field.
EXPECTED = {
    ("Following", "Citation graphs"),  # OpenAlex W102 -> W101
    ("Duplicates", "Citation graphs"), ("Duplicates", "Following"),  # W103 -> W101, W102 (W9999 outside)
    ("Duplicates", "Reference lists"),  # its Semantic Scholar duplicate cites the BibTeX paper by DOI
    ("Topics that", "Duplicates"), ("Topics that", "Semantic Scholar"),  # W104 -> W103, DOI field.5
    ("Semantic Scholar", "Citation graphs"), ("Semantic Scholar", "Following"),  # S2 references by DOI
    ("A later", "Semantic Scholar"),  # S2 citations of A: citingPaper B
    ("A later", "Duplicates"),  # B cites C's paperId only: C is W103, merged
    ("Reference lists", "Citation graphs"), ("Reference lists", "Following"),  # BibTeX cited-references
}


def _short(papers):
    prefixes = {b for pair in EXPECTED for b in pair}
    return {p.id: next((s for s in prefixes if p.title.startswith(s)), p.title) for p in papers}


@pytest.fixture(scope="module")
def papers():
    found, _ = read_sources([FIXTURES])
    return found


def test_readers_keep_ids_and_references_through_deduplication(papers):
    assert len(papers) == 8  # 4 OpenAlex + 3 Semantic Scholar (one a duplicate of W103) + 2 BibTeX
    merged = next(p for p in papers if p.doi == "10.5555/field.3")
    assert set(merged.external_ids) == {"openalex:w103", f"s2:{S2_C}"}
    assert "openalex:w9999" in merged.references and "doi:10.5555/field.6" in merged.references
    s2 = next(p for p in papers if p.doi == "10.5555/field.5")
    assert s2.references[0] == "s2:aaaa" + "0" * 36 + " doi:10.5555/field.1"  # one work, both its keys
    assert s2.cited_by == (f"s2:{S2_B}",)
    bib = next(p for p in papers if p.doi == "10.5555/field.6")
    assert bib.references == ("doi:10.5555/field.1", "doi:10.5555/field.2")  # the third line has no DOI
    assert [p.year for p in papers if p.collection == "no_years"] == [None, None]


def test_links_inside_the_corpus_are_exact(papers):
    links = resolve_links(papers)
    short = _short(papers)
    assert {(short[a], short[b]) for a, b in links.pairs} == EXPECTED
    assert len(links) == 12
    assert (links.with_references, links.references, links.resolved) == (6, 14, 12)
    w101 = next(p for p in papers if p.doi == "10.5555/field.1")
    assert links.of(w101.id).cites == ()
    assert {short[i] for i in links.of(w101.id).cited_by} == {"Following", "Duplicates", "Semantic Scholar",
                                                              "Reference lists"}
    assert links.of(w101.id).describe() == "cites 0 / cited by 4 in this review"
    assert links.times_cited().most_common(1) == [(w101.id, 4)]


def test_author_names_are_normalised_to_one_key():
    same = ["Müller, Jürgen", "Jürgen Müller", "J. Muller", "Muller J", "MÜLLER, J.-P."]
    assert {author_key(n) for n in same} == {"muller j"}
    assert author_key("Ludwig van Beethoven") == author_key("van Beethoven, L.") == "van beethoven l"
    assert author_key("Smith JA") == author_key("John A. Smith") == "smith j"
    assert author_key("García Márquez, Gabriel") == "garcia marquez g"
    assert author_key("Plato") == "plato" and author_key("") == ""
    assert venue_key("The Journal of Field Studies") == venue_key("journal of field studies.") == "journal of field studies"


def test_who_and_where_counts_each_author_once_per_paper(papers):
    s = summarise(papers, top=3)
    assert list(s.authors.itertuples(index=False, name=None)) == [("García, Ana", 5), ("Müller, Jürgen", 4),
                                                                  ("Smith, John", 4)]
    assert list(s.venues.itertuples(index=False, name=None)) == [("Scientometrics", 4), ("Journal of Field Studies", 3),
                                                                 ("Quantitative Science Studies", 1)]
    assert s.years == {2018: 1, 2019: 1, 2020: 1, 2021: 1, 2022: 1, 2023: 1}
    assert (s.no_year, s.no_venue, s.no_authors) == (2, 0, 0)
    assert "(2 without a year)" in s.describe()
    # co-authorship: Müller and Smith wrote W101 and the BibTeX paper; García with Müller W102, with Smith W103 and S2 B
    assert list(s.coauthors.itertuples(index=False, name=None)) == [
        ("García, Ana", "Smith, John", 2), ("Müller, Jürgen", "Smith, John", 2), ("García, Ana", "Müller, Jürgen", 1)]


def test_over_time_counts_shares_and_the_stated_slope():
    # topic 0 has 1 of 5, 2 of 5, 3 of 5 papers in 2001-2003: its share rises 20 pp a year
    years = [2001] * 5 + [2002] * 5 + [2003] * 5 + [None, None, None]
    topics = [0, 1, 1, 1, 1] + [0, 0, 1, 1, 1] + [0, 0, 0, 1, -1] + [0, 1, -1]
    over = over_time(years, topics, {0: "rising", 1: "fading"})
    assert over.years == [2001, 2002, 2003] and over.no_year == 3
    assert over.counts.loc[0].to_dict() == {2001: 1, 2002: 2, 2003: 3, NO_YEAR: 1}
    assert over.shares.loc[0].tolist() == pytest.approx([0.2, 0.4, 0.6])
    t = over.trends.set_index("topic")
    assert t.loc[0, "slope"] == pytest.approx(20.0) and t.loc[1, "slope"] == pytest.approx(-30.0)
    assert t.loc[0, "no_year"] == 1 and t.loc[-1, "papers"] == 2
    assert "least-squares slope" in over.measure and "2001-2003" in over.measure
    # 15 papers with a year: a chart, but too few to name a topic as rising or fading
    assert over.chartable and not over.trending and over.rising().empty and over.fading().empty
    assert over.coverage() == "15 of 18 papers have a year (2001-2003): too few for trends (30 needed over three years or more)"
    none = over_time([None, None], [0, 1])  # no year at all: counted, no chart, no trend
    assert none.no_year == 2 and not none.chartable and not none.trending
    assert none.coverage() == "0 of 2 papers have a year: too few for a chart over time (10 needed) or trends (30 needed)"


def test_trends_are_named_only_with_enough_papers_with_a_year():
    # the same shares, four times the papers: 60 with a year over three years
    years = ([2001] * 5 + [2002] * 5 + [2003] * 5) * 4
    topics = ([0, 1, 1, 1, 1] + [0, 0, 1, 1, 1] + [0, 0, 0, 1, 2]) * 4
    over = over_time(years, topics, {0: "rising", 1: "fading", 2: "small"})
    assert over.trending and over.coverage() == "60 of 60 papers have a year (2001-2003)"
    assert list(over.rising().label) == ["rising"] and list(over.fading().label) == ["fading"]
    t = over.trends.set_index("topic")
    assert t.loc[0, "slope"] == pytest.approx(20.0) and t.loc[2, "dated"] == 4
    assert t.loc[2, "slope"] > 0 and "small" not in list(over.rising().label), "4 papers with a year name no trend"
    # four papers with a year among many without: no "+50 pp/year"
    few = over_time([2019, 2020, 2021, 2022] + [None] * 129, [0, 0, 1, 0] + [0] * 129)
    assert few.rising().empty and few.fading().empty and not few.chartable
    assert few.coverage().startswith("4 of 133 papers have a year (2019-2022): too few for a chart")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("field") / "review"
    workbench.build([ROOT / "seeds", FIXTURES], review=path, embedder="fake", seed=42)
    return path


@pytest.fixture
def review(built, tmp_path):
    path = tmp_path / "review"
    shutil.copytree(built, path)
    return workbench.open_review(path)


def _run(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


def test_review_links_citations_and_most_cited(review):
    assert len(review.field.links()) == 12
    short = _short(review.papers)
    w101 = next(p.id for p in review.papers if p.doi == "10.5555/field.1")
    assert review.field.citations(w101).describe() == "cites 0 / cited by 4 in this review"
    cited = review.field.most_cited(2)
    assert sum(n for found in cited.values() for _, n in found) <= 12
    best = max((n, pid) for found in cited.values() for pid, n in found)
    assert best == (4, w101) and short[w101] == "Citation graphs"
    assert review.field.ids_in_year(None) == [p.id for p in review.papers if p.year is None]
    with pytest.raises(workbench.errors.InputError, match="no paper with id"):
        review.field.citations("nope")


def test_over_time_and_who_follow_the_topic_edits(review):
    w101 = next(p.id for p in review.papers if p.doi == "10.5555/field.1")
    topic = review.topic_of(w101)
    with review.store() as store:
        store.topics.rename(topic, "citation networks")
    review.refresh_topics()
    trends = review.field.over_time().trends.set_index("topic")
    assert trends.loc[topic, "label"] == "citation networks"
    assert int(trends.no_year.sum()) == sum(p.year is None for p in review.papers) == review.field.over_time().no_year
    assert review.field.field_summary(topic=topic).papers == int((review.labels == topic).sum())
    assert review.field.field_summary(ids=[w101]).authors.name.tolist() == ["John Smith", "Jürgen Müller"]
    other = next(int(t) for t in sorted(set(review.labels.tolist())) if t >= 0 and t != topic)
    merged_size = int(((review.labels == topic) | (review.labels == other)).sum())
    with review.store() as store:
        kept = store.topics.merge([topic, other])
    review.refresh_topics()
    over = review.field.over_time()
    assert other not in over.counts.index or kept == other
    assert int(over.counts.loc[kept].sum()) == merged_size  # a merge: one row holding both topics' papers


def test_cli_links_trends_who(review):
    rows = list(csv.DictReader(io.StringIO(_run("links", "--review", str(review.path), "--format", "csv"))))
    assert len(rows) == 12 and {"citing", "cited"} <= set(rows[0])
    assert {(r["citing"], r["cited"]) for r in rows} == set(review.field.links().pairs)
    as_json = json.loads(_run("links", "--review", str(review.path), "--format", "json"))
    assert len(as_json) == 12
    assert "citing" in _run("links", "--review", str(review.path))
    trends = json.loads(_run("trends", "--review", str(review.path), "--format", "json"))
    assert sum(t["no_year"] for t in trends) == sum(p.year is None for p in review.papers)
    who = json.loads(_run("who", "--review", str(review.path), "--format", "json", "--top", "2"))
    assert [w["name"] for w in who if w["kind"] == "author"] == ["García, Ana", "Müller, Jürgen"]


def test_report_has_the_field_part(review):
    written = workbench.write_report(review, image=False)
    md = written["markdown"].read_text(encoding="utf-8")
    html = written["html"].read_text(encoding="utf-8")
    for text in ("## Field", "Citation links inside the review: 12.", "### Most cited inside the review"):
        assert text in md
    assert "Citation links inside the review: 12." in html and "<img" not in html
    # 6 papers of 141 have a year: said, and no trend claimed, no trend table
    n = len(review.papers)
    assert (f"6 of {n} papers have a year (2018-2023): too few for a chart over time (10 needed) or trends "
            "(30 needed); no trend is claimed.") in md
    assert "Rising most" not in md and "pp/year" not in md and "Trend (pp/year)" not in html
    assert "Top authors (" in md and "García, Ana (5)" in md
    assert "Writing together most (papers shared): " in md and "García, Ana &amp; Smith, John (2)" in md  # & as Markdown text


def test_field_figures_are_png_and_svg(review, tmp_path):
    over = review.field.over_time()
    saved = save_figure(plot_over_time(over, review.topic_labels()), tmp_path / "over_time")
    saved.update({f"field_{k}": v for k, v in save_figure(plot_field(review.field.field_summary()), tmp_path / "f").items()})
    assert saved["png"].read_bytes()[:4] == b"\x89PNG" and saved["field_png"].read_bytes()[:4] == b"\x89PNG"
    svg = saved["svg"].read_text(encoding="utf-8")
    assert "<svg" in svg[:500] and NO_YEAR in svg  # the papers without a year have their own bar


@pytest.mark.slow
def test_report_writes_the_field_figures(review):
    written = workbench.write_report(review)
    for name in ("field_png", "field_svg", "coauthors_png", "coauthors_svg"):
        assert written[name].is_file() and written[name].stat().st_size > 1000
    html = written["html"].read_text(encoding="utf-8")
    assert "<img src='field.png'" in html and "<img src='coauthors.png'" in html
    # 6 papers with a year: no chart over time (too few), and none referred to
    assert "over_time_png" not in written and "over_time.png" not in html
    assert "García, Ana (5)" in written["coauthors_svg"].read_text(encoding="utf-8")


def _write_as_before(review, records) -> None:
    """Write ``records`` as the review's papers.jsonl, as a review made before citations were
    kept wrote it: its build.json then had no record of its files' sizes and hashes either."""
    (review.files / "papers.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    manifest = review.files / "build.json"
    manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "files"}))


def test_reviews_written_before_citations_were_kept_still_open(review):
    papers_file = review.files / "papers.jsonl"
    lines = papers_file.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert sum("references" in r for r in records) == 6  # written only where a source carries them
    for r in records:
        for key in ("external_ids", "references", "cited_by"):
            r.pop(key, None)
    _write_as_before(review, records)
    old = workbench.open_review(review.path)
    assert len(old.papers) == len(review.papers)
    assert len(old.field.links()) == 0 and old.papers[0].references == ()
    assert "Citation links: none" in workbench.write_report(old, image=False)["markdown"].read_text(encoding="utf-8")


def test_cards_in_01_and_02_show_the_citations(review):
    from workbench.widgets import ScreeningQueue, Session
    from workbench.widgets._card import paper_card

    w101 = next(p.id for p in review.papers if p.doi == "10.5555/field.1")
    w104 = next(p.id for p in review.papers if p.doi == "10.5555/field.4")
    session = Session.open(review.path, reviewer="tester")
    try:
        card = paper_card(session, w104)["citations_html"]
        assert "cites 2 / cited by 0 in this review" in card
        assert "Duplicates and the links they carry" in card and "Semantic Scholar links inside one review" in card
        queue = ScreeningQueue(session, search="citation graphs small literature")
        assert queue.card().id == w101
        assert "cites 0 / cited by 4 in this review" in queue.card().citations
    finally:
        session.close()


def test_01_over_time_panel_selects_a_year_and_follows_renames(review):
    from workbench.widgets import Session, explore

    session = Session.open(review.path, reviewer="tester")
    try:
        view = explore(session)
        panel = view.field
        assert panel.image.value == b""  # folded: nothing drawn until opened
        panel.widget.selected_index = 0
        # 6 of 141 papers have a year: no chart over time, the panel says how many have one
        assert bytes(panel.image.value) == b"" and panel.image.layout.display == "none"
        assert f"6 of {len(review.papers)} papers have a year (2018-2023): too few for a chart" in panel.trend.value
        assert panel.year.options[0] == "2023" and panel.year.options[-1] == "no year"
        w101 = next(p.id for p in review.papers if p.doi == "10.5555/field.1")
        assert panel.pick_year("2018") == [w101] and view.selected == [w101]
        assert "the papers of 2018" in view.selection_html.value
        assert "Jürgen Müller" in panel.who.value and "1 selected papers" in panel.who.value
        assert panel.coauthors.value[:4] == b"\x89PNG"  # who writes with whom among the selection
        panel.pick_year("no year")
        assert view.selected == [p.id for p in review.papers if p.year is None]
        topic = session.review.topic_of(w101)
        session.topics.rename(topic, "citation networks")
        assert session.review.field.over_time().trends.set_index("topic").loc[topic, "label"] == "citation networks"
    finally:
        session.close()


@pytest.mark.parametrize("name, expected", [
    # Web of Science CR: one DOI per cited reference, a "DOI [a, A]" pair once, a reference without a DOI left out
    ("savedrecs.txt", ("doi:10.1098/rstl.1843.0001", "doi:10.1112/plms/s2-42.1.230")),
    ("export.ris", ("doi:10.1098/rstl.1843.0001",)),  # RIS CR (a tag rispy does not know)
    ("scopus.csv", ("openalex:w2741809807", "doi:10.1098/rstl.1843.0001")),  # Scopus References
])
def test_reference_fields_of_other_formats(name, expected):
    papers, report = workbench.read_sources([ROOT / "tests" / "data" / "field_formats" / name])
    assert [p.references for p in papers] == [expected]
    assert not report.skipped


def test_bibliographic_coupling_counts_works_not_entries(papers, review):
    from workbench.field import coupling, shared_references
    from workbench.widgets import Comparison, Session  # noqa: I001

    by_doi = {p.doi: p for p in papers}
    w103, s2a, bib = by_doi["10.5555/field.3"], by_doi["10.5555/field.5"], by_doi["10.5555/field.6"]
    # W103 cites W101 (openalex:), W102 (openalex: and, from its S2 duplicate, doi:), W9999 and the BibTeX paper;
    # the S2 paper cites W101 and W102 by DOI and one work outside: in common, W101 and W102
    assert shared_references(w103, s2a, papers) == 2
    assert shared_references(w103, s2a) == 1  # unresolved, only the DOI of W102 is a key both carry
    assert coupling([w103, s2a, bib], papers).tolist() == [[4, 2, 2], [2, 3, 2], [2, 2, 2]]
    ids = [w103.id, s2a.id]
    assert review.field.coupling(ids).values.tolist() == [[4, 2], [2, 3]]
    session = Session.open(review.path, reviewer="tester")
    try:
        assert Comparison(session, ids).coupling().values.tolist() == [[4, 2], [2, 3]]
        from workbench.widgets import compare

        assert "bibliographic coupling" in compare(session, ids).columns.value
        seeds = [p.id for p in review.papers if not p.references][:2]
        assert Comparison(session, seeds).coupling() is None  # nothing to say without references
    finally:
        session.close()


def test_coauthorship_graph_merges_normalised_names(papers, review, tmp_path):
    from workbench.field import coauthorship
    from workbench.field.figures import plot_coauthors

    # "Jürgen Müller", "J. Muller", "Müller, Jürgen" are one node; "Smith J", "Smith, J." another
    graph = coauthorship(papers)
    assert {k: (d["name"], d["papers"]) for k, d in graph.nodes(data=True)} == {
        "garcia a": ("García, Ana", 5), "muller j": ("Müller, Jürgen", 4), "smith j": ("Smith, John", 4)}
    assert sorted((a, b, w) for a, b, w in graph.edges(data="weight")) == [
        ("garcia a", "muller j", 1), ("garcia a", "smith j", 2), ("muller j", "smith j", 2)]
    assert graph.graph == {"papers": 8, "authors": 3, "shown": 3, "consortia": 0}
    top2 = coauthorship(papers, top=2)  # ties at 4 papers by key: muller before smith
    assert sorted(top2) == ["garcia a", "muller j"] and list(top2.edges(data="weight")) == [
        ("garcia a", "muller j", 1)]
    w101 = next(p.id for p in review.papers if p.doi == "10.5555/field.1")
    one = review.field.coauthors([w101])
    assert sorted(one) == ["muller j", "smith j"] and one["muller j"]["smith j"]["weight"] == 1
    topic = review.topic_of(w101)
    assert review.field.coauthors(topic=topic).graph["papers"] == int((review.labels == topic).sum())
    saved = save_figure(plot_coauthors(graph, "fixture"), tmp_path / "coauthors")
    svg = saved["svg"].read_text(encoding="utf-8")
    assert saved["png"].read_bytes()[:4] == b"\x89PNG"
    assert "García, Ana (5)" in svg and "Smith, John (4)" in svg and "The 3 authors with most papers" in svg


def _short_pairs(review, pairs):
    short = _short(review.papers)
    return {(short[a], short[b]) for a, b in pairs}


def test_01_draws_the_links_of_the_selection_on_the_map(review):
    from jscatter import Line, Rect

    from workbench.widgets import Session, explore

    by_doi = {p.doi: p.id for p in review.papers}
    chosen = [by_doi["10.5555/field.1"], by_doi["10.5555/field.2"], by_doi["10.5555/field.3"]]
    among, across = review.field.links_around(chosen)
    assert _short_pairs(review, among) == {("Following", "Citation graphs"), ("Duplicates", "Citation graphs"),
                                           ("Duplicates", "Following")}
    assert len(across) == 7 and _short_pairs(review, across) == {
        ("Duplicates", "Reference lists"), ("Topics that", "Duplicates"), ("A later", "Duplicates"),
        ("Semantic Scholar", "Citation graphs"), ("Semantic Scholar", "Following"),
        ("Reference lists", "Citation graphs"), ("Reference lists", "Following")}  # 12 - 3 - these 7: 2 untouched
    session = Session.open(review.path, reviewer="tester")
    try:
        view = explore(session)
        panel = view.map
        assert "12 citation links in this review" in panel.links_text.value and not panel.links_toggle.disabled
        view.select(chosen)
        assert "3 links among the selection, 7 to or from papers outside it" in panel.links_text.value
        assert view.scatter.annotations()["annotations"] == [] and panel.links_drawn == (0, 0)  # not ticked
        panel.links_toggle.value = True
        lines = view.scatter.annotations()["annotations"]
        assert panel.links_drawn == (3, 7) and len(lines) == 10 and all(isinstance(a, Line) for a in lines)
        row = session.rows_of([chosen[1]])[0]  # Following: drawn from its point to Citation graphs'
        start = (float(view.frame.at[row, "x"]), float(view.frame.at[row, "y"]))
        assert any(tuple(a.vertices[0]) == start for a in lines[:3])
        view.open_paper(chosen[0])  # the lit-up paper's square joins the lines
        assert len(view.scatter.annotations()["annotations"]) == 11
        assert isinstance(view.scatter.annotations()["annotations"][-1], Rect)
        view.select([by_doi["10.5555/field.4"]])  # Topics that: cites two, cited by none
        assert panel.links_drawn == (0, 2)
        panel.links_toggle.value = False
        assert all(isinstance(a, Rect) for a in view.scatter.annotations()["annotations"])
    finally:
        session.close()


def test_01_says_when_a_review_has_no_links(review):
    from workbench.widgets import Session, explore

    papers_file = review.files / "papers.jsonl"
    records = [json.loads(line) for line in papers_file.read_text(encoding="utf-8").splitlines()]
    for r in records:
        r.pop("references", None)
        r.pop("cited_by", None)
    _write_as_before(review, records)
    session = Session.open(review.path, reviewer="tester")
    try:
        view = explore(session)
        assert view.map.links_toggle.disabled and "no citation links in this review" in view.map.links_text.value
        view.select(session.ids[:5])
        assert view.map.links_drawn == (0, 0) and "no citation links" in view.map.links_text.value
    finally:
        session.close()
