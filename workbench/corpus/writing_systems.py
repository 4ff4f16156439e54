"""Text in any script: words for ids, tokens for topic words, terms for search.

Python's ``\\w`` stops at combining marks, so ``re.findall(r"\\w+", "हिन्दी")`` gives
``['ह', 'न', 'द']``: Devanagari vowel signs, Arabic harakat and Hebrew points are marks, and a
word cut at each of them is no word. Here a word is a run of letters, digits *and* marks.

Chinese and Japanese (:data:`UNSPACED`) put no spaces between words, and a run of them is a
clause, not a word. Their characters are tokens of their own, so topic words are characters and
character bigrams (``强化``, ``学习``) and :func:`join_cjk` writes such n-grams back without the
spaces between characters. Korean puts spaces between words, which carry their particles
(``강화학습을``): its words stay words in topic words, and search, like search in Chinese and
Japanese (:data:`CJK`), matches the character bigrams of a query anywhere in them (``학습``
finds ``강화학습을``). Thai, Lao, Khmer and Burmese are also written without spaces; their runs
stay whole words.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from functools import lru_cache

__all__ = [
    "CJK",
    "CJK_CHAR",
    "UNSPACED",
    "UNSPACED_CHAR",
    "has_unspaced",
    "has_cjk",
    "join_cjk",
    "search_terms",
    "strip_marks",
    "term_pattern",
    "TermFinder",
    "tokens",
    "word_runs",
    "words",
    "words_as_written",
]

#: Scripts written without spaces between words, whose characters are tokens: Han (with its
#: extensions and compatibility forms), the iteration marks 々〆〇, Hiragana, Katakana, Bopomofo.
UNSPACED = (
    "\u3005-\u3007\u3040-\u30ff\u3100-\u312f\u31a0-\u31bf\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002fa1f\U00030000-\U0003134f"
)
#: Chinese, Japanese and Korean (Hangul): searched by character bigrams, anywhere in a word.
CJK = UNSPACED + "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
CJK_CHAR = re.compile(f"[{CJK}]")
UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")


def _ranges(keep, end: int) -> list[list[int]]:
    """The runs of consecutive code points below ``end`` whose characters ``keep`` accepts, as
    [first, last] pairs: what a character class is made of."""
    ranges: list[list[int]] = []
    for cp in range(end):
        if keep(chr(cp)):
            if ranges and ranges[-1][1] == cp - 1:
                ranges[-1][1] = cp
            else:
                ranges.append([cp, cp])
    return ranges


@lru_cache(maxsize=1)
def _marks() -> str:
    """A character class body of every combining mark (categories Mn, Mc, Me).

    Marks above U+1FFFF are only the variation selectors U+E0100-E01EF, so the scan stops there.
    """
    ranges = _ranges(lambda c: unicodedata.category(c)[0] == "M", 0x20000) + [[0xE0100, 0xE01EF]]
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges if b <= sys.maxunicode)


@lru_cache(maxsize=1)
def word_runs() -> re.Pattern:
    """Runs of letters, digits, underscores and combining marks of any script (one character
    class: twice as fast as an alternation); callers turn ``_`` into a space first."""
    return re.compile(f"[\\w{_marks()}]+")


@lru_cache(maxsize=1)
def _token_re() -> re.Pattern:
    word = f"(?:[^\\W{UNSPACED}]|[{_marks()}])"
    return re.compile(f"[{UNSPACED}]|{word}{{2,}}")


@lru_cache(maxsize=1)
def _written_re() -> re.Pattern:
    word = f"(?:[^\\W{UNSPACED}]|[{_marks()}])"
    return re.compile(f"[{UNSPACED}]|{word}+")


# Every ASCII character that is not a word character (``\w``) becomes a space: an ASCII text's
# words are then what ``str.split`` gives, about twice as fast as ``re.findall`` of ``\b\w+\b``.
_ASCII_BREAKS = str.maketrans({c: " " for c in map(chr, range(128)) if not re.fullmatch(r"\w", c)})


@lru_cache(maxsize=1)
def _special() -> re.Pattern:
    """Any character that makes a text's words more than runs of ``\\w``: a combining mark
    (inside words, though not ``\\w``), a Chinese or Japanese character (a token alone), or a
    character above U+FFFF (rare: checked by the any-script patterns). One class of the ~200
    ranges of such characters below U+10000 (a class of every mark, its ranges above U+FFFF
    searched one by one, was forty times slower)."""
    marks = re.compile(f"[{_marks()}]")
    ranges = _ranges(lambda c: UNSPACED_CHAR.match(c) or marks.match(c), 0x10000)
    body = "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)
    return re.compile(f"[{body}\\U00010000-\\U0010ffff]")


_PLAIN_TOKENS = re.compile(r"\w\w+")
_PLAIN_WORDS = re.compile(r"\w+")


def _plain(text: str) -> bool:
    """Whether ``text``'s words are its runs of ``\\w`` (most text in Latin, Greek or Cyrillic
    letters): then a plain pattern finds what the any-script one finds, two to three times faster."""
    return _special().search(text) is None


def tokens(text: str) -> list[str]:
    """The tokens topic words are made of: each Chinese or Japanese character, and every other word of two
    characters or more (marks included). For ASCII text the same tokens as scikit-learn's
    default ``token_pattern`` (``\\b\\w\\w+\\b``); a ``tokenizer=`` for its vectorizers."""
    if text.isascii():
        return [w for w in text.translate(_ASCII_BREAKS).split() if len(w) > 1]
    return _PLAIN_TOKENS.findall(text) if _plain(text) else _token_re().findall(text)


def words(text: str) -> list[str]:
    """Every word of ``text`` (one character or more, marks included) and each Chinese or
    Japanese character.
    For ASCII text what ``\\b\\w+\\b`` finds."""
    if text.isascii():
        return text.translate(_ASCII_BREAKS).split()
    return _PLAIN_WORDS.findall(text) if _plain(text) else _written_re().findall(text)


def words_as_written(text: str) -> str:
    """``text`` as one lower-case string of its words (and CJK characters) between single spaces,
    with a space at each end: what a topic word is looked up in (``" 强 化 "``, ``" reward model "``)."""
    return " " + " ".join(words(text.lower())) + " "


@lru_cache(maxsize=1)
def _mark_table() -> dict:
    return dict.fromkeys(cp for cp in range(0x20000) if unicodedata.category(chr(cp))[0] == "M")


def strip_marks(text: str) -> str:
    """``"Müller"`` -> ``"Muller"``: the text decomposed (NFKD) without its combining marks."""
    return text if text.isascii() else unicodedata.normalize("NFKD", text).translate(_mark_table())


def has_cjk(text: str) -> bool:
    """Whether ``text`` has Chinese, Japanese or Korean letters (searched by bigrams)."""
    return CJK_CHAR.search(text) is not None


def has_unspaced(text: str) -> bool:
    """Whether ``text`` has Chinese or Japanese characters (tokens of their own)."""
    return UNSPACED_CHAR.search(text) is not None


_SPACE_BETWEEN = re.compile(f"(?<=[{UNSPACED}]) (?=[{UNSPACED}])")


def join_cjk(phrase: str) -> str:
    """``"强 化 学"`` -> ``"强化学"``: n-grams of Chinese or Japanese characters written as the
    text writes them."""
    return _SPACE_BETWEEN.sub("", phrase) if has_unspaced(phrase) else phrase


_QUERY_PART = re.compile(f"[{CJK}]+|[^\\s{CJK}]+")
#: A quoted phrase of a query: "reward model", or between typographic quotes.
_QUOTED = re.compile(r'"([^"]*)"|\u201c([^\u201d]*)\u201d')


def search_terms(query: str, stop: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The terms of a search query: words of two characters or more (hyphens kept) that are not
    in ``stop``, and for each run of CJK characters its character bigrams (a single character
    stays itself). A quoted part (``"reward model"``, ``\u201creward model\u201d``) is one term,
    its words as typed (stop words kept) between single spaces, found only as that phrase.
    Lower case, in query order (phrases first), without repeats."""
    query = query.lower()
    terms = [_phrase(m.group(1) if m.group(1) is not None else m.group(2)) for m in _QUOTED.finditer(query)]
    for part in _QUERY_PART.findall(_QUOTED.sub(" ", query).replace('"', " ")):
        if has_cjk(part):
            terms.extend([part] if len(part) < 3 else [part[i:i + 2] for i in range(len(part) - 1)])
            continue
        for word in re.findall(f"(?:[\\w\\-]|[{_marks()}]){{2,}}", part):
            if word not in stop:
                terms.append(word)
    return [t for t in dict.fromkeys(terms) if t]


def _phrase(text: str) -> str:
    """A quoted phrase as a term: its words (hyphens kept) between single spaces."""
    return " ".join(re.findall(f"(?:[\\w\\-]|[{_marks()}])+", text))


def term_pattern(term: str) -> str:
    """A regular expression for ``term`` in lower-case text: at a word start, except for CJK
    terms, which match anywhere (their words are not separated). Spaces match any whitespace."""
    body = _term_body(term)
    return body if has_cjk(term) else rf"(?<!{_word_char_class()}){body}"


def _term_body(term: str) -> str:
    """``term`` as a regular expression: its characters literally, a space as any whitespace."""
    return re.escape(term).replace(r"\ ", r"\s+")


def _word_char_class() -> str:
    """A character of a word: what must not come just before a term (marks included)."""
    return f"[\\w{_marks()}]"


class TermFinder:
    """``term`` in lower-case text, found where :func:`term_pattern` finds it, fast: the plain
    words are looked for (the regular-expression engine skips ahead to a literal), and only
    where they are is the character before checked. A pattern that starts by looking behind
    is tried at every character: 6 s for one search of 50,000 papers."""

    def __init__(self, term: str):
        self.words = term.split()  # each in the text, as plain text, for any match
        self._plain = re.compile(_term_body(term))
        self._anywhere = has_cjk(term)
        self._word_char = re.compile(_word_char_class())

    def count(self, text: str, first: bool = False) -> int:
        """How many times ``term_pattern`` matches ``text`` (``re.findall``'s matches); with
        ``first``, 1 at the first match."""
        found, at = 0, 0
        while (match := self._plain.search(text, at)) is not None:
            start = match.start()
            if self._anywhere or start == 0 or not self._word_char.match(text, start - 1):
                found += 1
                if first:
                    break
                at = match.end()
            else:  # the next try starts one character on, as the pattern's would
                at = start + 1
        return found

    def __call__(self, text: str) -> bool:
        """Whether ``term`` is in ``text`` at all."""
        return all(word in text for word in self.words) and self.count(text, first=True) > 0
