"""Topics: UMAP -> HDBSCAN -> outliers reassigned -> Ward merging -> c-TF-IDF labels.

:class:`TopicModel` (scikit-learn shaped) takes precomputed embeddings and, for its labels, a
function that embeds words; it never sees an embedder, a cache, the store or the widgets. The
modules, in the order a fit runs them:

- :mod:`.cluster`: seeded UMAP, HDBSCAN, outliers given a topic (or, below
  :data:`MIN_PAPERS_FOR_BERTOPIC` papers, agglomerative clustering);
- :mod:`.hierarchy`: HDBSCAN's many small topics merged into themes along their Ward tree;
- :mod:`.represent` and :mod:`.labels`: each topic's words (BERTopic's c-TF-IDF and
  KeyBERT-inspired words, ranked by F1), its label (the words found in the topic more than
  elsewhere, F0.5; two to four words, no term made only of the corpus's most common words),
  written as the papers write it, and its most typical papers;
- :mod:`.model`: :class:`TopicModel` tying them together, and :func:`seed_labelings`;
- :mod:`.stability`: how much of the topics survives a change of seed;
- :mod:`.shims`: BERTopic imported without torch; BERTopic is used nowhere else.
"""

from .cluster import MIN_PAPERS_FOR_BERTOPIC, reassign_outliers
from .ctfidf import (
    COUNT_COLUMNS, TermCounts, Weighing, best_words, ctfidf_words, merged_words, summed,
    term_buckets, topic_term_counts, topic_totals, weighing
)
from .hierarchy import MERGE_VARIANCE, MIN_MERGED_TOPICS, merge_topics, ward_merges
from .labels import (
    FREQUENT_WORDS, LABEL_BETA, candidate_words, common_words, frequent_words, rank_hits,
    rank_words, readable_label, stop_words, word_hits
)
from .model import TopicModel, seed_labelings
from .represent import LABEL_WORDS, TOPIC_COLUMNS, representatives, topic_frame
from .stability import mean_pairwise_ari, topic_stability

__all__ = [
    "TOPIC_COLUMNS",
    "TopicModel",
    "MIN_PAPERS_FOR_BERTOPIC",
    "reassign_outliers",
    "MERGE_VARIANCE",
    "MIN_MERGED_TOPICS",
    "merge_topics",
    "ward_merges",
    "seed_labelings",
    "topic_stability",
    "mean_pairwise_ari",
    "stop_words",
    "readable_label",
    "common_words",
    "candidate_words",
    "rank_words",
    "frequent_words",
    "FREQUENT_WORDS",
    "LABEL_BETA",
    "word_hits",
    "rank_hits",
    "LABEL_WORDS",
    "representatives",
    "topic_frame",
    "COUNT_COLUMNS",
    "TermCounts",
    "topic_term_counts",
    "summed",
    "term_buckets",
    "Weighing",
    "topic_totals",
    "weighing",
    "best_words",
    "merged_words",
    "ctfidf_words",
]
