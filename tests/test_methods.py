"""The methods text and AI-use statement written from the review's log (issue 48): on a review
with two reviewers in blind mode, a conflict resolved, a ranked screening, a stopping claim, a
duplicate pair settled and an update, every number the text says equals the store's; a review
with none of these says each is missing; blind mode names no model it hides; the command line
writes it through the output check; the report has it."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import seed_abstracts, write_seed_file

import workbench
from workbench import team
from workbench.cli import main
from workbench.store import Shown, Store

SECRET_MODEL = "SECRETMODEL-x9"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("methods")
    texts = seed_abstracts()
    write_seed_file(folder / "pubmed.txt", texts[:36] + texts[:2])  # two duplicates: merged by the same abstract
    write_seed_file(folder / "scopus.txt", texts[36:44])
    write_seed_file(folder / "rerun.txt", texts[44:50] + texts[3:4])
    workbench.build([folder / "pubmed.txt", folder / "scopus.txt"], review=folder / "review", embedder="fake", seed=7,
                    provenance={"pubmed.txt": {"database": "PubMed", "query": 'rlhf[tiab] OR "reward model"',
                                               "searched_on": "2024-05-01"}})
    return folder


@pytest.fixture
def bare(built, tmp_path):
    return workbench.open_review(shutil.copytree(built / "review", tmp_path / "review"))


@pytest.fixture
def screened(built, tmp_path):
    """Ana and Ben screen blind (Ana from the ranked queue), Cleo resolves their one conflict at
    title/abstract, Ana logs a stopping claim; a search is rerun and added; a pair is settled."""
    shutil.copy(built / "rerun.txt", tmp_path / "rerun.txt")
    review = workbench.open_review(shutil.copytree(built / "review", tmp_path / "review"))
    with Store.open(review.path, reviewer="lead") as lead:
        lead.team.set_blind(True)
        lead.settings.set("reviewers_per_paper", "2")
        lead.team.set_criteria("Include: RLHF or reward models.")
        lead.team.add_exclusion_reason("wrong topic")
    review = workbench.update([tmp_path / "rerun.txt"], review, provenance={"rerun.txt": {"database": "PubMed"}}, reviewer="lead")
    ids = review.ids
    review.screening.decide(ids[0:2], "include", reviewer="ana")  # in bulk, before any ranking
    for k in range(14):
        ranking = review.screening.rank(next=5, reviewer="ana")
        pid = ranking.papers[0].id
        review.screening.decide([pid], "include" if k % 4 == 0 else "exclude", reason=None if k % 4 == 0 else "wrong topic",
                      ranking=ranking, reviewer="ana")
    with Store.open(review.path, reviewer="ana") as s:
        votes = {d.paper_id: d.decision for d in s.decisions.every()}
    ana = list(votes)
    for k, pid in enumerate(ana):  # ben agrees but on one paper
        decision = votes[pid] if k != 3 else ("exclude" if votes[pid] == "include" else "include")
        review.screening.decide([pid], decision, reason="wrong topic" if decision == "exclude" else None, reviewer="ben")
    conflict = ana[3]
    review.team.resolve(conflict, "exclude", "wrong topic", reviewer="cleo")
    full = [pid for pid in ana if review.team.status("title_abstract", all_reviewers=True).decisions().get(pid) == "include"]
    review.screening.decide(full[:1], "include", stage="full_text", reviewer="ana")
    review.screening.decide(full[:1], "include", stage="full_text", reviewer="ben")
    review.screening.stopping(log=True, reviewer="ana")
    with Store.open(review.path, reviewer="lead") as lead:  # screening done: blindness ends
        lead.team.set_blind(False)
    candidates = review.updates.duplicate_candidates(low=0)
    if candidates:
        review.updates.settle_duplicates(candidates[0].first, candidates[0].second, "different", reviewer="ana")
    return review


def _numbers(text: str) -> list[str]:
    """The numbers a text says, leaving out dates, commands and recorded versions."""
    text = re.sub(r"\d{4}-\d{2}-\d{2}", " ", text)
    text = re.sub(r"\(version [^)]*\)|version \S+|workbench build .*|workbench update .*|workbench \d\S*", " ", text)
    text = re.sub(r"\b[\w.-]+\.txt\b|fake\d+/\d+", " ", text)
    return re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])", text)


def _expected(review) -> dict[str, int | float]:
    """What the store holds, counted here through the store's own reads (not the methods code)."""
    with review.store("lead") as s:
        sources = s.sources.recorded()
        ids = set(review.ids)
        ta = [d for d in s.decisions.every("title_abstract", all_reviewers=True) if d.paper_id in ids]
        ft = [d for d in s.decisions.every("full_text", all_reviewers=True) if d.paper_id in ids]
        records = sorted((r for r in s.decisions.records(everyone=True, all_reviewers=True) if r.paper_id in ids),
                         key=lambda r: r.decided_at)
        finals = s.team.finals("title_abstract")
        claims = s.stopping.claims()
        verdicts = s.duplicates.verdicts()
    ranked = [i for i, r in enumerate(records, 1) if r.rank is not None]
    pairs = team.agreement(ta, ("include", "exclude", "maybe")).pairs
    full = team.agreement(ft, ("include", "exclude")).pairs
    return {
        "sources": len(sources), "identified": sum(x.identified for x in sources),
        "pubmed": sum(x.identified for x in sources if x.name == "PubMed"),
        "merged": sum(x.merged for x in sources), "skipped": sum(x.skipped for x in sources),
        "ta_votes": len(ta), "ta_papers": len({d.paper_id for d in ta}), "ft_votes": len(ft),
        "bulk": sum(r.bulk for r in records), "read": sum(not r.bulk for r in records), "ranked": len(ranked),
        "first_ranked": ranked[0], "finals": len(finals), "claims": len(claims), "p": claims[-1].numbers["p"],
        "kappa": round(pairs[0].kappa.value, 2), "ac1": round(pairs[0].ac1.value, 2),
        "raw": round(pairs[0].raw.value, 2), "overlap": pairs[0].overlap, "verdicts": len(verdicts),
        "papers": len(review),
        "full_text_agreement": tuple(f"{s.value:.2f}" for s in full[0].statistics() if s.defined),
    }


def test_every_number_of_the_methods_text_is_the_stores(screened):
    methods = workbench.review_methods(screened, reviewer="lead")
    text = methods.text()
    e = _expected(screened)
    f = methods.facts
    # the facts are the store's counts
    assert (f.identified, f.merged, f.skipped, f.papers) == (e["identified"], e["merged"], e["skipped"], e["papers"])
    assert (f.stages[0].votes, f.stages[0].papers, f.stages[1].votes) == (e["ta_votes"], e["ta_papers"], e["ft_votes"])
    assert (f.ranking.bulk, f.ranking.read, f.ranking.ranked, f.ranking.first_ranked) == \
        (e["bulk"], e["read"], e["ranked"], e["first_ranked"])
    assert f.stages[0].resolved == 1 and f.stages[0].resolvers == {"cleo": 1} and f.stages[0].by_third == 1
    assert f.stages[0].conflicts == 1 and f.stages[0].open == 0 and f.same + f.different == e["verdicts"]
    assert sum(f.merged_by_rule.values()) == e["merged"]  # every merge has its rule
    # and the text says them
    said = [
        f"PubMed (database; searched on 2024-05-01; with the query \"rlhf[tiab] OR \"reward model\"\"): {e['pubmed'] - 7}",
        "scopus (database; no search date recorded; no query recorded): 8 records in scopus.txt",
        f"In all, {e['identified']} records were identified there.",
        f"{e['merged']} duplicate records were merged", f"same abstract: {f.merged_by_rule['same abstract']}",
        f"2 reviewers (ana, ben) recorded {e['ta_votes']} decisions on {e['ta_papers']} records",
        f"Cohen's kappa {e['kappa']:.2f}, Gwet's AC1 {e['ac1']:.2f}, raw agreement {e['raw']:.2f} on {e['overlap']} records",
        "differed on 1 record: 1 resolved with a final decision (1 by cleo; 1 of them by a reviewer who had not screened",
        "0 still open", "blind to one another's decisions", "each by 2 reviewers",
        f"{e['ta_votes']} of the {e['ta_votes']} title/abstract decisions were made while it was on; it was turned off",
        f"{e['read']} were made reading the record", f"{e['bulk']} in bulk",
        f"{e['ranked']} decisions were made on records the ranked queue had put in order",
        f"from the {e['first_ranked']}th decision on", "ranked by a linear support vector machine", "the workbench's model version svm-both",
        f"(p = {e['p']:.3g})", "Callaghan & Müller-Hansen (2020) hypergeometric test",
        "The search was updated 1 time", "The inclusion criteria were written in the review",
        "A person made every decision; the model only ordered the queue.",
        "It suggested an order only: it never included or excluded a record.",
        f"A person made every one of the {e['read'] + e['bulk']} title/abstract decisions and the "
        f"{e['ft_votes']} full-text decisions",
    ]
    for phrase in said:
        assert phrase in text, phrase
    assert "workbench build " in text and "--database pubmed.txt=PubMed" in text and "--seed 7" in text
    assert "workbench update " in text and "rerun.txt" in text
    # every number the text says (dates, commands and recorded versions aside) is one the store holds
    settled = {n for stage in f.stages for n in stage.settled.values()}
    allowed = {str(v) for v in (*e.pop("full_text_agreement"), *e.values(), *settled, e["pubmed"] - 7, 8, 7, 6, 1, 2, 0, 20, 95, 100)}
    allowed |= {f"{e[k]:.2f}" for k in ("kappa", "ac1", "raw")} | {f"{e['p']:.3g}", "0.05", "2020"}
    allowed |= {str(v) for v in f.merged_by_rule.values()} | {str(u.get(k)) for u in f.updates for k in ("new", "duplicates")}
    allowed |= {str(sum(stage.settled.values())) for stage in f.stages} | {str(f.stages[0].votes + f.stages[1].votes)}
    claim_numbers = set(_numbers(methods.facts.claims[-1].claim))
    stray = [n for n in _numbers(text) if n not in allowed | claim_numbers]
    assert not stray, (stray, text)


def test_a_review_without_these_facts_says_each_is_missing(bare):
    text = workbench.review_methods(bare).text()
    for phrase in ("scopus (database; no search date recorded; no query recorded)",
                   "No pair of possible duplicates was settled by a person.",
                   "No inclusion criteria were recorded in the review.",
                   "No title/abstract decision has been recorded yet.",
                   "No stopping claim was logged, so no stopping rule, claim or p-value is recorded",
                   "No model ranked, suggested or made a screening decision",
                   "when and why screening stopped is not recorded",
                   "Title/abstract screening: no reviewer recorded 0 decisions on 0 records"):
        assert phrase in text, phrase
    assert "Full text screening" not in text and "kappa" not in text and "updated" not in text


def test_blind_mode_counts_everyone_but_names_no_model_it_hides(bare):
    ids = bare.ids
    with Store.open(bare.path, reviewer="lead") as lead:
        lead.team.set_blind(True)
    with Store.open(bare.path, reviewer="alice") as alice:
        alice.decisions.decide(ids[0], "include", reason="SECRETREASON", shown=Shown(rank=3, score=0.5, model=SECRET_MODEL, model_version="1"))
    with Store.open(bare.path, reviewer="bob") as bob:
        bob.decisions.decide(ids[1], "exclude", reason="not for me")
    as_bob = workbench.review_methods(bare, reviewer="bob").text()
    assert SECRET_MODEL not in as_bob and "SECRETREASON" not in as_bob and ids[0] not in as_bob
    assert "2 reviewers (alice, bob) recorded 2 decisions on 2 records" in as_bob
    assert "1 ranked decision of other reviewers was made with a model blind mode does not name" in as_bob
    as_alice = workbench.review_methods(bare, reviewer="alice").text()
    assert f"{SECRET_MODEL} (version 1, recorded as given: not a model of this workbench): 1 decision" in as_alice


def test_the_command_writes_markdown_or_text_through_the_output_check(screened, capsys):
    args = ["--review", str(screened.path), "--reviewer", "lead"]
    assert main(["methods", *args]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## Methods\n") and "### AI-use statement (RAISE)" in out
    assert "`workbench build " in out, "the command is a code span"
    target = screened.path / "report" / "methods.txt"
    assert main(["methods", "--format", "text", "-o", str(target), *args]) == 0
    assert target.read_text(encoding="utf-8") == workbench.review_methods(screened, reviewer="lead").text()
    before = (screened.path / "annotations.sqlite").read_bytes()
    assert main(["methods", "-o", str(screened.path / "annotations.sqlite"), *args]) == 1
    assert "only the workbench may write" in capsys.readouterr().err
    assert (screened.path / "annotations.sqlite").read_bytes() == before


def test_the_report_has_the_methods_part(screened):
    written = workbench.write_report(screened, image=False, reviewer="lead")
    md = written["markdown"].read_text(encoding="utf-8")
    html = written["html"].read_text(encoding="utf-8")
    assert "## Methods" in md and "### Selection process" in md and "### AI-use statement (RAISE)" in md
    assert "<h2>Methods</h2>" in html and "<h3>AI-use statement (RAISE)</h3>" in html
    assert workbench.review_methods(screened, reviewer="lead").markdown() in md
