"""The ranked screening queue (02): relevance order, a refit after every decision, what each
decision records, and the stopping advice, on the tiny corpus of test_review_screening.

After one include (malaria mosquito bednet village) and one exclude (stock market bond
quarter), papers sharing more of the include's words come first; the order is known in advance.
"""

from __future__ import annotations

import shutil

import pytest

import workbench
from workbench.widgets import ScreeningQueue, Session, screen

from conftest import write_seed_file
from test_review_screening import CORPUS, SEED


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("queue")
    write_seed_file(folder / "seeds.txt", list(CORPUS.values()))
    workbench.build([folder / "seeds.txt"], review=folder / "review", embedder="fake", seed=SEED)
    return folder / "review"


@pytest.fixture
def session(built, tmp_path):
    shutil.copytree(built, tmp_path / "review")
    with Session.open(tmp_path / "review", reviewer="ana") as s:
        yield s


def letters(session) -> dict[str, str]:
    """Paper id -> its letter in CORPUS."""
    by_text = {text: name for name, text in CORPUS.items()}
    return {p.id: by_text[p.abstract] for p in session.review.papers_with_texts()}


def named(session, ids):
    names = letters(session)
    return [names[p] for p in ids]


def id_of(session, letter):
    return next(p for p, name in letters(session).items() if name == letter)


def test_before_an_include_and_an_exclude_the_queue_goes_one_topic_at_a_time(session):
    q = ScreeningQueue(session)
    assert q.order == "one per topic" and q.ranking.mode == "cold"
    topics = [session.review.topic_of(p) for p in q.ids]
    assert len(q.ids) == len(CORPUS)
    first_round = topics[: len(set(topics))]
    assert sorted(first_round) == sorted(set(topics)), "every topic once before any topic twice"
    card = q.card()
    assert card.rank is None and card.score is None and "one paper per topic" in card.why


def test_relevance_order_refits_after_each_decision_and_records_what_it_showed(session):
    session.decide(id_of(session, "I0"), "include")
    session.decide(id_of(session, "E0"), "exclude")
    q = ScreeningQueue(session)
    assert q.order == "relevance" and q.ranking.mode == "ranked"
    assert named(session, q.ids) == ["A", "B", "C", "N", "D", "F"]
    card = q.card()
    assert card.rank == 1 and card.score is not None and card.why

    q.decide("exclude")  # A is excluded although it reads like the include: the model learns
    assert named(session, q.ids[:1]) == ["A"] and q.position == 1
    records = {r.paper_id: r for r in session.store.decisions.records()}
    a = records[id_of(session, "A")]
    assert (a.rank, a.bulk, a.model) == (1, False, q.ranking.model)
    assert a.score == pytest.approx(card.score)
    rest = named(session, q.ids[1:])
    assert sorted(rest) == ["B", "C", "D", "F", "N"]
    assert rest.index("B") < rest.index("F")  # still like the include, unlike the exclude

    q.decide("include")  # the paper now on screen, recorded with its new rank
    records_now = {r.paper_id: r for r in session.store.decisions.records()}
    assert records_now[q.ids[1]].rank == 1
    assert len(records_now) == 4


def test_the_same_decisions_give_the_same_order(built, tmp_path):
    orders = []
    for run in range(2):
        shutil.copytree(built, tmp_path / f"r{run}")
        with Session.open(tmp_path / f"r{run}", reviewer="ana") as s:
            s.decide(id_of(s, "I0"), "include")
            s.decide(id_of(s, "E0"), "exclude")
            q = ScreeningQueue(s)
            q.decide("include")
            orders.append(named(s, q.ids))
    assert orders[0] == orders[1]


def test_map_order_records_no_rank(session):
    q = ScreeningQueue(session, order="map")
    assert q.ranking is None
    q.decide("maybe")
    record = session.store.decisions.records()[0]
    assert record.rank is None and record.model is None


def test_the_view_shows_relevance_and_the_stopping_advice_is_logged(session):
    session.decide(id_of(session, "I0"), "include")
    session.decide(id_of(session, "E0"), "exclude")
    view = screen(session)
    assert view.order.value == "relevance"
    assert view.card.card["relevance_html"] == "predicted relevant: high · rank 1 of 6 to screen"
    shown = view.card.shown()
    assert "svm-" not in shown.replace(view.card.card["details_html"], ""), "the model's name only in the details line"
    assert dict(view.order.options)["most likely relevant first (re-ranked after every decision)"] == "relevance"
    assert view.card.panel["sentence"].startswith("1 relevant found in 2 read; about ")
    view.play([{"decide": "include"}, {"decide": "exclude"}])
    assert view.card.panel["sentence"].startswith("2 relevant found in 4 read; about ")
    assert "(95%: " in view.card.panel["sentence"] and view.card.panel["curve"][-1] == [4, 2]
    assert any("recall" in line for line in view.card.panel["lines"])
    view.card.act("log_claim")
    assert view.card.message["text"].startswith("the claim is logged in the history")
    claims = session.store.stopping.claims()
    assert len(claims) == 1
    view.order.value = "map"  # a new order applies at once
    assert view.queue.order == "map" and view.queue.ranking is None


def test_a_model_that_weighs_title_words_apart_ranks_the_review_with_its_titles(built, tmp_path):
    import numpy as np

    from workbench.screening import Features, Ranker, title_block

    shutil.copytree(built, tmp_path / "r")
    with Session.open(tmp_path / "r", reviewer="ana") as s:
        s.decide(id_of(s, "I0"), "include")
        s.decide(id_of(s, "E0"), "exclude")
        review = s.review
        ranking = review.screening.rank(next=10, model="svm-both-titles", reviewer="ana")
        assert ranking.model == "svm-both-titles" and "title_weight=0.5" in ranking.model_version
        # the same as a ranker handed the titles' TF-IDF by hand, score for score
        words = Features.from_texts(review.texts())
        titles = title_block(["" if p.title_derived else p.title for p in review.papers])
        by_hand = Features(tfidf=words.tfidf, terms=words.terms, embeddings=review.embeddings(), titles=titles)
        rows = [review.row(id_of(s, "I0")), review.row(id_of(s, "E0"))]
        ranker = Ranker("svm-both-titles", seed=ranking.seed).fit(by_hand, rows, [1, 0])
        assert [review.papers[r].id for r in ranker.next(10)] == ranking.ids
        np.testing.assert_allclose([p.score for p in ranking], ranker.scores_[ranker.next(10)], rtol=1e-5)
        # the default model does not build the titles' block
        assert review.screening.rank(next=3, reviewer="ana").model == "svm-both"


def test_the_queue_switches_to_relevance_at_the_first_include_and_exclude_and_the_menu_says_so(session):
    view = screen(session)
    q = view.queue
    assert q.order == "one per topic" and view.order.value == "one per topic"
    assert "one paper per topic in turn (until an include and an exclude)" in dict(view.order.options)
    view.play([{"go": id_of(session, "I0")}, {"decide": "include"}, {"go": id_of(session, "E0")},
               {"decide": "exclude"}])
    assert q.order == "relevance" and q.ranking.mode == "ranked"
    assert view.order.value == "relevance", "the menu says what the queue does"
    assert "the queue is now ranked" in q.last
    rest = [p for p in q.ids[q.position:] if p not in (id_of(session, "I0"), id_of(session, "E0"))]
    assert named(session, rest)[:3] == ["A", "B", "C"]
    # an order the reviewer picks stays as picked
    view.order.value = "one per topic"
    view.play([{"decide": "maybe"}])
    assert q.order == "one per topic" and view.order.value == "one per topic"


@pytest.mark.parametrize("order", ["relevance", "random"])
def test_the_queue_is_the_papers_to_screen_by_score_then_the_decided_ones_ties_in_map_order(session, order):
    session.decide(id_of(session, "I0"), "include")
    session.decide(id_of(session, "E0"), "exclude")
    q = ScreeningQueue(session, show="all", order=order)
    ranking = q.ranking
    if order == "random":
        import numpy as np

        key = np.random.default_rng(ranking.seed).permutation(len(ranking.queue)).astype(float)
    else:
        key = -ranking.scores
    rows = session.rows_of(q.ids)
    expected = sorted(rows, key=lambda r: (not ranking.queue[r], key[r], r))
    assert rows == expected and len(rows) == len(CORPUS)
    q.decide("exclude")  # the papers after this one reordered by the refitted model
    key = -q.ranking.scores if order == "relevance" else key
    after = session.rows_of(q.ids[1:])
    assert after == sorted(after, key=lambda r: (not q.ranking.queue[r], key[r], r))
