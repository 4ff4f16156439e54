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

Modules: ``_review`` (the :class:`Review`), ``_build`` (build and save), ``_open`` (opening),
``_check`` (``workbench check``: the store and every file of the current set), ``_search`` (keywords, meaning, neighbours), ``_themes`` (refit, k themes, sub-topics,
stability), ``_text`` (what is embedded for a paper, papers read back with their texts left on disk), ``_screening`` (the ranked queue and the
records of decisions), ``_stopping`` (the stopping estimate and advice), ``_simulate`` (replaying
a labelled file), ``_team`` (conflicts, agreement, blind mode, imports), ``_prisma`` and
``_provenance`` (the PRISMA 2020 counts and the sources' search provenance), ``_update`` and
``_living`` (a new search added without refitting, the new papers), ``_snowball`` (citation
searching from the included papers, and its lookup files), ``report`` (the review's report and
its methods text).
"""

from .build._build import DEFAULT_REVIEW, BuildReport, SaveReport, build
from ._check import CheckReport, check_review
from ._open import is_review, open_or_build, open_review
from ._review import PAPER_TABLE_COLUMNS, TOPIC_TABLE_COLUMNS, Review
from ._screening import SCREENING_MODELS, RankedPaper, Ranking
from ._search import KEYWORD, MEANING, SearchHit, SearchResult, query_terms
from ._simulate import read_labelled, simulate_file, simulation_json
from ._stopping import StoppingReport
from ._team import import_annotations, screening_of
from ._text import document_text
from ._update import NEW_SINCE, DuplicateFound, UpdateReport, update
from ._prisma import write_diagram
from ._snowball import LOOKUPS as SNOWBALL_LOOKUPS
from ._snowball import write_lookup
from .report import write_report

__all__ = [
    "DEFAULT_REVIEW",
    "PAPER_TABLE_COLUMNS",
    "SCREENING_MODELS",
    "SNOWBALL_LOOKUPS",
    "TOPIC_TABLE_COLUMNS",
    "BuildReport",
    "CheckReport",
    "RankedPaper",
    "Ranking",
    "Review",
    "KEYWORD",
    "MEANING",
    "NEW_SINCE",
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
    "query_terms",
    "read_labelled",
    "screening_of",
    "simulate_file",
    "simulation_json",
    "update",
    "write_diagram",
    "write_lookup",
    "write_report",
]
