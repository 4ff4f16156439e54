"""Cleaning: the fast paths give what pylatexenc and the regular expressions they replace give."""

import random
import re
import sys
import unicodedata

from pylatexenc.latex2text import LatexNodes2Text

from workbench.corpus.clean import clean_text, single_spaced

SUPERSCRIPTS = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
TO_TEXT = LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


def through_pylatexenc(text: str) -> str:
    """What clean_text did to every text with a ``^`` before it skipped the parser for them
    (text with no character LaTeX gives a meaning to had only its white space collapsed)."""
    text = unicodedata.normalize("NFC", text)
    if not re.search(r"[\\$%{}~^]", text):
        return re.sub(r"\s+", " ", text.replace("\u00a0", " ")).strip()
    text = TO_TEXT.latex_to_text(re.sub(r"(?<!\\)([%&])", r"\\\1", text))
    text = re.sub(r"\^\{?([0-9+\-]+)\}?", lambda m: m.group(1).translate(SUPERSCRIPTS), text)
    text = unicodedata.normalize("NFC", text.replace("{", "").replace("}", "")).replace("\u00a0", " ")
    return re.sub(r"\s+", " ", text).strip()


def generated_texts(n: int, pieces: list[str], seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40))) for _ in range(n)]


def test_text_without_macros_braces_or_math_is_cleaned_as_pylatexenc_cleans_it():
    pieces = list("ab ^^%&~-'`!?#_12+.,\n\t") + ["--", "---", "``", "''", "é", "e\u0301", "π", "x^2", "R^-1",
                                                  "^+", "75% of", "R&D", "\u00a0", " We propose "]
    texts = generated_texts(800, pieces) + ["the decay of π^± to e^±", "R^2 = 0.9 -- a fit", "T^# is 1-summing"]
    for text in texts:
        assert clean_text(text) == through_pylatexenc(text), text


def test_single_spaced_is_what_collapsing_white_space_gives():
    every = [chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]
    for text in ("a".join(every), "ab".join(c + c for c in every), every[0x2028] + "x" + every[0x85]):
        assert single_spaced(text) == re.sub(r"\s+", " ", text).strip()


def test_single_spaced_returns_single_spaced_text_as_it_is():
    text = "Already single spaced, with Ünïcode and 大型 words."
    assert single_spaced(text) is text


# Text with LaTeX is cut into its formulas, its macros and what they take, and the text between
# (workbench.latex_pieces): the pieces converted one by one must give what the whole gives.
LATEX_PIECES = [
    ["$x$", "$", "$\\alpha$", "\\emph{a}", "\\alpha ", "{", "}", "\\$", "\\%", "%", " ", "  ", ". ", "--", "''",
     "``", "~", "a", "b c", "\\'e", "\\\"o", "^2", "$x^2$", "{\\it y}", "\\cite{k}", "\\\\", "&", "\n", "é", "$ a $",
     "\\frac12", "\\textbf{$x$}", "$\\text{a $b$}$", "\\hat x", "\\, ", "\\ ", "x_1", "#", "\\mathcal{O}(n)", "\\u",
     "\\frac", "$\\frac a$", "\\hat", "\\\\%", "\\\\&", "$\\u$", "${x}$", "$}", "{$", "\\sqrt", "[", "]", "*", "\\(",
     "\\)", "$$", "\\,"],
    ["word ", "abcdefgh ", "x. ", "  ", " ", "\\frac a b ", "\\frac", "\\hat x", "\\hat", "\\u ", "\\cite k",
     "\\cite{k}", "{", "}", "$", "$x$", "\\emph{a b c}", "\\alpha", "\\alpha ", "{\\it y}", "--", "''", "\\%", "%",
     "\\\\", "\\\\[2pt]", "[", "]", "*", "\\'", "\\'e", "\\textbf", "\\sqrt[3]{x}", "\\sqrt", "\\mbox{ $y$ }", "\\,",
     "\\ ", "é", "\\^o", "^", "_", "~", "\\S", "\\ldots", "\\footnote{n}", "\\fbox{$a$}"],
]


def converted_whole(text: str, monkeypatch) -> str:
    import workbench.corpus.clean as cleaning

    with monkeypatch.context() as m:
        m.setattr(cleaning, "latex_pieces", lambda text: None)
        return clean_text(text)


def test_latex_cut_into_pieces_is_converted_as_the_whole_text(monkeypatch):
    from workbench.corpus.latex_pieces import latex_pieces

    texts = generated_texts(2000, LATEX_PIECES[0], seed=7) + generated_texts(2000, LATEX_PIECES[1], seed=11)
    texts += ["flat $\\log N$ {\\it vs.} $\\log S$ of bursts. These data", "a variable $\\u$ on the $1$-level set",
              "\\frac--$x$\\textbf{y} and more words after it", "\\hat$x$\\hat% and then $y$ text"]
    cut = 0
    for text in texts:
        assert clean_text(text) == converted_whole(text, monkeypatch), repr(text)
        cut += len(latex_pieces(text) or ()) > 1
    assert cut > 250  # (many are cut: the test would pass without cutting anything)


def test_arxiv_abstracts_cut_into_pieces_are_converted_as_whole(shared_data, monkeypatch):
    import csv

    from workbench.corpus.latex_pieces import latex_pieces

    with open(shared_data / "corpora/arxiv_lite_8fields/arxiv_lite.csv", encoding="utf-8") as f:
        texts = [text for row in csv.DictReader(f) for text in (row["summary"], row["title"]) if "$" in text]
    assert len(texts) > 300
    assert sum(len(latex_pieces(text) or ()) > 1 for text in texts) > 0.9 * len(texts)
    for text in texts:
        assert clean_text(text) == converted_whole(text, monkeypatch), text
