"""Cleaning: the fast paths give what pylatexenc and the regular expressions they replace give."""

import random
import re
import sys
import unicodedata

from pylatexenc.latex2text import LatexNodes2Text

from workbench.cleaning import clean_text, single_spaced

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
