"""The review's methods and AI-use statement in words, from the facts its log holds.

:func:`methods` writes a few paragraphs a reviewer can paste into a paper (PRISMA 2020 items
6-8 and 16a, PRISMA-S for the searches) and, beside them, an AI-use statement in RAISE's terms
(what the machine did, what a person checked, where its judgements can be inspected, when
screening stopped and why). Every number is one of :class:`~._methods_facts.MethodsFacts`,
read from the store and the build; a fact the log lacks is said to be missing ("no search date
recorded"), never filled in. The same :class:`Methods` renders as Markdown (the report, 04) and
as plain text (``workbench methods --format text``).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from html import escape
from pathlib import PurePath

from ...corpus.paper import FULL_TEXT
from ...dedupe.rules import DEFAULT_THRESHOLD, MIN_SAME_ABSTRACT_WORDS
from ...screening import MODELS
from ...store import markdown_code, markdown_lines
from .._decisions import store_of
from ._methods_facts import MethodsFacts, StageFacts, methods_facts

__all__ = ["AI_USE_HEADING", "METHODS_HEADING", "Methods", "Section", "build_command", "methods", "methods_of",
           "review_methods"]

METHODS_HEADING = "Methods"
AI_USE_HEADING = "AI-use statement (RAISE)"
_CLASSIFIERS = {"svm": "a linear support vector machine", "lr": "a logistic regression",
                "nb": "a multinomial naive Bayes classifier", "fuse": "a fusion of the scores of several models",
                "knn": "relevance feedback (the cosine to the nearest include minus to the nearest exclude)"}
_FEATURES = {"tfidf": "on the TF-IDF of the records' words and word pairs",
             "emb": "on the records' sentence embeddings ({embedder})",
             "both": "on the TF-IDF of the records' words and word pairs with their sentence embeddings "
                     "({embedder}) beside it"}

#: A paragraph: its parts, each ``(text, is_code)``.
Paragraph = tuple[tuple[str, bool], ...]


def _p(*parts) -> Paragraph:
    """A paragraph of text parts; a part given as ``("...", True)`` is code (a command)."""
    return tuple(part if isinstance(part, tuple) else (str(part), False) for part in parts if part)


@dataclass(frozen=True)
class Section:
    heading: str
    paragraphs: tuple[Paragraph, ...]


@dataclass(frozen=True)
class Methods:
    """The methods sections and the AI-use statement, with the facts they were written from."""

    facts: MethodsFacts
    sections: tuple[Section, ...]
    ai_use: Section

    def markdown(self, level: int = 2) -> str:
        """``## Methods`` (at ``level``) with a ``###`` heading per part, then the AI-use statement."""
        head = "#" * level
        lines = [f"{head} {METHODS_HEADING}", ""]
        for s in (*self.sections, self.ai_use):
            lines += [f"{head}# {s.heading}", ""]
            for para in s.paragraphs:
                lines += ["".join(markdown_code(t) if code else _md(t) for t, code in para), ""]
        return "\n".join(lines).rstrip() + "\n"

    def text(self) -> str:
        """Plain text: each heading underlined, paragraphs one a line, blank lines between."""
        lines = [METHODS_HEADING, "=" * len(METHODS_HEADING), ""]
        for s in (*self.sections, self.ai_use):
            lines += [s.heading, "-" * len(s.heading), ""]
            lines += [line for para in s.paragraphs for line in ("".join(t for t, _ in para), "")]
        return "\n".join(lines).rstrip() + "\n"

    def html(self, level: int = 2) -> str:
        """The same as HTML (the report's): text escaped, commands in ``<code>``."""
        parts = [f"<h{level}>{METHODS_HEADING}</h{level}>"]
        for s in (*self.sections, self.ai_use):
            parts.append(f"<h{level + 1}>{escape(s.heading)}</h{level + 1}>")
            parts += ["<p>" + "".join(f"<code>{escape(t)}</code>" if code else escape(t) for t, code in para) + "</p>"
                      for para in s.paragraphs]
        return "\n".join(parts)


def _md(text: str) -> str:
    """Text for Markdown, with the spaces at its ends kept (they part it from a code span)."""
    ends = (" " if text[:1].isspace() else "", " " if text[-1:].isspace() else "")
    return ends[0] + " ".join(markdown_lines(text)) + ends[1]


# ----------------------------------------------------------------------------- words

def _stage_name(stage: str) -> str:
    return "full text" if stage == FULL_TEXT else "title/abstract"


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _and(items: list[str]) -> str:
    items = [i for i in items if i]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


def _source(s) -> str:
    kind = {"database": "database", "register": "register", "other": "other method"}.get(s.kind, s.kind)
    when = f"searched on {s.searched_on}" if s.searched_on else "no search date recorded"
    query = f'with the query "{s.query}"' if s.query else "no query recorded"
    return f"{s.name} ({kind}; {when}; {query}): {_n(s.identified, 'record')} in {PurePath(s.path).name}"


def _sources(f: MethodsFacts) -> Section:
    if not f.sources:
        named = ", ".join(PurePath(s).name for s in f.manifest.get("sources", [])) or "its sources"
        return Section("Information sources and search", (_p(
            f"The review's {f.papers} records were read from {named}; no record of the search was kept (the review "
            "was built before the workbench recorded its sources): no database, no search date and no query "
            "recorded, and no count of records per file."),))
    searched = [s for s in f.sources if s.kind != "other"]
    other = [s for s in f.sources if s.kind == "other"]
    paras = []
    if searched:
        paras.append(_p(f"Records were identified in {_n(len(searched), 'source file')}: "
                        + "; ".join(_source(s) for s in searched) + f". In all, "
                        f"{_n(sum(s.identified for s in searched), 'record was', 'records were')} identified there."))
    if other:
        paras.append(_p("By other methods: " + "; ".join(_source(s) for s in other) + f", "
                        f"{_n(sum(s.identified for s in other), 'record', 'records')} in all."))
    if f.updates:
        said = [f"on {u['at'][:10]} from {', '.join(PurePath(x).name for x in u.get('files', u.get('sources', [])))}"
                f" ({_n(u.get('new', 0), 'new record')}, {_n(u.get('duplicates', 0), 'record')} of papers "
                "already in the review)" for u in f.updates]
        paras.append(_p(f"The search was updated {_n(len(f.updates), 'time')}: " + "; ".join(said) + "."))
    return Section("Information sources and search", tuple(paras))


def _dedupe(f: MethodsFacts) -> Section:
    rules = (f"records sharing a DOI, an arXiv id or a PubMed id; records with the same abstract (at least "
             f"{MIN_SAME_ABSTRACT_WORDS} words) or the same title and abstract; and records whose titles are "
             f"near-identical (at least {DEFAULT_THRESHOLD:g} % alike, rapidfuzz ratio) and that agree on the year "
             "or the first author")
    if f.merged_by_rule is None:
        per_rule = "per-rule counts not recorded (the review was built before the workbench kept them)"
    elif f.merged_by_rule:
        per_rule = ", ".join(f"{rule}: {n}" for rule, n in f.merged_by_rule.items())
    else:
        per_rule = ""
    merged = (f"{_n(f.merged, 'duplicate record was', 'duplicate records were')} merged into the record they repeat"
              + (f" ({per_rule})" if per_rule else "") + ".")
    paras = [_p(f"Duplicates were found automatically while the records were read: {rules}. {merged}"
                + (f" {_n(f.skipped, 'record was', 'records were')} set aside for want of a title or abstract."
                   if f.skipped else ""))]
    if f.same or f.different:
        paras.append(_p(f"A person settled {_n(f.same + f.different, 'pair')} of possible duplicates the rules had "
                        f"kept apart (titles alike): {f.same} as the same paper (merged), {f.different} as "
                        "different papers."))
    else:
        paras.append(_p("No pair of possible duplicates was settled by a person."))
    return Section("Deduplication", tuple(paras))


def _pairs(stage: StageFacts) -> str:
    a = stage.agreement
    if a is None:
        return ""
    pairs = [f"{p.first} and {p.second}: Cohen's kappa {_stat(p.kappa)}, Gwet's AC1 {_stat(p.ac1)}, raw agreement "
             f"{_stat(p.raw)} on {_n(p.overlap, 'record')} both screened" for p in a.pairs]
    alpha = f"; Krippendorff's alpha across all reviewers {_stat(a.alpha)}" if len(stage.reviewers) > 2 else ""
    return "Agreement: " + "; ".join(pairs) + alpha + "."


def _stat(stat) -> str:
    return f"{stat.value:.2f}" if stat.defined else f"not defined ({stat.reason})"


def _conflicts(stage: StageFacts) -> str:
    if not stage.conflicts:
        return "The reviewers' decisions never differed." if len(stage.reviewers) > 1 else ""
    who = _and([f"{n} by {name}" for name, n in stage.resolvers.items()])
    third = f"; {stage.by_third} of them by a reviewer who had not screened the record" if stage.by_third else ""
    return (f"The reviewers' decisions differed on {_n(stage.conflicts, 'record')}: "
            f"{stage.resolved} resolved with a final decision" + (f" ({who}{third})" if who else "")
            + f", {stage.open} still open.")


def _stage_para(f: MethodsFacts, stage: StageFacts) -> Paragraph:
    name = _stage_name(stage.stage)
    people = (f"{_n(len(stage.reviewers), 'reviewer')} ({', '.join(stage.reviewers)})" if stage.reviewers
              else "no reviewer")
    settled = ", ".join(f"{n} {k}d" if k != "maybe" else f"{n} marked maybe" for k, n in stage.settled.items())
    words = [f"{name.capitalize()} screening: {people} recorded {_n(stage.votes, 'decision')} on "
             f"{_n(stage.papers, 'record')}; settled: {settled}."]
    if stage.labels:
        words.append(f"{_n(stage.labels, 'decision was', 'decisions were')} read from labels in the source files.")
    if len(stage.reviewers) == 1:
        words.append("Each record was screened by one reviewer, so no agreement was measured.")
    words += [_pairs(stage), _conflicts(stage)]
    if stage.finals > stage.resolved:
        words.append(f"{_n(stage.finals - stage.resolved, 'further final decision was', 'further final decisions were')}"
                     " recorded on records without a disagreement.")
    return _p(" ".join(w for w in words if w))


def _selection(f: MethodsFacts) -> Section:
    stages = " and ".join(_stage_name(s.stage) for s in f.stages)
    votes = f.stages[0].votes
    if f.blind_votes:
        blind = (" independently, blind to one another's decisions, tags and notes on a record until each had "
                 "screened it or it had a final decision (the workbench's blind mode): "
                 f"{f.blind_votes} of the {_n(votes, 'title/abstract decision')} were made while it was on"
                 + (f"; it was turned off on {f.blind_off_at[:10]}" if f.blind_off_at and not f.blind else "") + ".")
    elif f.blind:
        blind = " independently, in blind mode (no decision has been made yet)."
    else:
        blind = (" without blinding: blind mode was never on while they decided, so a reviewer could see the "
                 "others' decisions." if f.reviewers_per_paper > 1 or len(f.stages[0].reviewers) > 1 else ".")
    how = f"Records were screened at {stages}, each by {_n(f.reviewers_per_paper, 'reviewer')}" + blind
    criteria = ("The inclusion criteria were written in the review and shown beside every record."
                if f.criteria else "No inclusion criteria were recorded in the review.")
    reasons = (f"Exclusions gave a reason from the team's list ({', '.join(f.reasons)}) or in free text."
               if f.reasons else "")
    paras = [_p(" ".join(w for w in (how, criteria, reasons) if w))]
    paras += [_stage_para(f, s) for s in f.stages]
    return Section("Selection process", tuple(paras))


def _model_words(model: tuple[str, str | None], embedder: str) -> str:
    """A model as the decisions recorded it (name, version) in words, with the version as recorded."""
    name, version = model
    spec = MODELS.get(name)
    if spec is None or not version or not version.startswith(spec.version):
        return f"{name} (version {version or 'not recorded'}, recorded as given: not a model of this workbench)"
    words = f"{_CLASSIFIERS.get(spec.classifier, spec.classifier)} {_FEATURES.get(spec.features, '').format(embedder=embedder)}"
    # the model's name only inside its version, the detail a reader needs to reproduce the ranking
    return f"{words.strip()}, refitted after every decision (the workbench's model version {version})"


def _embedder(f: MethodsFacts) -> str:
    e = f.manifest.get("embedder") or {}
    return f"{e['name']} version {e.get('version', 'not recorded')}" if e.get("name") else "no embedder recorded"


def _ranking(f: MethodsFacts) -> Section:
    r = f.ranking
    if not r.decisions:
        return Section("Automation: the ranked queue", (_p("No title/abstract decision has been recorded yet."),))
    how = (f"Of the {_n(r.decisions, 'title/abstract decision')} people made, {r.read} were made reading the record"
           + (f" ({r.sampled} of them in a random sample of the unread records, for the stopping test)" if r.sampled else "")
           + f" and {r.bulk} in bulk (a topic or a map selection decided at once, counted apart: the stopping test "
             "counts them as unread)"
           + (f"; {r.unrecorded} were made before the workbench kept how decisions were made, or imported"
              if r.unrecorded else "") + ".")
    if not r.ranked:
        return Section("Automation: the ranked queue", (_p(how, " No decision was made on a record ranked by a model:"
                                                             " the records were screened in the order shown, unranked."),))
    models = "; ".join(f"{_model_words(v, _embedder(f))}: {_n(n, 'decision')}" for v, n in r.models.items())
    hidden = (f" {_n(r.hidden_ranked, 'ranked decision')} of other reviewers {'was' if r.hidden_ranked == 1 else 'were'}"
              " made with a model blind mode does not name to this reader." if r.hidden_ranked else "")
    ranked = (f"{_n(r.ranked, 'decision was', 'decisions were')} made on records the ranked queue had put in order "
              f"(most likely relevant first), from the {_ordinal(r.first_ranked)} decision on ({r.first_ranked_at[:10]})"
              + (f", ranked by {models}." if models else ".") + hidden
              + " A person made every decision; the model only ordered the queue.")
    return Section("Automation: the ranked queue", (_p(how), _p(ranked)))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _claim_words(claim) -> str:
    p = claim.numbers.get("p")
    said = f" (p = {p:.3g})" if isinstance(p, (int, float)) else " (no p-value recorded)"
    return (f"{claim.rule}, logged on {claim.at[:10]} by {claim.reviewer}: "
            f"{'may stop' if claim.stop else 'keep screening'}{said}. The claim: {claim.claim}.")


def _stopping(f: MethodsFacts) -> Section:
    if not f.claims:
        awaiting = f.papers - sum(f.stages[0].settled.values())
        return Section("Stopping", (_p(
            f"No stopping claim was logged, so no stopping rule, claim or p-value is recorded; {awaiting} of the "
            f"{f.papers} records are not settled at title/abstract."),))
    latest = f.claims[-1]
    earlier = f" {_n(len(f.claims) - 1, 'earlier claim was', 'earlier claims were')} logged before it." \
        if len(f.claims) > 1 else ""
    settled = sum(f.stages[0].settled.values())
    return Section("Stopping", (_p(f"Stopping was judged by the {_claim_words(latest)}{earlier} Now {settled} of the "
                                   f"{f.papers} records are settled at title/abstract."),))


def build_command(f: MethodsFacts, review_path) -> str:
    """The ``workbench build`` command that reads the same sources with the same provenance,
    embedder and seed (the topic parameters recorded beside it)."""
    m = f.manifest
    args = ["workbench", "build", *m.get("sources", []), "--review", str(review_path)]
    if (m.get("embedder") or {}).get("name"):
        args += ["--embedder", m["embedder"]["name"]]
    if m.get("seed") is not None:
        args += ["--seed", str(m["seed"])]
    updated = {x for u in f.updates for x in u.get("files", [])}
    for s in f.sources:
        if s.path in updated:
            continue
        args += _provenance_args(s)
    return shlex.join(args)


def _provenance_args(s) -> list[str]:
    name = PurePath(s.path).name
    option = {"database": "--database", "register": "--register", "other": "--method"}[s.kind]
    value = ("citation-search" if s.name == "Citation searching" else s.name) if s.kind == "other" else s.name
    out = [option, f"{name}={value}"]
    if s.query:
        out += ["--query", f"{name}={s.query}"]
    if s.searched_on:
        out += ["--searched", f"{name}={s.searched_on}"]
    return out


def _software(f: MethodsFacts, review_path) -> Section:
    from ..._version import __version__

    m = f.manifest
    built = (f"The review was built on {m['built_at'][:10]} by workbench {m.get('workbench_version', '(version not recorded)')}"
             if m.get("built_at") else "No build date is recorded")
    topics = (m.get("topics") or {}).get("method")
    paras = [_p(f"{built}; this text was written by workbench {__version__}. The records were embedded with "
                f"{_embedder(f)}" + (f" and grouped into topics by {topics}" if topics else "")
                + (f", seed {m['seed']}" if m.get("seed") is not None else ", no seed recorded") + "."),
             _p("The build is reproduced by ", (build_command(f, review_path), True), ".")]
    by_files = {s.path: s for s in f.sources}
    for u in f.updates:
        files = u.get("files", [])
        args = ["workbench", "update", *files, "--review", str(review_path)]
        for path in files:
            if path in by_files:
                args += _provenance_args(by_files[path])
        paras.append(_p(f"The update of {u['at'][:10]} is reproduced by ", (shlex.join(args), True), "."))
    return Section("Software and reproducibility", tuple(paras))


def _ai_use(f: MethodsFacts) -> Section:
    r = f.ranking
    did = []
    if r.ranked:
        did.append(f"A machine-learning model ranked the records not yet screened at title/abstract so that the "
                   f"likely relevant came first; {_n(r.ranked, 'decision was', 'decisions were')} made on records it "
                   "had ranked. It suggested an order only: it never included or excluded a record.")
    else:
        did.append("No model ranked, suggested or made a screening decision: no decision was made on a ranked record.")
    topics = (f.manifest.get("topics") or {}).get("method")
    did.append(f"A sentence-embedding model ({_embedder(f)}) placed the records on a map"
               + (f" and in topics ({topics})" if topics else "") + " for exploring them; it made no decision."
               + (f" {_n(r.bulk, 'decision was', 'decisions were')} made in bulk on a topic or a map selection a "
                  "person chose, without reading each record." if r.bulk else ""))
    checked = [f"A person made every one of the {_n(r.decisions, 'title/abstract decision')}"
               + (f" and the {_n(f.stages[1].votes, 'full-text decision')}" if len(f.stages) > 1 else "")
               + ", each under the reviewer's name."]
    resolved = sum(s.resolved for s in f.stages)
    if resolved:
        checked.append(f"{_n(resolved, 'disagreement was', 'disagreements were')} resolved by a person.")
    if f.same or f.different:
        checked.append(f"{_n(f.same + f.different, 'pair')} of possible duplicates were settled by a person.")
    inspect = ("Its judgements can be inspected in the decision log, which keeps beside every decision the rank and "
               "score the model gave the record, the model's name and version, and whether it was read, sampled or "
               "decided in bulk: ")
    if f.claims:
        c = f.claims[-1]
        p = c.numbers.get("p")
        stop = (f"The last stopping claim ({c.at[:10]}, by {c.reviewer}) said {'stop' if c.stop else 'keep screening'}"
                + (f" (p = {p:.3g})" if isinstance(p, (int, float)) else " (no p-value recorded)")
                + "; see Stopping above.")
    else:
        stop = "No stopping claim was logged: when and why screening stopped is not recorded."
    return Section(AI_USE_HEADING, (
        _p("What the machine did. ", " ".join(did)),
        _p("What a person checked. ", " ".join(checked)),
        _p("Where its judgements can be inspected. ", inspect,
           ("workbench export --format jsonl --all-reviewers", True), " (one line per decision) and ",
           ("workbench history", True), "."),
        _p("When screening stopped and why. ", stop)))


def methods_of(f: MethodsFacts, review_path) -> Methods:
    """The methods text and AI-use statement of the facts ``f`` (``review_path``: for the commands)."""
    return Methods(f, (_sources(f), _dedupe(f), _selection(f), _ranking(f), _stopping(f),
                       _software(f, review_path)), _ai_use(f))


def methods(review, store) -> Methods:
    """The methods text of ``review`` from its ``store`` and build (see the module)."""
    return methods_of(methods_facts(review, store), review.path)


def review_methods(review, reviewer: str | None = None, *, store=None) -> Methods:
    """The methods text and AI-use statement of ``review`` from its log (``.markdown()``,
    ``.text()``, ``.facts``), read as ``reviewer`` or through ``store`` (a session's open store;
    blind mode: see ``_methods_facts``)."""
    with store_of(review, store, reviewer) as opened:
        return methods(review, opened)
