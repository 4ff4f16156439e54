"""Duplicates across sources: what merges, what does not, why, and at what cost."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from workbench.dedupe import DuplicateRules
from workbench.dedupe.rules import deduplicate, find_duplicates, first_author_key, merge_papers
from workbench.readers import read_sources
from workbench.corpus.paper import Paper
from workbench.corpus.ids import paper_id

DATA = Path(__file__).resolve().parent / "data" / "readers"
LONG = ("Autologous chondrocyte implantation was compared with microfracture in nine randomised trials of "
        "cartilage lesions of the knee, with follow-up of two to five years in most of them.")


def paper(title: str, *, source: str, abstract: str = "", year=None, authors=(), doi=None, arxiv_id=None,
          pmid=None, label=None, keywords=()) -> Paper:
    return Paper(
        id=paper_id(doi=doi, arxiv_id=arxiv_id, pmid=pmid, text=abstract, title=title, year=year,
                    author=authors[0] if authors else ""),
        title=title, abstract=abstract, text=abstract, authors=tuple(authors), year=year, source=source,
        doi=doi, arxiv_id=arxiv_id, pmid=pmid, label=label, keywords=tuple(keywords),
    )


def test_zotero_and_scopus_exports_of_overlapping_searches():
    ris, csv = DATA / "dupes_zotero.ris", DATA / "dupes_scopus.csv"
    papers, report = read_sources([ris, csv])
    assert [(f.read, f.merged) for f in report.files] == [(7, 0), (7, 5)]
    assert [m.replace(f"{DATA}/", "") for m in report.merges] == [
        "dupes_scopus.csv:2 is the same paper as dupes_zotero.ris:1 (same DOI 10.1000/dup.1)",
        "dupes_scopus.csv:3 is the same paper as dupes_zotero.ris:9 (titles 98% alike, same year 2019)",
        "dupes_scopus.csv:5 is the same paper as dupes_zotero.ris:25 (titles 100% alike, same first author 'lee')",
        "dupes_scopus.csv:6 is the same paper as dupes_zotero.ris:32 (same arXiv id 2301.00001)",
        # the typo is in the first words: the pair meets in the block of the last three words
        "dupes_scopus.csv:8 is the same paper as dupes_zotero.ris:44 (titles 99% alike, same year 2022)",
        "dupes_zotero.ris:9: its duplicates disagree on the label (include and exclude); kept include, check it",
    ]
    rows = [(p.title, p.year, p.label, [s.replace(f"{DATA}/", "") for s in p.sources]) for p in papers]
    assert rows == [
        ("Deep learning for systematic review screening", 2020, None, ["dupes_zotero.ris:1", "dupes_scopus.csv:2"]),
        ("Active learning in practice: a case study", 2019, "include", ["dupes_zotero.ris:9", "dupes_scopus.csv:3"]),
        ("A survey of topic models", 2018, None, ["dupes_zotero.ris:17"]),  # DOIs differ: kept apart
        ("Graph neural networks for citation screening", 2021, None, ["dupes_zotero.ris:25", "dupes_scopus.csv:5"]),
        ("Preprint on arXiv about screening", 2023, None, ["dupes_zotero.ris:32", "dupes_scopus.csv:6"]),
        ("Same title but another year and another author", 2010, None, ["dupes_zotero.ris:38"]),
        ("Reinforcment learning from human feedback at scale", 2022, None, ["dupes_zotero.ris:44", "dupes_scopus.csv:8"]),
        ("A survey of topic models", 2018, None, ["dupes_scopus.csv:4"]),
        ("Same title but another year and another author", 2015, None, ["dupes_scopus.csv:7"]),
    ]
    assert len({p.id for p in papers}) == len(papers)
    lines = [line.replace(f"{DATA}/", "") for line in report.lines()]
    assert lines[0] == "dupes_zotero.ris (ris): 7 read, 0 skipped, 0 merged"
    assert lines[1] == "dupes_scopus.csv (csv): 7 read, 0 skipped, 5 merged"
    assert lines[-1] == "total: 14 read from 2 files, 0 skipped, 5 merged as duplicates, 9 papers"


def test_no_fuzzy_titles_when_dedupe_is_off():
    papers, report = read_sources([DATA / "dupes_zotero.ris", DATA / "dupes_scopus.csv"], duplicates=DuplicateRules(fuzzy=False))
    assert len(papers) == 12 and report.merged == 2  # the DOI and the arXiv id still merge


def test_merged_record_takes_identifiers_from_any_source_and_gets_their_id():
    a = paper("Attention is all you need", source="a.csv:2", year=2017, authors=["Vaswani, A"])
    b = paper("Attention Is All You Need.", source="b.ris:1", year=2017, doi="10.5555/attn", abstract="Transformers.",
              keywords=["attention"])
    merged, found = deduplicate([a, b])
    assert [m.reason for m in found.merges] == ["titles 100% alike, same year 2017"]
    assert merged == [
        a.replace(id=paper_id(doi="10.5555/attn"), doi="10.5555/attn", abstract="Transformers.", text="Transformers.",
                  keywords=("attention",), sources=("a.csv:2", "b.ris:1"), aliases=(a.id,))
    ]  # a's old id stays an alias, so annotations made on it follow the paper
    # the same paper gets the same id whichever export is read first
    assert deduplicate([b, a])[0][0].id == merged[0].id


@pytest.mark.parametrize(
    "left, right, merged",
    [
        # near-identical title, same year
        (dict(title="A study of screening with language models", year=2020),
         dict(title="A study of screening with large language models", year=2020), False),  # 93%: not near-identical
        (dict(title="A study of screening with language models", year=2020),
         dict(title="A Study of Screening With Language-Models!", year=2020), True),
        # agreement needed: neither year nor first author agrees
        (dict(title="A study of screening with language models", year=2020, authors=["Smith, J"]),
         dict(title="A study of screening with language models", year=2021, authors=["Jones, K"]), False),
        (dict(title="A study of screening with language models", year=2020, authors=["Smith, J"]),
         dict(title="A study of screening with language models", year=2021, authors=["J. Smith"]), True),
        # numbered parts of a series are different papers
        (dict(title="The theory of ultralogics, part I", authors=["Herrmann, R"]),
         dict(title="The theory of ultralogics, part II", authors=["Herrmann, R"]), False),
        (dict(title="Exact pricing of tranches of synthetic CDOs. Study 1", year=2010),
         dict(title="Exact pricing of tranches of synthetic CDOs: study 2", year=2010), False),
        # conflicting DOIs keep similar titles apart
        (dict(title="A study of screening with language models", year=2020, doi="10.1/a"),
         dict(title="A study of screening with language models", year=2020, doi="10.1/b"), False),
        # short titles must match exactly and agree on both year and first author
        (dict(title="Editorial", year=2020, authors=["Smith, J"], abstract="On one thing."),
         dict(title="Editorial", year=2020, authors=["Lee, K"], abstract="On another."), False),
        (dict(title="Editorial", year=2020, authors=["Smith, J"], abstract="On one thing."),
         dict(title="Editorial.", year=2020, authors=["Smith J"], abstract="On one thing, reworded."), True),
        # without abstracts or identifiers, the same title, year and first author is the same record id;
        # two first authors are two papers (two editorials of one year)
        (dict(title="Editorial", year=2020, authors=["Smith, J"]), dict(title="Editorial", year=2020, authors=["Lee, K"]), False),
        (dict(title="Editorial", year=2020, authors=["Smith, J"]), dict(title="Editorial", year=2020, authors=["Smith J."]), True),
        # the same abstract of 20+ words is the same paper, even when a title lost a word
        (dict(title="Autologous chondrocyte implantation for knee lesions", doi="10.1/k", abstract=LONG),
         dict(title="Autologous chondrocyte for knee lesions", abstract=LONG.upper()), True),
        (dict(title="Autologous chondrocyte implantation for knee lesions", doi="10.1/k", abstract=LONG),
         dict(title="An erratum that copies the abstract", doi="10.1/erratum", abstract=LONG), False),
        (dict(title="Short abstracts need the same title", doi="10.1/s", abstract="Lorem ipsum."),
         dict(title="Another title", abstract="Lorem ipsum."), False),
        # a shared identifier is enough, whatever the titles
        (dict(title="Preprint title", pmid="123"), dict(title="Published title", pmid="123"), True),
    ],
)
def test_duplicate_rule(left, right, merged):
    papers = [paper(source="a:1", **left), paper(source="b:1", **right)]
    assert (len(deduplicate(papers)[0]) == 1) is merged


def test_transitive_merges_never_join_two_different_dois():
    a = paper("Screening prioritisation with active learning", source="a:1", year=2021, doi="10.1/a")
    b = paper("Screening prioritisation with active learning", source="b:1", year=2021)  # no DOI
    c = paper("Screening prioritisation with active learning.", source="c:1", year=2021, doi="10.1/c")
    merged, found = deduplicate([a, b, c])
    assert [p.sources for p in merged] == [("a:1", "b:1"), ("c:1",)]
    assert found.clusters == [[0, 1], [2]]


@pytest.mark.parametrize(
    "name, key",
    [("Smith, John", "smith"), ("John Smith", "smith"), ("Smith J", "smith"), ("Smith J.-P.", "smith"),
     ("J. Smith", "smith"), ("van der Berg, A", "van der berg"), ("Gödel K.", "godel"), ("", "")],
)
def test_first_author_key(name, key):
    assert first_author_key(paper("t", source="s", authors=[name] if name else [])) == key


def test_merge_keeps_include_over_exclude_and_every_source():
    a = paper("Title long enough for fuzzy matching", source="a:1", year=2020, label="exclude")
    b = paper("Title long enough for fuzzy matching", source="b:1", year=2020, label="include")
    c = paper("Title long enough for fuzzy matching", source="c:1", year=2020)
    merged = merge_papers([a, b, c])
    assert (merged.label, merged.sources, merged.source) == ("include", ("a:1", "b:1", "c:1"), "a:1")


def test_blocking_keeps_comparisons_far_below_n_squared():
    rng = random.Random(7)
    vocabulary = [f"w{i}" for i in range(3000)]
    papers = [
        paper(" ".join(rng.choice(vocabulary) for _ in range(9)), source=f"s:{i}", year=2000 + i % 20)
        for i in range(10_000)
    ]
    # 200 near-duplicates: one letter changed in the middle of the title
    for i in range(200):
        t = papers[i].title
        papers.append(paper(t[:20] + "x" + t[21:], source=f"d:{i}", year=papers[i].year))
    found = find_duplicates(papers)
    assert len(found.merges) == 200
    assert found.comparisons < 0.001 * len(papers) ** 2


def test_records_with_neither_year_nor_author_are_not_compared_by_title(monkeypatch):
    """Rule 3 joins near-identical titles whose records agree on a year or a first author: a
    record with neither (an untitled scraped abstract) is left out of the long-title blocks,
    and the clusters are the ones comparing every block whole gives."""
    import workbench.dedupe.rules as dedupe

    base = "Reward models for aligning large language models with human preferences"
    papers = [paper(base + ("s" if i % 2 else ""), source=f"s:{i}", abstract=f"Abstract {i} " * 30,
                    year=2024 if i < 4 else None, authors=("Smith, J.",) if i == 4 else ())
              for i in range(10)]
    found = find_duplicates(papers)
    assert [c for c in found.clusters if len(c) > 1] == [[0, 1, 2, 3]]  # (4 names an author nobody else does)
    # Only the five with a year or an author: all five share the first three words; the last three
    # are "... human preferences" (0, 2, 4) or "... human preferencess" (1, 3).
    assert found.comparisons == 5 ** 2 + 3 ** 2 + 2 ** 2

    monkeypatch.setattr(dedupe, "title_blocks", lambda title, long=True: [("whole", 1)] if title else [])
    everyone = find_duplicates(papers)  # (every record in one block: the rule alone keeps the bare ones out)
    assert everyone.clusters == found.clusters and everyone.merges == found.merges


# ----------------------------------------------------------------------------- every script


@pytest.mark.parametrize("dedupe", [True, False])
def test_abstracts_in_eight_scripts_are_distinct_papers_and_their_copies_merge(dedupe):
    """15 abstracts in Chinese, Japanese, Korean, Arabic, Russian, Greek, Hindi and Hebrew, then 6
    of them again as another export writes them (ASCII punctuation, full-width letters, upper
    case, no final stop): 15 papers, 6 merges, with and without fuzzy titles."""
    papers, report = read_sources([DATA / "scripts.csv"], duplicates=DuplicateRules(fuzzy=dedupe))
    assert (report.read, report.merged, len(papers)) == (21, 6, 15)
    assert len({p.id for p in papers}) == 15
    merged = [m.replace(f"{DATA}/", "") for m in report.merges]
    # the Russian, Greek and Arabic ones have fewer than 20 words: their (derived) titles count too
    assert merged == [f"scripts.csv:{a} is the same paper as scripts.csv:{b} ({why})" for a, b, why in [
        (17, 2, "same abstract"), (18, 4, "same abstract"), (19, 10, "same title and abstract"),
        (20, 12, "same title and abstract"), (21, 8, "same title and abstract"), (22, 14, "same abstract")]]
    by_line = {p.source.rsplit(":", 1)[1]: p for p in papers}
    assert by_line["2"].sources == (f"{DATA / 'scripts.csv'}:2", f"{DATA / 'scripts.csv'}:17")


def test_near_identical_chinese_titles_meet_in_a_block_and_merge():
    a = paper("基于强化学习的机器人导航方法研究与实现", source="a.bib:1", year=2021, authors=["张伟"])
    b = paper("基于强化学习的机器人导航方法研究与实现。", source="b.ris:1", year=2021, authors=["张伟"])
    c = paper("基于强化学习的机器人导航方法研究与实验", source="c.ris:1", year=2019, authors=["李娜"])
    merged, found = deduplicate([a, b, c])
    assert [(m.kept, m.merged) for m in found.merges] == [(0, 1)]
    assert len(merged) == 2


def test_short_identical_abstracts_under_different_titles_stay_apart():
    """ASReview's duplicate_records.csv: ten records whose abstract is "lorem" under titles a to
    i. The same title and abstract, or the same DOI, merge; the rest are ten different papers
    (they all were one paper: the short abstract alone made their id)."""
    rows = [("a", "10.1"), ("a", ""), ("b", "10.3"), ("c", "10.3"), ("d", ""), ("e", ""), ("f", ""), ("g", "")]
    papers = [paper(t, source=f"f.csv:{i + 2}", abstract="lorem", doi=d or None) for i, (t, d) in enumerate(rows)]
    merged, found = deduplicate(papers)
    assert sorted((m.kept, m.merged, m.reason) for m in found.merges) == [
        (0, 1, "same title and abstract"), (2, 3, "same DOI 10.3")]
    assert [p.title for p in merged] == ["a", "b", "d", "e", "f", "g"]


def test_same_title_and_year_by_different_first_authors_are_two_papers(tmp_path):
    """"An amazing title" (2013) by Jean Cesar and by Jean Baltazar, no abstract, no DOI: two
    papers (they were one: the title and year alone made their id). By the same author: one."""
    bib = tmp_path / "refs.bib"
    entries = [("Cesar2013", "Jean Cesar"), ("Baltazar2013", "Jean Baltazar"), ("Cesar2013b", "Cesar, Jean")]
    bib.write_text("".join(f"@article{{{key}, author={{{who}}}, title={{An amazing title}}, year={{2013}}}}\n"
                           for key, who in entries), encoding="utf-8")
    papers, report = read_sources([bib])
    assert [(p.authors, len(p.sources)) for p in papers] == [(("Jean Cesar",), 2), (("Jean Baltazar",), 1)]
    assert [m.rsplit("(", 1)[1] for m in report.merges] == ["same title, year 2013, no abstract or identifier)"]
    long_title = "Editorial: introduction to the special issue on screening"
    a = paper(long_title, source="a.ris:1", year=2020, authors=["Smith, J."])
    b = paper(long_title + ".", source="b.ris:1", year=2020, authors=["Jones, K."])
    assert len(deduplicate([a, b])[0]) == 2  # near-identical titles, same year, two first authors


def test_first_author_key_ignores_accents_but_keeps_every_script():
    assert first_author_key(paper("t", source="x", authors=["Müller, Jürgen"])) == "muller"
    assert first_author_key(paper("t", source="x", authors=["张伟"])) == "张伟"
    assert first_author_key(paper("t", source="x", authors=["Παπαδόπουλος, Γ."])) == "παπαδοπουλοσ"  # casefold: final ς is σ


def test_deduplicate_keeps_reading_order_whatever_order_the_clusters_come_in():
    papers = [Paper(id=f"p{i}", title=f"A study of topic {i} in depth", abstract="", text=f"Abstract {i}. " * 30)
              for i in range(6)] + [Paper(id="p0", title="A study of topic 0 in depth", abstract="", text="Abstract 0. " * 30)]
    found = find_duplicates(papers)
    found.clusters.reverse()
    kept, _ = deduplicate(papers, found=found)
    assert [p.id for p in kept] == [f"p{i}" for i in range(6)]
    assert [p.id for p in deduplicate(papers)[0]] == [f"p{i}" for i in range(6)]
