"""Records: LaTeX clean-up, ids from DOI > arXiv > PMID > text, and derived titles."""

import pytest

from workbench.corpus.paper import Paper, papers_to_frame
from workbench.corpus.clean import clean_text
from workbench.corpus.titles import derive_title
from workbench.corpus.ids import id_aliases, normalise_arxiv_id, normalise_doi, normalise_for_id, paper_id


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


def test_a_paper_is_its_metadata_with_its_texts_each_made_by_its_constructor():
    import pickle
    from dataclasses import FrozenInstanceError
    from pathlib import Path

    from workbench.corpus.paper import PAPER_FIELDS, PaperInfo

    p = Paper(id="abc", title="T", abstract="A $x$", text="A x", authors=("X Y",), year=2020, keywords=("k",))
    info = p.info()
    assert type(info) is PaperInfo and isinstance(p, PaperInfo) and info.to_dict() == {
        k: v for k, v in p.to_dict().items() if k not in ("abstract", "text")}
    assert info.with_texts("A $x$", "A x") == p and pickle.loads(pickle.dumps(p)) == p
    assert list(p.to_dict()) == list(PAPER_FIELDS)[:len(p.to_dict())] and list(p.to_dict())[:4] == [
        "id", "title", "abstract", "text"]  # (papers.jsonl's order)
    for record in (p, info):
        assert not hasattr(record, "__dict__"), "slots: nothing can be attached or swapped behind the constructor"
        with pytest.raises(FrozenInstanceError):
            record.title = "other"
        with pytest.raises(FrozenInstanceError):
            del record.title
    assert not hasattr(info, "abstract") and not hasattr(info, "text")
    with pytest.raises(TypeError, match="abstract"):
        Paper(id="abc", title="T")  # the texts are not optional: PaperInfo is the record without them
    assert "__getattr__" not in vars(Paper) and "__getattr__" not in vars(PaperInfo)
    package = Path(__file__).resolve().parents[1] / "workbench"
    made_around = [str(f.relative_to(package)) for f in package.rglob("*.py")
                   if "object.__new__(" in f.read_text(encoding="utf-8")]
    assert made_around == [], "records are made by their constructors"


def test_ampersands_and_percent_signs_survive_latex_conversion():
    assert clean_text(r"R&D spend rose 5% with \textbf{care}") == "R&D spend rose 5% with care"
    assert clean_text(r"R\&D and Q&A") == "R&D and Q&A"


# ----------------------------------------------------------------------------- ids in every script

DISTINCT = [
    "本文提出一种基于强化学习的机器人导航方法。",
    "我们构建了一个大规模中文医学问答数据集。",
    "نقترح في هذا البحث طريقة جديدة لتصنيف النصوص العربية.",
    "تقدم هذه الدراسة مجموعة بيانات طبية باللغة العربية.",
    "В статье предлагается метод обучения с подкреплением.",
    "Προτείνουμε μια νέα μέθοδο ενισχυτικής μάθησης.",
    "इस शोध में हम हिंदी समाचार लेखों का सारांश बनाते हैं।",
]


def test_distinct_abstracts_in_any_script_get_distinct_ids():
    ids = {paper_id(text=t) for t in DISTINCT}
    assert len(ids) == len(DISTINCT)
    # letters that differ only by a combining mark (Devanagari vowel signs) are different words
    assert paper_id(text="काम") != paper_id(text="कम")
    # accents are letters too: an id no longer drops them
    assert paper_id(text="Étude des modèles") != paper_id(text="Etude des modeles")


@pytest.mark.parametrize(
    "a, b",
    [
        ("本研究では大規模言語モデル（ＬＬＭ）を用いた", "本研究では大規模言語モデル(LLM)を用いた"),  # full width (NFKC)
        ("ΠΡΟΤΕΊΝΟΥΜΕ μια νέα μέθοδο", "προτείνουμε μια νέα μέθοδο."),  # case
        ("Die Straße der Größe", "die strasse der grösse"),  # casefold: ß is ss
        ("B\u0065\u0301zier curves", "B\u00e9zier curves!"),  # decomposed and composed é
    ],
)
def test_the_same_abstract_written_differently_gets_the_same_id(a, b):
    assert normalise_for_id(a) == normalise_for_id(b)
    assert paper_id(text=a) == paper_id(text=b)


def test_normalise_for_id_keeps_letters_digits_and_marks_of_every_script():
    assert normalise_for_id("Über-Größe, 大型语言模型! हिन्दी_भाषा 42") == "über grösse 大型语言模型 हिन्दी भाषा 42"
    assert normalise_for_id("Plain ASCII text_with 3 parts.") == "plain ascii text with 3 parts"


def old_normalise_for_id(text: str) -> str:
    """A copy of the normalisation ids had before every script counted."""
    import re
    import unicodedata

    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def old_paper_id(text: str = "", title: str = "", year=None) -> str:
    import hashlib

    normalised = old_normalise_for_id(text) if text else ""
    key = "text:" + normalised if normalised else f"title:{old_normalise_for_id(title)}:{year or ''}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


@pytest.mark.parametrize(
    "text, title, year",
    [
        ("Étude des modèles de langue", "", None),
        ("The α-β pruning of search trees in Gödel machines", "", None),
        ("大型语言模型的评测", "", None),
        ("", "Über die Größe", 2020),
        ("", "Πλοήγηση ρομπότ", 2021),
        ("Lorem ipsum.", "A title that now counts", 2022),  # a short abstract: its title enters the id
    ],
)
def test_a_record_whose_id_changed_keeps_its_old_id_as_an_alias(text, title, year):
    new = paper_id(text=text, title=title, year=year)
    old = old_paper_id(text, title, year)
    assert new != old and old in id_aliases(new, text=text, title=title, year=year)
    # with a DOI, both content ids are aliases: annotations made before the DOI was known follow
    doi_id = paper_id(doi="10.1000/x", text=text, title=title, year=year)
    assert {new, old} <= set(id_aliases(doi_id, text=text, title=title, year=year))


def test_ascii_records_keep_their_ids_and_get_no_new_alias():
    text = "We study reward models for agents and compare them on three benchmarks."
    assert paper_id(text=text) == old_paper_id(text)
    assert id_aliases(paper_id(text=text), text=text) == ()


def test_a_short_abstract_does_not_name_a_paper_alone():
    assert paper_id(text="lorem", title="Title a") != paper_id(text="lorem", title="Title b")
    long = " ".join(f"word{i}" for i in range(25))
    assert paper_id(text=long, title="Title a") == paper_id(text=long, title="Title b") == paper_id(text=long)
    assert paper_id(text="lorem") == paper_id(text="lorem", title="")  # no title: the abstract alone


def test_records_of_symbols_only_do_not_share_an_id():
    assert paper_id(text="∑∫∂ ≠ ∞") != paper_id(text="→ ← ↔")
    assert paper_id(title="🙂", year=2020) != paper_id(title="🙃", year=2020)


def test_a_title_made_from_a_short_abstract_leaves_its_id_alone():
    """An export writes a derived title as a title; read back, the paper keeps its id."""
    from workbench.corpus.titles import derive_title

    abstract = "We propose TRACE, a short benchmark for continual learning."
    assert paper_id(text=abstract) == paper_id(text=abstract, title=derive_title(abstract))
    assert paper_id(text=abstract) != paper_id(text=abstract, title="A real, different title")


def by_definition(text):
    """normalise_for_id as defined: NFKC, casefold, the runs of word characters of any script."""
    import re
    import unicodedata

    from workbench.corpus.writing_systems import word_runs

    if text.isascii():
        return " ".join(re.findall(r"[a-z0-9]+", text.lower()))
    return " ".join(word_runs().findall(unicodedata.normalize("NFKC", text).casefold().replace("_", " ")))


def test_normalise_for_id_is_the_runs_of_word_characters_in_any_mix_of_scripts():
    """The fast normalisation (one str.replace per distinct character it changes) gives what its
    definition, the regular expression of word runs, gives; also past the number of distinct
    characters where it falls back to that expression."""
    import random

    rng = random.Random(3)
    pieces = list("aZ9_ -–’.,;:()[]/\n\t") + ["é", "e\u0301", "ß", "İ", "ﬁ", "大型", "हिन्दी", "Σ", "\u00a0", "①", "😀",
                                                   "\U000e0100", "x\u0301\u0302", "\ud800"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60))) for _ in range(3000)]
    texts.append("x" + "".join(chr(0x2000 + i) for i in range(100)) + "é")  # many distinct separators
    for text in texts:
        assert normalise_for_id(text) == by_definition(text), text


def test_normalise_for_id_reads_every_character_as_its_definition():
    """Each character beyond ASCII is casefolded on its own (normalise_for_id): the same as
    casefolding the whole text, for every code point, inside words and between them."""
    points = [chr(c) for c in range(0x80, 0x30000) if not 0xD800 <= c < 0xE000]
    texts = ["".join(f"x{c}Y {c}_ß" for c in points[i:i + 20]) for i in range(0, len(points), 20)]
    assert [normalise_for_id(t) for t in texts] == [by_definition(t) for t in texts]


def test_old_normalisation_is_unchanged_in_any_mix_of_scripts():
    import random

    from workbench.corpus.ids import legacy_normalise_for_id

    rng = random.Random(4)
    pieces = list("aZ9_ -–’.,\n") + ["é", "e\u0301", "ß", "İ", "ﬁ", "大型", "हिन्दी", "Σ", "①", "\u0301\u0302"]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 60))) for _ in range(3000)]
    texts.append("".join(chr(0x300 + i) + "a" for i in range(80)))  # many distinct marks
    for text in texts:
        assert legacy_normalise_for_id(text) == old_normalise_for_id(text), text


def test_old_normalisation_reads_every_character_as_before():
    """Each character beyond ASCII is decomposed on its own (legacy_normalise_for_id): the same as
    decomposing the whole text, for every code point, inside words and between them."""
    from workbench.corpus.ids import legacy_normalise_for_id

    points = [chr(c) for c in range(0x80, 0x30000) if not 0xD800 <= c < 0xE000]
    texts = ["".join(f"x{c}Y {c}" for c in points[i:i + 40]) for i in range(0, len(points), 40)]
    assert [legacy_normalise_for_id(t) for t in texts] == [old_normalise_for_id(t) for t in texts]


def test_both_normalisations_agree_where_every_character_beyond_ascii_separates_words():
    """The old normalisation is skipped (the new one's words taken) for text whose characters
    beyond ASCII all separate words both ways: for every code point where that is said, inside
    words and between them, both give the same; and they are skipped no more than that."""
    from workbench.corpus.ids import _normalised_alike, _separates_both
    from workbench.corpus.ids import legacy_normalise_for_id

    points = [chr(c) for c in range(0x80, 0x30000) if not 0xD800 <= c < 0xE000]
    separating = [c for c in points if _separates_both(c)]
    assert {"–", "’", "±", "≥", "“", "…"} <= set(separating)
    assert not {"é", "ß", "²", "ﬁ", "µ", "大", "\u0301", "™", "①"} & set(separating)
    texts = ["".join(f"x{c}Y {c}-a{c}" for c in separating[i:i + 40]) for i in range(0, len(separating), 40)]
    assert all(map(_normalised_alike, texts))
    assert [legacy_normalise_for_id(t) for t in texts] == [normalise_for_id(t) for t in texts]
    assert not _normalised_alike("Gödel – a note") and _normalised_alike("10 ± 2 – a note")


def test_each_character_of_an_unspaced_script_counts_as_a_word():
    from workbench.corpus.ids import count_words

    mixed = normalise_for_id("大型语言模型的评测 " + "word " * 25)
    assert count_words(mixed) == 26 + 9
    assert count_words(normalise_for_id("大型语言模型 tiny text")) == 3 + 6
    assert count_words("") == 0 and count_words("plain words here") == 3


@pytest.mark.parametrize("text, title", [
    ("We study the effects of things on other things at some length. " * 3, ""),
    ("A short abstract.", "A title of its own"),  # the content key holds the title too
    ("∑∏", ""),  # only symbols: no normalised text
    ("", "A title alone"),
])
def test_texts_normalised_once_give_the_same_ids(text, title):
    from workbench.corpus.ids import paper_ids, text_digest

    normalised = (normalise_for_id(text) if text else "", normalise_for_id(title) if title else "")
    assert paper_ids(text=text, title=title, normalised=normalised) == paper_ids(text=text, title=title)
    if normalised[0] and not title:  # deduplication's digest of an abstract is the start of its content id
        assert text_digest(normalised[0]).hex()[:12] == paper_id(text=text)
    assert paper_ids(text=text, title=title)[0] == paper_id(text=text, title=title)
