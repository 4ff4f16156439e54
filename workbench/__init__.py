"""workbench: map, tag, screen and annotate paper abstracts from JupyterLab.

The pipeline, in the order the modules run: ``readers`` (sources -> papers) -> ``embed``
(papers -> vectors, cached) -> ``topics`` (BERTopic: UMAP -> HDBSCAN -> c-TF-IDF) -> ``layout``
(2-D map) -> ``review`` (a folder on disk tying them together).
"""

from . import errors
from .errors import (
    EmbedderError, InputError, NoRecordsError, ReaderError, ReviewError, StoreError,
    WorkbenchError
)
from ._version import __version__
from .readers import read_file, read_sources
from .corpus.paper import Paper, PaperInfo, papers_to_frame
from .review import (
    BuildReport, Review, SaveReport, UpdateReport, build, open_or_build, open_review, refit, review_methods,
    show_themes, update, write_report,
)

__all__ = [
    "__version__",
    "build",
    "update",
    "refit",
    "show_themes",
    "write_report",
    "review_methods",
    "UpdateReport",
    "open_review",
    "open_or_build",
    "Review",
    "BuildReport",
    "SaveReport",
    "Paper",
    "PaperInfo",
    "papers_to_frame",
    "read_file",
    "read_sources",
    *errors.__all__,
]
