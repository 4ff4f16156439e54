"""The build on Dask (workbench.distributed) on a 2-worker LocalCluster: a review like any other.

The corpus: 650 generated abstracts in two CSV files, eight topics with words of their own, 50
papers of the second file repeating papers of the first (same DOI, another title): 600 papers
once merged. Partitions of 100 papers and a sample of 300 make every partitioned path run:
the duplicates meet only where their blocking keys are gathered by hash, and half the papers are placed by
``UMAP.transform`` and ``hdbscan.approximate_predict``.
"""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

import workbench  # noqa: E402
from workbench.embed import FakeEmbedder  # noqa: E402

THEMES = {
    "proteins": "protein folding residue enzyme binding structure peptide amino chain ligand kinase",
    "galaxies": "galaxy stellar redshift telescope cosmic dark halo luminosity spectra quasar nebula",
    "markets": "market price volatility asset portfolio trading liquidity equity bond investor",
    "soils": "soil nitrogen crop irrigation yield fertilizer tillage moisture harvest root",
    "robots": "robot gripper manipulation trajectory actuator grasping locomotion servo torque",
    "climate": "climate warming emission carbon temperature rainfall drought glacier ocean",
    "music": "melody rhythm harmony chord tempo pitch orchestra tone timbre concert",
    "law": "court statute plaintiff verdict contract tort liability judge appeal",
}
COMMON = "study results method analysis approach data model evidence paper propose".split()
PARAMS = {"partition_size": 100, "sample_size": 300, "seed": 7}
PROVENANCE = {"a.csv": {"database": "PubMed", "query": "proteins OR galaxies", "searched_on": "2024-05-01"},
              "b.csv": {"register": "ClinicalTrials.gov", "searched_on": "2024-05-02"}}


def _abstract(rng: random.Random, theme: str) -> str:
    themes = list(THEMES)
    neighbour = THEMES[themes[(themes.index(theme) + 1) % len(themes)]].split()
    words = THEMES[theme].split() + neighbour[:2]  # words shared by two topics, as real topics share them
    return " ".join(rng.choice(words) if rng.random() < 0.7 else rng.choice(COMMON) for _ in range(45)) + "."


def _corpus(folder: Path) -> list[Path]:
    rng = random.Random(3)
    themes = list(THEMES)
    rows = [(f"On {t} {i}", _abstract(rng, t), f"10.1234/wb.{i}") for i, t in
            ((i, themes[i % len(themes)]) for i in range(600))]
    first, second = rows[:400], rows[400:] + [(f"Again: {t}", a, doi) for t, a, doi in rows[:50]]
    paths = []
    for name, part in (("a.csv", first), ("b.csv", second)):
        path = folder / name
        with open(path, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows([("title", "abstract", "doi"), *part])
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def cluster():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with Client(local) as client:
            yield client


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> list[Path]:
    return _corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def built(cluster, sources, tmp_path_factory):
    path = tmp_path_factory.mktemp("dask") / "review"
    return workbench.build(sources, review=path, embedder=FakeEmbedder(), client=cluster, progress=False,
                           provenance=PROVENANCE, **PARAMS)


@pytest.mark.slow
@pytest.mark.long
def test_dask_build_opens_like_any_review(built):
    review = workbench.open_review(built.path)
    assert len(review) == 600  # 650 records, 50 repeated DOIs merged across the two files
    assert len({p.id for p in review.papers}) == 600
    assert built.build_report.read.kept == 600 and len(built.build_report.read.merges) == 50
    assert review.labels.shape == (600,) and (review.labels >= 0).all()
    assert review.coords.shape == (600, 2) and np.isfinite(review.coords).all()
    assert np.abs(review.coords).max() == pytest.approx(10.0)
    topics = review.topics
    assert set(topics.topic) == set(review.labels.tolist()) and topics["size"].sum() == 600
    assert all(len(words) > 0 for words in topics.words)
    # each generated theme mostly lands in one topic
    truth = np.array([int(p.title.split()[-1]) % 8 if p.title.startswith("On ") else -1 for p in review.papers])
    for theme in range(8):
        found = np.bincount(review.labels[truth == theme])
        assert found.max() / found.sum() > 0.8, (theme, found)
    assert review.manifest["dask"]["workers"] == 2 and review.manifest["dask"]["partitions"] >= 6
    assert review.manifest["dask"]["sample"]["size"] == 300
    from workbench.corpus.texts import TextsInFile

    # The driver wrote the papers as they came from the workers and kept their abstracts on disk
    # (the file it wrote them to is gone); the review it returned reads them as an opened one does.
    assert isinstance(built.paper_texts, TextsInFile) and not hasattr(built.papers[0], "abstract")
    assert [p.to_dict() for p in built.papers_with_texts()] == [p.to_dict() for p in review.papers_with_texts()]
    assert not list((built.path / "cache").glob(".papers-*"))
    # Each topic's typical papers were found where the vectors are and remembered: the opened
    # review shows them without loading an embedding, and they are what its embeddings give.
    from workbench.topics import representatives

    typical = review.representatives(2)
    assert not review.embeddings_loaded
    expected = representatives(review.embeddings(), review.labels, 2)
    assert typical == {t: [review.ids[r] for r in rows] for t, rows in expected.items()}


@pytest.mark.slow
@pytest.mark.long
def test_every_notebook_runs_on_a_dask_built_review(built, tmp_path):
    """The four notebooks, headless, on (a copy of) the review the cluster built: the explore
    view's search and tagging reach its store, as on any review."""
    import shutil

    from conftest import ROOT, stderr_outputs
    from workbench.cli.notebooks import NOTEBOOKS, run_notebooks
    from workbench.store import Store

    review = tmp_path / "review"
    shutil.copytree(built.path, review)
    out = tmp_path / "executed"
    actions = [{"select": "search:galaxies", "tag": "dask-nb"}, {"field": True, "links": True}]
    run_notebooks(review, ROOT / "notebooks", parameters={"embedder": "fake", "reviewer": "ci-dask"},
                  per_notebook={"01_explore.ipynb": {"actions": actions}}, out_dir=out)
    assert sorted(p.name for p in out.glob("*.ipynb")) == sorted(NOTEBOOKS)  # (a cell's error raises)
    assert stderr_outputs(out) == []
    with Store.open(review) as store:
        tagged = store.tags.papers_with("dask-nb")
    galaxies = {p.id for p in built.papers_with_texts() if "galax" in f"{p.title} {p.text}".lower()}
    assert len(tagged) >= 10 and len(set(tagged) & galaxies) >= 0.9 * len(tagged)


@pytest.mark.slow
@pytest.mark.long
def test_sources_and_their_provenance_are_counted_as_a_build_on_one_machine_counts_them(built, sources):
    from workbench.readers import read_sources

    _, report = read_sources(sources)  # one machine: the 50 repeats merged away from b.csv
    expected = {Path(f.path).name: (f.read + len(f.skipped), len(f.skipped), f.merged) for f in report.files}
    assert expected == {"a.csv": (400, 0, 0), "b.csv": (250, 0, 50)}
    with built.store() as store:
        rows = {Path(s.path).name: s for s in store.sources.recorded()}
    assert {k: (s.identified, s.skipped, s.merged) for k, s in rows.items()} == expected
    assert (rows["a.csv"].kind, rows["a.csv"].name, rows["a.csv"].query, rows["a.csv"].searched_on) == \
        ("database", "PubMed", "proteins OR galaxies", "2024-05-01")
    assert (rows["b.csv"].kind, rows["b.csv"].name, rows["b.csv"].searched_on) == \
        ("register", "ClinicalTrials.gov", "2024-05-02")
    prisma = built.team.prisma(write=False)
    assert prisma.duplicates_removed == 50 and prisma.records_screened + prisma.records_awaiting == 600
    assert dict(prisma.databases) == {"PubMed": 400} and dict(prisma.registers) == {"ClinicalTrials.gov": 250}


@pytest.mark.slow
@pytest.mark.long
def test_provenance_naming_no_source_fails_before_embedding(cluster, sources, tmp_path):
    with pytest.raises(workbench.errors.InputError, match="not a source read"):
        workbench.build(sources, review=tmp_path / "review", embedder=FakeEmbedder(), client=cluster,
                        progress=False, provenance={"c.csv": {"database": "Embase"}}, **PARAMS)
    assert not (tmp_path / "review" / "cache").exists(), "nothing embedded"


@pytest.mark.slow
@pytest.mark.long
def test_embeddings_come_back_from_the_parquet_cache(built):
    review = workbench.open_review(built.path)
    X = review.embeddings()
    assert X.shape == (600, FakeEmbedder().dims)
    np.testing.assert_allclose(X, FakeEmbedder().embed(review.texts()), atol=1e-6)
    assert list((built.path / "cache" / "embeddings-parquet").rglob("*.tmp")) == []


class DyingEmbedder(FakeEmbedder):
    """Kills its worker process the first time it embeds (once per ``marker`` file)."""

    def __init__(self, marker: str):
        super().__init__()
        self.marker = marker

    def embed(self, texts):
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return super().embed(texts)
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.long
def test_a_worker_killed_while_embedding_is_retried(built, sources, tmp_path):
    import cloudpickle
    from distributed import Client, LocalCluster

    cloudpickle.register_pickle_by_value(__import__(__name__))
    marker = tmp_path / "killed"
    path = tmp_path / "review"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as local:
        with Client(local) as client:
            review = workbench.build(sources, review=path, embedder=DyingEmbedder(str(marker)), client=client,
                                     progress=False, **PARAMS)
    assert marker.exists()  # a worker did die
    opened = workbench.open_review(path)
    assert len(opened) == 600
    # the same review as without the death, on another cluster: a seed gives the same review
    first = workbench.open_review(built.path)
    assert [p.id for p in opened.papers] == [p.id for p in first.papers]
    np.testing.assert_array_equal(opened.labels, first.labels)
    np.testing.assert_array_equal(opened.coords, first.coords)
    assert opened.topics.label.tolist() == first.topics.label.tolist()
    assert not list(path.rglob(".staging-*")) and not list(path.rglob("*.tmp"))
    assert review.manifest["embed_stats"]["embedded"] == 600


@pytest.mark.slow
@pytest.mark.long
def test_cli_builds_on_the_scheduler_at_an_address(cluster, sources, tmp_path, capsys):
    from workbench.cli import main

    path = tmp_path / "cli-review"
    address = cluster.scheduler.address
    assert main(["build", *map(str, sources), "--review", str(path), "--embedder", "fake", "--dask", address, "-q"]) == 0
    err = capsys.readouterr().err
    assert "dask: 2 workers" in err and "built " in err
    review = workbench.open_review(path)
    assert len(review) == 600 and review.manifest["dask"]["workers"] == 2
    assert main(["topics", "--review", str(path), "--format", "json"]) == 0  # the CLI reads it as any review


@pytest.mark.slow  # 30-60 s on the shared machine (a LocalCluster in threads, the seeds read and built twice)
def test_a_corpus_no_larger_than_the_sample_is_fitted_whole_as_on_one_machine(tmp_path):
    """The 133 seeds used to be refused ("too few for a partitioned build"): the sample would be
    every paper, so the topics and the map are fitted on all of them, as a build on one machine
    fits them, and the two builds agree paper by paper."""
    from distributed import Client, LocalCluster

    seeds = Path(__file__).parents[1] / "seeds"
    alone = workbench.build([seeds], review=tmp_path / "one", embedder=FakeEmbedder(), progress=False)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        with Client(local) as client:
            review = workbench.build([seeds], review=tmp_path / "r", embedder=FakeEmbedder(), client=client,
                                     progress=False)
    assert len(review) == len(alone) == 133 and review.ids == alone.ids
    assert review.manifest["dask"]["sample"]["size"] == 133 and review.manifest["topics"]["note"] == ""
    assert review.manifest["topics"]["method"] == "bertopic" and review.manifest["map"]["method"] == "umap"
    np.testing.assert_array_equal(review.fine_labels, alone.fine_labels)
    assert sorted(np.bincount(review.labels)) == sorted(np.bincount(alone.labels))
    assert workbench.open_review(tmp_path / "r").topics.equals(review.topics)


@pytest.mark.slow  # a LocalCluster in threads: ~30 s on the shared machine
def test_a_distributed_build_of_one_two_or_five_papers_works(tmp_path):
    from distributed import Client, LocalCluster

    rng = random.Random(2)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        with Client(local) as client:
            for n in (1, 2, 5):
                source = tmp_path / f"n{n}.csv"
                with open(source, "w", newline="", encoding="utf-8") as fh:
                    csv.writer(fh).writerows([("title", "abstract"), *[(f"On {t} {i}", _abstract(rng, t))
                                                                       for i, t in enumerate(list(THEMES)[:n])]])
                review = workbench.build([source], review=tmp_path / f"r{n}", embedder=FakeEmbedder(), client=client,
                                         progress=False)
                assert len(review) == n and review.coords.shape == (n, 2) and np.isfinite(review.coords).all()
                assert review.manifest["topics"]["method"] == "single" and "too few for UMAP" in (
                    review.manifest["topics"]["note"])
                assert review.manifest["map"]["method"] == ("point" if n < 3 else "pca")
                again = workbench.open_review(tmp_path / f"r{n}")
                assert again.ids == review.ids and len(again.screening.rank(next=5)) == n  # and it screens


@pytest.mark.slow  # importing BERTopic took 67 s on the loaded shared machine
def test_summed_counts_give_bertopics_ctfidf():
    """Counts made in two pieces and summed weigh words as BERTopic's ClassTfidfTransformer does."""
    import pandas as pd
    from scipy import sparse

    from workbench.topics import ctfidf_words, summed, topic_term_counts
    from workbench.topics.shims import import_bertopic

    import_bertopic()  # without torch
    from bertopic.vectorizers import ClassTfidfTransformer

    rng = random.Random(5)
    texts = [_abstract(rng, theme) for theme in list(THEMES)[:3] for _ in range(20)]
    labels = [t for t in range(3) for _ in range(20)]
    pieces = [topic_term_counts(texts[i::3], labels[i::3]) for i in range(3)]
    total = summed(pieces)
    whole = topic_term_counts(texts, labels)
    by_rows = ["topic", "term"]
    assert total.frame().sort_values(by_rows).reset_index(drop=True).equals(
        whole.frame().sort_values(by_rows).reset_index(drop=True))
    assert (pieces[0] + pieces[1] + pieces[2]).frame().sort_values(by_rows).reset_index(drop=True).equals(
        whole.frame().sort_values(by_rows).reset_index(drop=True))
    summed = pd.concat([p.frame() for p in pieces]).groupby(by_rows, as_index=False)["count"].sum()
    words = ctfidf_words(summed, top_n_words=5, min_topics=1)
    assert words == ctfidf_words(total, top_n_words=5, min_topics=1)  # a frame or the matrix: the same
    terms = sorted(summed.term.unique())
    matrix = sparse.csr_matrix((summed["count"], (summed.topic, [terms.index(t) for t in summed.term])),
                               shape=(3, len(terms)))
    expected = ClassTfidfTransformer().fit_transform(matrix).toarray()
    for topic in range(3):
        for term, score in words[topic]:
            assert score == pytest.approx(expected[topic, terms.index(term)], rel=1e-6)
        assert words[topic][0][1] == pytest.approx(expected[topic].max(), rel=1e-6)
    assert {w for w, _ in words[1]} & set(THEMES["galaxies"].split())


def test_ctfidf_words_breaks_ties_alphabetically_and_drops_one_topic_terms():
    import pandas as pd

    from workbench.topics import ctfidf_words

    rows = [(0, term, 1) for term in ["zeta", "beta", "alpha", "gamma", "only0"]] + \
           [(1, term, 1) for term in ["zeta", "beta", "alpha", "gamma", "only1"]] + [(1, "gamma", 2)]
    counts = pd.DataFrame(rows, columns=["topic", "term", "count"])
    words = ctfidf_words(counts, top_n_words=2)
    assert [w for w, _ in words[0]] == ["alpha", "beta"]  # four tied terms: the first two in order
    assert [w for w, _ in words[1]][0] == "gamma"  # counted 3 times in topic 1 (rows summed)
    assert "only0" not in dict(ctfidf_words(counts, top_n_words=10)[0])  # one topic: left out
    assert "only0" in dict(ctfidf_words(counts, top_n_words=10, min_topics=1)[0])
    assert ctfidf_words(counts[counts.topic == 0], top_n_words=10)[0][0][0] == "alpha"  # one topic: every term


def test_term_counts_are_countvectorizers_counts_summed_by_topic():
    """Every word and two-word phrase scikit-learn's CountVectorizer finds with the topics'
    tokenizer and stop words, summed per topic: Latin, accented and CJK text, 1-letter words,
    stop words between words, empty texts."""
    import pandas as pd
    from sklearn.feature_extraction.text import CountVectorizer

    from workbench.corpus.writing_systems import tokens
    from workbench.topics import topic_term_counts
    from workbench.topics.labels import stop_words

    rng = random.Random(3)
    texts = [_abstract(rng, theme) for theme in THEMES for _ in range(4)]
    texts += ["", "  ", "the of and", "a b c x-ray", "Ünïcödé wörds 强化学习 naïve x b é", "强 a 化 the cat",
              "ÉCOLE é b the cat", "solo", "Deep   learning\tof proteins; deep learning!"]
    labels = [rng.randrange(-1, 4) for _ in texts]
    vectorizer = CountVectorizer(stop_words=stop_words(), ngram_range=(1, 2), tokenizer=tokens, token_pattern=None)
    matrix = vectorizer.fit_transform(texts).tocoo()
    terms = vectorizer.get_feature_names_out()
    expected = (pd.DataFrame({"topic": np.asarray(labels)[matrix.row], "term": terms[matrix.col], "count": matrix.data})
                .groupby(["topic", "term"], as_index=False)["count"].sum())
    found = topic_term_counts(texts, labels).frame()
    by_rows = ["topic", "term"]
    assert found.sort_values(by_rows).reset_index(drop=True).astype({"term": object}).equals(
        expected.sort_values(by_rows).reset_index(drop=True).astype({"count": np.int64, "topic": np.int64}))


@pytest.mark.parametrize("k", [1, 3, 16])
@pytest.mark.parametrize("min_topics", [1, 2])
def test_words_of_term_buckets_summed_apart_are_the_words_of_the_whole(k, min_topics):
    """As the Dask build finds words: partitions' counts cut by term, each bucket summed over
    the partitions, weighed with every bucket's topic totals, the buckets' best words merged."""
    from workbench.topics import (
        best_words, ctfidf_words, merged_words, summed, term_buckets, topic_term_counts,
        topic_totals, weighing
    )

    rng = random.Random(7)
    texts = [_abstract(rng, theme) for theme in THEMES for _ in range(15)]
    labels = [t - 1 for t in range(len(THEMES)) for _ in range(15)]  # -1: outliers are a topic too
    pieces = [topic_term_counts(texts[i::4], labels[i::4]) for i in range(4)]
    cut = [term_buckets(p, k) for p in pieces]
    assert all(len(c) == k and all(list(b.topics) == list(p.topics) for b in c) for c, p in zip(cut, pieces))
    buckets = [summed([c[j] for c in cut]) for j in range(k)]
    assert sum(len(b.terms) for b in buckets) == len(summed(pieces).terms)  # each term in one bucket
    weigh = weighing([topic_totals(b, min_topics) for b in buckets], min_topics)
    found = [best_words(b, weigh, top_n_words=4) for b in buckets]
    words = merged_words(found, weigh.topics, top_n_words=4)
    assert words == ctfidf_words(summed(pieces), top_n_words=4, min_topics=min_topics)
    assert all(len(w) == 4 for w in words.values())


def test_a_term_lands_in_the_same_bucket_in_every_process():
    """Workers on other machines cut their counts alike: a hash of the term, not Python's salted one."""
    import pandas as pd

    from workbench.topics import TermCounts, term_buckets

    terms = [f"term{i}" for i in range(40)] + ["强化 学习", "müller"]
    here = [sorted(b.terms.to_pylist()) for b in term_buckets(TermCounts.from_frame(
        pd.DataFrame({"topic": 0, "term": terms, "count": 1})), 16)]
    code = ("import sys, json, pandas as pd; from workbench.topics import TermCounts, term_buckets; "
            "terms = json.load(sys.stdin); print(json.dumps([sorted(b.terms.to_pylist()) for b in term_buckets("
            "TermCounts.from_frame(pd.DataFrame({'topic': 0, 'term': terms, 'count': 1})), 16)]))")
    other = subprocess.run([sys.executable, "-c", code], input=json.dumps(terms), capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"}, check=True)
    assert json.loads(other.stdout) == here
    assert sum(1 for b in here if b) > 8, "spread over the buckets"


def test_parquet_cache_is_keyed_by_content(tmp_path):
    from workbench.distributed import ParquetCache

    cache = ParquetCache(tmp_path, "static:model2vec/1")
    vectors = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert cache.get(["a", "b", "c"]) is None
    cache.put(["a", "b", "c"], vectors)
    np.testing.assert_array_equal(cache.get(["a", "b", "c"]), vectors)
    assert cache.get(["a", "b"]) is None  # another partition: not cached whole
    np.testing.assert_array_equal(cache.lookup(["c", "a"]), vectors[[2, 0]])
    assert cache.lookup(["a", "zz"]) is None
    assert [p.suffix for p in cache.folder.iterdir()] == [".parquet"]  # no temporary file left


def test_packed_papers_give_back_the_texts_and_lines_of_their_papers():
    """What the stages after the duplicates read of a packed partition is what they read of its papers."""
    from workbench.corpus.paper import Paper, paper_line
    from workbench.distributed.embedding import partition_texts
    from workbench.distributed.packed import pack
    from workbench.review import document_text

    papers = [Paper(id="a", title="Über Kältemittel", abstract="Résumé: 制冷剂 " * 40, text="Résumé: 制冷剂 " * 40),
              Paper(id="b", title="", abstract="", text=""),
              Paper(id="c", title="Long", abstract="word " * 20_000, text="word " * 20_000, doi="10.1/x"),
              Paper(id="d", title="Tabs\tand lines", abstract="x\ny", text="x y")]
    packed = pack(papers, document_text)
    assert len(packed) == 4
    assert packed.texts() == partition_texts(papers, document_text)
    assert packed.lines() == "".join(paper_line(p) + "\n" for p in papers).encode("utf-8")
    assert len(pack([], document_text).texts()) == 0


@pytest.mark.slow  # two UMAP fits on 300 papers
@pytest.mark.parametrize("placing", ["neighbours", "transform"])
def test_papers_outside_the_sample_land_with_their_theme(placing):
    from workbench.distributed.topics import fit_sample, place_partition, sample_positions

    rng = random.Random(11)
    themes = list(THEMES)
    truth = np.array([i % len(themes) for i in range(800)])
    X = np.asarray(FakeEmbedder().embed([_abstract(rng, themes[t]) for t in truth]), dtype=np.float32)
    positions = sample_positions(len(X), 300, seed=3)
    fit = fit_sample(X[positions], positions, {"placing": placing}, seed=3)
    assert fit.placing == placing
    if placing == "neighbours":  # the sample's embeddings kept; what only a transform needs not built
        assert fit.embeddings.shape == (300, X.shape[1]) and fit.clusterer._prediction_data is None
    else:
        assert fit.embeddings is None and fit.clusterer._prediction_data is not None
    placed = [place_partition(X[i:i + 200], i, fit) for i in range(0, len(X), 200)]
    labels = np.concatenate([p["labels"] for p in placed])
    coords = np.concatenate([p["coords"] for p in placed])
    reduced = np.concatenate([p["reduced"] for p in placed])
    np.testing.assert_array_equal(coords[positions], fit.coords)  # the sample keeps what it was fitted
    np.testing.assert_array_equal(reduced[positions], fit.reduced)
    rest = np.setdiff1d(np.arange(len(X)), positions)
    for theme in range(len(themes)):  # each theme's papers outside the sample land with the theme's topic
        found = np.bincount(labels[rest][truth[rest] == theme])
        assert found.max() / found.sum() > 0.9, (theme, found)
    # placed among its neighbours: nearer its theme's sample papers on the map than any other theme's
    for theme in range(len(themes)):
        mine = coords[rest][truth[rest] == theme].mean(axis=0)
        centres = np.array([fit.coords[truth[positions] == t].mean(axis=0) for t in range(len(themes))])
        assert np.linalg.norm(centres - mine, axis=1).argmin() == theme


def test_an_unknown_placing_fails_before_any_work(tmp_path):
    from workbench.distributed.pipeline import DaskPlan, build_on_dask
    from workbench.distributed.topics import fit_sample

    with pytest.raises(workbench.errors.InputError, match="placing='elsewhere'; expected one of neighbours, transform"):
        fit_sample(np.zeros((3, 4)), np.arange(3), {"placing": "elsewhere"}, seed=3)
    with pytest.raises(workbench.errors.InputError, match="placing='elsewhere'"):  # before the client is asked anything
        build_on_dask(None, ["nowhere.csv"], tmp_path, text_of=str, embedder=None,
                      plan=DaskPlan(topic_params={"placing": "elsewhere"}))


def test_progress_lines_are_numbered_and_end_with_a_summary():
    from workbench.distributed.pipeline import STAGES, _Clock

    lines = []
    clock = _Clock(lines.append, bars=False)
    for name in ("read", "embed"):
        with clock.stage(name, f"doing {name}"):
            pass
    assert lines[0].startswith(f"dask [1/{len(STAGES)}] doing read ...") and "s into the build" in lines[0]
    assert lines[1].startswith(f"dask [1/{len(STAGES)}] doing read: ") and lines[3].startswith("dask [3/7] doing embed: ")
    assert clock.summary().startswith("dask: built in ") and "read 0s, embed 0s" in clock.summary()


def test_a_long_stage_shows_a_bar_with_the_time_left_on_standard_error(capsys):
    from distributed import Client

    from workbench.distributed.pipeline import _Clock

    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        futures = client.map(lambda x: x * 2, range(5))
        _Clock(print, bars=True).watch(futures, "embedding")
        assert client.gather(futures) == [0, 2, 4, 6, 8]
        _Clock(print, bars=False).watch(futures, "embedding")  # no bar asked for: nothing shown
    out, err = capsys.readouterr()
    assert out == "", "standard output is the build's table"
    bar = err.replace("\r", "\n").strip().splitlines()[-1]
    assert bar.startswith("embedding: 100%") and "5/5" in bar and "partition/s" in bar and "<00:00" in bar, bar


def test_near_identical_titles_in_different_partitions_are_candidates():
    """Rule 3 across partitions: a title block's papers meet after the shuffle, their titles are
    compared there, and only the pairs the single-machine rules join come back."""
    import pandas as pd

    from workbench.dedupe.rules import find_duplicates
    from workbench.distributed.corpus import _groups, _pairs, blocking_keys
    from workbench.corpus.paper import Paper
    from workbench.corpus.ids import paper_id

    def paper(title, year, author, source):
        text = f"{title} was studied in {source} with methods of its own and results of its own, " * 2
        return Paper(id=paper_id(text=text + source, title=title, year=year, author=author), title=title,
                     abstract=text + source, text=text + source, authors=(author,), year=year, source=source)

    first = [paper("Deep learning for protein structure prediction at scale", 2020, "Smith, J.", "scopus.ris"),
             paper("Graph networks for traffic forecasting: part I", 2019, "Lee, K.", "scopus.ris"),
             paper("Attention models of reading in children and adults", 2018, "Kim, H.", "scopus.ris")]
    second = [paper("Deep learning for protein structure predictions at scale.", 2020, "J. Smith", "pubmed.nbib"),
              paper("Graph networks for traffic forecasting: part II", 2019, "Lee, K.", "pubmed.nbib"),
              paper("Attention models of reading in children and adult", 2018, "Park, S.", "pubmed.nbib"),
              paper("Deep learning for protein structure prediction at scales", None, "", "pubmed.nbib")]
    frame = pd.concat([blocking_keys(first, 0), blocking_keys(second, len(first))], ignore_index=True)
    groups = _groups(_pairs(frame.sample(frac=1, random_state=0)))  # (the shuffle's order is any order)
    assert groups == [[0, 3]]  # not part I / part II, not two first authors, not without year or author
    single = [c for c in find_duplicates(first + second).clusters if len(c) > 1]
    assert single == groups  # the same as reading both on one machine


@pytest.mark.slow  # a LocalCluster in threads: ~10 s
def test_a_folder_is_read_one_task_per_file_as_one_machine_reads_it(tmp_path, monkeypatch):
    """A folder source: each file its own task, partitions running on across files, and after
    merging the same papers in the same order and the same report as a single-machine read
    (the duplicates between two files, a file of an unknown type, a file with no records, a
    review folder inside, which is left out). The merges are decided a few groups at a time."""
    from distributed import Client, LocalCluster, get_task_stream

    from workbench.distributed import corpus
    from workbench.distributed.corpus import merge_duplicates, read_partitions
    from workbench.readers import read_sources

    folder = tmp_path / "exports"
    folder.mkdir()
    _corpus(folder)  # a.csv and b.csv: 50 papers of a.csv again in b.csv
    (folder / "notes.xyz").write_text("not an export", encoding="utf-8")
    (folder / "empty.csv").write_text("title,abstract\n", encoding="utf-8")
    (folder / ".hidden.csv").write_text("title,abstract\nA,B\n", encoding="utf-8")  # listed, not read
    (folder / "gone.csv").symlink_to(tmp_path / "nowhere.csv")  # a broken link: listed, not read
    (folder / "old-review").mkdir()
    (folder / "old-review" / "build.json").write_text("{}", encoding="utf-8")
    (folder / "old-review" / "papers.csv").write_text("title,abstract\nA,B\n", encoding="utf-8")
    papers, expected = read_sources([folder])
    monkeypatch.setattr(corpus, "FETCH_EVERY", 16)  # 50 pairs: decided in batches of 8 groups
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as local:
        with Client(local) as client, get_task_stream(client) as stream:
            parts = read_partitions(client, [folder], None, [], partition_size=70)
            assert parts.lengths == [70] * 9 + [20]  # 400 + 250 + 0 papers, a partition across two files
            merged = merge_duplicates(client, parts)
            got = [p for part in client.gather(merged.futures) for p in part]
    assert len({str(t["key"]) for t in stream.data if str(t["key"]).startswith("read-")}) == 4  # one per file
    assert [p.id for p in got] == [p.id for p in papers] and len(got) == 600
    assert got == papers  # the merged records too (their sources, aliases)
    assert merged.report.lines() == expected.lines()
    lines = "\n".join(expected.lines())
    assert all(name in lines for name in ("notes.xyz", ".hidden.csv", "gone.csv")) and expected.skipped_folders


@pytest.mark.parametrize("n_partitions", [1, 7, 21, 70])
def test_the_words_summed_in_a_tree_of_tasks_are_the_words_of_the_whole(n_partitions):
    """The words stage sums the partitions' buckets SUM_EVERY at a time, level over level
    (70 partitions: three levels and leftovers at each), and finds what the whole corpus gives."""
    from distributed import Client

    from workbench.corpus.paper import Paper
    from workbench.distributed.packed import pack
    from workbench.distributed.pipeline import _words
    from workbench.topics import ctfidf_words, topic_term_counts

    rng = random.Random(11)
    texts = [_abstract(rng, theme) for theme in THEMES for _ in range(12)]
    labels = [t % 5 - 1 for t in range(len(texts))]
    order = list(range(len(texts)))
    rng.shuffle(order)
    cuts = np.array_split(np.array(order), n_partitions)
    with Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as client:
        papers = client.scatter([pack([Paper(id=str(i), title="", abstract=texts[i], text=texts[i]) for i in cut],
                                      text_of=lambda p: p.text) for cut in cuts])
        placed = client.scatter([{"labels": np.array([labels[i] for i in cut])} for cut in cuts])
        renumber = {-1: -1, 0: 3, 1: 2, 2: 1, 3: 0}  # as the build renumbers topics by size
        words = _words(client, papers, placed, renumber, top_n_words=6)
    expected = ctfidf_words(topic_term_counts(texts, [renumber[t] for t in labels]), top_n_words=6)
    assert words == expected and len(words) == 5


def test_a_dask_address_that_is_not_one_is_a_clear_error(tmp_path):
    from workbench.distributed import dask_client
    from workbench.errors import InputError

    with pytest.raises(InputError, match="'garbage' is not a scheduler address.*tcp://scheduler:8786"):
        with dask_client("garbage"):
            pass
    source = tmp_path / "one.csv"
    source.write_text("title,abstract\nOn proteins,Protein folding and binding.\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "workbench.cli", "build", str(source), "--review",
                             str(tmp_path / "r"), "--embedder", "fake", "--dask", "garbage"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1 and "this is a bug" not in result.stderr
    assert "is not a scheduler address" in result.stderr and not (tmp_path / "r").exists()


def test_candidates_are_the_papers_a_rule_can_join_and_not_those_sharing_only_a_title():
    """Each blocking key stands for a rule: papers whose only likeness is a title no rule joins
    them by (long, different abstracts and no year or first author: the generated corpora's
    titles cut from their abstracts) are not candidates; every pair the single-machine rules
    join is one, across partitions."""
    import pandas as pd

    from workbench.corpus.ids import paper_id
    from workbench.corpus.paper import Paper
    from workbench.dedupe.rules import find_duplicates
    from workbench.distributed.corpus import _groups, _pairs, blocking_keys

    def paper(title, text, source, year=None, author="", doi=None):
        return Paper(id=paper_id(doi=doi, text=text, title=title, year=year, author=author), title=title,
                     abstract=text, text=text, authors=(author,) if author else (), year=year, doi=doi, source=source)

    rng = random.Random(5)
    long_text = lambda: " ".join(rng.choice(["cells", "protein", "binding", "assay", "mice", "dose"]) for _ in range(40))
    shared = "Protein binding in mice was measured by a new assay at several doses"  # a title cut from an abstract
    first = [paper(shared, long_text(), "a.csv"),                                      # 0: not joined (no year, author)
             paper("Short abstracts of one paper", "Binding in mice.", "a.csv"),       # 1: = 7 (title and short abstract)
             paper("A paper without its abstract", "", "a.csv", year=2001),            # 2: = 8 (title, year: its id)
             paper(shared, long_text(), "a.csv", year=2010),                           # 3: = 9 (rule 3: same year)
             paper("Other", long_text(), "a.csv", doi="10.1/x"),                        # 4: = 10 (DOI)
             paper("Long one", "cells " * 30, "a.csv")]                                # 5: = 11 (same long abstract)
    second = [paper(shared, long_text(), "b.csv"),                                     # 6: not joined
              paper("Short abstracts of one paper", "Binding in mice.", "b.csv"),
              paper("A paper without its abstract", "", "b.csv", year=2001),
              paper(shared + ".", long_text(), "b.csv", year=2010),
              paper("Yet another", long_text(), "b.csv", doi="10.1/x"),
              paper("Long two", "Cells, " * 30, "b.csv"),
              paper("Short abstracts of one paper", "Binding in rats.", "b.csv")]      # 12: not joined
    frame = pd.concat([blocking_keys(first, 0), blocking_keys(second, len(first))], ignore_index=True)
    groups = _groups(_pairs(frame.sample(frac=1, random_state=1)))
    single = [c for c in find_duplicates(first + second).clusters if len(c) > 1]
    assert groups == single == [[1, 7], [2, 8], [3, 9], [4, 10], [5, 11]]


def test_a_year_of_0_is_a_year_across_partitions_as_on_one_machine():
    """Rule 3 reads a year as the single-machine rules do: 0 is a year (two papers of year 0
    agree on it), only None is none; a paper built by hand may carry 0."""
    import pandas as pd

    from workbench.corpus.ids import paper_id
    from workbench.corpus.paper import Paper
    from workbench.dedupe.rules import find_duplicates
    from workbench.distributed.corpus import _groups, _pairs, blocking_keys

    def paper(title, year, source):
        text = f"{title} was studied in {source} with methods of its own and results of its own, " * 2
        return Paper(id=paper_id(text=text, title=title, year=year), title=title, abstract=text, text=text,
                     year=year, source=source)

    first = [paper("Deep learning for protein structure prediction at scale", 0, "a.csv"),
             paper("Graph networks for traffic forecasting in large cities", None, "a.csv")]
    second = [paper("Deep learning for protein structure predictions at scale", 0, "b.csv"),
              paper("Graph networks for traffic forecasting in large city", None, "b.csv")]
    frame = pd.concat([blocking_keys(first, 0), blocking_keys(second, len(first))], ignore_index=True)
    groups = _groups(_pairs(frame.sample(frac=1, random_state=0)))
    single = [c for c in find_duplicates(first + second).clusters if len(c) > 1]
    assert groups == single == [[0, 2]]  # the same year 0; no year and no first author: not joined
