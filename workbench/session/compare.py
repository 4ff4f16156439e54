"""Comparing 2 to 4 papers side by side: shared and distinctive terms, similarity, neighbours.

Terms are words and pairs of words written in a row, without stop words or numbers
(:func:`_terms`), a pair only when the review writes it in two papers or more (a phrase, not two
words that met), weighted by TF-IDF over the whole review, so "shared" means a term that
matters in at least two of the compared papers, and "distinctive" a heavy term of one paper
that none of the others uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import InputError
from ..corpus.paper import bounded_text
from .session import Session
from .text import authors_line, escape, highlight
from ..corpus.writing_systems import join_cjk, tokens
from ..topics import stop_words

__all__ = ["Comparison", "ComparedPaper"]


@dataclass
class ComparedPaper:
    id: str
    title: str
    authors: str
    topic_label: str
    tags: list[str]
    notes: list[str]
    distinctive: list[str]
    abstract_html: str
    neighbours: list[tuple[str, str, float]]  # (id, title, similarity)


@lru_cache(maxsize=4)
def _term_model(texts: tuple[str, ...]):
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(analyzer=_terms, sublinear_tf=True)
    X = vec.fit_transform(texts).tocsc()
    # a pair of words is a phrase when the review writes it in two papers or more ("reward
    # model"); one written once is two words that met ("addition prevents", "called trust")
    names = vec.get_feature_names_out()
    papers = np.diff(X.indptr)
    phrase = np.array([" " not in t for t in names]) | (papers >= 2)
    return vec, X.tocsr(), phrase


# Where a phrase ends: a two-word term never spans a sentence, a clause or a bracket.
_CLAUSE = re.compile(r"[.,;:!?()\[\]{}\"\u201c\u201d\u3001\u3002\uff0c\uff1b\uff1a]")


def _terms(text: str) -> list[str]:
    """The terms a paper is compared by: its words and the pairs of words next to each other in
    a clause, without stop words (English and scholarly prose) and without numbers ("66",
    "2024"): a pair is two words the paper writes in a row ("reward model", never "learning
    human" out of "learning from human")."""
    stop = _stop()
    terms: list[str] = []
    for clause in _CLAUSE.split(text.lower()):
        words = tokens(clause)
        keep = [w not in stop and any(c.isalpha() for c in w) for w in words]
        terms += [w for w, k in zip(words, keep) if k]
        terms += [f"{a} {b}" for a, b, ka, kb in zip(words, words[1:], keep, keep[1:]) if ka and kb]
    return terms


@lru_cache(maxsize=1)
def _stop() -> frozenset[str]:
    return frozenset(stop_words())


class Comparison:
    """Papers compared side by side. ``ids`` are ids or unique prefixes (2 to 4 of them)."""

    MAX = 4

    def __init__(self, session: Session, ids, n_terms: int = 8):
        ids = list(dict.fromkeys(session.resolve(i) for i in ids))
        if not 2 <= len(ids) <= self.MAX:
            raise InputError(f"compare 2 to {self.MAX} papers; got {len(ids)}")
        self.session = session
        self.ids = ids
        self.n_terms = n_terms

    def _weights(self) -> tuple[np.ndarray, list[str]]:
        review = self.session.review
        texts = tuple(bounded_text(f"{p.title}. {p.text}") for p in review.papers_with_texts())
        vec, X, phrase = _term_model(texts)
        rows = review.rows(self.ids)
        return X[rows].toarray() * phrase, [join_cjk(t) for t in vec.get_feature_names_out()]

    def terms(self) -> tuple[list[str], dict[str, list[str]]]:
        """(shared terms, {id: distinctive terms}), heaviest first."""
        W, vocab = self._weights()
        present = W > 0
        counts = present.sum(axis=0)
        shared_cols = np.where(counts >= 2)[0]
        shared = [vocab[c] for c in shared_cols[np.argsort(-W[:, shared_cols].sum(axis=0), kind="stable")]]
        distinctive = {}
        for r, pid in enumerate(self.ids):
            own = np.where(present[r] & (counts == 1))[0]
            order = own[np.argsort(-W[r, own], kind="stable")]
            distinctive[pid] = _drop_sub_terms([vocab[c] for c in order[: self.n_terms * 2]])[: self.n_terms]
        return _drop_sub_terms(shared)[: self.n_terms * 2], distinctive

    def similarity(self):
        """Pairwise cosine similarity of the embeddings, as a labelled DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.session.review.similarity(self.ids), index=self.ids, columns=self.ids)

    def coupling(self):
        """Bibliographic coupling (cited works in common, the diagonal: works each cites) as a
        labelled DataFrame; None when no compared paper's source lists what it cites."""
        table = self.session.review.field.coupling(self.ids)
        return table if int(table.values.trace()) else None

    def papers(self, k_neighbours: int = 5) -> list[ComparedPaper]:
        s = self.session
        shared, distinctive = self.terms()
        out = []
        for pid in self.ids:
            paper = s.review.paper(pid)
            topic = s.review.topic_of(pid)
            marks = {t: "wb-shared" for t in shared}
            marks.update({t: "wb-distinct" for t in distinctive[pid]})
            out.append(
                ComparedPaper(
                    id=pid,
                    title=escape(paper.title),
                    authors=escape(authors_line(paper.authors, paper.et_al)),
                    topic_label=escape(s.topic_label(topic)),
                    tags=s.store.tags.of(pid),
                    notes=[escape(n.text) for n in s.store.notes.of(pid)],
                    distinctive=[escape(t) for t in distinctive[pid]],
                    abstract_html=highlight(paper.text, marks),
                    neighbours=[
                        (nid, escape(s.review.paper(nid).title), sim) for nid, sim in s.review.neighbours(pid, k_neighbours)
                    ],
                )
            )
        return out

    def note(self, text: str) -> list[int]:
        """A note written in the comparison is attached to every compared paper."""
        others = ", ".join(self.ids)
        return self.session.note(self.ids, f"{text.strip()} [compared with {others}]")


def _drop_sub_terms(terms: list[str]) -> list[str]:
    """Drop a unigram when a bigram containing it is already listed."""
    bigram_words = {w for t in terms if " " in t for w in t.split()}
    return [t for t in terms if " " in t or t not in bigram_words]
