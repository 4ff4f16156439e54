"""What a person reads of a score: the phrases that moved it, and how high it stands.

:func:`phrases` turns a linear model's per-term contributions to one paper's score (TF-IDF of
words and word pairs times the term's weight) into phrases as the paper writes them:

- a term's *content* is its words without the stop words at its edges ("of rlhf" -> "rlhf",
  "struggle to" -> "struggle", "in terms" -> "terms"); a term with no content ("of the") moved
  the score by its own weight but says nothing, and is left out;
- a term's contribution goes to its content: "of rlhf", "rlhf has" and "rlhf" are one phrase,
  ``rlhf``, with the sum of their contributions;
- a phrase of two words that itself moved the score that way also takes its words'
  contributions ("reward model" = its own + those of "reward" and "model"), and each word is spent once: the best phrases are taken greedily,
  and a later phrase that shares a word with one already taken is skipped, so "reward model",
  "reward" and "reward models" do not all appear;
- given the paper's text, a pair the text writes only across punctuation ("human feedback
  (RLHF)" gives the pair "feedback rlhf") is not a phrase: its contribution goes to its words;
- each phrase is shown as the text first writes it (``RLHF``, ``Reward Models``), else in
  lower case.

:func:`band` says where a score stands among the papers still to screen: ``high`` (the first
tenth of the queue by score), ``medium`` (the rest of the first half) or ``low``: a place in the
ranking, not a probability (the model is not calibrated).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = ["BANDS", "band", "describe_model", "phrases"]

#: The bands of :func:`band`: (name, the share of the queue that ends it).
BANDS = (("high", 0.10), ("medium", 0.50), ("low", 1.0))


def band(rank: int, queued: int) -> str:
    """``"high"``, ``"medium"`` or ``"low"``: rank ``rank`` (1 = first) in a queue of ``queued``
    papers, by :data:`BANDS` (the first tenth is high, the rest of the first half medium)."""
    if queued <= 0 or rank < 1:
        raise ValueError(f"rank={rank} in a queue of {queued}: expected 1 <= rank <= queued")
    place = (rank - 1) / queued  # the share of the queue ahead of it
    return next(name for name, end in BANDS if place < end)


_CLASSIFIERS = {"svm": "a linear classifier (SVM)", "lr": "a logistic regression", "nb": "naive Bayes",
                "fuse": "two classifiers combined"}
_FEATURES = {"tfidf": "the words and word pairs of the titles and abstracts",
             "emb": "the meaning of the titles and abstracts (their embeddings)",
             "both": "the words and word pairs of the titles and abstracts, with their meaning (embeddings) beside them"}


def describe_model(name: str) -> str:
    """A model in words, for a person ("a linear classifier (SVM) on the words and word pairs of
    the titles and abstracts ..."); ``name`` is its name or its version (``svm-both(...)/1``)."""
    from ._models import MODELS

    spec = MODELS.get(name.split("(", 1)[0].split(";", 1)[0])
    if spec is None:
        return "a model that learns from the decisions"
    if spec.classifier == "fuse":
        return "two classifiers combined, learning from the decisions made so far"
    return (f"{_CLASSIFIERS.get(spec.classifier, 'a classifier')} on {_FEATURES.get(spec.features, 'the papers')}, "
            "learning from the decisions made so far")


# scikit-learn's English stop words hold some words that carry meaning in an abstract
# ("interest rates", "system", "fire"): kept here as words.
_MEANINGFUL = frozenset("""amount bill bottom computer con cry describe detail empty fill find fire found front
    full give interest mill move name part serious show side system thick thin top""".split())


@lru_cache(maxsize=1)
def _stop() -> frozenset[str]:
    """The function words a phrase never begins or ends with."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS - _MEANINGFUL)


def _content(term: str) -> tuple[str, ...]:
    """The term's words without stop words at either edge (``()`` when nothing is left)."""
    words = term.split()
    stop = _stop()
    while words and words[0] in stop:
        words.pop(0)
    while words and words[-1] in stop:
        words.pop()
    return tuple(words)


# Between two words of a phrase: spaces or hyphens, and perhaps one-letter words ("vitamin D
# deficiency": the vectorizer keeps tokens of two or more letters, so its pair is "vitamin
# deficiency"); never a full stop, comma, colon or bracket, which end a phrase.
_GAP = r"[\s\-\u2010\u2011'\u2019]+(?:\w[\s\-\u2010\u2011'\u2019]+)*"


def _written(words: tuple[str, ...], text: str) -> str | None:
    """``words`` as ``text`` first writes them as one phrase (case and hyphens kept), or None."""
    found = re.search(r"(?<!\w)" + _GAP.join(re.escape(w) for w in words) + r"(?!\w)", text, re.IGNORECASE)
    return re.sub(r"\s+", " ", found.group(0)) if found else None


def _lowered(text: str | None) -> str | None:
    """``text`` in lower case, where that keeps every character's place (else None)."""
    if not text:
        return None
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else None


def _plainly_written(words: tuple[str, ...], lowered: str | None) -> bool:
    """Whether the lower-case text ``lowered`` has ``words`` one space apart, as whole words: then
    :func:`_written` finds them too, without making a pattern for them (a card asks of every
    word pair of its paper; making those patterns was most of the time of a card's "why")."""
    if lowered is None:
        return False
    phrase, at = " ".join(words), 0
    while (at := lowered.find(phrase, at)) >= 0:
        end = at + len(phrase)
        if not (at and _word_char(lowered[at - 1])) and not (end < len(lowered) and _word_char(lowered[end])):
            return True
        at += 1
    return False


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"


def phrases(terms: Sequence[str], contributions: Sequence[float], text: str | None = None, k: int = 5,
            sign: int = 1) -> tuple[tuple[str, float], ...]:
    """Up to ``k`` phrases that moved a score most in the direction ``sign`` (+1: up, -1: down),
    as (phrase as written in ``text``, summed contribution), largest push first (see the module
    docstring). ``terms`` and ``contributions``: the paper's terms and each one's part of the
    score. With ``text``, a pair of words the text never writes as one phrase (only across a
    comma or a bracket: "feedback (RLHF)") is not a phrase: its contribution goes to its words."""
    grouped: dict[tuple[str, ...], float] = {}
    lowered = _lowered(text)
    for term, c in zip(terms, contributions):
        content = _content(str(term))
        if len(content) > 1 and text and not _plainly_written(content, lowered) and _written(content, text) is None:
            for w in content:
                if w not in _stop():
                    grouped[(w,)] = grouped.get((w,), 0.0) + float(c) / len(content)
        elif content:
            grouped[content] = grouped.get(content, 0.0) + float(c)
    totals = {}
    for content, c in grouped.items():
        if len(content) == 1:
            totals[content] = c
        elif sign * c > 0:  # the pair itself moved the score this way: it stands for its words too
            totals[content] = c + sum(grouped.get((w,), 0.0) for w in content)
    ranked = sorted(totals.items(), key=lambda kv: (-sign * kv[1], len(kv[0]) == 1, kv[0]))
    used: set[str] = set()
    out = []
    for content, total in ranked:
        if len(out) == k or sign * total <= 0:
            break
        if used.intersection(content):
            continue
        used.update(content)
        out.append(((text and _written(content, text)) or " ".join(content), float(total)))
    return tuple(out)


def contributions(row, weights: np.ndarray, terms: np.ndarray) -> tuple[list[str], np.ndarray]:
    """A TF-IDF row's terms and each one's part of the score (TF-IDF times weight)."""
    return [str(terms[i]) for i in row.indices], row.data * weights[row.indices]
