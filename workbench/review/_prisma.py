"""The PRISMA 2020 counts of a review: the build's sources and the store's two screening stages.

Identification comes from the sources the last build recorded (``store.sources``, see
``_provenance``): records identified per database and per register (read plus skipped, each file
under the name its provenance gives), duplicates removed (merged away while reading) and records
removed for other reasons (skipped: no usable title or abstract). Nothing is marked ineligible by
automation: the ranked queue only orders papers. Screening comes from the store through
:func:`workbench.team.prisma_counts`: each stage's votes and final decisions classified
(``_decisions.screening_of``), and the papers whose title/abstract decision was made with the ranked
queue on (a recorded rank). A review built before sources were recorded counts its papers as
identified, under the sources its build names, with nothing removed.

**Other methods** (PRISMA 2020's right-hand column): sources of kind ``other`` (citation
searching, websites, organisations: ``workbench update FILE --method citation-search``) count
apart. Their records identified go under the method's name; the papers they brought (a paper's
first record, ``Paper.source``, is in such a file; a record that joined a paper already in the
review is one of that file's duplicates) are left out of the main column and counted by
:func:`workbench.team.other_methods`: sought (settled at title/abstract as anything but an
exclusion), not retrieved, assessed and excluded at full text; their included studies join the
total.

Papers a person said are one paper ("same", ``store.duplicates.settle``) count as duplicates
removed: the merged paper is not a record of its own (it stays among the review's papers until the
next update or rebuild absorbs it into the kept one, whose aliases then name it).

**An updated review** (``workbench update`` since the last build, with a search's provenance: the
database's query or the date it was searched; or when asked for with ``update=True``) gets
PRISMA 2020's diagram for updated reviews, about its latest update (every update of the latest "new since" date: a search
run in several databases may be added one file at a time): the new records identified per source
(the files those updates read, from ``store.sources``), their duplicates removed (among
themselves and of the review's papers) and records removed for other reasons, the new records
(the papers tagged ``new since <date>``) as screened, excluded, sought, assessed and included,
and the studies included in the previous version (the review's other papers included at full
text). Everything is counted again from the store and the folder each time; nothing is kept as a
number. A rebuild is a refit of everything: after it the plain diagram is drawn again.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .. import team
from ..errors import InputError
from ..corpus.paper import FULL_TEXT, TITLE_ABSTRACT, source_file
from ..store import check_output, write_output
from ._decisions import screening_of
from ._living import LatestUpdate, latest_update

__all__ = ["LatestUpdate", "counts", "identification", "in_report", "latest_update", "other_papers", "write_diagram"]


def other_papers(review, sources) -> set[str]:
    """The papers that sources of other methods (kind ``other``) brought: those whose first
    record was read from such a file."""
    files = {s.path for s in sources if s.kind == "other"}
    return {p.id for p in review.papers if source_file(p.source) in files} if files else set()


def merged_by_people(review, store, apart: set[str] = frozenset()) -> tuple[set[str], int]:
    """Papers a person merged into another ("same"): the ids still among the review's papers,
    and how many such merges took effect (the merged paper still here, or absorbed into the kept
    one by an update or a rebuild, which keeps its id as an alias); merges of a paper in
    ``apart`` (other methods' papers, counted in their own column) are not counted."""
    here = set(review.ids)
    still, n = set(), 0
    for merged, kept in store.duplicates.merged_into().items():
        if kept not in here:
            continue
        if merged in here:
            still.add(merged)
            n += merged not in apart
        elif merged in review.paper(kept).aliases:
            n += 1
    return still, n


def identification(review, store) -> team.Identified:
    """The records identified and removed before screening (:class:`workbench.team.Identified`),
    from the sources of the last build."""
    sources = store.sources.recorded()
    if not sources:
        named = ", ".join(review.manifest.get("sources", [])) or "the sources"
        return team.Identified({f"{named} (counts per file not recorded; rebuild to record them)": len(review)})
    return _identified(sources)


def _identified(sources) -> team.Identified:
    """The main column's identification from the database and register sources (other methods'
    sources are the other column's, :func:`_other`)."""
    found = {"database": Counter(), "register": Counter()}
    searched = [s for s in sources if s.kind in found]
    for s in searched:
        found[s.kind][s.name] += s.identified
    return team.Identified(dict(found["database"]), dict(found["register"]),
                           duplicates_removed=sum(s.merged for s in searched),
                           removed_other=sum(s.skipped for s in searched))


def _other(store, sources, papers: set[str]) -> team.OtherMethods | None:
    """The other-methods column: records identified per method (``sources`` of kind ``other``)
    and the screening of the ``papers`` they brought; None without such sources."""
    found = Counter()
    for s in sources:
        if s.kind == "other":
            found[s.name] += s.identified
    if not found:
        return None
    return team.other_methods(found, screening_of(store, TITLE_ABSTRACT, papers, all_reviewers=True),
                              screening_of(store, FULL_TEXT, papers, all_reviewers=True))


def _included(store, ids) -> int:
    """Papers of ``ids`` included at full text (having been sought at title/abstract), as
    :func:`workbench.team.prisma_counts` counts studies included."""
    sought = {p.paper_id for p in screening_of(store, TITLE_ABSTRACT, ids, all_reviewers=True).papers.values()
              if p.settled and p.decision != "exclude"}
    return sum(1 for p in screening_of(store, FULL_TEXT, sought, all_reviewers=True).papers.values()
               if p.settled and p.decision == "include")


def _flow(store, records, ident: team.Identified, **extra) -> team.PrismaCounts:
    ranked = {r.paper_id for r in store.decisions.records(everyone=True, all_reviewers=True) if r.rank is not None}
    return team.prisma_counts(records=records, title_abstract=screening_of(store, TITLE_ABSTRACT, records, all_reviewers=True),
                              full_text=screening_of(store, FULL_TEXT, records, all_reviewers=True), ranked=ranked & set(records),
                              identified=ident, **extra)


def update_counts(review, store, latest: LatestUpdate) -> team.PrismaCounts:
    """PRISMA 2020's counts for an updated review, about ``latest`` (see the module docstring)."""
    files = set(latest.files)
    sources = [s for s in store.sources.recorded() if s.path in files]
    ident = _identified(sources)
    other = other_papers(review, sources)
    still, _ = merged_by_people(review, store)
    tagged = {pid for pid, since in review.updates.new_since().items() if since == latest.since}
    new = [pid for pid in review.ids if pid in tagged and pid not in other]
    records = [pid for pid in new if pid not in still]
    ident = ident.more_duplicates(len(new) - len(records))
    previous = [pid for pid in review.ids if pid not in tagged and pid not in still]
    return _flow(store, records, ident, previous_studies=_included(store, previous),
                 other=_other(store, sources, (other & tagged) - still))


def searched(store, latest: LatestUpdate) -> bool:
    """Whether ``latest`` is a rerun search as PRISMA means it: one of its files came with its
    search's provenance (the query or the date it was searched)."""
    files = set(latest.files)
    return any(s.provenance_given for s in store.sources.recorded() if s.path in files)


def counts(review, store, previous_studies: int | None = None, update: bool | None = None) -> team.PrismaCounts:
    """The checked PRISMA counts of ``review`` (see the module docstring): ``update`` True, the
    diagram of its latest update (an error when it has none since its last build), False the
    plain one over every record, None the first when the latest update is a search with its
    provenance (:func:`searched`) and studies were included before it (a previous version to
    update), else the plain one. ``previous_studies``
    (the plain diagram only): studies included in a previous version kept elsewhere."""
    latest = latest_update(review, store) if update is not False else None
    if update is None and latest is not None and not searched(store, latest):
        latest = None  # a few records added without a search's provenance: the plain diagram
    if update and latest is None:
        raise InputError(f"{review.path} has not been updated since it was built, so there is no update to "
                         "draw; add a new search with `workbench update FILE`, or draw the plain diagram")
    if latest is not None:
        if previous_studies is not None:
            raise InputError(f"previous_studies={previous_studies} given for an updated review, whose previous "
                             "studies are counted from the store; leave it out, or ask for the plain diagram "
                             "(update=False)")
        updated = update_counts(review, store, latest)
        if update or updated.previous_studies:
            return updated
        # no study was included before the update: there is no previous version to update
    sources = store.sources.recorded()
    other = other_papers(review, sources)
    still, n_merged = merged_by_people(review, store, other)
    ident = identification(review, store)
    ident = ident.more_duplicates(n_merged)
    return _flow(store, [pid for pid in review.ids if pid not in still and pid not in other], ident,
                 previous_studies=previous_studies, other=_other(store, sources, other - still))


def _systematic(store) -> bool:
    """Whether the review is screened as a systematic review: a source with search provenance,
    a full-text decision, a final decision, or team settings (blind, reviewers per paper, criteria)."""
    settings = store.settings.read()
    return (any(s.provenance_given for s in store.sources.recorded()) or bool(store.decisions.every(FULL_TEXT, all_reviewers=True))
            or bool(store.team.finals(None)) or any(k in settings for k in ("blind", "reviewers_per_paper", "criteria")))


def in_report(review, store, wanted: bool | None = None) -> tuple[team.PrismaCounts | None, str | None]:
    """The PRISMA counts for the report (an updated review's: of its latest update), or why there
    are none: ``wanted`` True or False, or None for a review screened as a systematic review (an
    exploratory map of papers gets no flow diagram)."""
    if wanted is False or (wanted is None and not _systematic(store)):
        return None, None
    try:
        return counts(review, store), None
    except team.PrismaCheckError as err:  # the report is still written, and says why
        return None, f"The PRISMA counts are not shown: {err}"


def write_diagram(counts: team.PrismaCounts, folder, name: str = "prisma", *, check: bool = True,
                  dpi: int = 200) -> tuple[Path, Path]:
    """Draw the PRISMA 2020 flow diagram to ``folder/<name>.svg`` and ``folder/<name>.png`` (each
    written whole or not at all) and return both paths. ``folder`` is made when missing and refused
    when it is, or is inside, a review's own state (:func:`workbench.store.check_output`); the counts
    are checked first unless ``check=False``."""
    where = check_output(folder, folder=True, purpose="the PRISMA diagram")
    svg, png = team.render_diagram(counts, check=check, dpi=dpi)
    return (write_output(where / f"{name}.svg", svg, purpose="the PRISMA diagram"),
            write_output(where / f"{name}.png", png, purpose="the PRISMA diagram"))
