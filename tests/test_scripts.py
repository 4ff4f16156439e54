"""Text in any script: id words, topic-word tokens and search terms (workbench.scripts)."""

import random
import re

import pytest

from workbench.corpus.writing_systems import (
    TermFinder, has_cjk, join_cjk, search_terms, strip_marks, term_pattern, tokens, words,
    words_as_written
)


def test_words_keep_their_combining_marks():
    # Python's \w alone cuts Hindi and vowelled Arabic at every mark: ['ह', 'न', 'द']
    assert re.findall(r"\w+", "हिन्दी") == ["ह", "न", "द"]
    assert words("हिन्दी भाषा") == ["हिन्दी", "भाषा"]
    assert words("العَرَبِيَّة") == ["العَرَبِيَّة"]


def test_chinese_and_japanese_characters_are_tokens_and_other_words_need_two_letters():
    assert tokens("强化学习 (RL) for a robot, 2024") == ["强", "化", "学", "习", "RL", "for", "robot", "2024"]
    assert tokens("大規模言語モデル") == ["大", "規", "模", "言", "語", "モ", "デ", "ル"]
    # Korean separates its words with spaces: they stay words (with their particles)
    assert tokens("강화학습을 이용한") == ["강화학습을", "이용한"]


def test_ascii_tokens_are_scikit_learns_default_tokens():
    text = "State-of-the-art RL_agents plan with 3 tools, e.g. GPT-4o; a b c."
    assert tokens(text) == re.findall(r"(?u)\b\w\w+\b", text)
    assert words(text) == re.findall(r"(?u)\b\w+\b", text)
    every = "".join(map(chr, range(128)))  # each ASCII character, control characters included
    rng = random.Random(0)
    for text in [every, every[::-1]] + ["".join(rng.choices(every + "ab c1_", k=200)) for _ in range(300)]:
        assert tokens(text) == re.findall(r"(?u)\b\w\w+\b", text)
        assert words(text) == re.findall(r"(?u)\b\w+\b", text)


def test_words_as_written_puts_spaces_between_cjk_characters():
    assert words_as_written("强化学习，Robots!") == " 强 化 学 习 robots "


def test_join_cjk_writes_n_grams_back_as_the_text_does():
    assert join_cjk("强 化 学 习") == "强化学习"
    assert join_cjk("机器 人, 强 化") == "机器人, 强化"
    assert join_cjk("reward model") == "reward model"


def test_search_terms_split_cjk_runs_into_bigrams_and_drop_stop_words():
    assert search_terms("强化学习 for robots", stop={"for"}) == ["强化", "化学", "学习", "robots"]
    assert search_terms("猫 言語", stop=set()) == ["猫", "言語"]
    assert search_terms("reward-model the", stop={"the"}) == ["reward-model"]


def test_a_quoted_phrase_is_one_term_with_its_stop_words():
    stop = {"the", "of", "from"}
    assert search_terms('"reward model" agents', stop=stop) == ["reward model", "agents"]
    assert search_terms('agents "Learning  from Human feedback"', stop=stop) == ["learning from human feedback", "agents"]
    assert search_terms("\u201cprocess reward\u201d the models", stop=stop) == ["process reward", "models"]
    assert search_terms('"强化学习" 猫', stop=set()) == ["强化学习", "猫"]
    # an unclosed quote is no phrase; empty quotes are nothing
    assert search_terms('"reward model', stop=stop) == ["reward", "model"]
    assert search_terms('"" "  " tools', stop=stop) == ["tools"]


@pytest.mark.parametrize(
    "term, text, found",
    [
        ("学习", "本文研究强化学习方法", True),  # inside a run of characters: no word start there
        ("학습", "강화학습을 이용한", True),
        ("reward", "process reward models", True),
        ("ward", "process reward models", False),  # other words match at a word start only
        ("भाषा", "हिंदी भाषा मॉडल", True),
        ("reward model", "a process reward\nmodels for", True),  # a phrase: its words in a row
        ("reward model", "reward of the model", False),
    ],
)
def test_term_pattern(term, text, found):
    assert bool(re.search(term_pattern(term), text)) is found
    assert TermFinder(term)(text) is found


def test_term_finder_counts_what_the_term_pattern_finds():
    """Keyword search counts with TermFinder (fast) what ``re.findall(term_pattern(t))`` finds,
    overlapping tries and phrases across line breaks included."""
    import random

    rng = random.Random(3)
    pieces = ["model", "models", "xmodel", "reward", "re", "ward", " ", " ", "\n", "-", "é", "\u0301",
              "学习", "强化", "强", "aa", "a", "b"]
    terms = ["model", "model model", "reward model", "ward", "学习", "aa", "a a", "re-ward", "é"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        for term in terms:
            expected = len(re.findall(term_pattern(term), text))
            assert TermFinder(term).count(text) == expected, (term, text)
            assert TermFinder(term)(text) is (expected > 0), (term, text)
    assert TermFinder("model model").count("xmodel model model") == 1  # found from the second word on


def test_strip_marks_and_has_cjk():
    assert strip_marks("Müller Ångström") == "Muller Angstrom"
    assert has_cjk("GPT と 言語") and has_cjk("강화") and not has_cjk("Αλφα βήτα")
    assert join_cjk("강화 학습") == "강화 학습"  # a real space between Korean words stays


def test_plain_text_takes_the_plain_patterns_and_finds_what_the_any_script_ones_find():
    """tokens and words use \\w runs for text without marks, Chinese or Japanese characters or
    characters above U+FFFF: the same as the any-script patterns, on text of every kind."""
    from workbench.corpus.writing_systems import _plain, _token_re, _written_re

    pieces = ["Größe", "naïve", "café", "Ωμέγα", "Москва", "x²", "½", "Ⅻ", "١٢٣", "—", "’", "…", "_ab",
              "हिन्दी", "e\u0301", "\u3099", "强化", "カナ", "강화학습을", "𝛼β", "😀", "𠀀", " ", "\xa0", "\u2028", "a", "1"]
    rng = random.Random(3)
    texts = ["".join(rng.choices(pieces, k=rng.randrange(1, 30))) for _ in range(3000)]
    texts += [chr(c) + "ab" + chr(c) for c in range(0x80, 0x3100)]
    assert sum(map(_plain, texts)) > 1000 and sum(not _plain(t) for t in texts) > 1000
    for text in texts:
        assert tokens(text) == _token_re().findall(text), repr(text)
        assert words(text) == _written_re().findall(text), repr(text)
    assert not _plain("e\u0301") and not _plain("强") and not _plain("𝛼") and _plain("Größe — x²")
