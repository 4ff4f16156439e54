"""A paper opened in 01 (from the selection's table, a point on the map, or the moves through the
selection): its card (abstract, authors, year, topic, decision, tags, notes, the others' votes as
blind mode allows) as the card component shows it, and the table's rows, read from the map's
frame (kept up to date by the map). A decision made in bulk (a topic or a map selection at once,
unread) says so in both."""

from __future__ import annotations

from ..session.session import Session
from ..session.text import authors_line, citations_html, escape

__all__ = ["BULK_NOTE", "paper_card", "table_rows"]

BULK_NOTE = "decided in bulk (map)"  # beside a decision made on many papers at once, unread


def table_rows(frame, rows, found=None) -> list[dict]:
    """The selection table's rows for the map rows ``rows`` of ``frame`` (the map's frame);
    with ``found`` (the search that made the selection) each title says how it was found.
    Read column by column (a topic of 4,000 papers: 0.05 s, where a row at a time took 4 s)."""
    sub = frame.iloc[[int(i) for i in rows]]
    columns = {name: sub[name].tolist() for name in ("id", "title", "Year", "Topic", "topic", "decision", "tags", "bulk")}
    out = []
    for pid, title, year, topic, topic_id, decision, tags, bulk in zip(*columns.values()):
        hit = found.hit(pid) if found is not None else None
        out.append({"id": pid, "title": f"{title} ({hit.describe()})" if hit is not None else title, "year": year,
                    "topic": topic, "topic_id": int(topic_id), "decision": f"{decision} · {BULK_NOTE}" if bulk else decision,
                    "tags": ", ".join(tags)})
    return out


def paper_card(session: Session, paper_id: str, where: str = "") -> dict:
    """The card of ``paper_id`` as the card component (:class:`~._screencard.ScreenCard`, mode
    "paper") shows it; ``where`` says where it is (e.g. "3 of 25 selected"). Every piece of
    paper text is escaped; fields ending in ``_html`` carry only the workbench's own markup."""
    paper = session.paper(paper_id)
    store = session.store
    topic = session.review.topic_of(paper.id)
    decision = store.decisions.of(paper.id)
    said = []
    if decision and paper.id in session.map.decided_in_bulk():
        said.append(f"<span class='wb-bulk'>{BULK_NOTE}</span>")
    # The other reviewers' votes, as far as blind mode lets this reviewer see them.
    others = [(who, d) for who, d in sorted(session.team.visible(paper.id).decisions.items()) if who != session.reviewer]
    if others:
        said.append("others: " + ", ".join(f"{escape(who)}: {escape(d.decision)}" + (f" ({escape(d.reason)})"
                                                                                      if d.reason else "")
                                           for who, d in others))
    year = f" · {paper.year}" if paper.year else ""
    return {
        "id": paper.id, "where": where, "title_html": escape(paper.title),
        "byline_html": (f"{escape(authors_line(paper.authors, paper.et_al))}{year} · {escape(paper.collection)} · "
                        f"topic {topic}: {escape(session.topic_label(topic))}"),
        "decision": decision.decision if decision else "", "reason": (decision.reason or "") if decision else "",
        "tags": list(store.tags.of(paper.id)),
        "votes_html": f"<div class='wb-meta wbc-others'>{' · '.join(said)}</div>" if said else "",
        "citations_html": citations_html(session.review, paper.id), "abstract_html": escape(paper.text),
        "notes_html": [escape(n.text) for n in store.notes.of(paper.id)],
    }
