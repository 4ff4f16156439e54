"""map.html: the shared palette keyed by topic id, the legend in topic order with the sizes,
hovers with the year, authors and the start of the abstract, all text escaped."""

import html
import json

import numpy as np
import pytest

import workbench
from workbench.space.htmlmap import map_figure, write_map_html
from workbench.space.palette import OUTLIER_COLOUR, point_size, topic_colour

from conftest import ROOT, write_seed_file

EVIL = ["Agents that plan <script>alert('x')</script> with memory and tools over long horizons on the web, "
        "measured on many tasks with careful ablations of every part."]

RIS = """TY  - JOUR
TI  - Preference optimisation for agents that browse
AU  - Okafor, Ngozi
AU  - Lindqvist, Sven
PY  - 2024
AB  - We train web agents from pairwise preferences over whole trajectories and compare the result with reward models learned from human feedback on single steps.
ER  - 
"""


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    folder = tmp_path_factory.mktemp("htmlmap")
    src = write_seed_file(folder / "evil.txt", EVIL, collection="Evil & co")
    (folder / "dated.ris").write_text(RIS, encoding="utf-8")
    return workbench.build([ROOT / "seeds", src, folder / "dated.ris"], review=folder / "review",
                           embedder="fake", seed=42)


def _topic(trace) -> int:
    return -1 if trace.name.startswith("Unassigned") else int(trace.name.split(":")[0])


def test_one_trace_per_topic_in_topic_order_coloured_by_topic_id(review):
    fig = map_figure(review)
    topics = [_topic(t) for t in fig.data]
    assigned = [t for t in topics if t >= 0]
    assert assigned == sorted(assigned) and (-1 not in topics or topics[-1] == -1), "topic order, unassigned last"
    sizes = review.papers_frame().groupby("topic").size()
    for trace in fig.data:
        t = _topic(trace)
        assert trace.marker.color == (OUTLIER_COLOUR if t < 0 else topic_colour(t))
        assert trace.name.endswith(f"({sizes[t]})"), "the legend says how many papers"
        if t >= 0:
            assert trace.marker.size == point_size(len(review.papers))


def test_a_renamed_topic_keeps_its_colour(review, tmp_path):
    before = {_topic(t): (t.name, t.marker.color) for t in map_figure(review).data}
    with review.store(reviewer="tester") as store:
        store.topics.rename(0, "Renamed by hand")
    review.refresh_topics()
    after = {_topic(t): (t.name, t.marker.color) for t in map_figure(review).data}
    assert after[0][0].startswith("0: Renamed by hand") and after[0][1] == before[0][1]
    assert {t: c for t, (_, c) in after.items()} == {t: c for t, (_, c) in before.items()}
    page = write_map_html(review, tmp_path / "map.html").read_text(encoding="utf-8")
    assert "0: Renamed by hand" in page


def test_hovers_carry_year_authors_and_the_start_of_the_abstract_escaped(review):
    fig = map_figure(review)
    paper = next(p for p in review.papers_with_texts() if "<script>" in p.text)
    texts = {pid: text for trace in fig.data for pid, text in zip(trace.customdata, trace.text)}
    hover = texts[paper.id]
    assert "<script>" not in hover and "&lt;script&gt;" in hover
    assert "Agents that plan" in hover and hover.count("<br>") >= 3
    dated = next(p for p in review.papers if p.title.startswith("Preference optimisation"))
    assert "Okafor" in texts[dated.id] and "2024" in texts[dated.id] and "We train web agents" in texts[dated.id]


def test_sample_rows_keeps_every_topic_in_proportion_and_is_seeded():
    from workbench.space.htmlmap import sample_rows

    topics = np.repeat([-1, 0, 1, 2, 3], [5_000, 60_000, 30_000, 4_990, 10])
    rows = sample_rows(topics, limit=10_000)
    assert len(rows) == 10_000 and len(set(rows)) == 10_000 and (np.diff(rows) > 0).all()
    drawn = dict(zip(*np.unique(topics[rows], return_counts=True)))
    assert drawn == {-1: 500, 0: 6_000, 1: 3_000, 2: 499, 3: 1}, "in proportion, the smallest topic kept"
    assert (sample_rows(topics, limit=10_000) == rows).all(), "the same map gives the same sample"
    assert (sample_rows(topics, limit=200_000) == np.arange(len(topics))).all(), "under the limit: every paper"


def test_a_map_above_the_limit_draws_a_stated_sample_and_counts_every_paper(review):
    limit = len(review.papers) // 2
    fig = map_figure(review, max_points=limit)
    drawn = sum(len(trace.x) for trace in fig.data)
    assert drawn == limit
    sizes = review.papers_frame().groupby("topic").size()
    assert {_topic(t) for t in fig.data} == set(sizes.index), "every topic drawn"
    for trace in fig.data:
        assert trace.name.endswith(f"({sizes[_topic(trace)]})"), "the legend counts every paper, not the sample"
    title = fig.layout.title.text
    assert f"{len(review.papers)} papers" in title and f"random sample of {limit} papers" in title
    texts = {pid: text for trace in fig.data for pid, text in zip(trace.customdata, trace.text)}
    by_id = {p.id: p for p in review.papers}
    assert all(text.startswith(f"<b>{html.escape(by_id[pid].title)}</b>") for pid, text in texts.items()), \
        "hovers belong to their points"


def test_hover_excerpts_are_textwraps_lines():
    """excerpt_lines packs the words itself (textwrap cost 13 s of a 50,000-paper build): the
    same lines as textwrap.shorten then textwrap.wrap, hyphens, dashes and long words included."""
    import random
    import textwrap

    from workbench.space.htmlmap import excerpt_lines

    def textwraps(abstract):
        return textwrap.wrap(textwrap.shorten(abstract, 240, placeholder=" …"), 70)

    rng = random.Random(7)
    texts = ["", "a", "x" * 300, "word " * 100, "abc " * 59 + "abcd", "abc " * 60, "α β γ " * 50,
             "well-known " * 40, "state-of-the-art models -- and co-occurrence " * 9, "-" * 80, "x-" * 200,
             "COVID-19 and SARS-CoV-2 in long-COVID: a follow-up " * 8, " \t lead\nand  trail \u2009 " * 30]
    texts += [" ".join("".join(rng.choice("ab -–1é") for _ in range(rng.randint(1, 18)))
                       for _ in range(rng.randint(1, 140))) for _ in range(3000)]
    texts += [" ".join("".join(rng.choice("ab-") for _ in range(rng.randint(1, 75))) for _ in range(rng.randint(30, 60)))
              for _ in range(1000)]  # long hyphenated words around the cut
    texts += [" ".join("".join(rng.choice("abé1…") for _ in range(rng.choice([1, 2, 5, 9, 30, 69, 70, 71, 237, 239])))
                       for _ in range(rng.randint(1, 60))) for _ in range(3000)]  # no hyphen: packed by rfind
    for text in texts:
        assert excerpt_lines(text) == textwraps(text), text


def test_the_page_is_written_trace_by_trace_as_plotly_writes_it_whole(review, tmp_path):
    """write_page streams the traces (plotly holds the whole page several times over: the
    build's peak at 50,000 papers): the same bytes as Figure.write_html, for a map whose hovers
    hold non-ASCII text and a "NaN" (which sends plotly's encoder down its second path)."""
    from workbench.space.htmlmap import CONFIG, write_page

    fig = map_figure(review)
    fig.data[0].text = (f"Größe NaN 大型 {fig.data[0].text[0]}",) + tuple(fig.data[0].text[1:])
    fig.write_html(tmp_path / "plotly.html", include_plotlyjs=True, full_html=True, config=CONFIG, div_id="map")
    write_page(fig, tmp_path / "ours.html", div_id="map")
    ours = (tmp_path / "ours.html").read_bytes()
    assert ours == (tmp_path / "plotly.html").read_bytes()
    assert len(fig.data) > 1 and json.dumps("Größe NaN 大型")[1:-1] in ours.decode()
