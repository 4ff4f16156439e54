"""03 compare: terms as the papers write them (no numbers, no stop words), everything named by title."""

import csv
import re

import pytest

import workbench
from workbench.widgets import Comparison, Session, compare

PAPERS = [
    ("Paper one", "Reward models learn from human feedback in 66 tasks."),
    ("Paper two", "Reward models for agents that plan with tools in 2024."),
    ("Retrieval for question answering", "Dense retrieval finds passages that answer questions."),
    ("Code generation benchmarks", "Benchmarks of programs written from descriptions."),
    ("Robots that grasp", "Robot arms grasp objects they have never seen."),
    ("Translation of speech", "Speech is translated into text in other languages."),
    ("Feedback from people", "Human feedback steers what a chatbot says."),
]


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    src = folder / "papers.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["title", "abstract"])
        writer.writerows(PAPERS)
    review = workbench.build([src], review=folder / "review", embedder="fake", progress=False)
    s = Session.open(review, reviewer="tester")
    yield s
    s.close()


def _ids(session, *titles):
    return [next(p.id for p in session.review.papers if p.title == t) for t in titles]


def test_terms_are_words_and_pairs_written_in_a_row_without_numbers_or_stop_words(session):
    one, two = _ids(session, "Paper one", "Paper two")
    shared, distinctive = Comparison(session, [one, two], n_terms=50).terms()
    # "paper", "one", "two", "from", "in", "for", "that", "with" are stop words; 66 and 2024 numbers;
    # "learn human" and "feedback tasks" are not written in a row; words of a listed pair go;
    # "models learn" is written once in the review: two words that met, not a phrase (its words
    # stand alone), while "human feedback", written twice, is one
    assert shared == ["reward models"]
    assert sorted(distinctive[one]) == ["human feedback", "learn", "tasks"]
    assert sorted(distinctive[two]) == ["agents", "plan", "tools"]


def test_the_compare_view_names_papers_by_title_never_by_id(session):
    one, two, robots = _ids(session, "Paper one", "Paper two", "Robots that grasp")
    view = compare(session, [one, two, robots])
    html = view.columns.value
    table = html[html.index("pairwise similarity"):]
    titles = ["Paper one", "Paper two", "Robots that grasp"]
    assert re.findall(r"<th [^>]*>([^<]*)</th>", table) == titles * 2, "columns, then rows"
    neighbours = re.findall(r"nearest neighbours:<ul>(.*?)</ul>", html)
    assert len(neighbours) == 3
    for listed in neighbours:
        assert all(item.split(" <span")[0] in {p[0] for p in PAPERS} for item in re.findall(r"<li>(.*?)</li>", listed))
    for pid in (one, two, robots):
        assert pid[:8] not in table and pid[:8] not in "".join(neighbours)


def test_search_results_to_compare_say_how_they_were_found(session):
    view = compare(session)
    view.search_text.value = '"reward models"'
    view.on_search()
    labels = [label for label, _ in view.results.options]
    assert sorted(labels[:2]) == ["Paper one (keyword, 1 match)", "Paper two (keyword, 1 match)"]
    assert all(re.fullmatch(r".+ \(meaning, similarity -?\d\.\d\d\)", label) for label in labels[2:])
    assert len(labels) == len(set(view.results.options))
