"""A review: one folder on disk tying the pipeline's stages together, and the one API the faces use.

``build`` runs read -> embed (cached) -> topics -> map and writes the folder; ``open_review``
loads it back as a :class:`Review`. The folder holds::

    annotations.sqlite    tags, notes, decisions, topic edits and their history (workbench.store);
                          it also names the current generation of the files below
    generations/<name>/   the review's files, one complete set per build or saved topic run:
        build.json            what was built, from what, with which parameters, how long it took
        papers.jsonl          one paper per line (the cleaned records; "text" only where it differs from "abstract");
                              an opened review reads a paper's abstract and text from it when asked
        topics.json           topic, label, size, words (+ the method and any fallback note)
        map.csv               id, topic, x, y
        arrays.safetensors    coordinates, the 5-d clustering space and labels (numpy, no pickle)
        model/                the fitted BERTopic model (safetensors, no pickle)
    map.html              an interactive map that opens in any browser, offline
    cache/embeddings.sqlite   embeddings keyed by (embedder, text hash)
    backups/              snapshots of the store, taken before every rebuild, import and topic run
    report/               the report and the exports

A save writes a new generation beside the current one and switches to it in the same store
transaction that records its topics (see :mod:`workbench.review._folder`): an interrupted build or
refit leaves the previous review whole, and never a mix of the two.

What makes a review has one spelling each, and returns a new :class:`Review` (the one given is
never changed): :func:`build`, :func:`open_review`, :func:`update` (a new search added),
:func:`refit` (topics found again), :func:`show_themes` (the topics as k themes); the report is
:func:`write_report`, its methods text :func:`review_methods`. A review's parts: ``review.screening`` (``_screening``: the ranked queue,
decisions, the stopping estimate of ``_stopping``), ``review.team`` (``_team``: status at a stage,
conflicts, agreement, blind mode, PRISMA of ``_prisma``, imports), ``review.field``
(``_field``: citations, snowballing, topics over time, who and where), ``review.updates`` (``_living``: what
updates brought, duplicates).

Modules: ``_review`` (the :class:`Review`), ``build`` (build; ``build._save``: saving all or
nothing), ``_open`` (opening), ``_check`` (``workbench check``: the store and every file of the
current set), ``_search`` (keywords, meaning, neighbours), ``_themes`` (refit, k themes),
``_text`` (what is embedded for a paper), ``_decisions`` (the store's decisions read for a
review: status at a stage, what a queue learns from), ``_simulate`` (replaying a labelled file),
``_provenance`` (the sources' search provenance), ``_update`` (a new search added without
refitting), ``_snowball`` (citation searching from the included papers, and its lookup files),
``report`` (the review's report and its methods text).
"""

from ._check import CheckReport, check_review
from ._decisions import screening_of
from ._field import ReviewField
from ._living import NEW_SINCE, UPDATE_REVIEWER, LatestUpdate, ReviewUpdates
from ._open import is_review, open_or_build, open_review
from ._prisma import write_diagram
from ._review import PAPER_TABLE_COLUMNS, TOPIC_TABLE_COLUMNS, Review
from ._screening import SCREENING_MODELS, RankedPaper, Ranking, ReviewScreening, prepare_screening
from ..screening import band as relevance_band  # high / medium / low, as Ranking.relevance says it
from ._search import KEYWORD, MEANING, SearchHit, SearchResult, prepare_search, query_terms
from ._simulate import read_labelled, simulate_file, simulation_json
from ._snowball import LOOKUPS as SNOWBALL_LOOKUPS
from ._snowball import write_lookup
from ._stopping import StoppingReport
from ._team import ReviewTeam, import_annotations
from ._text import document_text
from ._themes import refit, show_themes
from ._update import DuplicateFound, UpdateReport, update
from .build._build import DEFAULT_REVIEW, build
from .build._save import BuildReport, SaveReport
from .report import review_methods, write_report

__all__ = [
    "DEFAULT_REVIEW",
    "PAPER_TABLE_COLUMNS",
    "SCREENING_MODELS",
    "SNOWBALL_LOOKUPS",
    "TOPIC_TABLE_COLUMNS",
    "BuildReport",
    "LatestUpdate",
    "ReviewField",
    "ReviewScreening",
    "ReviewTeam",
    "ReviewUpdates",
    "CheckReport",
    "RankedPaper",
    "Ranking",
    "Review",
    "KEYWORD",
    "MEANING",
    "NEW_SINCE",
    "UPDATE_REVIEWER",
    "SaveReport",
    "DuplicateFound",
    "UpdateReport",
    "SearchHit",
    "SearchResult",
    "StoppingReport",
    "build",
    "check_review",
    "document_text",
    "import_annotations",
    "is_review",
    "open_or_build",
    "open_review",
    "prepare_screening",
    "prepare_search",
    "query_terms",
    "read_labelled",
    "refit",
    "relevance_band",
    "review_methods",
    "screening_of",
    "show_themes",
    "simulate_file",
    "simulation_json",
    "update",
    "write_diagram",
    "write_lookup",
    "write_report",
]
