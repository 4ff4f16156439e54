"""Citation searching on a review: the works its included papers cite (backward) or that cite
them (forward), not yet in the review, and the lookup files a database takes for them.

Which papers to start from (``from_``):

- ``"included"`` (the default): the papers settled as included at full text, or, while nobody
  has decided anything at full text, those settled as included at title/abstract (agreed by
  the reviewers the review needs, or resolved); in blind mode as the store's reviewer may see
  them (:func:`~._decisions.screening_of`), so snowballing shows no paper blind mode hides;
- ``"all"``: every paper of the review; or a list of paper ids (unique prefixes allowed).

The work is :func:`workbench.field.snowball`. The records found that way are added with
``workbench update FILE --method citation-search`` (``workbench.update(FILE, review,
provenance={FILE: {"method": "citation-search"}})``), and PRISMA 2020 counts them in its other-methods column (``_prisma``).
"""

from __future__ import annotations

from dataclasses import replace

from .. import field
from ..corpus.paper import FULL_TEXT, TITLE_ABSTRACT
from ..errors import InputError
from ..store import write_output
from ._decisions import papers_of, screening_of, store_of

__all__ = ["FROM", "LOOKUPS", "snowball", "start_papers", "write_lookup"]

#: What ``from_`` names besides a list of ids.
FROM = ("included", "all")
#: The lookup files: a DOI list, OpenAlex filters.
LOOKUPS = ("dois", "openalex")


def start_papers(review, store, from_="included") -> tuple[list[str], str]:
    """The ids to snowball from (see the module) and what they are, in words."""
    if isinstance(from_, str) and from_ not in FROM:
        raise InputError(f"from_={from_!r}: expected 'included', 'all', or a list of paper ids")
    if from_ == "all":
        return list(review.ids), f"all {len(review)} papers of the review"
    if not isinstance(from_, str):
        ids = papers_of(review, store, list(from_))
        return ids, f"{len(ids)} papers given"
    for stage, words in ((FULL_TEXT, "included at full text"), (TITLE_ABSTRACT, "included at title/abstract")):
        settled = screening_of(store, stage, review.ids)
        if stage == FULL_TEXT and not settled.papers:
            continue
        ids = [pid for pid in review.ids if pid in settled.papers and settled.papers[pid].settled
               and settled.papers[pid].decision == "include"]
        blind = " that blind mode shows you" if store.team.blind else ""
        return ids, f"the {len(ids)} papers {words}{blind}"
    return [], "no papers"


def snowball(review, direction: str = "backward", from_="included", reviewer: str | None = None,
             store=None) -> field.Snowball:
    """The works outside ``review`` that its papers ``from_`` cite (``direction="backward"``) or
    that cite them (``"forward"``, where the records carry citations), ranked by how many of
    those papers point to each, with the ids the sources gave (:class:`workbench.field.Snowball`);
    the included papers as ``store`` (a session's open store) or ``reviewer`` may see them."""
    with store_of(review, store, reviewer) as opened:
        ids, basis = start_papers(review, opened, from_)
    return replace(field.snowball(review.papers, ids, direction), basis=basis)


def write_lookup(found: field.Snowball, path, kind: str = "dois", store_path=None):
    """Write the lookup file of ``found`` (``kind``: ``dois``, one DOI a line, or ``openalex``,
    one OpenAlex filter a line) to ``path``, whole (never onto a review's own files); returns
    where it went."""
    if kind not in LOOKUPS:
        raise InputError(f"lookup {kind!r}: expected one of {', '.join(LOOKUPS)}")
    return write_output(path, found.lookup(kind), store_path=store_path, purpose="the snowball lookup file")
