"""A paper opened from the selection table: its card (abstract, authors, year, topic, decision,
tags, notes) and the table's rows, read from the map's frame (kept up to date by the map)."""

from __future__ import annotations

from ..session import Session
from ..text import authors_line, citations_html, escape
from .common import tag_chips

__all__ = ["paper_card", "table_rows"]


def table_rows(frame, rows, found=None) -> list[dict]:
    """The selection table's rows for the map rows ``rows`` of ``frame`` (the map's frame);
    with ``found`` (the search that made the selection) each title says how it was found."""
    out = []
    for i in rows:
        r = frame.iloc[int(i)]
        hit = found.hit(r["id"]) if found is not None else None
        title = f"{r['title']} ({hit.describe()})" if hit is not None else r["title"]
        out.append({"id": r["id"], "title": title, "year": r["Year"], "topic": r["Topic"],
                    "topic_id": int(r["topic"]), "decision": r["decision"], "tags": ", ".join(r["tags"])})
    return out


def paper_card(session: Session, paper_id: str) -> str:
    """The card of ``paper_id`` as HTML (every piece of paper text escaped)."""
    paper = session.paper(paper_id)
    store = session.store
    topic = session.review.topic_of(paper.id)
    decision = store.decision(paper.id)
    said = (f"<b>{escape(decision.decision)}</b>" + (f" ({escape(decision.reason)})" if decision.reason else "")
            if decision else "undecided")
    notes = "".join(f"<li>{escape(n.text)}</li>" for n in store.notes(paper.id))
    year = f" · {paper.year}" if paper.year else ""
    return (
        f"<div class='wb-card wb-opened-card'><div class='wb-meta'><code>{escape(paper.id)}</code> · "
        f"{escape(paper.collection)}</div>"
        f"<h3>{escape(paper.title)}</h3>"
        f"<div class='wb-meta'>{escape(authors_line(paper.authors, paper.et_al))}{year} · "
        f"topic {topic}: {escape(session.topic_label(topic))}</div>"
        f"<div class='wb-meta'>decision: {said} · tags: {tag_chips(store.tags(paper.id)) or 'none'}</div>"
        + citations_html(session.review, paper.id)
        + f"<div class='wb-abstract'>{escape(paper.text)}</div>"
        + (f"<div class='wb-meta'>notes:<ul>{notes}</ul></div>" if notes else "<div class='wb-meta'>no notes</div>")
        + "</div>"
    )
