"""The labels' words counted in a second process beside the topics are the words one process
counts; where that process fails, they are counted here and a warning says why."""

import os
import subprocess
import sys
import textwrap

import pytest

from workbench.topics.terms import DocumentTerms

# Each case runs in a fresh interpreter (WORKBENCH_WORKERS, module settings).
PRELUDE = """
import logging, os, numpy as np
from workbench.review.build import _words_beside
from workbench.review.build._words_beside import WordsBeside
from workbench.topics import terms
from workbench.topics.represent import documents
_words_beside.MIN_PAPERS = 100
os.environ["WORKBENCH_WORKERS"] = "2"
texts = [f"Paper {i} studies topic {i % 3} with method {i % 7}; a sample of {i} cells. Größe 大型 {i}" for i in range(400)]
texts[5] = ""  # (empty: counted as "(empty)")
docs = documents(texts)
def same(a, b):
    return (a.terms == b.terms and a.vocabulary == b.vocabulary and a.ends == b.ends and (a.matrix != b.matrix).nnz == 0
            and np.array_equal(a.matrix.indices, b.matrix.indices) and np.array_equal(a.unigrams, b.unigrams))
"""


def run(body: str, tmp_path, fresh: bool = True) -> str:
    """``body`` run after the prelude; ``fresh``: the words counted in a fresh interpreter (else forked)."""
    code = (PRELUDE + f"folder = {str(tmp_path)!r}\n_words_beside.FRESH_FROM = {100 if fresh else 10**9}\n"
            + textwrap.dedent(body))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout + out.stderr


@pytest.mark.parametrize("fresh", [True, False])
def test_the_second_process_counts_the_words_and_the_labels_load_them(tmp_path, fresh):
    out = run("""
        with WordsBeside(texts, folder, start=True) as beside:
            assert beside._child is not None
            count = terms.DocumentTerms.__init__
            def refused(self, texts, key=None):
                raise AssertionError("counted in this process")
            terms.DocumentTerms.__init__ = refused  # (the second process, another interpreter, counts as ever)
            loaded = terms.document_terms(docs, beside.terms)
            terms.DocumentTerms.__init__ = count
            assert beside._child is None and os.listdir(folder) == []  # ended, its file removed
        assert same(loaded, terms.DocumentTerms(docs)) and loaded.key == terms.texts_key(docs)
        print("same words")
    """, tmp_path, fresh)
    assert "same words" in out


@pytest.mark.parametrize("fresh", [True, False])
def test_other_texts_are_counted_here_and_the_childs_count_waits_for_its_own(tmp_path, fresh):
    out = run("""
        with WordsBeside(texts, folder, start=True) as beside:
            other = terms.document_terms(documents(texts[:150]), beside.terms)
            assert beside._child is not None  # not taken: it counts other texts
            loaded = terms.document_terms(docs, beside.terms)
        assert same(other, terms.DocumentTerms(documents(texts[:150]))) and same(loaded, terms.DocumentTerms(docs))
        print("each its own")
    """, tmp_path, fresh)
    assert "each its own" in out


@pytest.mark.parametrize("sabotage, said", [
    # the texts' file cut short: the second process says why it stopped
    ("write = _words_beside._write_texts\n"
     "def cut(texts, path, lengths):\n"
     "    write(texts, path, lengths)\n"
     "    os.truncate(path, 100)\n"
     "_words_beside._write_texts = cut", "cut short"),
    ("after_start = lambda beside: os.kill(beside._child.pid, 9)", "exit code -9"),  # the process dies
    ("def after_start(beside):\n"  # a cut count
     "    beside.wait()\n"
     "    open(beside._file, 'wb').write(b'cut')", "unreadable"),
])
def test_a_second_process_that_fails_leaves_the_words_to_this_one_and_says_why(tmp_path, sabotage, said):
    out = run("after_start = lambda beside: None\n" + sabotage + """
logging.basicConfig(level=logging.WARNING)
with WordsBeside(texts, folder, start=True) as beside:
    after_start(beside)
    loaded = terms.document_terms(docs, beside.terms)
assert same(loaded, terms.DocumentTerms(docs)) and os.listdir(folder) == []
print("counted here")
""", tmp_path)
    assert "counted here" in out and said in out


def test_a_forked_process_that_dies_leaves_the_words_to_this_one_and_says_why(tmp_path):
    out = run("""
def broken(self, path):
    os._exit(3)
logging.basicConfig(level=logging.WARNING)
terms.DocumentTerms.to_file = broken  # (only the forked child writes the count)
with WordsBeside(texts, folder, start=True) as beside:
    loaded = terms.document_terms(docs, beside.terms)
assert same(loaded, terms.DocumentTerms(docs)) and os.listdir(folder) == []
print("counted here")
""", tmp_path, fresh=False)
    assert "counted here" in out and "exit code 3" in out


@pytest.mark.parametrize("fresh", [True, False])
def test_leaving_early_stops_the_second_process_and_removes_its_files(tmp_path, fresh):
    out = run("""
        with WordsBeside(texts * 50, folder, start=True) as beside:
            child = beside._child
            assert child.is_alive()
        assert not child.is_alive() and os.listdir(folder) == []
        print("stopped")
    """, tmp_path, fresh)
    assert "stopped" in out


def test_no_second_process_where_it_does_not_pay_or_cannot_run(tmp_path):
    out = run("""
        assert WordsBeside(texts, folder)._child is None  # (nothing to embed: not started)
        assert WordsBeside(texts[:99], folder, start=True)._child is None
        os.environ["WORKBENCH_WORKERS"] = "1"
        assert WordsBeside(texts, folder, start=True)._child is None
        print("none")
    """, tmp_path)
    assert "none" in out


def test_the_counts_go_to_a_file_and_back_as_they_are(tmp_path):
    from test_topic_terms import corpus

    for texts in (corpus(300), [], ["(empty)"], ["the of and", "reward model"]):
        counted = DocumentTerms(texts)
        counted.to_file(tmp_path / "words.npz")
        loaded = DocumentTerms.from_file(tmp_path / "words.npz")
        assert loaded.terms == counted.terms and loaded.vocabulary == counted.vocabulary and loaded.ends == counted.ends
        assert loaded.key == counted.key
        assert loaded.matrix.shape == counted.matrix.shape and (loaded.matrix != counted.matrix).nnz == 0
        for part in ("data", "indices", "indptr"):
            assert getattr(loaded.matrix, part).dtype == getattr(counted.matrix, part).dtype
            assert (getattr(loaded.matrix, part) == getattr(counted.matrix, part)).all()
        assert (loaded.unigrams == counted.unigrams).all()
        for every in (1, 7, 1 << 22):  # counted to the file as they are made, written out every so many entries
            DocumentTerms.count_to_file(iter(texts), counted.key, tmp_path / "streamed.npz", every=every)
            streamed = DocumentTerms.from_file(tmp_path / "streamed.npz")
            assert streamed.terms == counted.terms and streamed.ends == counted.ends and streamed.key == counted.key
            for part in ("data", "indices", "indptr"):
                assert getattr(streamed.matrix, part).dtype == getattr(counted.matrix, part).dtype
                assert (getattr(streamed.matrix, part) == getattr(counted.matrix, part)).all()
            assert streamed.matrix.shape == counted.matrix.shape and (streamed.unigrams == counted.unigrams).all()
        assert sorted(os.listdir(tmp_path)) == ["streamed.npz", "words.npz"]  # (no temporary file left)


def test_a_build_gives_the_same_review_with_the_words_counted_beside(tmp_path):
    """A whole build, words counted in the second process or here: the same topics and words;
    a rebuild that keeps its topics starts no such process."""
    out = run(f"""
        import csv
        rows = [("", f"Paper {{i}} studies topic {{i % 3}} with method {{i % 7}} and sample {{i}}. " * 3) for i in range(300)]
        with open("{tmp_path}/papers.csv", "w", newline="") as f:
            csv.writer(f).writerows([("title", "abstract"), *rows])
        import workbench
        started, loaded, begin, take = [], [], WordsBeside.start, WordsBeside.terms
        def recording(self, *args):
            begin(self, *args)
            started.append(self._child is not None)
        def keeping(self, key):
            found = take(self, key)
            loaded.append(found is not None)
            return found
        WordsBeside.start, WordsBeside.terms = recording, keeping
        a = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/a", embedder="fake", progress=False)
        again = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/a", embedder="fake", progress=False)
        assert started == [True] and loaded == [True], (started, loaded)  # (again: nothing to embed, no start)
        with open("{tmp_path}/more.csv", "w", newline="") as f:
            csv.writer(f).writerows([("title", "abstract"), *[("", f"An added paper {{i}} on method {{i % 7}}. " * 3)
                                                               for i in range(5)]])
        more = workbench.build(["{tmp_path}/papers.csv", "{tmp_path}/more.csv"], review="{tmp_path}/a", embedder="fake",
                               progress=False)
        assert started == [True, True] and loaded == [True, True], (started, loaded)  # five new papers to embed
        waited, wait = [], WordsBeside.wait
        WordsBeside.wait = lambda self: waited.append(1) or wait(self)
        os.remove("{tmp_path}/a/cache/embeddings.sqlite")  # (papers to embed again, their topics kept)
        kept = workbench.build(["{tmp_path}/papers.csv", "{tmp_path}/more.csv"], review="{tmp_path}/a",
                               embedder="fake", progress=False)
        assert started == [True, True, True] and loaded == [True, True] and waited == [], (started, loaded, waited)
        assert "topics" in kept.build_report.reuse_line() and kept.topics.equals(more.topics)
        _words_beside.MIN_PAPERS = 10**9
        b = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/b", embedder="fake", progress=False)
        assert started == [True, True, True, False] and loaded == [True, True, False], (started, loaded)  # (b: asked, none)
        assert a.topics.equals(b.topics) and a.model.words_ == b.model.words_ and again.topics.equals(a.topics)
        assert len(more) == 305, len(more)
        assert not [p for p in os.listdir("{tmp_path}/a/cache") if p.startswith(".words")]
        assert len(os.listdir("{tmp_path}/a/cache/terms")) == 1  # the newest count is kept for later fits
        opened = workbench.open_review("{tmp_path}/a")  # (a review opened later: its build's count is loaded)
        count = terms.DocumentTerms.__init__
        def refused(self, texts, key=None):
            raise AssertionError("counted again")
        terms.DocumentTerms.__init__ = refused
        opened = workbench.show_themes(opened, 3)
        terms.DocumentTerms.__init__ = count
        assert opened.model.terms_.key == terms.texts_key(documents(opened.texts()))
        print("same review words")
    """, tmp_path)
    assert "same review words" in out


def test_a_build_lets_go_of_the_counts_its_cache_keeps_and_a_refit_reads_them_back(tmp_path):
    """The counts made beside are kept in the review's cache, so the build does not hold them
    through its save (gigabytes at a million papers): its model asks the cache for them when
    fewer themes are wanted, with the themes of a build that held them."""
    out = run(f"""
        import csv
        rows = [("", f"Paper {{i}} studies topic {{i % 3}} with method {{i % 7}} and sample {{i}}. " * 3) for i in range(300)]
        with open("{tmp_path}/papers.csv", "w", newline="") as f:
            csv.writer(f).writerows([("title", "abstract"), *rows])
        import workbench
        a = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/a", embedder="fake", progress=False)
        assert callable(a.model.terms_) and a.model.model_.vectorizer_model._shared is None
        _words_beside.MIN_PAPERS = 10**9  # (b: counted in this process, kept nowhere: held)
        b = workbench.build(["{tmp_path}/papers.csv"], review="{tmp_path}/b", embedder="fake", progress=False)
        assert isinstance(b.model.terms_, terms.DocumentTerms)
        count = terms.DocumentTerms.__init__
        def refused(self, texts, key=None):
            raise AssertionError("counted again")
        terms.DocumentTerms.__init__ = refused
        fewer_a, fewer_b = a.model.reduce_to(2), b.model.reduce_to(2)
        themes = workbench.show_themes(a, 2)
        terms.DocumentTerms.__init__ = count
        assert fewer_a.words_ == fewer_b.words_ and list(fewer_a.labels_) == list(fewer_b.labels_)
        assert themes.model.words_ == fewer_b.words_
        print("released and read back")
    """, tmp_path)
    assert "released and read back" in out
