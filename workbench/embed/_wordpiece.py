"""A BERT tokenizer's ids for texts, word by word and remembered: the same ids, several times faster.

``tokenizers`` normalises and splits every text in Rust while keeping the offsets of every
character, ~250-400 us an abstract here, and a static model (``static.py``) needs only the ids.
A BERT tokenizer's normaliser (``BertNormalizer``: drop control characters, space out CJK
characters, strip accents, lower-case) works one character at a time, and its pre-tokenizer
(``BertPreTokenizer``) splits at whitespace and punctuation, so a text's ids are its words'
WordPiece ids one after the other. :class:`WordPieces` keeps

- each character's normalised form, asked of the tokenizer's own normaliser and pre-tokenizer
  the first time the character is met (punctuation becomes a word of its own); ASCII texts are
  split by one regular expression on their bytes, made from the same answers, and so are other
  texts once their runs of non-ASCII characters are normalised;
- a number for each word met, and its WordPiece ids, asked of the tokenizer once per word; a
  batch's ids are then expanded from its words' numbers with numpy.

A text holding a character this cannot treat alone (a combining mark the normaliser keeps,
whose order decomposition may change, or one that normalises to a mix of letters and
punctuation) is tokenised by ``tokenizers`` itself. ``tests/test_embed.py`` compares the ids
with the tokenizer's on real abstracts and on random text from many scripts.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
import weakref
from array import array
from itertools import chain, repeat
from typing import Sequence

import numpy as np

__all__ = ["WordPieces"]

MAX_WORDS = 2_000_000  # words remembered before the memo starts again
_NON_ASCII = re.compile("([^\x00-\x7f]+)")

# A process forked while another thread held an instance's lock gets it unlocked (that thread
# is not in the child): the child embeds half of a batch of texts (workbench._runtime.halves).
_INSTANCES: "weakref.WeakSet[WordPieces]" = weakref.WeakSet()


def _unlock_after_fork() -> None:
    for pieces in _INSTANCES:
        pieces.unlock()


os.register_at_fork(after_in_child=_unlock_after_fork)


class WordPieces:
    """Token ids of texts as ``tokenizer.encode_batch_fast(texts, add_special_tokens=False)``
    gives them, truncated at ``max_tokens`` as the tokenizer's truncation does. Threads take
    turns (a Dask worker's threads share one embedder)."""

    def __init__(self, tokenizer, max_tokens: int | None):
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        _INSTANCES.add(self)
        self._table: dict[int, str] = {}
        self._seen: set[str] = set()
        self._unsafe: set[str] = set()
        for code in range(128):
            self._classify(chr(code))
        self._ascii, self._utf8 = self._splitters()
        self._forget()

    @staticmethod
    def supports(tokenizer) -> bool:
        """Whether ``tokenizer`` is a BERT WordPiece tokenizer (what this reproduces)."""
        from tokenizers import models, normalizers, pre_tokenizers

        return (
            isinstance(tokenizer.normalizer, normalizers.BertNormalizer)
            and isinstance(tokenizer.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
            and isinstance(tokenizer.model, models.WordPiece)
        )

    def unlock(self) -> None:
        """A new lock (in a forked process: the thread that held the old one is not there)."""
        self._lock = threading.Lock()

    def batch(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """All the texts' ids in one int64 array, and each text's count of them."""
        with self._lock:
            return self._batch(texts)

    def _batch(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        words = [self._words_of(text) for text in texts]
        if len(self._number) > MAX_WORDS:
            self._forget()
        direct = [i for i, ws in enumerate(words) if ws is None]
        known = [ws if ws is not None else () for ws in words]
        every = list(chain.from_iterable(known))
        numbers = np.fromiter(map(self._number.get, every, repeat(-1)), dtype=np.int64, count=len(every))
        fresh = np.flatnonzero(numbers < 0)
        if len(fresh):  # words met for the first time: asked of the tokenizer, all at once
            self._learn(list({every[i] for i in fresh}))
            numbers[fresh] = [self._number[every[i]] for i in fresh]
        word_counts = np.fromiter(map(len, known), dtype=np.int64, count=len(known))
        ids, counts = self._expand(numbers, word_counts)
        if direct:  # texts the tokenizer reads whole: their ids put in their places
            ids, counts = self._splice(ids, counts, direct, [texts[i] for i in direct])
        return ids, counts

    def _words_of(self, text: str) -> list | None:
        """The text's words after normalising, as UTF-8 bytes, or None when the tokenizer must
        read it whole. Only the runs of non-ASCII characters go through the table (a
        ``str.translate`` looks up every character, and most characters of an abstract are
        ASCII); the rest is split as an ASCII text is."""
        if text.isascii():
            return self._ascii(text)
        pieces = _NON_ASCII.split(text)  # ASCII, a non-ASCII run, ASCII, ...
        runs = pieces[1::2]
        chars = set("".join(runs))
        for c in chars - self._seen:
            self._classify(c)
        if not self._unsafe.isdisjoint(chars):
            return None
        pieces[1::2] = [run.translate(self._table) for run in runs]
        return self._utf8("".join(pieces))

    def _expand(self, numbers: np.ndarray, word_counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Word numbers (``word_counts`` a text) -> token ids, each text cut at ``max_tokens``."""
        starts, lengths, pieces = self._arrays
        per_word = lengths[numbers]
        ends = np.cumsum(per_word)
        first = np.repeat(starts[numbers] - (ends - per_word), per_word)
        ids = pieces[first + np.arange(int(ends[-1]) if len(ends) else 0)]
        text_of = np.repeat(np.arange(len(word_counts)), word_counts)
        counts = np.bincount(text_of, weights=per_word, minlength=len(word_counts)).astype(np.int64)
        if self.max_tokens is not None and len(counts) and counts.max() > self.max_tokens:
            text_starts = np.cumsum(counts) - counts
            token_text = np.repeat(np.arange(len(counts)), counts)
            keep = np.arange(len(ids)) - text_starts[token_text] < self.max_tokens
            ids, counts = ids[keep], np.minimum(counts, self.max_tokens)
        return ids, counts

    def _splice(self, ids, counts, rows: list[int], texts: list[str]):
        encoded = self._encode(texts)  # the tokenizer truncates these itself
        parts, at = [], 0
        starts = np.cumsum(counts) - counts
        for row, row_ids in zip(rows, encoded):
            parts += [ids[at : starts[row]], np.asarray(row_ids, dtype=np.int64)]
            at = starts[row]  # (a text read whole had no words here: nothing to skip)
            counts[row] = len(row_ids)
        parts.append(ids[at:])
        return np.concatenate(parts), counts

    def _classify(self, c: str) -> None:
        """Put ``c``'s normalised, pre-tokenized form in the table (or mark it unsafe)."""
        normalise = self.tokenizer.normalizer.normalize_str
        pieces = self.tokenizer.pre_tokenizer.pre_tokenize_str
        norm = normalise(c)
        whole = [p for p, _ in pieces("a" + norm + "a")]
        parts = [p for p, _ in pieces(norm)]
        if ((unicodedata.combining(c) and norm) or any(x != " " and x.isspace() for x in norm)
                or normalise(norm).split() != norm.split()):
            self._unsafe.add(c)  # a kept combining mark may be reordered; odd whitespace; not settled
        elif whole == ["a" + norm + "a"]:  # part of a word (or dropped, when norm is "")
            if norm != c:
                self._table[ord(c)] = norm
        elif all(len(p) == 1 for p in parts) and "".join(parts) == norm.replace(" ", ""):
            self._table[ord(c)] = " " + " ".join(parts) + " " if parts else " "  # a word of its own
        else:
            self._unsafe.add(c)
        self._seen.add(c)

    def _splitters(self):
        """ASCII text -> its words as bytes: one translate (case, dropped characters) and one
        regular expression, both made from the table the tokenizer's answers filled; and the
        same for a text whose non-ASCII characters are normalised already, on its UTF-8 bytes
        (their bytes are all above 127: the table leaves them, and they are parts of words; a
        character that is a word of its own was given spaces around it by the table)."""
        mapping, drop, alone, space = bytearray(range(128)), bytearray(), bytearray(), bytearray()
        for code in range(128):
            out = self._table.get(code, chr(code))
            if chr(code) in self._unsafe:
                raise ValueError(f"the tokenizer treats ASCII {code} in a way WordPieces does not follow")
            if out == "":
                drop.append(code)
            elif out.strip() == "":
                space.append(code)
            elif out.startswith(" ") and len(out.strip()) == 1:
                mapping[code] = ord(out.strip())
                alone.append(ord(out.strip()))
            elif len(out) == 1:
                mapping[code] = ord(out)
            else:
                raise ValueError(f"the tokenizer normalises ASCII {code} to {out!r}")
        table, drop, alone = bytes(mapping) + bytes(range(128, 256)), bytes(drop), re.escape(bytes(alone))
        gaps = re.escape(bytes(space))
        findall = re.compile(rb"[^" + gaps + alone + rb"]+|[" + alone + rb"]").findall
        return (lambda text: findall(text.encode("ascii").translate(table, drop)),
                lambda text: findall(text.encode("utf-8", "surrogatepass").translate(table, drop)))

    def _forget(self) -> None:
        self._number: dict = {}
        self._starts, self._lengths, self._pieces = array("q"), array("q"), array("q")
        self._arrays = (np.zeros(0, np.int64),) * 3

    def _learn(self, words: list) -> None:
        texts = [w.decode("utf-8", "surrogatepass") for w in words]
        for word, ids in zip(words, self._encode(texts)):
            self._number[word] = len(self._starts)
            self._starts.append(len(self._pieces))
            self._lengths.append(len(ids))
            self._pieces.extend(ids)
        self._arrays = tuple(np.array(a, dtype=np.int64) for a in (self._starts, self._lengths, self._pieces))

    def _encode(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch_fast(texts, add_special_tokens=False)]
