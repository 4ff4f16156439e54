"""Derived titles: the named system or what the paper does, never a start mid-thought; ids
of papers read back with a title an earlier version derived stay as they were."""

import re

import pytest

from workbench.corpus.clean import clean_text
from workbench.corpus.titles import POINTING_BACK, derive_title, derived_titles, title_repeats_abstract
from workbench.corpus.ids import paper_id

from conftest import SEEDS


def _mid_thought(title: str) -> bool:
    first = re.match(r"\W*([\w'’]+)", title)
    return first is None or first.group(1).lower() in POINTING_BACK or title.lower().startswith("to address")


@pytest.mark.parametrize(
    "abstract, title",
    [
        ("Agents fail at long tasks. To address these challenges, we propose a general framework for zero-shot "
         "navigation that generalises.", "A general framework for zero-shot navigation"),
        ("Alignment is costly. We study methods for efficiently aligning large language models with human "
         "preferences, and show gains.", "Methods for efficiently aligning large language models with human preferences"),
        ("Satellites see a lot. We investigate whether household wealth leaves recoverable imprints in satellite "
         "imagery.", "Investigating whether household wealth leaves recoverable imprints in satellite imagery"),
        ("Models are big. We show that reward models overfit to the length of responses.",
         "Reward models overfit to the length of responses"),
        ("Planning is hard. We solve the planning problem in linear time.", "Solving the planning problem in linear time"),
        ("It is well known that agents forget. They also hallucinate.", "Agents forget"),
        ("Cheap alignment matters. We introduce Panacea, an innovative approach that reframes alignment.",
         "Panacea: an innovative approach that reframes alignment"),
        ("DPO drifts. We propose a new method called Trust Region DPO (TR-DPO).", "TR-DPO: a new method"),
    ],
)
def test_a_derived_title_says_what_the_paper_does(abstract, title):
    assert derive_title(abstract) == title
    assert title_repeats_abstract(title, abstract), "read back from an export, it is known as derived"


def test_a_named_system_is_not_described_by_what_an_earlier_sentence_said():
    abstract = ("Agent data is scattered. In this paper, we introduce AgentOhana as a comprehensive solution to "
                "address these challenges. AgentOhana aggregates agent trajectories from distinct environments, "
                "spanning a wide array of scenarios.")
    assert derived_titles(abstract)[-1] == "AgentOhana: a comprehensive solution to address these challenges"
    assert derive_title(abstract) == "AgentOhana: aggregates agent trajectories from distinct environments"
    gap = "Agents lack tools. We present UltraCUA, a foundation model that bridges this gap through hybrid action."
    assert derive_title(gap) == "UltraCUA: a foundation model"


def test_no_seed_title_starts_mid_thought_and_each_is_known_as_derived():
    from workbench import read_sources

    papers, _ = read_sources([SEEDS])
    assert len(papers) == 133
    for paper in papers:
        assert paper.title == derive_title(paper.text)
        assert not _mid_thought(paper.title), paper.title
        assert title_repeats_abstract(paper.title, paper.text), paper.title
        assert len(paper.title) <= 90


def test_hardly_any_title_of_real_abstracts_starts_mid_thought(shared_data):
    import pandas as pd

    frame = pd.read_csv(shared_data / "corpora" / "arxiv_lite_8fields" / "arxiv_lite.csv")
    abstracts = [clean_text(a) for a in frame["summary"].astype(str) if a.strip()]  # as a reader cleans them
    titles = [derive_title(a) for a in abstracts]
    before = [derived_titles(a)[-1] for a in abstracts]
    assert sum(map(_mid_thought, before)) > 0.2 * len(abstracts), "the first clause often starts with 'We'"
    assert sum(map(_mid_thought, titles)) <= 0.002 * len(abstracts)
    assert sum(not title_repeats_abstract(t, a) for t, a in zip(titles, abstracts)) <= 0.01 * len(abstracts)


def test_a_short_abstract_keeps_its_id_with_the_title_any_version_derived():
    """An export written before issue 14 holds the title derived then ("We study ..."); read
    back now, the paper keeps the id it had, and the id it gets with today's title is the same."""
    abstract = "We study reward models for agents."
    old, new = "We study reward models for agents", "Reward models for agents"
    assert derived_titles(abstract) == (new, old)
    assert paper_id(text=abstract) == paper_id(text=abstract, title=old) == paper_id(text=abstract, title=new)
    assert paper_id(text=abstract) != paper_id(text=abstract, title="Reward models, agents and a real title")


def test_an_empty_text_is_untitled():
    assert derive_title("") == "(untitled)" and derived_titles("  ") == ("(untitled)",)


def test_the_phrase_scan_finds_what_the_patterns_find():
    """Derived titles look for "we propose ..." and "this paper studies ..." with str.find for
    the words a match starts with: the same matches as the patterns' finditer, in any case,
    spacing and script."""
    import random

    from workbench.corpus import titles
    from workbench.corpus.phrase_scan import scan

    rng = random.Random(7)
    pieces = ["we ", "We ", "WE ", "this ", "This ", "our ", "i ", "I ", "paper ", "propose ", "present ", "study ",
              "introduce ", "aim ", "to ", "show ", "that ", "TRACE", "GPT-4", ", ", ". ", "  ", "\t", "ı", "ſ", "İ",
              "é", "大型", "x", "owe ", "(we ", "a novel method "]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 25))) for _ in range(5000)]
    for pattern, starts in ((titles._INTRO, titles._INTRO_STARTS), (titles._STATES, titles._STATES_STARTS)):
        found = 0
        for text in texts:
            expected = [(m.span(), m.groupdict()) for m in pattern.finditer(text)]
            assert [(m.span(), m.groupdict()) for m in scan(pattern, text, starts)] == expected, text
            found += bool(expected)
        assert found > 200
