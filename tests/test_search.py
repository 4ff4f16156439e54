"""Search in a review: quoted phrases as phrases, keyword and meaning hits kept apart with scores."""

import csv

import numpy as np
import pytest

import workbench
from workbench.review import KEYWORD, MEANING, SearchHit
from workbench.session.text import highlight

PAPERS = [
    ("Process reward models", "We train a reward model on step labels. The reward model scores each step."),
    ("Reward shaping by hand", "The reward of the model is shaped by hand for every task."),
    ("A reward model for dialogue", "Preference data from people trains it."),
    ("Planning agents", "Agents plan with tools and memory over long horizons."),
    ("Retrieval for question answering", "Dense retrieval finds passages that answer questions."),
    ("Code generation benchmarks", "Benchmarks of programs written from descriptions."),
]


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    folder = tmp_path_factory.mktemp("search")
    src = folder / "papers.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract"])
        writer.writerows(PAPERS)
    return workbench.build([src], review=folder / "review", embedder="fake", progress=False)


def _id(review, title):
    return next(p.id for p in review.papers if p.title == title)


def test_a_quoted_phrase_finds_only_papers_with_the_words_in_a_row(review):
    process, shaping, dialogue = (_id(review, PAPERS[i][0]) for i in range(3))
    # "reward" and "model" both in all three; as a phrase only in two ("models" starts with "model")
    assert review.keyword_search("reward model") == [process, shaping, dialogue]
    assert review.keyword_search('"reward model"') == [process, dialogue]
    assert review.keyword_search('"reward model" steps') == []  # every term is needed
    assert review.keyword_search('"reward model" step') == [process]


def test_keyword_hits_count_their_matches_in_title_and_abstract(review):
    process, shaping, dialogue = (_id(review, PAPERS[i][0]) for i in range(3))
    result = review.search('"reward model"', semantic=False)
    assert result.terms == ["reward model"]
    assert result.keyword == [process, dialogue]
    assert result.matches == {process: 3, dialogue: 1}  # title once + abstract twice; title once
    assert result.hits == [SearchHit(process, KEYWORD, 3.0), SearchHit(dialogue, KEYWORD, 1.0)]
    assert [h.describe() for h in result.hits] == ["keyword, 3 matches", "keyword, 1 match"]
    assert review.search("reward model", semantic=False).matches == {process: 6, shaping: 3, dialogue: 2}


def test_meaning_hits_are_marked_apart_with_their_similarity(review):
    result = review.search('"reward model"', k=4)
    keyword = result.keyword
    meaning = [h for h in result.hits if h.kind == MEANING]
    assert [h.kind for h in result.hits] == [KEYWORD] * len(keyword) + [MEANING] * len(meaning)
    assert result.ids == keyword + [h.id for h in meaning]
    # the papers nearest the query's words in meaning, each once, with its cosine similarity
    query = review.embed_texts(["reward model"])[0]
    similarity = review.embeddings() @ query
    nearest = [review.ids[i] for i in np.argsort(-similarity, kind="stable")[:4]]
    assert [pid for pid, _ in result.semantic] == nearest
    assert [h.id for h in meaning] == [pid for pid in nearest if pid not in keyword]
    for hit in meaning:
        assert hit.score == pytest.approx(similarity[review.row(hit.id)], abs=1e-4)
        assert hit.describe() == f"meaning, similarity {hit.score:.2f}"
    assert result.hit(meaning[0].id) == meaning[0] and result.hit("nope") is None


def test_quotes_do_not_change_what_the_query_means(review):
    assert review.semantic_search('"reward model"', k=3) == review.semantic_search("reward model", k=3)
    assert review.search('""').hits == []


def test_a_phrase_is_highlighted_as_a_phrase():
    html = highlight("The reward of the model; a reward\nmodel here.", ["reward model"])
    assert html == 'The reward of the model; a <mark class="wb-hit">reward\nmodel</mark> here.'


def test_02_says_how_the_search_found_the_paper_on_screen(review):
    from workbench.widgets import Session, screen

    process = _id(review, PAPERS[0][0])
    with Session.open(review.path, reviewer="tester") as session:
        view = screen(session, search='"reward model"')
        assert process in view.queue.ids and len(view.queue.ids) == 2
        view.queue.go(process)
        view.render()
        assert view.queue.card().match == "keyword, 3 matches"
        assert view.card.card["match"] == "keyword, 3 matches"  # the card says "found by keyword, 3 matches"
        view.queue.refilter(search="")
        assert view.queue.card().match == "" and view.queue.matches == {}


def test_explore_lists_search_hits_with_how_each_was_found(review):
    from workbench.widgets import Session, explore

    with Session.open(review.path, reviewer="tester") as session:
        view = explore(session)
        view.search_text.value = '"reward model"'
        view.on_search()
        result = session.review.search('"reward model"')
        view.table.page_size = len(result.hits)
        view.table.go(0)
        titles = {row["id"]: row["title"] for row in view.table.rows}  # the selection table, best first
        for hit in result.hits:
            assert titles[hit.id].endswith(f"({hit.describe()})")
        listed = " | ".join(titles.values())
        assert listed.index("keyword, 3 matches") < listed.index("keyword, 1 match") < listed.index("meaning, similarity")


def test_a_large_review_is_searched_from_a_file_a_block_at_a_time(review, tmp_path, monkeypatch):
    """Above IN_MEMORY papers the lower-case texts are not held: written once under cache/,
    read in blocks (here 40 bytes, so texts run across blocks), the same hits as in memory;
    a review updated since is searched in a copy of its new papers, never the stale one."""
    import shutil

    from workbench.review import _haystack

    queries = ["reward model", '"reward model"', "retrieval", "benchmarks of programs", "nothing-like-this"]
    in_memory = {q: review.search(q, semantic=False).matches for q in queries}
    copy = tmp_path / "review"
    shutil.copytree(review.path, copy)
    monkeypatch.setattr(_haystack, "IN_MEMORY", 0)
    monkeypatch.setattr(_haystack, "BLOCK_BYTES", 40)
    opened = workbench.open_review(copy)
    assert {q: opened.search(q, semantic=False).matches for q in queries} == in_memory
    files = list((copy / "cache").glob("haystack-*.txt"))
    assert len(files) == 1 and files[0].read_text(encoding="utf-8").count("\x00") == len(opened)
    written = files[0].stat().st_mtime_ns
    assert opened.search("reward", semantic=False).keyword  # read again, not written again
    assert files[0].stat().st_mtime_ns == written and opened._derived.haystack is None
    new = tmp_path / "new.csv"
    new.write_text("title,abstract\nReward hacking,A reward model is gamed naïvely by the policy (强化学习).\n",
                   encoding="utf-8")
    updated = workbench.update([new], opened)
    hits = updated.search('"reward model"', semantic=False).matches
    assert len(updated.search("naïvely 强化学习", semantic=False).keyword) == 1  # split in a character: decoded whole
    assert len(hits) == 3 and set(in_memory['"reward model"']) < set(hits)
    (fresh,) = (copy / "cache").glob("haystack-*.txt")
    assert fresh.name != files[0].name  # the stale copy is gone
    assert opened.search('"reward model"', semantic=False).matches == in_memory['"reward model"']  # a stale kernel
    assert fresh.exists() and len(list((copy / "cache").glob("haystack-*.txt"))) == 2  # ... leaves the new copy


def test_a_haystack_file_that_does_not_match_the_papers_is_refused_and_made_anew(review, tmp_path, monkeypatch):
    import shutil

    from workbench.errors import ReviewError
    from workbench.review import _haystack

    copy = tmp_path / "review"
    shutil.copytree(review.path, copy)
    monkeypatch.setattr(_haystack, "IN_MEMORY", 0)
    opened = workbench.open_review(copy)
    expected = opened.keyword_search("reward")
    (path,) = (copy / "cache").glob("haystack-*.txt")
    path.write_bytes(path.read_bytes().split(b"\x00", 1)[1])  # a text short
    with pytest.raises(ReviewError, match="search again"):
        opened.keyword_search("reward")
    assert not path.exists()
    assert opened.keyword_search("reward") == expected


def _during_the_warm_up(review, monkeypatch, ask):
    """``ask()`` run while the explore view's warm-up (``prepare_search``) embeds in its thread,
    the embedder slowed down and watched: (what ``ask`` returned, the texts one thread embedded
    while another was inside the embedder, every word ``embed_words`` was given)."""
    import threading
    import time

    from workbench.review import prepare_search

    embedder = review.embedder()
    inside, overlaps, words = [], [], []

    def watched(real, record=None):
        def call(texts):  # (embed_words may call embed in the same thread: not an overlap)
            me = threading.get_ident()
            if any(other != me for other in inside):
                overlaps.append(texts)
            inside.append(me)
            if record is not None:
                record.extend(texts)
            time.sleep(0.3)
            try:
                return real(texts)
            finally:
                inside.remove(me)
        return call

    monkeypatch.setattr(embedder, "embed", watched(embedder.embed))
    monkeypatch.setattr(embedder, "embed_words", watched(embedder.embed_words, words))
    monkeypatch.setitem(review.manifest["embedder"], "name", "fake-but-not-tfidf")
    warm = threading.Thread(target=prepare_search, args=(review,))
    warm.start()
    time.sleep(0.05)
    result = ask()
    warm.join()
    return result, overlaps, words


def test_a_search_asked_while_the_view_prepares_it_waits_and_never_shares_the_tokenizer(review, monkeypatch):
    """The explore view loads what a first search needs in a thread while the user reads; a
    search asked meanwhile waits for it (a tokenizer used by two threads at once fails with
    "Already borrowed")."""
    result, overlaps, _ = _during_the_warm_up(review, monkeypatch, lambda: review.search("reward models learn", semantic=True))
    assert result.semantic and overlaps == []


def test_label_words_embedded_during_the_warm_up_never_share_the_tokenizer(review, monkeypatch):
    """A topic model (a refit, themes, a selection's sub-topics) embeds its candidate label
    words through ``review.word_vectors()``: asked while the view's warm-up thread embeds, it
    waits for it."""
    import uuid

    fresh = [f"word{uuid.uuid4().hex[:8]}", "reward"]  # (one not in the cache: the embedder runs)
    vectors, overlaps, words = _during_the_warm_up(review, monkeypatch, lambda: review.word_vectors()(fresh))
    assert vectors.shape[0] == 2 and fresh[0] in words
    assert overlaps == []
