"""The paper and its text: the record every stage shares, and how a source's text becomes it.

- :mod:`.paper`: :class:`Paper` (a frozen record with a stable id), :class:`PaperInfo` (its
  metadata alone) and the facts every stage shares (:data:`OUTLIER`, :data:`DECISIONS`, the
  screening stages);
- :mod:`.texts`: papers' texts held beside their metadata (in memory, or left in a review's
  papers.jsonl), and reading a papers.jsonl back;
- :mod:`.ids`: the stable ids (DOI, arXiv, PubMed, else the normalised text, in any script);
- :mod:`.clean` and :mod:`.latex_pieces`: text clean-up (LaTeX to text, whitespace);
- :mod:`.titles` and :mod:`.title_checks`: a readable title for a record without one, and
  whether a title says more than its abstract;
- :mod:`.phrase_scan` and :mod:`.writing_systems`: words and phrases in any script.

Importing this package loads only :mod:`.paper`; the text modules load when a reader needs them.
"""

from .paper import (
    DECISIONS,
    FULL_TEXT,
    LINK_FIELDS,
    MAX_TEXT_CHARS,
    NOT_RETRIEVED,
    OUTLIER,
    STAGES,
    TITLE_ABSTRACT,
    Paper,
    PaperInfo,
    bounded_text,
    papers_to_frame,
)

__all__ = ["DECISIONS", "FULL_TEXT", "LINK_FIELDS", "MAX_TEXT_CHARS", "NOT_RETRIEVED", "OUTLIER", "STAGES",
           "TITLE_ABSTRACT", "Paper", "PaperInfo", "bounded_text", "papers_to_frame"]
