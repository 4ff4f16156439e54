"""The seed text dumps: counts, authors, collections, clean text, stable ids."""

import random
import re
import shutil
from collections import Counter

import pytest

from workbench import read_file, read_sources
from workbench.errors import ReaderError

from conftest import write_seed_file

AUTHOR_PAGE = "000_190025daee690182.txt"
FEED = "003_b7a42b67bb98ef1d.txt"


def test_seed_counts_authors_and_collections(seeds_dir):
    papers, report = read_sources([seeds_dir])
    assert len(papers) == 133
    assert Counter(p.collection for p in papers) == {"Senjie Jin": 13, "Daily Papers": 120}
    with_authors = [p for p in papers if p.authors]
    assert len(with_authors) == 13
    assert all(p.collection == "Senjie Jin" for p in with_authors)
    assert [f.read for f in report.files] == [13, 120]


def test_author_lines_become_author_lists_with_an_et_al_flag(seeds_dir):
    papers = read_file(seeds_dir / AUTHOR_PAGE)
    first = papers[0]
    assert first.authors == ("Zhiheng Xi", "Wenxiang Chen", "Xin Guo")
    assert first.et_al is True
    assert all("et al" not in a for p in papers for a in p.authors)
    assert first.abstract.startswith("For a long time, humanity has pursued")
    assert first.source.endswith(f"{AUTHOR_PAGE}:3")


def test_latex_is_gone_from_clean_text_and_titles(seeds_dir):
    papers, _ = read_sources([seeds_dir])
    raw_latex = [p for p in papers if re.search(r"\\[a-zA-Z]+|\$", p.abstract)]
    assert len(raw_latex) >= 3, "the seeds carry LaTeX (\\textbf, R$^3$, $75\\%$)"
    for p in papers:
        for field in (p.text, p.title):
            # A dollar sign stays when it means money (\$0.60 -> $0.60); math delimiters go.
            assert not re.search(r"\\[a-zA-Z$%]+|\$[^$\s]{1,40}\$|[{}]", field), field[:120]
    rlhf = next(p for p in papers if "textbf{reward models}" in p.abstract)
    assert "reward models to measure human preferences" in rlhf.text
    r3 = next(p for p in papers if "R$^3$" in p.abstract)
    assert r3.title.startswith("R³:")
    assert any("75%" in p.text for p in papers if "75\\%" in p.abstract)


def test_titles_are_short_and_readable(seeds_dir):
    papers, _ = read_sources([seeds_dir])
    titles = {p.title for p in papers}
    assert len(titles) == 133
    assert all(5 <= len(t) <= 90 for t in titles)
    assert "TRACE: a novel benchmark designed to evaluate continual learning in LLMs" in titles
    named = [t for t in titles if re.match(r"^[A-Z][\w\-²³]+(?: [A-Z\w\-]+)?(?: \([\w\-]+\))?: ", t)]
    assert len(named) >= 40, "abstracts that introduce a named system get it as the title"


def test_ids_are_stable_across_reread_move_and_reorder(seeds_dir, tmp_path):
    first = {p.id: p.text for p in read_sources([seeds_dir])[0]}
    assert len(first) == 133
    assert {p.id for p in read_sources([seeds_dir])[0]} == set(first)

    moved = tmp_path / "elsewhere" / "renamed.txt"
    moved.parent.mkdir()
    shutil.copy(seeds_dir / FEED, moved)
    assert {p.id for p in read_file(moved)} <= set(first)

    # Reorder the feed's abstracts and rewrap whitespace: ids do not move.
    text = (seeds_dir / FEED).read_text(encoding="utf-8")
    head, *paras = [p for p in re.split(r"\n\s*\n", text) if p.strip()]
    random.Random(7).shuffle(paras)
    shuffled = tmp_path / "shuffled.txt"
    shuffled.write_text(head + "\n\n" + "\n\n".join(p.replace(" ", "  ") for p in paras) + "\n", encoding="utf-8")
    assert {p.id for p in read_file(shuffled)} == {p.id for p in read_file(seeds_dir / FEED)}


def test_crlf_and_a_bom_read_the_same(seeds_dir, tmp_path):
    raw = (seeds_dir / AUTHOR_PAGE).read_text(encoding="utf-8")
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"\xef\xbb\xbf" + raw.replace("\n", "\r\n").encode("utf-8"))
    assert [p.id for p in read_file(crlf)] == [p.id for p in read_file(seeds_dir / AUTHOR_PAGE)]
    assert read_file(crlf)[0].collection == "Senjie Jin"


def test_duplicate_abstracts_across_files_merge_and_keep_both_sources(tmp_path):
    a = write_seed_file(tmp_path / "a.txt", ["An abstract about agents that plan and act in the world. " * 5])
    b = write_seed_file(tmp_path / "b.txt", ["An abstract about agents that plan and act in the world. " * 5], "Other")
    papers, report = read_sources([a, b])
    assert len(papers) == 1
    assert len(papers[0].sources) == 2
    assert report.files[1].merged == 1


def test_empty_and_missing_files_are_clear_errors(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(ReaderError, match=r"empty\.txt.*empty"):
        read_sources([empty])
    with pytest.raises(ReaderError, match="no such file or folder"):
        read_sources([tmp_path / "missing.txt"])
