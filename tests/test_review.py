"""The review folder: what a build writes, reopening it, refits, and repeatable builds."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import workbench
from workbench.errors import ReviewError

from conftest import ROOT, write_seed_file


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    path = tmp_path_factory.mktemp("review")
    return workbench.build([ROOT / "seeds"], review=path, embedder="fake", seed=42)


def test_build_writes_every_part_of_the_review(built):
    names = {p.name for p in built.path.iterdir()}
    assert {"annotations.sqlite", "generations", "map.html", "cache"} <= names
    assert {p.name for p in built.files.iterdir()} == {"build.json", "papers.jsonl", "topics.json", "map.csv", "arrays.safetensors", "model"}
    assert built.files.parent == built.path / "generations"
    assert (built.path / "cache" / "embeddings.sqlite").stat().st_size > 0
    model_files = {p.name for p in (built.files / "model").iterdir()}
    assert {"topic_embeddings.safetensors", "ctfidf.safetensors", "topics.json", "config.json"} <= model_files
    pickles = [p for p in built.path.rglob("*") if p.suffix in (".pkl", ".pickle", ".bin", ".joblib")]
    assert pickles == [], "nothing is pickled"
    manifest = json.loads((built.files / "build.json").read_text())
    assert manifest["n_papers"] == 133 and manifest["seed"] == 42
    assert manifest["embedder"]["name"] == "fake"
    assert set(manifest["timings"]) == {"read", "texts", "embed", "topics", "map"}
    assert set(built.manifest["timings"]) == {"read", "texts", "embed", "topics", "map", "write"}


def test_html_map_is_self_contained_and_lists_every_paper(built):
    html = (built.path / "map.html").read_text(encoding="utf-8")
    assert "plotly" in html and "<script src=\"http" not in html, "works offline: plotly is inlined"
    for paper in built.papers[:5]:
        assert paper.id in html


def test_open_review_gives_back_the_same_tables(built):
    again = workbench.open_review(built.path)
    assert len(again) == 133
    np.testing.assert_array_equal(again.labels, built.labels)
    np.testing.assert_allclose(again.coords, built.coords, atol=1e-4)
    frame = again.papers_frame()
    assert list(frame.columns) == ["id", "title", "authors", "year", "collection", "source", "topic", "topic_label", "x", "y"]
    assert frame.id.is_unique
    assert list(again.topics_frame().columns) == ["topic", "label", "size", "words"]
    assert again.topics_frame()["size"].sum() == 133


def test_papers_file_writes_the_clean_text_only_where_it_differs_and_reads_both_forms(built, tmp_path):
    records = [json.loads(line) for line in (built.files / "papers.jsonl").read_text(encoding="utf-8").splitlines()]
    whole = list(built.papers_with_texts())
    by_id = {p.id: p for p in whole}
    for record in records:
        assert ("text" in record) == (by_id[record["id"]].text != by_id[record["id"]].abstract)
    again = workbench.open_review(built.path)
    assert again.papers == built.papers and list(again.papers_with_texts()) == whole
    # a review written before the text was left out (every record has it) reads the same
    import shutil

    old = tmp_path / "old"
    shutil.copytree(built.path, old)
    (old / built.files.relative_to(built.path) / "papers.jsonl").write_text("".join(json.dumps(p.to_dict()) + "\n" for p in whole), encoding="utf-8")
    manifest = old / built.files.relative_to(built.path) / "build.json"  # and its build.json: no record of sizes
    manifest.write_text(json.dumps({k: v for k, v in json.loads(manifest.read_text()).items() if k != "files"}))
    older = workbench.open_review(old)
    assert older.papers == built.papers and list(older.papers_with_texts()) == whole


def test_an_opened_review_reads_abstracts_from_its_file_only_when_asked(built, tmp_path):
    import pickle
    import shutil

    from workbench.corpus.paper import Paper, PaperInfo
    from workbench.corpus.texts import TextsInFile

    copy = tmp_path / "copy"
    shutil.copytree(built.path, copy)
    review = workbench.open_review(copy)
    info, original = review.papers[7], built.paper(built.papers[7].id)
    assert type(info) is PaperInfo and not hasattr(info, "abstract") and not hasattr(info, "text"), "left in papers.jsonl"
    assert isinstance(review.paper_texts, TextsInFile) and info == built.papers[7]
    paper = review.paper(info.id)  # asked for: read from its line
    assert type(paper) is Paper and (paper.abstract, paper.text) == (original.abstract, original.text)
    assert review.paper_texts.pair(7) == (original.abstract, original.text) and paper.info() == info
    assert paper == original and hash(paper) == hash(original) and paper.to_dict() == original.to_dict()
    assert paper.replace(title="x").abstract == original.abstract
    assert paper.replace(abstract="new").abstract == "new" and paper.replace(abstract="new").text == original.text
    sent = pickle.loads(pickle.dumps(paper))  # to a Dask worker or a process pool: the texts go with it
    assert sent == original
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        paper.nonsense  # noqa: B018
    # The generation pruned (or the whole review removed) after opening: the open file still reads.
    shutil.rmtree(copy)
    assert [p.abstract for p in review.papers_with_texts()] == [p.abstract for p in built.papers_with_texts()]
    assert review.paper(info.id) == original
    # A file rewritten under an open review is never read as another paper's text.
    shutil.copytree(built.path, copy)
    review = workbench.open_review(copy)
    lines = (review.files / "papers.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    with open(review.files / "papers.jsonl", "r+", encoding="utf-8") as rewritten:  # in place, same inode
        rewritten.write("".join(reversed(lines)))
    with pytest.raises(ReviewError, match="changed on disk after the review was opened.*open the review again"):
        review.paper(review.papers[0].id)
    with pytest.raises(ReviewError, match="changed on disk after the review was opened.*open the review again"):
        list(review.papers_with_texts())


def test_the_starts_of_the_texts_a_map_shows_are_kept_for_the_next_kernel(built, tmp_path, monkeypatch):
    """Each paper's text cut after a word (what a map's tooltip shows): made from the texts the
    first time, then read back by the digest of the papers file, without reading every text."""
    import shutil

    from workbench.corpus.texts import TextsInFile, shorten

    copy = tmp_path / "copy"
    shutil.copytree(built.path, copy)
    expected = [shorten(p.text) for p in built.papers_with_texts()]
    assert built.text_starts() == expected  # texts in memory: made, nothing kept
    assert workbench.open_review(copy).text_starts() == expected
    assert len(list((copy / "cache" / "text-starts").glob("*.json"))) == 1
    monkeypatch.setattr(TextsInFile, "__iter__", lambda self: pytest.fail("every text read"))
    assert workbench.open_review(copy).text_starts() == expected
    monkeypatch.undo()
    assert workbench.open_review(copy).text_starts(width=80) != expected  # another width: made again
    assert len(list((copy / "cache" / "text-starts").glob("*.json"))) == 1  # the latest kept


def test_the_papers_files_digest_is_kept_until_the_file_is_written_again(built, tmp_path, monkeypatch):
    """A new kernel finds what was made from every text by the papers file's digest without
    reading the file again (kept by its place, size, time and inode); a file written again (or
    a copied review) is read and digested again."""
    import os
    import shutil

    from workbench.review import _text

    copy = tmp_path / "copy"
    shutil.copytree(built.path, copy)
    first = workbench.open_review(copy).texts_digest()
    assert len(list((copy / "cache" / "texts-digest").glob("*.txt"))) == 1
    monkeypatch.setattr(_text, "file_digest", lambda source: pytest.fail("the papers file read again"))
    assert workbench.open_review(copy).texts_digest() == first
    monkeypatch.undo()
    review = workbench.open_review(copy)
    papers = review.paper_texts.file_of(review.papers)
    data = papers.read_bytes()
    os.unlink(papers)
    papers.write_bytes(data.replace(b"a", b"e", 1))  # another file: another inode, time and digest
    second = workbench.open_review(copy).texts_digest()
    assert second != first and second == _text.file_digest(papers)
    assert len(list((copy / "cache" / "texts-digest").glob("*.txt"))) == 1  # the latest kept


def test_a_build_keeps_what_a_new_kernel_makes_from_every_text(built, monkeypatch):
    """The build writes the texts' starts and the embeddings in the papers' order from what it
    holds in memory, under the digest of the papers file a new kernel reads: the first map or
    search after a build reads no text and looks no embedding up by text."""
    from workbench.corpus.texts import TextsInFile, shorten
    from workbench.review import Review

    expected = [shorten(p.text) for p in built.papers_with_texts()]
    vectors = np.asarray(built.embeddings())
    monkeypatch.setattr(TextsInFile, "__iter__", lambda self: pytest.fail("every text read"))
    monkeypatch.setattr(Review, "texts", lambda self: pytest.fail("every text made"))
    opened = workbench.open_review(built.path)
    assert opened.text_starts() == expected
    assert np.array_equal(opened.embeddings(), vectors)
    digest = opened.texts_digest()
    assert [f.name for f in (built.path / "cache" / "text-starts").iterdir()] == [f"{digest}-260.json"]
    written = (built.path / "cache" / "text-starts" / f"{digest}-260.json").read_text(encoding="utf-8")
    assert written == json.dumps(expected, ensure_ascii=False)  # (written one text at a time: the same JSON)
    assert [f.name.split("-")[0] for f in (built.path / "cache" / "embeddings-rows").iterdir()] == [digest]


def test_papers_read_whole_from_one_file_are_saved_by_linking_it_and_only_then(built, tmp_path):
    """A Dask build's driver reads its papers back from the lines the workers made; the save
    links that file rather than writing a million lines again, but only while it is exactly them."""
    import shutil

    import os
    from types import SimpleNamespace

    from workbench.review._folder import WRITE_STEPS
    from workbench.corpus.texts import read_papers

    lines = tmp_path / "lines.jsonl"
    shutil.copyfile(built.files / "papers.jsonl", lines)
    papers, texts = read_papers(lines)
    assert texts.file_of(papers) == lines
    assert texts.file_of(papers[:-1]) is None, "one left out"
    assert texts.file_of([*papers[:3], papers[3].replace(title="changed"), *papers[4:]]) is None, "one replaced"
    assert texts.file_of(list(reversed(papers))) is None, "another order"
    assert texts.file_of(list(papers)) == lines, "the same papers in another list"
    assert built.paper_texts.file_of(built.papers) is None, "made in memory"
    staging = tmp_path / "generation"
    staging.mkdir()
    write_papers = WRITE_STEPS[0]  # the step of a save that writes papers.jsonl
    assert write_papers.__name__ == "_write_papers"
    review = SimpleNamespace(papers=papers, paper_texts=texts, papers_with_texts=lambda: texts.papers(papers))
    write_papers(staging, review, None, None)
    assert os.stat(staging / "papers.jsonl").st_ino == os.stat(lines).st_ino, "linked, not written again"
    with open(lines, "a", encoding="utf-8") as grown:  # a file changed since: written, not linked
        grown.write("\n")
    assert texts.file_of(papers) is None
    (staging / "papers.jsonl").unlink()
    write_papers(staging, review, None, None)
    assert os.stat(staging / "papers.jsonl").st_ino != os.stat(lines).st_ino
    assert (staging / "papers.jsonl").read_bytes() == (built.files / "papers.jsonl").read_bytes(), "the same lines"


def test_refit_in_the_same_process_uses_cached_embeddings(built):
    review = workbench.open_review(built.path)
    before = int((review.topics.topic >= 0).sum())
    review = workbench.refit(review, min_cluster_size=20)
    after = int((review.topics.topic >= 0).sum())
    assert after < before
    assert review.manifest["topic_params"]["min_cluster_size"] == 20
    assert workbench.open_review(built.path).topics.equals(built.topics), "refit without save leaves the folder alone"


def test_a_refit_or_themes_in_the_same_process_reuse_the_graph_and_words_of_the_fit_before(tmp_path, monkeypatch):
    from workbench.space.neighbors import NeighbourGraph
    from workbench.topics.terms import DocumentTerms

    review = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="fake", seed=5)
    graph, terms = review.model.graph_, review.model.terms_
    assert graph is not None and terms is not None

    def computed(*args, **kwargs):
        raise AssertionError("computed again")

    monkeypatch.setattr(NeighbourGraph, "of", computed)
    monkeypatch.setattr(DocumentTerms, "__init__", computed)
    review = workbench.refit(review, min_cluster_size=10)
    review = workbench.show_themes(review, 3)
    review = workbench.refit(review)
    assert review.model.graph_ is graph and review.model.terms_ is terms
    monkeypatch.undo()
    reopened = workbench.open_review(review.path)  # opened: nothing of this process's fits
    reopened = workbench.refit(reopened, **review.manifest["topic_params"])  # (the last refit's: 3 themes kept)
    assert reopened.model.graph_ is not graph and reopened.model.terms_ is not terms
    np.testing.assert_array_equal(reopened.labels, review.labels)


def test_refit_with_save_writes_the_new_topics(tmp_path):
    review = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="fake")
    review = workbench.refit(review, min_cluster_size=25, save=True)
    reopened = workbench.open_review(tmp_path / "r")
    assert reopened.topics.equals(review.topics)
    np.testing.assert_array_equal(reopened.labels, review.labels)


def test_a_review_built_by_an_older_workbench_refits_with_todays_parameters(tmp_path):
    review = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="fake", seed=3)
    manifest = json.loads((review.files / "build.json").read_text())
    manifest["topic_params"]["merge_distance"] = 0.7  # replaced by merge_variance
    (review.files / "build.json").write_text(json.dumps(manifest))
    old = workbench.open_review(review.path)
    old = workbench.refit(old)
    assert "merge_distance" not in old.manifest["topic_params"]
    assert old.manifest["topic_params"]["seed"] == 3
    np.testing.assert_array_equal(old.labels, review.labels)
    assert set(old.topic_stability(seeds=(1,)).columns) == {"topic", "label", "size", "stability"}


def _build_in_subprocess(review: Path, seed: int) -> None:
    code = f"import workbench; workbench.build([{str(ROOT / 'seeds')!r}], review={str(review)!r}, embedder='fake', seed={seed})"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=600)


@pytest.mark.long
def test_same_seed_same_files_across_processes(tmp_path):
    _build_in_subprocess(tmp_path / "a", 7)
    _build_in_subprocess(tmp_path / "b", 7)
    a, b = workbench.open_review(tmp_path / "a").files, workbench.open_review(tmp_path / "b").files
    for name in ("map.csv", "topics.json", "papers.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_a_small_corpus_builds_and_says_it_fell_back(tmp_path):
    src = write_seed_file(tmp_path / "five.txt", [f"Paper {i} studies agents and memory and planning number {i}." for i in range(5)])
    review = workbench.build([src], review=tmp_path / "r", embedder="fake")
    assert len(review) == 5
    assert "too few" in review.manifest["topics"]["note"]
    assert review.manifest["map"]["method"] == "pca"


def test_opening_a_folder_that_is_not_a_review_says_what_to_do(tmp_path):
    with pytest.raises(ReviewError, match="run `workbench build --review"):
        workbench.open_review(tmp_path)
    (tmp_path / "build.json").write_text("{}")
    with pytest.raises(ReviewError, match="incomplete or damaged"):
        workbench.open_review(tmp_path)


def test_a_failed_build_leaves_the_previous_review_intact(tmp_path, built):
    review = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="fake")
    before = (review.files / "map.csv").read_bytes()
    with pytest.raises(workbench.ReaderError):
        workbench.build([tmp_path / "missing.bib"], review=tmp_path / "r", embedder="fake")
    assert (workbench.open_review(tmp_path / "r").files / "map.csv").read_bytes() == before
    assert len(workbench.open_review(tmp_path / "r")) == len(review)


def test_annotations_and_topic_names_survive_a_rebuild_with_another_seed(tmp_path):
    review = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="fake", seed=1)
    first = review.papers[0]
    topic = int(review.labels[0])
    with review.store(reviewer="ana") as store:
        store.tags.add(first.id, "must-read")
        store.notes.add(first.id, "compare with the RLHF survey")
        store.topics.rename(topic, "My own topic name")
    assert workbench.open_review(tmp_path / "r").topic_labels()[topic] == "My own topic name"

    again = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="tfidf", seed=2)
    assert again.build_report.topics.previous_run is not None
    assert "My own topic name" in set(again.topics.label), "the human name is carried to the matching topic"
    with again.store() as store:
        assert store.tags.of(first.id) == ["must-read"]
        assert [n.text for n in store.notes.of(first.id)] == ["compare with the RLHF survey"]


def test_a_paper_that_leaves_the_corpus_is_orphaned_not_deleted(tmp_path):
    texts = [f"Abstract {i}: agents plan with memory and tools in long horizon tasks, variant {i}." for i in range(6)]
    src = write_seed_file(tmp_path / "src.txt", texts)
    review = workbench.build([src], review=tmp_path / "r", embedder="fake")
    gone = review.papers[-1].id
    with review.store() as store:
        store.tags.add(gone, "keep")
    write_seed_file(src, texts[:-1])
    rebuilt = workbench.build([src], review=tmp_path / "r", embedder="fake")
    assert gone in rebuilt.build_report.sync.orphaned
    with rebuilt.store() as store:
        assert store.tags.of(gone) == ["keep"]


def test_annotations_follow_a_paper_when_an_export_brings_its_doi(tmp_path):
    abstracts = [
        f"Study {i} of agents that plan with memory and tools over long horizons, measured on web tasks,"
        f" household tasks and code tasks with several baselines, case {i}."
        for i in range(6)
    ]
    seeds = write_seed_file(tmp_path / "seeds.txt", abstracts)
    review = workbench.build([seeds], review=tmp_path / "r", embedder="fake")
    old_id = review.papers[2].id
    with review.store(reviewer="ana") as store:
        store.tags.add(old_id, "key-paper")
        store.notes.add(old_id, "read first")
        store.decisions.decide(old_id, "include")
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{k, title={Study 2 of agents}, author={Doe, Jane}, year={2024}, doi={10.1234/study.2},\n"
        f" abstract={{{abstracts[2]}}}}}\n",
        encoding="utf-8",
    )
    rebuilt = workbench.build([seeds, bib], review=tmp_path / "r", embedder="fake")
    new = next(p for p in rebuilt.papers if p.doi == "10.1234/study.2")
    assert new.id != old_id and old_id in new.aliases
    assert rebuilt.build_report.sync.carried_over == ((old_id, new.id),)
    with rebuilt.store(reviewer="ana") as store:
        assert store.tags.of(new.id) == ["key-paper"] and store.tags.of(old_id) == []
        assert [n.text for n in store.notes.of(new.id)] == ["read first"]
        assert store.decisions.of(new.id).decision == "include"
        assert old_id not in store.orphaned()
    # The BibTeX alone (seeds gone) still finds the annotations: its content id is an alias.
    alone = workbench.build([bib], review=tmp_path / "r2", embedder="fake")
    assert alone.papers[0].aliases == (old_id,)


def test_show_themes_cuts_the_kept_hdbscan_topics_without_umap(tmp_path):
    review = workbench.build([ROOT / "seeds"], review=tmp_path / "r", embedder="fake", seed=5)
    reopened = workbench.open_review(tmp_path / "r")
    np.testing.assert_array_equal(reopened.fine_labels, review.model.fine_labels_)
    reopened = workbench.show_themes(reopened, 3)
    assert "umap" not in reopened.model.timings_ and "hdbscan" not in reopened.model.timings_
    assert int((reopened.topics.topic >= 0).sum()) == 3
    refitted = workbench.refit(workbench.open_review(tmp_path / "r"), nr_topics=3)
    np.testing.assert_array_equal(reopened.labels, refitted.labels)
    assert list(reopened.topics.label) == list(refitted.topics.label)
    reopened = workbench.show_themes(reopened, None, save=True)
    np.testing.assert_array_equal(workbench.open_review(tmp_path / "r").labels, review.labels)
    # a review built before HDBSCAN's topics were kept is refitted instead
    old = workbench.open_review(tmp_path / "r")
    old.fine_labels = None
    old = workbench.show_themes(old, 3)
    assert "umap" in old.model.timings_ and int((old.topics.topic >= 0).sum()) == 3
    with pytest.raises(workbench.errors.InputError, match="0 themes"):
        old = workbench.show_themes(old, 0)


def _old_normalise_for_id(text: str) -> str:
    """A copy of the id normalisation reviews were built with before every script counted."""
    import re
    import unicodedata

    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _old_paper_id(*, doi=None, arxiv_id=None, pmid=None, text="", title="", year=None, author="") -> str:
    """A copy of the old ``records.paper_id``: the same keys, the old normalisation, no author."""
    import hashlib

    if doi:
        key = "doi:" + doi
    elif arxiv_id:
        key = "arxiv:" + arxiv_id
    elif pmid:
        key = "pmid:" + str(pmid).strip()
    elif text and (normalised := _old_normalise_for_id(text)):
        key = "text:" + normalised
    else:
        key = f"title:{_old_normalise_for_id(title)}:{year or ''}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


def _old_paper_ids(*, doi=None, arxiv_id=None, pmid=None, text="", title="", year=None, author="", normalised=None):
    """The old id and aliases of a record: its id, and its content id when a DOI made the id."""
    pid = _old_paper_id(doi=doi, arxiv_id=arxiv_id, pmid=pmid, text=text, title=title, year=year)
    content = _old_paper_id(text=text, title=title, year=year)
    return pid, (() if content == pid else (content,))


def test_annotations_of_a_review_built_with_the_old_ids_stay_on_their_papers(tmp_path, monkeypatch):
    """A review built while ids kept only [a-z0-9] (accents stripped, other scripts dropped),
    hashed a short abstract without its title and a title without its first author, annotated,
    then rebuilt with today's ids: every tag, note and decision is on its paper."""
    from workbench.dedupe import rules as dedupe
    from workbench.readers import cache as record_cache, fields, seeds as seed_reader

    abstracts = [
        "Étude des modèles de langue pour l'évaluation automatique des résumés scientifiques en français.",
        "The α-β pruning of game trees is revisited for Monte Carlo tree search with learned value functions.",
        "Plain English abstract about reward models for agents, compared on three benchmarks in detail.",
        "本文提出一种基于强化学习的机器人导航方法，在三个仿真环境中显著提高了成功率。",
        "我们构建了一个大规模中文医学问答数据集，并评估了多种语言模型在该数据集上的表现。",
    ]
    seeds = write_seed_file(tmp_path / "seeds.txt", abstracts)
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{a, title={Über die Größe neuronaler Netze}, year={2020}}\n"
                   "@article{b, title={Πλοήγηση ρομπότ με ενισχυτική μάθηση}, year={2021}}\n"
                   "@article{c, title={A note whose abstract is short}, abstract={Editorial comment.}}\n"
                   "@article{d, author={Cesar, Jean}, title={An amazing title}, year={2013}}\n"
                   "@article{e, author={Baltazar, Jean}, title={An amazing title}, year={2013}}\n",
                   encoding="utf-8")
    for module in (fields, seed_reader):
        monkeypatch.setattr(module, "paper_ids", _old_paper_ids)
    monkeypatch.setattr(dedupe, "paper_id", _old_paper_id)
    monkeypatch.setattr(record_cache, "__version__", "0.1")  # an older workbench: its records are not today's
    old = workbench.build([seeds, bib], review=tmp_path / "r", embedder="fake")
    # the old ids: the two Chinese abstracts were one paper (both normalised to nothing), and so
    # were the two "An amazing title" of 2013 by two authors
    assert len(old.papers) == 8 and [len(p.sources) for p in old.papers] == [1, 1, 1, 2, 1, 1, 1, 2]
    with old.store(reviewer="ana") as store:
        for i, p in enumerate(old.papers):
            store.tags.add(p.id, f"tag-{i}")
            store.notes.add(p.id, f"note {i}")
            store.decisions.decide(p.id, "include" if i % 2 else "exclude", reason=f"reason {i}")
    monkeypatch.undo()

    new = workbench.build([seeds, bib], review=tmp_path / "r", embedder="fake")
    assert len(new.papers) == 10
    by_source = {p.sources[0]: p for p in new.papers}
    changed = 0
    with new.store(reviewer="ana") as store:
        for i, p in enumerate(old.papers):
            now = by_source[p.sources[0]]  # the paper that first record belongs to today
            changed += now.id != p.id
            assert store.tags.of(now.id) == [f"tag-{i}"], p.title
            assert [n.text for n in store.notes.of(now.id)] == [f"note {i}"], p.title
            decision = store.decisions.of(now.id)
            assert (decision.decision, decision.reason) == ("include" if i % 2 else "exclude", f"reason {i}")
        assert store.orphaned() == []
        for merged in (old.papers[3], old.papers[7]):  # the old paper's annotations went to its first record
            assert store.tags.of(by_source[merged.sources[1]].id) == []
    assert changed == 7  # all but the long ASCII abstract got a new id
    assert len(new.build_report.sync.carried_over) == 7


def test_a_huge_abstract_is_cut_for_embedding_and_topic_words_and_the_model_does_not_grow(tmp_path):
    """A full text pasted into an abstract field: the build warns, the record keeps every
    character up to a million (WORKBENCH_MAX_FIELD_CHARS; the rest is cut before cleaning),
    and model/ is the same size for 200,000 characters as for 2,000,000."""
    import csv
    import random

    rng = random.Random(0)
    head = " ".join(f"term{rng.randrange(10**6)}" for _ in range(3000))  # 35,000 characters
    sizes = {}
    for n_chars in (200_000, 2_000_000):
        tail = " ".join(f"other{rng.randrange(10**9)}" for _ in range(n_chars // 14))
        huge = (head + " " + tail)[:n_chars]
        src = tmp_path / f"huge_{n_chars}.csv"
        with open(src, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["title", "abstract"])
            writer.writerows([(f"Paper {i}", f"Agents plan with memory and tools, case {i}.") for i in range(12)])
            writer.writerow(["The huge one", huge])
        review = workbench.build([src], review=tmp_path / f"r{n_chars}", embedder="fake")
        said = (f":14: the abstract has {n_chars:,} characters; embedding and topic words use its first 20,000"
                if n_chars <= 1_000_000 else
                f":14: a value has {n_chars:,} characters, more than a value may hold: the record keeps its "
                "first 1,000,000 (WORKBENCH_MAX_FIELD_CHARS sets the limit), and embedding and topic words its first "
                "20,000")
        assert any(said in w for w in review.build_report.read.files[0].warnings)
        kept = max(len(p.abstract) for p in workbench.open_review(review.path).papers_with_texts())
        assert kept == min(n_chars, 1_000_000)
        sizes[n_chars] = sum(f.stat().st_size for f in (review.path / "model").rglob("*") if f.is_file())
    assert sizes[200_000] == sizes[2_000_000] < 200_000
