"""Records: LaTeX clean-up, ids from DOI > arXiv > PMID > text, and derived titles."""

import pytest

from workbench.records import (
    Paper,
    clean_text,
    derive_title,
    normalise_arxiv_id,
    normalise_doi,
    paper_id,
    papers_to_frame,
)


@pytest.mark.parametrize(
    "raw, expected",
    [
        (r"include \textbf{reward models} to measure", "include reward models to measure"),
        (r"we propose R$^3$: Learning", "we propose R³: Learning"),
        (r"improves by $75\%$ and 30% of the rest", "improves by 75% and 30% of the rest"),
        (r"G\"odel Agent", "Gödel Agent"),
        (r"named (\model), which", "named (model), which"),
        ("{process reward model} (PRM)", "process reward model (PRM)"),
        ("Tree Search-based Orchestrated Agents~(TOA)", "Tree Search-based Orchestrated Agents (TOA)"),
        ("  spaced \n\n out\ttext ", "spaced out text"),
        (r"$\alpha$-tuning", "α-tuning"),
        ("plain text stays", "plain text stays"),
        ("", ""),
    ],
)
def test_clean_text_converts_latex(raw, expected):
    assert clean_text(raw) == expected


def test_clean_text_never_keeps_markup():
    text = clean_text(r"\emph{A} \textit{b} $x^{2}$ \cite{k} {braces} 50\% UA^2")
    for mark in ("\\", "$", "{", "}"):
        assert mark not in text
    assert "x²" in text and "UA²" in text and "50%" in text


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("https://doi.org/10.1000/ABC.123.", "10.1000/abc.123"),
        ("doi:10.18653/v1/2023.acl-long.1", "10.18653/v1/2023.acl-long.1"),
        ("not a doi", None),
        (None, None),
    ],
)
def test_normalise_doi(raw, expected):
    assert normalise_doi(raw) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("arXiv:2401.01234v2", "2401.01234"),
        ("https://arxiv.org/abs/2309.07864", "2309.07864"),
        ("hep-th/9901001v1", "hep-th/9901001"),
        ("nothing", None),
    ],
)
def test_normalise_arxiv_id(raw, expected):
    assert normalise_arxiv_id(raw) == expected


def test_id_prefers_doi_then_arxiv_then_pmid_then_text():
    text = "An abstract about agents."
    by_doi = paper_id(doi="10.1/x", arxiv_id="2401.00001", pmid="123", text=text)
    assert by_doi == paper_id(doi="10.1/x", text="something else entirely")
    by_arxiv = paper_id(arxiv_id="2401.00001", pmid="123", text=text)
    assert by_arxiv == paper_id(arxiv_id="2401.00001") != by_doi
    by_pmid = paper_id(pmid="123", text=text)
    assert by_pmid == paper_id(pmid="123") != by_arxiv
    by_text = paper_id(text=text)
    assert by_text not in (by_doi, by_arxiv, by_pmid)
    assert len(by_text) == 12 and int(by_text, 16) >= 0


def test_text_id_ignores_layout_case_and_markup():
    assert paper_id(text="Agents, agents!  AGENTS.") == paper_id(text="agents agents agents")
    assert paper_id(text=clean_text(r"\textbf{Reward} models")) == paper_id(text="reward MODELS")


def test_title_and_year_id_when_there_is_no_text():
    assert paper_id(title="A Title", year=2020) != paper_id(title="A Title", year=2021)


@pytest.mark.parametrize(
    "abstract, title",
    [
        (
            "Aligned LLMs are great. To fill this gap, we introduce TRACE, a novel benchmark designed to "
            "evaluate continual learning in LLMs. TRACE consists of 8 datasets.",
            "TRACE: a novel benchmark designed to evaluate continual learning in LLMs",
        ),
        (
            "RL works. In this paper, we propose DVPO (Distributional Value Modeling with Risk-aware Policy "
            "Optimization), a new RL framework that does things.",
            "DVPO: Distributional Value Modeling with Risk-aware Policy Optimization",
        ),
        (
            "We introduce Mixture of Agents Alignment (MoAA), that leverages the collective strengths.",
            "MoAA: Mixture of Agents Alignment",
        ),
        (
            "Image retouching matters. We propose a unified diffusion-based image retouching framework "
            "called PerTouch. Our method supports things.",
            "PerTouch: a unified diffusion-based image retouching framework",
        ),
        (r"In this paper, we propose R$^3$: Learning Reasoning through Reverse Curriculum.", None),
    ],
)
def test_derive_title_names_the_system(abstract, title):
    derived = derive_title(abstract)
    if title is None:
        assert derived.startswith("R³: Learning Reasoning")
    else:
        assert derived == title


def test_derive_title_falls_back_to_a_short_first_clause():
    abstract = (
        "Memory has emerged, and will continue to remain, a core capability of foundation model-based "
        "agents that people care about a great deal in many respects. It underpins things."
    )
    title = derive_title(abstract)
    assert title.startswith("Memory has emerged")
    assert len(title) <= 90
    assert derive_title("") == "(untitled)"


def test_paper_is_frozen_and_converts_to_a_frame():
    p = Paper(id="abc", title="T", abstract="A", text="A", authors=("X Y",), year=2020)
    with pytest.raises(AttributeError):
        p.title = "other"
    frame = papers_to_frame([p, p.replace(id="def", year=None)])
    assert list(frame.id) == ["abc", "def"]
    assert frame.authors[0] == ["X Y"]
    assert frame.year.isna().tolist() == [False, True]


def test_ampersands_and_percent_signs_survive_latex_conversion():
    assert clean_text(r"R&D spend rose 5% with \textbf{care}") == "R&D spend rose 5% with care"
    assert clean_text(r"R\&D and Q&A") == "R&D and Q&A"
