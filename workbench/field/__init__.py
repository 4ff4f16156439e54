"""Seeing the field of a corpus: citation links inside it, topics over time, who and where.

Modules: ``links`` (the citation links among papers, matched by DOI, OpenAlex, Semantic Scholar,
arXiv and PubMed ids), ``trends`` (papers per topic per year, and the stated trend measure),
``names`` (one key per author and venue however sources write them), ``summary`` (venues,
authors and years of a set of papers), ``coauthors`` (the co-authorship graph, networkx),
``figures`` (matplotlib figures on the map's palette), ``snowball`` (citation searching: the works
the papers cite, or that cite them, outside the corpus, with their lookup files). This stage knows nothing of the store, the review or the faces: the review gives it papers,
topics and labels.
"""

from .coauthors import coauthorship
from .links import Citations, Links, coupling, link_keys, resolve_links, shared_references
from .names import author_key, display_names, venue_key
from .snowball import DIRECTIONS, Candidate, Snowball, snowball
from .summary import MAX_COAUTHORS, FieldSummary, coauthor_pairs, summarise
from .trends import MIN_CHART, MIN_TOPIC_TREND, MIN_TREND, NO_YEAR, TREND_MEASURE, OverTime, over_time

__all__ = [
    "DIRECTIONS",
    "MAX_COAUTHORS",
    "MIN_CHART",
    "MIN_TOPIC_TREND",
    "MIN_TREND",
    "NO_YEAR",
    "TREND_MEASURE",
    "Candidate",
    "Citations",
    "FieldSummary",
    "Links",
    "OverTime",
    "author_key",
    "coauthor_pairs",
    "coauthorship",
    "coupling",
    "display_names",
    "link_keys",
    "over_time",
    "resolve_links",
    "shared_references",
    "Snowball",
    "snowball",
    "summarise",
    "venue_key",
]
