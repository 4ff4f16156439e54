"""Topic labels: which words name a topic, and how they are written.

A topic's candidate words are BERTopic's (KeyBERT-inspired picks from the c-TF-IDF vocabulary)
and its top c-TF-IDF words (:func:`candidate_words`). Words are those of any script; Chinese
and Japanese characters are tokens of their own, so their topic words are character n-grams of
the text (:mod:`workbench.corpus.writing_systems`). They are ranked by how well each finds the
topic's papers (:func:`rank_words`: F1 for the topic's words, F0.5 for its label, so a label
word is found in the topic more than elsewhere), and the label is the first three that are new
words, not shared by most topics, not made only of the corpus's 20 most common words or their
forms (:func:`frequent_words`), written as the papers write them, and four words at most
(:func:`readable_label`).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import chain, islice
from typing import Collection, Sequence

import numpy as np

from ..corpus.writing_systems import has_unspaced, join_cjk, words as word_tokens

__all__ = ["SCHOLARLY_STOP_WORDS", "FREQUENT_WORDS", "LABEL_BETA", "stop_words", "readable_label", "common_words",
           "frequent_words", "candidate_words", "rank_words", "word_hits", "rank_hits", "topic_text", "WORD_SAMPLE"]


# Words every abstract uses whatever its topic: they make labels that tell topics apart worse.
SCHOLARLY_STOP_WORDS = frozenset(
    """abstract achieve achieved achieves al approach approaches aim aims based conduct conducted
    demonstrate demonstrated demonstrates different effective effectively et existing experiment
    experiments extensive finally findings furthermore however improve improved improves including
    introduce introduced introduces key leverage leverages leveraging method methods moreover novel
    new paper papers present presented presents propose proposed proposes recent recently result
    results shows shown significant significantly state studies study use used uses using various
    work works""".split()
)


@lru_cache(maxsize=1)
def stop_words() -> list[str]:
    """English stop words plus the words of scholarly prose (``propose``, ``method``, ``results``)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return sorted(ENGLISH_STOP_WORDS | SCHOLARLY_STOP_WORDS)


def readable_label(words: Sequence[str], k: int = 3, common: Collection[str] = (), text: str | None = None,
                   frequent: Collection[str] = (), max_words: int | None = None) -> str:
    """The first ``k`` words that say what sets the topic apart, each a new word.

    Skipped: a variant of a word already chosen (``["agents", "agent", "ai agents", "memory"]`` ->
    ``"agents, memory"`` + the next distinct one); a word in ``common`` (among the top words of
    most topics: ``"language models"`` in a corpus about language models); a word or phrase
    made only of ``frequent`` words or their forms (the corpus's most common,
    :func:`frequent_words`: ``"language models"`` when both words are, ``"task"`` when
    ``"tasks"`` is, not ``"reward models"``); one that would take
    the label past ``max_words`` words (a Chinese or Japanese phrase is one word); and, when
    the topic's ``text`` (lower case, see :func:`_as_written`) is given, a word or phrase that
    never occurs in it as written, or only as the tail of a longer phrase (c-TF-IDF builds
    bigrams after dropping stop words, so "learning from human feedback" gives "learning
    human"), completed when it is the start of a longer one ("deep research" -> "deep research
    agents"). If that leaves nothing: the same without ``common``, then without ``text`` (never
    without ``frequent``), then the plain first words.
    """
    frequent_text = " ".join(sorted(frequent))
    chosen: list[str] = []
    for word in words:
        if text is not None:
            word = _as_written(word, text)
        if word is None or word in common or any(f" {c} " in f" {word} " for c in common if " " in c):
            continue
        if word.split()[0].isdigit():
            continue  # "95 ci": a number names no topic
        if frequent_text and _within(word, frequent_text):
            continue  # "language models", "task" in a corpus of language-model papers on "tasks"
        if any(_within(word, c) for c in chosen):
            continue  # a variant, or a part, of a word already chosen
        covered = [c for c in chosen if _within(c, word) and not _within(word, c)]
        after = [word if c == covered[0] else c for c in chosen if c == covered[0] or c not in covered] if covered else chosen + [word]
        if max_words and _n_words(after) > max_words:
            continue
        chosen = after  # "reinforcement" chosen, now "reinforcement learning": the phrase replaces it
        if len(chosen) == k or max_words and _n_words(chosen) == max_words:
            break
    if not chosen and frequent_text and (common or text is not None):  # relax common, then text; never frequent
        return readable_label(words, k, (), text if common else None, frequent, max_words)
    if not chosen and (common or frequent or text is not None):
        return readable_label(words, k, max_words=max_words)
    return ", ".join(chosen)


def _n_words(terms: Sequence[str]) -> int:
    """Words of a label; a run of Chinese or Japanese characters ("强 化 学 习") is one word."""
    return sum(len(join_cjk(t).split()) for t in terms)


def _stem(token: str) -> str:
    return token[:-1] if token.endswith("s") and len(token) > 3 else token


# Endings that make another form of the same word: "agent", "agents", "agentic"; "align", "aligned", "alignment".
_ENDINGS = frozenset({"", "s", "es", "ic", "ics", "al", "ed", "ing", "ings", "ment", "ments", "ly"})


def _same_word(a: str, b: str) -> bool:
    """Two forms of one word: the same after a shared start of four letters or more."""
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 4 and a[n:] in _ENDINGS and b[n:] in _ENDINGS


def _within(word: str, other: str) -> bool:
    """Every word of ``word`` is a form of a word of ``other`` ("ai agent" within "ai agents design")."""
    return all(any(_same_word(t, u) for u in other.split()) for t in word.split())


def _as_written(phrase: str, text: str, longest: int = 3) -> str | None:
    """``phrase`` as ``text`` (lower case, words between single spaces) uses it, or None.

    None when it never occurs as written, or when it is mostly the tail of a longer phrase
    ("models" of "language models", "learning rl" of "reinforcement learning rl"); completed,
    up to ``longest`` words, when it is mostly followed by the same word ("large" -> "large
    language models"). "Mostly": 80 % of at least three occurrences; stop words do not count.
    """
    found = _spans(phrase, text)
    if not found:
        return None
    if len(found) < 3:
        return phrase
    stop = _stop_set()
    before, count = Counter(_stem(text[text.rfind(" ", 0, start - 1) + 1 : start - 1]) for start, _ in found).most_common(1)[0]
    if count >= 0.8 * len(found) and before and before not in stop:
        return None
    if has_unspaced(phrase):
        longest += 1  # a Chinese or Japanese word is often four characters: 强化学习
    while len(phrase.split()) < longest:
        after = [text[end + 1 : text.find(" ", end + 1)] for _, end in found]
        stem, count = Counter(map(_stem, after)).most_common(1)[0]
        if count < 0.8 * len(found) or not stem or stem in stop:
            break
        phrase = f"{phrase} {Counter(w for w in after if _stem(w) == stem).most_common(1)[0][0]}"
        found = _spans(phrase, text)
    return phrase


def _spans(phrase: str, text: str, most: int = 500) -> list[tuple[int, int]]:
    """Where `` phrase `` occurs in ``text``: (start of the phrase, end of its last word), the first ``most``."""
    spans = []
    for match in re.finditer(f" {re.escape(phrase)} ", text):
        spans.append((match.start() + 1, match.end() - 1))
        if len(spans) == most:
            break
    return spans


@lru_cache(maxsize=1)
def _stop_set() -> frozenset[str]:
    return frozenset(stop_words())


def common_words(words_by_topic: Sequence[Sequence[str]], share: float = 0.5) -> set[str]:
    """Words among the top words of more than ``share`` of the topics (with four topics or more)."""
    if len(words_by_topic) < 4:
        return set()
    counts = Counter(w for words in words_by_topic for w in set(words))
    return {w for w, c in counts.items() if c > share * len(words_by_topic)}


#: Label words may not be made only of the corpus's this many most common words.
FREQUENT_WORDS = 20


def frequent_words(texts: Sequence[str], n: int = FREQUENT_WORDS) -> set[str]:
    """The ``n`` words found in the most papers of ``texts`` (ties: alphabetical), on the same
    sample of at most :data:`WORD_SAMPLE` papers words are ranked on. Stop words, numbers and
    single Chinese or Japanese characters (parts of words, not words) are not counted: on the
    seeds these are "models", "language", "large", "alignment", "agent", "tasks", "diverse",
    ..., the words every topic of a corpus on language-model agents shares."""
    if not len(texts):
        return set()
    stop = _stop_set()
    sample = np.unique(np.linspace(0, len(texts) - 1, min(len(texts), WORD_SAMPLE)).astype(int))
    counts: Counter = Counter()
    for i in sample.tolist():
        counts.update(set(word_tokens(str(texts[i]).lower())))
    # (each distinct word checked once, not each time a paper has it)
    counts = {w: c for w, c in counts.items()
              if len(w) > 1 and w not in stop and not w.isdigit() and not has_unspaced(w)}
    return {w for w, _ in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))[:n]}


def candidate_words(model, labels: np.ndarray, n: int) -> dict[int, list[str]]:
    """Each topic's words from its representation (KeyBERT's picks), then its top c-TF-IDF words.

    A lone Chinese or Japanese character is a candidate only when the topic has no
    other words: ``学`` says less than the ``学习`` and ``医学`` it is part of.
    """
    topics = sorted(set(labels.tolist()))
    vocabulary = model.vectorizer_model.get_feature_names_out()
    ctfidf = model.c_tf_idf_.tocsr()
    candidates = {}
    for row, topic in enumerate(topics):
        picked = [w for w, _ in (model.get_topic(topic) or []) if w]
        values = ctfidf[row].toarray().ravel() if row < ctfidf.shape[0] else np.zeros(0)
        scored = np.flatnonzero(values > 0)  # (a few thousand of the whole vocabulary)
        ranked = vocabulary[scored[np.argsort(-values[scored], kind="stable")]].tolist()
        words = [w for w in picked if not _lone_cjk(w)] + [w for w in ranked if not _lone_cjk(w)][:n]
        candidates[int(topic)] = list(dict.fromkeys(words or picked + ranked[:n]))
    return candidates


def _lone_cjk(word: str) -> bool:
    return len(word) == 1 and has_unspaced(word)


# Words are scored on at most this many papers (evenly spaced through the corpus).
WORD_SAMPLE = 5_000


def rank_words(texts: Sequence[str], labels: np.ndarray, candidates: dict[int, list[str]], n: int = 10,
               beta: float = 1.0) -> dict[int, list[tuple[str, float]]]:
    """Each topic's candidate words ranked by how well they find its papers: F1 (with ``beta``,
    F-beta) of "the paper contains the word" against "the paper is in the topic".

    A word in every paper of the corpus finds all of the topic's papers and many others (low
    precision); a rare word finds few (low recall); the best label words do both. KeyBERT's
    picks alone drift to words near the topic's few representative papers ("ai assistant" for
    papers on policy optimisation); c-TF-IDF's alone are mostly single words. Ranking both by
    F1 raised the share of a label word's papers that are in its topic on every labelled corpus
    (docs/benchmarks.md); labels rank by :data:`LABEL_BETA`. Words that are only digits ("95"
    of "95% CI") are dropped.
    """
    return rank_hits(word_hits(texts, labels, candidates), n, beta)


#: Labels rank words by F-beta with this beta: precision counts more than recall, so a label
#: names what is in the topic more than elsewhere (docs/benchmarks.md, "Label words").
LABEL_BETA = 0.5


def word_hits(texts: Sequence[str], labels: np.ndarray,
              candidates: dict[int, list[str]]) -> dict[int, list[tuple[str, int, int, int]]]:
    """For each topic's candidates, in order: (word, papers of the topic that contain it, papers
    that contain it, papers of the topic), counted on at most :data:`WORD_SAMPLE` papers."""
    labels = np.asarray(labels)
    vocabulary = sorted({w for words in candidates.values() for w in words if not w.replace(" ", "").isdigit()})
    if not vocabulary:
        return {t: [] for t in candidates}
    sample = np.unique(np.linspace(0, len(texts) - 1, min(len(texts), WORD_SAMPLE)).astype(int))
    column = {w: j for j, w in enumerate(vocabulary)}
    has = _containing(texts, sample.tolist(), column)
    found = np.asarray(has.sum(axis=0)).ravel()
    sample_labels = labels[sample]
    counted = {}
    for topic, words in candidates.items():
        inside = sample_labels == topic
        size = int(inside.sum())
        rows = []
        for word in words:
            if word in column:
                j = column[word]
                hits = int(inside[has.indices[has.indptr[j] : has.indptr[j + 1]]].sum())
                rows.append((word, hits, int(found[j]), size))
        counted[topic] = rows
    return counted


def _containing(texts: Sequence[str], rows: Sequence[int], column: dict[str, int]):
    """Which of the words and two-word phrases of ``column`` (each one's column) each of the
    papers ``rows`` has (a binary CSC matrix, a row per paper): what
    ``CountVectorizer(vocabulary=column, ngram_range=(1, 2), binary=True, tokenizer=words)``
    gives, each paper's words and bigrams put in a set and met with the vocabulary's (no Python
    code per word)."""
    import scipy.sparse as sp

    wanted = set(column)
    indices, indptr = [], [0]
    for i in rows:
        words = word_tokens(str(texts[i]).lower())
        present = wanted.intersection(words)
        present.update(wanted.intersection(map(" ".join, zip(words, islice(words, 1, None)))))
        indices.extend(sorted(map(column.__getitem__, present)))
        indptr.append(len(indices))
    return sp.csr_matrix((np.ones(len(indices), dtype=np.int64), np.asarray(indices, dtype=np.int64),
                          np.asarray(indptr, dtype=np.int64)), shape=(len(rows), len(column))).tocsc()


def rank_hits(counted: dict[int, list[tuple[str, int, int, int]]], n: int,
              beta: float = 1.0) -> dict[int, list[tuple[str, float]]]:
    """The ``n`` best words of each topic by F-beta from :func:`word_hits`' counts (ties: the
    earlier candidate)."""
    b2 = beta * beta
    ranked = {}
    for topic, rows in counted.items():
        scored = [((1 + b2) * hits / (b2 * size + found) if hits else 0.0, -order, word)
                  for order, (word, hits, found, size) in enumerate(rows)]
        ranked[topic] = [(word, score) for score, _, word in sorted(scored, reverse=True)[:n]]
    return ranked


def topic_text(texts: Sequence[str], labels: np.ndarray, topic: int, most: int = 2000) -> str:
    """The first ``most`` papers of ``topic`` as one lower-case string, words (and Chinese and
    Japanese characters) between single spaces: what :func:`readable_label` checks phrases
    against."""
    sample = np.flatnonzero(np.asarray(labels) == topic)[:most]
    # paper by paper, not the papers joined: no word spans the joining space, and each ASCII
    # paper takes words()'s fast path (one non-ASCII paper sent the whole join to the regex)
    return " " + " ".join(chain.from_iterable(word_tokens(texts[i].lower()) for i in sample.tolist())) + " "
