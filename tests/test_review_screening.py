"""Ranked screening through the Review: the queue, the records of decisions, and stopping.

A tiny corpus written here, built once (fake embedder) and copied for each test. Its words
are chosen so the ranked order is known in advance: after one include (malaria mosquito
bednet village) and one exclude (stock market bond quarter), a paper sharing more of the
include's words ranks higher, one sharing the exclude's words lower, and a paper sharing
none sits between (its score is the model's intercept alone).
"""

from __future__ import annotations

import shutil
from html import escape
from math import comb

import numpy as np
import pytest

import workbench
from workbench.corpus.texts import TextsInMemory
from workbench.embed.fake import FakeEmbedder
from workbench.errors import InputError
from workbench.store import markdown_text

from conftest import write_seed_file

CORPUS = {
    "I0": "Malaria mosquito bednet village.",
    "E0": "Stock market bond quarter.",
    "A": "Malaria mosquito bednet harvest.",  # three of the include's words
    "B": "Malaria mosquito harvest rainfall.",  # two
    "C": "Malaria harvest rainfall drought.",  # one
    "N": "Harvest rainfall drought irrigation.",  # none of either
    "D": "Stock harvest rainfall drought.",  # one of the exclude's
    "F": "Stock market harvest rainfall.",  # two of the exclude's
}
SEED = 3


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screening")
    write_seed_file(folder / "seeds.txt", list(CORPUS.values()))
    workbench.build([folder / "seeds.txt"], review=folder / "review", embedder="fake", seed=SEED)
    return folder / "review"


@pytest.fixture
def review(built, tmp_path):
    shutil.copytree(built, tmp_path / "review")
    return workbench.open_review(tmp_path / "review")


def ids_of(review) -> dict[str, str]:
    """Letter -> paper id."""
    by_text = {text: name for name, text in CORPUS.items()}
    return {by_text[p.abstract]: p.id for p in review.papers_with_texts()}


def names(review, ranking) -> list[str]:
    letter = {pid: name for name, pid in ids_of(review).items()}
    return [letter[p.id] for p in ranking]


def start(review, **kwargs):
    ids = ids_of(review)
    review.screening.decide(ids["I0"], "include", reviewer="ana", **kwargs)
    review.screening.decide(ids["E0"], "exclude", reviewer="ana", **kwargs)
    return ids


# ----------------------------------------------------------------------------- the queue

def test_the_queue_puts_papers_with_the_includes_words_first(review):
    start(review)
    ranking = review.screening.rank(next=10, model="svm-tfidf", reviewer="ana")
    assert names(review, ranking) == ["A", "B", "C", "N", "D", "F"]
    assert [p.rank for p in ranking] == [1, 2, 3, 4, 5, 6]
    scores = [p.score for p in ranking]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == 6
    assert ranking.mode == "ranked" and ranking.model == "svm-tfidf" and ranking.model_version.endswith(f"seed={SEED}")
    a, _, c, n = ranking.papers[:4]
    # the phrases as the abstract writes them, each word once ("mosquito bednet" holds its words)
    like = " · most like the included “Malaria mosquito bednet village”"
    assert a.why == "words: mosquito bednet, Malaria" + like
    assert c.why == "words: Malaria" + like and n.why == "no word pushed it up" + like
    assert ranking.relevance(a.id) == "predicted relevant: high · rank 1 of 6 to screen"
    assert ranking.relevance(ranking.papers[1].id) == "predicted relevant: medium · rank 2 of 6 to screen"
    assert ranking.relevance(n.id) == "predicted relevant: low · rank 4 of 6 to screen"
    f = ranking.papers[-1]
    assert "against: Stock market" in f.why  # the exclude's words pulled it down
    assert ranking.counts == {"papers": 8, "decided": 2, "included": 1, "excluded": 1, "maybe": 0,
                              "undecided": 6, "read": 2, "bulk": 0}
    assert names(review, review.screening.rank(next=2, model="svm-tfidf", reviewer="ana")) == ["A", "B"]


def test_the_default_model_ranks_on_words_and_the_reviews_cached_embeddings(review, monkeypatch):
    start(review)

    def no_embedding(self, texts):
        raise AssertionError("the ranked queue embedded papers again")

    monkeypatch.setattr(FakeEmbedder, "embed", no_embedding)
    ranking = review.screening.rank(next=10, reviewer="ana")  # a freshly opened review: embeddings from its cache
    assert ranking.model == "svm-both" and names(review, ranking)[:3] == ["A", "B", "C"]


def test_before_an_include_and_an_exclude_the_order_is_random_and_repeatable(review):
    first = review.screening.rank(next=8)
    assert first.mode == "cold" and first.model is None
    assert [p.rank for p in first] == [None] * 8 and [p.score for p in first] == [None] * 8
    assert sorted(first.ids) == sorted(review.ids)
    assert first.papers[0].why == f"random order (seed {SEED}) until the first include and exclude"
    again = workbench.open_review(review.path).screening.rank(next=8)
    assert again.ids == first.ids
    others = {tuple(review.screening.rank(next=8, seed=s).ids) for s in range(5)}
    assert len(others) > 1, "another seed, another order"
    by_topic = review.screening.rank(next=8, by_topic=True)
    assert by_topic.papers[0].why.startswith("one paper per topic")


def test_same_decisions_and_seed_give_the_same_ranking_and_scores(review):
    start(review)
    one = review.screening.rank(next=6, model="svm-tfidf")
    two = workbench.open_review(review.path).screening.rank(next=6, model="svm-tfidf")
    assert one.ids == two.ids and [p.score for p in one] == [p.score for p in two]


def test_tfidf_is_built_once_and_the_ranker_refits_only_after_a_decision(review):
    ids = start(review)
    first = review.screening.ranker(model="svm-tfidf")
    assert review.screening.ranker(model="svm-tfidf") is first
    review.screening.decide(ids["A"], "include")
    refitted = review.screening.ranker(model="svm-tfidf")
    assert refitted is not first and refitted.n_labelled_ == 3
    assert refitted.features_.tfidf is first.features_.tfidf
    assert names(review, review.screening.rank(next=1, model="svm-tfidf")) == ["B"]


def test_a_new_kernel_reads_the_tfidf_the_first_one_built_and_never_a_stale_one(review, monkeypatch):
    from workbench.screening import Features

    start(review)
    first = review.screening.rank(next=6, model="svm-tfidf")
    entries = list((review.path / "cache" / "screening-tfidf").iterdir())
    assert len(entries) == 1 and {f.name for f in entries[0].iterdir() if not f.name.startswith("file-")} == {"data.npy", "indices.npy", "indptr.npy", "terms.txt"}
    built = []
    monkeypatch.setattr(Features, "from_texts", classmethod(lambda cls, texts, **kw: built.append(len(texts))))
    again = workbench.open_review(review.path)  # a new kernel: the copy on disk, nothing built
    second = again.screening.rank(next=6, model="svm-tfidf")
    assert built == [] and second.ids == first.ids and [p.score for p in second] == [p.score for p in first]
    assert list(again.screening.ranker(model="svm-tfidf").features_.terms) == list(review.screening.ranker(model="svm-tfidf").features_.terms)
    monkeypatch.undo()
    (entries[0] / "indices.npy").write_bytes(b"damaged")  # a damaged copy is built again, not an error
    assert workbench.open_review(review.path).screening.rank(next=6, model="svm-tfidf").ids == first.ids
    opened = workbench.open_review(review.path)
    pairs = list(opened.paper_texts)  # the same papers with other texts, held in memory (as after a build)
    changed = opened.replace(texts=TextsInMemory([a for a, _ in pairs], [t + " drought" for _, t in pairs]))
    changed.screening.rank(next=6, model="svm-tfidf")  # other texts: another key, the old entry replaced
    assert [e.name for e in (review.path / "cache" / "screening-tfidf").iterdir()] != [entries[0].name]


def test_a_new_kernel_ranks_without_reading_every_text_or_embedding_again(review, monkeypatch):
    """The TF-IDF's entry is found by the papers' file and the embeddings are kept in the papers'
    order: a new kernel's first ranking makes no text (nor looks up embeddings by text), and
    ranks as the first kernel did."""
    from workbench.review import Review

    start(review)
    first = review.screening.rank(next=6)
    assert len(list((review.path / "cache" / "embeddings-rows").glob("*.npy"))) == 1
    monkeypatch.setattr(Review, "texts", lambda self: pytest.fail("every text read"))
    again = workbench.open_review(review.path).screening.rank(next=6)
    assert again.ids == first.ids and [(p.score, p.why) for p in again] == [(p.score, p.why) for p in first]


def test_ranking_never_writes_a_decision(review):
    start(review)
    with review.store() as store:
        before = (store.history(limit=None), store.summary())
    review.screening.rank(next=5)
    review.screening.ranker()
    review.screening.stopping()
    with review.store() as store:
        assert (store.history(limit=None), store.summary()) == before


def test_a_maybe_is_left_out_of_the_fit_and_the_queue(review):
    ids = start(review)
    review.screening.decide(ids["A"], "maybe")
    ranking = review.screening.rank(next=10, model="svm-tfidf")
    assert names(review, ranking) == ["B", "C", "N", "D", "F"]
    assert review.screening.ranker(model="svm-tfidf").n_labelled_ == 2
    assert ranking.counts["maybe"] == 1 and ranking.counts["read"] == 3


def test_unknown_models_and_bad_counts_are_refused(review):
    with pytest.raises(InputError, match="unknown screening model 'svm-nope'; choose one of: svm-tfidf"):
        review.screening.rank(model="svm-nope")
    with pytest.raises(InputError, match="next=-1: expected how many papers"):
        review.screening.rank(next=-1)
    with pytest.raises(InputError, match="no paper with id 'nope'"):
        review.screening.decide("nope", "include")


# ----------------------------------------------------------------------------- records

def test_a_decision_made_from_the_queue_records_its_rank_score_and_model(review):
    start(review)
    ranking = review.screening.rank(next=3, model="svm-tfidf")
    a, _, c = ranking.papers
    review.screening.decide(c.id, "exclude", ranking=ranking)
    review.screening.decide(a.id, "include", ranking=ranking)
    n = ids_of(review)["N"]  # not among the three shown: its rank in the whole queue
    review.screening.decide(n, "exclude", ranking=ranking)
    with review.store() as store:
        records = {r.paper_id: r for r in store.decisions.records()}
    assert (records[c.id].rank, records[c.id].score) == (3, c.score)
    assert (records[a.id].rank, records[a.id].score) == (1, a.score)
    assert records[n].rank == 4
    assert {(r.model, r.model_version) for pid, r in records.items() if pid in (a.id, c.id, n)} == {
        ("svm-tfidf", ranking.model_version)}
    assert not any(r.bulk or r.sampled for r in records.values())
    first = records[ids_of(review)["I0"]]
    assert (first.rank, first.score, first.model) == (None, None, None), "no ranking was shown"


def test_several_papers_at_once_are_recorded_as_bulk_and_fitted(review):
    ids = start(review)
    ranking = review.screening.rank(next=10, model="svm-tfidf")
    review.screening.decide([ids["D"], ids["F"]], "exclude", ranking=ranking)
    with review.store() as store:
        records = {r.paper_id: r for r in store.decisions.records()}
    assert records[ids["D"]].bulk and records[ids["F"]].rank == 6
    assert review.screening.ranker(model="svm-tfidf").n_labelled_ == 4
    assert review.screening.rank(next=10).counts["bulk"] == 2


def test_a_random_sample_draws_from_papers_no_one_read_and_is_recorded_as_such(review):
    ids = start(review)
    review.screening.decide([ids["D"], ids["F"]], "exclude")  # in bulk: still unread
    sample = review.screening.rank(next=10, sample=True, model="svm-tfidf")
    assert sample.mode == "sample" and sorted(names(review, sample)) == ["A", "B", "C", "D", "F", "N"]
    assert {p.why for p in sample} == {"drawn at random from the papers no one has read (a stopping sample)"}
    assert review.screening.rank(next=10, sample=True, model="svm-tfidf").ids == sample.ids, "repeatable"
    review.screening.decide(ids["D"], "exclude", ranking=sample)  # the same decision, now read
    with review.store() as store:
        record = {r.paper_id: r for r in store.decisions.records()}[ids["D"]]
    assert record.sampled and not record.bulk
    assert record.rank is None and record.score is not None, "decided (in bulk) when the sample was drawn: not in the queue"
    assert review.screening.history().sampled.tolist() == [False, False, False, True]


# ----------------------------------------------------------------------------- stopping

def cdf(k, N, K, n):
    """P(X <= k) drawing n of N papers of which K are relevant, from the definition."""
    return sum(comb(K, x) * comb(N - K, n - x) for x in range(k + 1)) / comb(N, n)


def test_the_estimate_and_its_interval_counting_only_papers_a_person_read(review):
    ids = start(review)  # read: include, exclude
    review.screening.decide(ids["A"], "include")  # read
    review.screening.decide(ids["D"], "exclude")  # read
    review.screening.decide([ids["C"], ids["N"]], "exclude")  # in bulk: counted as unread
    report = review.screening.stopping()
    # Read in order: 1, 0, 1, 0; 8 papers, 4 of them unread (the two bulk ones among them).
    # Without a random sample the last (up to 100) papers read stand in for one: k = 2 of n = 4,
    # drawn from the urn of the 4 unread papers and these 4: point 2 * (8 - 4) / 4 = 2.
    k, n, urn = 2, 4, 8
    lower = min(K for K in range(k, urn - (n - k) + 1) if 1 - cdf(k - 1, urn, K, n) > 0.025)
    upper = max(K for K in range(k, urn - (n - k) + 1) if cdf(k, urn, K, n) > 0.025)
    assert (report.estimate.point, report.estimate.low, report.estimate.high) == (2.0, lower - k, upper - k)
    assert (lower - k, upper - k) == (0, 4)  # at most the 4 unread papers
    assert (report.papers, report.decided, report.read, report.relevant, report.bulk) == (8, 6, 4, 2, 2)
    # The test: with 2 includes read, recall < 95 % means at least floor(2 / 0.95) + 1 = 3 in all,
    # so the window of the last w papers read (k_w includes) leaves K = k_w + 1 in its urn of 4 + w.
    reversed_read = [0, 1, 0, 1]
    p = min(cdf(k_w, 4 + w, k_w + 1, w) for w in range(1, 5) for k_w in [sum(reversed_read[:w])])
    hyper = report.advice[0]
    assert hyper.numbers["p"] == pytest.approx(p) == pytest.approx(4 / 5)
    assert (hyper.numbers["read"], hyper.numbers["unread"], hyper.numbers["bulk"]) == (4, 4, 2)
    assert not report.stop and "2 papers decided in bulk count as unread" in hyper.claim
    assert report.advice[1].rule == "100 irrelevant in a row" and report.advice[1].numbers["streak"] == 1
    history = review.screening.history()
    assert history.bulk.tolist() == [False, False, False, False, True, True] and history.n_unread == 4


def test_before_anything_is_read_the_report_says_so(review):
    report = review.screening.stopping()
    assert report.lines()[1] == "estimate: nothing read by a person yet"
    assert report.to_dict()["estimate"]["point"] is None and not report.stop
    assert (report.estimate.low, report.estimate.high) == (0, 8)


def test_a_claim_is_logged_with_its_rule_numbers_and_counts(review):
    ids = start(review)
    for name in ("A", "C", "N", "D"):
        review.screening.decide(ids[name], "include" if name == "A" else "exclude")
    # read: 1 0 1 0 0 0, 2 unread; the smallest p: the last three read, no include among them,
    # from an urn of 2 + 3 holding 1: P(X = 0) = C(4, 3) / C(5, 3) = 2/5 < 1 - 0.5.
    report = review.screening.stopping(confidence=0.5, n_in_a_row=3, log=True, reviewer="ana")
    assert report.stop and report.advice[0].numbers["p"] == pytest.approx(2 / 5) == pytest.approx(cdf(0, 5, 1, 3))
    assert report.advice[0].claim.startswith("recall >= 95 % with 50 % confidence")
    with review.store() as store:
        (claim,) = store.stopping.claims()
    assert claim == report.logged and claim.reviewer == "ana" and "logged in the store" in report.lines()[-1]
    assert claim.claim == report.advice[0].claim and claim.stop and "hypergeometric" in claim.rule
    assert claim.numbers["p"] == pytest.approx(2 / 5) and claim.numbers["remaining"]["high"] == report.estimate.high
    assert claim.numbers["counts"] == {"papers": 8, "decided": 6, "read": 6, "relevant": 2, "bulk": 0, "sampled": 0,
                                       "unrecorded": 0}
    (compared,) = claim.numbers["compared_with"]
    assert compared["rule"] == "3 irrelevant in a row" and compared["stop"]
    assert review.screening.stopping().logged is None, "only when asked"
    with review.store() as store:
        assert len(store.stopping.claims()) == 1


def test_a_sample_interrupted_by_ranked_reading_counts_as_ordinary_reading(review):
    start(review)
    sample = review.screening.rank(next=2, sample=True, model="svm-tfidf")
    review.screening.decide(sample.ids[0], "exclude", ranking=sample)
    ranked = review.screening.rank(next=1, model="svm-tfidf")
    review.screening.decide(ranked.ids[0], "include", ranking=ranked)
    history = review.screening.history()
    assert not history.sampled.any()
    assert review.screening.stopping().sampled == 0
    np.testing.assert_array_equal(history.labels, [1, 0, 0, 1])


def test_the_report_says_how_automation_was_used_and_shows_the_logged_claim(review, tmp_path):
    ids = start(review)
    ranking = review.screening.rank(next=3, model="svm-tfidf")
    review.screening.decide(ranking.ids[0], "include", ranking=ranking, reviewer="ana")
    review.screening.decide([ids["D"], ids["F"]], "exclude", reviewer="ana")
    report = review.screening.stopping(log=True)
    written = workbench.write_report(review, tmp_path / "report", image=False, reviewer="ana")
    text = written["markdown"].read_text(encoding="utf-8")
    html = written["html"].read_text(encoding="utf-8")
    how = "Of 5 decisions, 3 were made reading the paper and 2 in bulk (a map selection or a topic)."
    ranked = ("1 decisions were made on papers ranked by a model (a linear classifier (SVM) on the words and "
              "word pairs of the titles and abstracts, learning from the decisions made so far). "
              "A model never decides: every decision was made by a person.")
    details = f"Details: the models' versions and the decisions made with each: {ranking.model_version}: 1."
    for sentence in (how, ranked, details, report.advice[0].claim):
        assert markdown_text(sentence) in text and escape(sentence) in html
    # the model's internal name is said in the details line and the methods' version only
    assert text.count("svm-tfidf") == 2 and html.count("svm-tfidf") == 2
    assert "the workbench's model version svm-tfidf(" in text


def test_the_warm_up_makes_the_tfidf_while_the_cold_queue_answers_at_once(review, monkeypatch):
    """prepare_screening (run in a thread when 02 opens) makes and keeps the TF-IDF of a review
    just built; a re-rank before the first include and exclude never waits for it, and the first
    ranked one uses it (nothing built twice) and ranks as without the warm-up."""
    import threading

    from workbench.review import prepare_screening
    from workbench.screening import Features

    made = []
    real = Features.from_texts.__func__
    monkeypatch.setattr(Features, "from_texts", classmethod(lambda cls, *a, **kw: made.append(1) or real(cls, *a, **kw)))
    opened = workbench.open_review(review.path)
    with opened.screening.cache.lock:  # the warm-up busy making the TF-IDF
        done = []
        cold = threading.Thread(target=lambda: done.append(opened.screening.rank(next=3)))
        cold.start()
        cold.join(timeout=30)
        assert done and done[0].mode == "cold" and made == []
    prepare_screening(opened)
    assert made == [1] and len(list((review.path / "cache" / "screening-tfidf").iterdir())) == 1
    start(opened)
    warmed = opened.screening.rank(next=6)
    assert made == [1] and warmed.mode == "ranked"
    shutil.rmtree(review.path / "cache" / "screening-tfidf")
    plain = workbench.open_review(review.path).screening.rank(next=6)
    assert plain.ids == warmed.ids and [(p.score, p.why) for p in plain] == [(p.score, p.why) for p in warmed]
