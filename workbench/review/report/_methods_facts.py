"""The facts a methods section reports, read once from the review's store and build (its log).

PRISMA 2020 items 6-8 and 16a, PRISMA-S and RAISE ask what was searched where and when, how
duplicates were removed, how many reviewers screened each record and how disagreements were
settled, which automation was used and how, and when screening stopped and why. Every one of
these is a fact the workbench logged: the sources with their provenance (``Store.sources``),
the build's manifest (``build.json``: deduplication's merges per rule, the embedder, the seed,
the version, the updates), the duplicate verdicts people gave, the votes and final decisions
per stage, each decision's record of how it was made (rank, score, model and version, bulk,
sampled), and the logged stopping claims. :func:`methods_facts` gathers them into plain records;
``_methods`` says them in words. Nothing here is estimated or filled in: a fact the log lacks
is None (or empty), and the text says it is missing.

Blind mode: the methods text is a review-level summary, so it *counts* every reviewer's votes
(as the PRISMA counts and the agreement statistics do, through the store's ``all_reviewers``
route), but never shows a vote, a reason or a note. The one fact about another reviewer's
decisions that is not a count, the name of the model that ranked the papers they decided, is
read through the reader's own view (``screening_records(everyone=True)``): models blind mode
hides are counted (``hidden_ranked``), not named.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ... import team
from ...corpus.paper import DECISIONS, FULL_TEXT, TITLE_ABSTRACT
from ...store import LABELS_REVIEWER, Source, StoppingClaim
from .._decisions import screening_of

__all__ = ["MethodsFacts", "RankingFacts", "StageFacts", "methods_facts", "title_of"]


@dataclass(frozen=True)
class StageFacts:
    """One screening stage: the votes on the review's papers, who cast them, agreement, and the
    conflicts (papers whose votes differ) with how they were settled."""

    stage: str
    votes: int  # by people (labels from the source files aside)
    labels: int  # decisions read from labels in the source files
    reviewers: tuple[str, ...]  # the people who voted, by name
    papers: int  # papers with a vote or a final decision
    settled: dict[str, int]  # include / exclude / maybe: papers settled so
    agreement: team.AgreementReport | None  # None: fewer than two reviewers
    conflicts: int  # papers whose votes differ, resolved or not
    resolved: int  # of them, settled by a final decision
    resolvers: dict[str, int]  # who resolved them
    by_third: int  # resolved by someone who had not voted on the paper
    finals: int  # final decisions at this stage (on conflicts or not)

    @property
    def open(self) -> int:
        return self.conflicts - self.resolved


@dataclass(frozen=True)
class RankingFacts:
    """How the title/abstract decisions were made (the screening records, in the order made)."""

    decisions: int  # by people, on the review's papers
    read: int  # one by one
    bulk: int  # in bulk (a topic or a map selection)
    sampled: int  # read in a random sample for the stopping test
    unrecorded: int  # made before the store kept screening records, or imported
    ranked: int  # made on a paper the ranked queue showed (a recorded rank)
    first_ranked: int | None  # the position (1 = first) of the first ranked decision
    first_ranked_at: str | None
    models: dict[tuple[str, str | None], int]  # (model, version) -> ranked decisions the reader may see
    hidden_ranked: int  # ranked decisions whose model blind mode hides from the reader


@dataclass(frozen=True)
class MethodsFacts:
    title: str
    reader: str
    papers: int
    sources: tuple[Source, ...]
    updates: tuple[dict, ...]  # build.json's updates (each: at, files, new, duplicates, tag, ...)
    merged: int  # duplicate records merged away while reading (build and updates)
    merged_by_rule: dict[str, int] | None  # None: not recorded (built before the workbench kept it)
    skipped: int  # records without usable text
    same: int  # pairs a person said are the same paper
    different: int  # pairs a person kept apart
    blind: bool  # blind mode now
    blind_votes: int  # title/abstract votes by people cast while blind mode was on (from the history)
    blind_off_at: str | None  # when blind mode was last turned off after being on (None: never)
    reviewers_per_paper: int
    criteria: bool  # whether inclusion criteria were written down in the review
    reasons: tuple[str, ...]  # the team's exclusion reasons
    stages: tuple[StageFacts, ...]  # title/abstract, then full text when anything was decided there
    ranking: RankingFacts
    claims: tuple[StoppingClaim, ...]
    manifest: dict = field(default_factory=dict, repr=False)  # build.json

    @property
    def identified(self) -> int:
        return sum(s.identified for s in self.sources)


def title_of(review, store) -> str:
    """The review's title setting (``workbench title``), else the review folder's name."""
    return store.settings.read().get("title") or review.path.resolve().name


def _stage(review, store, stage: str) -> StageFacts:
    ids = set(review.ids)
    every = [d for d in store.decisions.every(stage, all_reviewers=True) if d.paper_id in ids]
    people = [d for d in every if d.reviewer != LABELS_REVIEWER]
    screening = screening_of(store, stage, review.ids, all_reviewers=True)
    differ = [p for p in screening.papers.values() if len({v.decision for v in p.votes}) > 1
              or (p.status == team.CONFLICT)]
    resolved = [p for p in differ if p.final is not None]
    reviewers = tuple(sorted({d.reviewer for d in people}))
    categories = DECISIONS if stage == TITLE_ABSTRACT else ("include", "exclude")
    agreement = team.agreement(people, categories) if len(reviewers) >= 2 else None
    settled = Counter(p.decision for p in screening.papers.values() if p.settled)
    return StageFacts(stage, len(people), len(every) - len(people), reviewers, len(screening.papers),
                      {k: settled.get(k, 0) for k in DECISIONS}, agreement, len(differ), len(resolved),
                      dict(Counter(p.final.resolved_by for p in resolved).most_common()),
                      sum(1 for p in resolved if p.final.resolved_by not in p.reviewers),
                      sum(1 for p in screening.papers.values() if p.final is not None))


def _ranking(review, store) -> RankingFacts:
    ids = set(review.ids)
    every = [r for r in store.decisions.records(everyone=True, all_reviewers=True)
             if r.paper_id in ids and r.reviewer != LABELS_REVIEWER]
    every.sort(key=lambda r: r.decided_at)
    ranked = [(i, r) for i, r in enumerate(every, 1) if r.rank is not None]
    seen = {(r.paper_id, r.reviewer): r for r in store.decisions.records(everyone=True) if r.rank is not None}
    models = Counter((seen[key].model, seen[key].model_version) for _, r in ranked
                     if (key := (r.paper_id, r.reviewer)) in seen)
    return RankingFacts(
        decisions=len(every), read=sum(not r.bulk for r in every), bulk=sum(r.bulk for r in every),
        sampled=sum(r.sampled and not r.bulk for r in every), unrecorded=sum(not r.recorded for r in every),
        ranked=len(ranked), first_ranked=ranked[0][0] if ranked else None,
        first_ranked_at=ranked[0][1].decided_at if ranked else None, models=dict(sorted(models.items())),
        hidden_ranked=len(ranked) - sum(models.values()))


def _blind_periods(store) -> list[tuple[str, str | None]]:
    """When blind mode was on: ``(from, to)`` times (``to`` None: still on), from the settings'
    history (changes taken back by an undo left out)."""
    periods, since = [], None
    for e in sorted(store.history(None), key=lambda e: e.id):
        if e.action != "setting" or e.undone_by is not None or not e.summary.startswith("blind "):
            continue
        on = e.summary == "blind set to 'on'"
        if on and since is None:
            since = e.at
        elif not on and since is not None:
            periods.append((since, e.at))
            since = None
    return periods + ([(since, None)] if since is not None else [])


def _merges(manifest: dict) -> tuple[dict[str, int] | None, list[dict]]:
    """Deduplication's merges per rule, the build's and every update's (None: not recorded)."""
    updates = list(manifest.get("updates") or [])
    parts = [manifest.get("merged_by_rule")] + [u.get("merged_by_rule") for u in updates]
    if any(p is None for p in parts):
        return None, updates
    total = Counter()
    for part in parts:
        total.update(part)
    return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))), updates


def methods_facts(review, store) -> MethodsFacts:
    """Every fact the methods text reports (see the module), for ``store``'s reviewer."""
    sources = tuple(store.sources.recorded())
    by_rule, updates = _merges(review.manifest)
    verdicts = Counter(v.verdict for v in store.duplicates.verdicts())
    periods = _blind_periods(store)
    ids = set(review.ids)
    votes = [d for d in store.decisions.every(TITLE_ABSTRACT, all_reviewers=True)
             if d.paper_id in ids and d.reviewer != LABELS_REVIEWER]
    blind_votes = sum(1 for d in votes if any(a <= d.decided_at and (b is None or d.decided_at < b) for a, b in periods))
    stages = [_stage(review, store, TITLE_ABSTRACT)]
    full = _stage(review, store, FULL_TEXT)
    if full.votes or full.labels or full.finals:
        stages.append(full)
    return MethodsFacts(
        title=title_of(review, store), reader=store.reviewer, papers=len(review), sources=sources,
        updates=tuple(updates), merged=sum(s.merged for s in sources), merged_by_rule=by_rule,
        skipped=sum(s.skipped for s in sources), same=verdicts.get("same", 0), different=verdicts.get("different", 0),
        blind=store.team.blind, blind_votes=blind_votes,
        blind_off_at=periods[-1][1] if periods and periods[-1][1] is not None else None, reviewers_per_paper=store.team.reviewers_per_paper(), criteria=bool(store.team.criteria()),
        reasons=tuple(r.name for r in store.team.exclusion_reasons()), stages=tuple(stages),
        ranking=_ranking(review, store), claims=tuple(store.stopping.claims()), manifest=dict(review.manifest))
