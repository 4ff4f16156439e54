"""The notebooks: thin, committed without outputs, and run headlessly with papermill
parameters; a scripted action goes through the same handlers a click uses and lands on disk."""

import json
import shutil
import re
import time

import nbformat
import pytest

import workbench
from workbench.cli.notebooks import NOTEBOOKS, run_notebooks
from workbench.store import Store

from conftest import ROOT, stderr_outputs

NB_DIR = ROOT / "notebooks"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebooks_are_thin_and_have_no_outputs(name):
    nb = nbformat.read(NB_DIR / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1
    source = "\n".join(c.source for c in code)
    assert not re.search(r"^\s*(def|class)\s", source, re.M)
    imports = {m for m in re.findall(r"^(?:from|import) ([\w.]+)", source, re.M)}
    assert imports <= {"workbench", "workbench.widgets", "IPython.display"}, imports


@pytest.fixture(scope="module")
def review(tmp_path_factory):
    path = tmp_path_factory.mktemp("nb") / "review"
    workbench.build([ROOT / "seeds"], review=path, embedder="fake", seed=42)
    return path


SCRIPTED = {"01_explore.ipynb": {"actions": [{"select": "search:reward model"}, {"field": True, "links": True}]},
            "04_report.ipynb": {"title": "Notebook <run> of the seeds"}}


@pytest.fixture(scope="module")
def executed(review, tmp_path_factory):
    """All four notebooks run once; returns (seconds per notebook, the executed copies' folder,
    the source notebooks before and after)."""
    out = tmp_path_factory.mktemp("executed")
    before = {p.name: p.read_bytes() for p in NB_DIR.glob("*.ipynb")}
    start = time.perf_counter()
    timings = run_notebooks(review, NB_DIR, parameters={"embedder": "fake", "reviewer": "ci"},
                            per_notebook=SCRIPTED, out_dir=out)
    print(f"\nnotebooks: {timings} total {time.perf_counter() - start:.1f}s")
    return timings, out, before, {p.name: p.read_bytes() for p in NB_DIR.glob("*.ipynb")}


def test_all_four_run_headlessly_and_write_to_the_review_not_the_sources(review, executed):
    timings, out, before, after = executed
    assert set(timings) == set(NOTEBOOKS)
    for name in NOTEBOOKS:
        executed_nb = nbformat.read(out / name, as_version=4)
        errors = [o for c in executed_nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        assert not errors
    assert after == before, "sources stay output-free"
    report = review / "report"
    for f in ("report.md", "report.html", "map.png", "coauthors.png", "coauthors.svg", "annotations.csv", "annotations.bib", "annotations.ris", "annotations.jsonl"):
        assert (report / f).stat().st_size > 0, f
    assert (report / "report.md").read_text(encoding="utf-8").startswith("# Notebook &lt;run&gt; of the seeds\n")


def test_no_cell_of_any_notebook_writes_to_stderr(executed):
    _, out, _, _ = executed
    assert len(list(out.glob("*.ipynb"))) == len(NOTEBOOKS)
    assert stderr_outputs(out) == []


def test_the_kernel_starts_without_a_warning(review, tmp_path, capfd):
    """papermill's kernel runs on private Unix sockets, so ipykernel has no TCP warning to print."""
    run_notebooks(review, NB_DIR, names=["02_tag_and_screen.ipynb"], parameters={"embedder": "fake"}, out_dir=tmp_path)
    err = capfd.readouterr().err
    assert "WARNING" not in err and "without encryption" not in err, err
    assert not list(tmp_path.glob("kernel*")) and not list(NB_DIR.glob("kernel*")), "no sockets left behind"


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.extended  # make test-long; in CI test_real_models builds with MiniLM, the headless runs check stderr
def test_minilm_search_and_report_write_nothing_to_stderr(tmp_path):
    """The real model: the first search in meaning loads MiniLM in the kernel (no load report), the
    report draws the map (no missing font weight)."""
    path = tmp_path / "review"
    workbench.build([ROOT / "seeds"], review=path, embedder="minilm", seed=42)
    out = tmp_path / "executed"
    # A sentence no build embeds (label words are cached by the build; a cached query loads no model).
    search = {"01_explore.ipynb": {"actions": [{"select": "search:robots that learn kitchen chores from people"}]}}
    run_notebooks(path, NB_DIR, names=["01_explore.ipynb", "04_report.ipynb"], out_dir=out,
                  per_notebook=search, parameters={"reviewer": "ci"})
    assert stderr_outputs(out) == []
    assert "nearest in meaning" in (out / "01_explore.ipynb").read_text(encoding="utf-8")


def test_explore_scripted_tagging_lands_in_the_store(review):
    actions = [{"select": "search:reward model", "tag": "nb-reward"}, {"rename_topic": 0, "label": "Named in a notebook"}]
    run_notebooks(review, NB_DIR, names=["01_explore.ipynb"], parameters={"embedder": "fake", "reviewer": "nb", "actions": actions})
    with Store.open(review) as store:
        tagged = store.tags.papers_with("nb-reward")
        assert len(tagged) >= 5
        assert any(e.reviewer == "nb" and "nb-reward" in e.summary for e in store.history(limit=50))
    assert "Named in a notebook" in set(workbench.open_review(review).topics.label)
    assert json.loads((review / "selection.json").read_text())["ids"]


def test_explore_scripted_bulk_exclusion_of_a_topic_lands_in_the_store_marked_bulk(review):
    actions = [{"select": "topic:3", "bulk": "exclude"}, {"colour": "relevance"}, {"colour": "decision"}]
    run_notebooks(review, NB_DIR, names=["01_explore.ipynb"], parameters={"embedder": "fake", "reviewer": "nb-bulk", "actions": actions})
    opened = workbench.open_review(review)
    members = {pid for pid, t in zip(opened.ids, opened.labels) if int(t) == 3}
    with Store.open(review) as store:
        records = store.decisions.records("nb-bulk")
    assert members and {r.paper_id for r in records} == members
    assert all(r.decision == "exclude" and r.bulk for r in records)
    assert opened.screening.stopping(reviewer="nb-bulk").bulk == len(members)


def test_screen_scripted_decision_and_tag_land_in_the_store(review):
    actions = [{"add_tag": "screened-in-ci"}, {"decide": "include", "reason": "scripted"}, {"key": "j"}, {"key": "e"}]
    run_notebooks(review, NB_DIR, names=["02_tag_and_screen.ipynb"], parameters={"embedder": "fake", "reviewer": "nb2", "show": "untagged", "actions": actions})
    with Store.open(review) as store:
        first = store.tags.papers_with("screened-in-ci")
        assert len(first) == 1
        assert store.decisions.of(first[0], reviewer="nb2").decision == "include"
        assert sum(1 for e in store.history(limit=20) if e.reviewer == "nb2" and e.action == "decide") == 2


def test_screen_ranked_queue_records_the_rank_each_decision_was_shown(review):
    """02 with scripted decisions: after an include and an exclude the queue is ranked by a
    model, and the next decision records the rank, score and model it was shown with."""
    actions = [{"decide": "include"}, {"decide": "exclude"}, {"decide": "exclude"}]
    run_notebooks(review, NB_DIR, names=["02_tag_and_screen.ipynb"],
                  parameters={"embedder": "fake", "reviewer": "nb3", "order": "relevance", "actions": actions})
    with Store.open(review, reviewer="nb3") as store:
        records = [r for r in store.decisions.records() if r.reviewer == "nb3"]
    assert [r.decision for r in records] == ["include", "exclude", "exclude"]
    assert records[2].model is not None, "ranked by a model after an include and an exclude"
    assert records[2].rank == 1 and records[2].score is not None and not records[2].bulk


def test_compare_note_attaches_to_every_compared_paper(review):
    ids = [p.id for p in workbench.open_review(review).papers[:3]]
    run_notebooks(review, NB_DIR, names=["03_compare.ipynb"], parameters={"embedder": "fake", "ids": ids, "note": "compared in CI",
                                                                    "reviewer": "nb4"})
    with Store.open(review) as store:
        for pid in ids:
            assert any("compared in CI" in n.text for n in store.notes.of(pid))


@pytest.mark.slow  # three notebook runs, ~70 s
def test_two_reviewers_screen_blind_resolve_and_draw_prisma_headlessly(review, tmp_path):
    """02 run as Ana, then as Ben (notebook parameter ``reviewer``) on a blind review: they
    disagree on one paper, Ben resolves it from the conflicts queue, 02 shows the agreement, and
    04 draws the PRISMA diagram with the exclusion counted."""
    folder = tmp_path / "review"
    shutil.copytree(review, folder)
    with Store.open(folder, reviewer="lead") as store:
        store.team.set_blind(True)
        store.team.add_exclusion_reason("wrong topic")
    pid = workbench.open_review(folder).ids[0]
    out = tmp_path / "out"
    base = {"embedder": "fake", "show": "all", "order": "map"}
    run_notebooks(folder, NB_DIR, names=["02_tag_and_screen.ipynb"], out_dir=out,
                  parameters={**base, "reviewer": "Ana", "actions": [{"go": pid}, {"decide": "include"}]})
    ben = [{"go": pid}, {"decide": "exclude", "reason": "wrong topic"}, {"show": "conflicts"},
           {"resolve": "exclude", "reason": "off topic after discussion"}]
    run_notebooks(folder, NB_DIR, names=["02_tag_and_screen.ipynb", "04_report.ipynb"], out_dir=out,
                  parameters={**base, "reviewer": "Ben", "actions": ben})
    with Store.open(folder, reviewer="lead") as store:
        votes = {(d.reviewer, d.decision) for d in store.decisions.votes(pid)}
        final = store.team.final(pid)
    assert {("Ana", "include"), ("Ben", "exclude")} <= votes
    assert (final.decision, final.resolved_by, final.reason) == ("exclude", "Ben", "off topic after discussion")
    shown = json.dumps(nbformat.read(out / "02_tag_and_screen.ipynb", as_version=4).cells[-1].outputs)
    assert "Cohen&#x27;s kappa" in shown or "Cohen's kappa" in shown
    cells = nbformat.read(out / "04_report.ipynb", as_version=4).cells
    figure = cells[-1].outputs[0]["data"]["text/html"]
    assert "data:image/png;base64" in figure and "Records excluded" not in figure
    # the counts are shown once: in the report's PRISMA table above the figure
    shown = [o["data"].get("text/markdown", "") + o["data"].get("text/html", "")
             for c in cells for o in c.get("outputs", []) if "data" in o]
    assert sum(text.count("| Stage | Box | n |") + text.count("wb-prisma-counts") for text in shown) == 1
    assert (folder / "report" / "prisma.png").exists() and (folder / "report" / "prisma.svg").exists()


@pytest.mark.slow  # two notebook runs
def test_screen_scripted_new_search_then_report_draws_the_updated_prisma(review, tmp_path):
    """02 adds a new search from its panel (five seed abstracts again, three new ones), shows the
    new papers, then 04 draws the plain PRISMA 2020 diagram: no study was included before the
    update, so there is no previous version to update (no "previous version n = 0")."""
    from conftest import seed_abstracts, write_seed_file

    folder = tmp_path / "review"
    shutil.copytree(review, folder)
    new = ["Robots that learn kitchen chores from people by watching videos and asking questions.",
           "A survey of benchmark contamination in large language model evaluation and how to detect it.",
           "Aligning speech assistants with user intent through preference data collected in the wild."]
    search = write_seed_file(tmp_path / "pubmed-2025.txt", seed_abstracts()[:5] + new)
    out = tmp_path / "out"
    actions = [{"update": str(search), "database": "PubMed", "searched": "2025-03-01"}]
    run_notebooks(folder, NB_DIR, names=["02_tag_and_screen.ipynb", "04_report.ipynb"], out_dir=out,
                  parameters={"embedder": "fake", "reviewer": "nb5", "actions": actions})
    assert len(workbench.open_review(folder).updates.new_papers(unscreened=True)) == 3
    with Store.open(folder) as store:
        (source,) = [s for s in store.sources.recorded() if s.path.endswith("pubmed-2025.txt")]
    assert (source.name, source.searched_on, source.identified, source.merged) == ("PubMed", "2025-03-01", 8, 5)
    report = json.dumps(nbformat.read(out / "04_report.ipynb", as_version=4).cells[-1].outputs)
    assert "data:image/png;base64" in report
    assert "PRISMA 2020 for an updated review" not in report and "previous version" not in report
