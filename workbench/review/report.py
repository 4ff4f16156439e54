"""The review report: how screening went (decisions, automation, stopping claims), then per
topic its label, size, words, representative, included and tagged papers and notes; a static
map image; Markdown and HTML files and the exports, in the review folder. All paper text is
escaped in the HTML and shown as text in the Markdown.
"""

from __future__ import annotations

import os
from html import escape
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..fsutil import atomic_write_text

from ._review import Review
from ._screening_report import ScreeningSummary, screening_summary

__all__ = ["TopicSection", "topic_sections", "write_exports", "write_report", "write_static_map"]


@dataclass
class TopicSection:
    topic: int
    label: str
    size: int
    words: list[str]
    representative: list[tuple[str, str]]  # (id, title)
    included: list[tuple[str, str]]
    tagged: list[tuple[str, str, list[str]]]  # (id, title, tags)
    notes: list[tuple[str, str, str]] = field(default_factory=list)  # (id, title, note)


def topic_sections(review: Review, store, n_representative: int = 3) -> list[TopicSection]:
    """One section per topic, largest first; representative papers are nearest the topic's centre."""
    frame = review.frame(store)
    X = review.embeddings()
    topics = review.topics.sort_values(["size", "topic"], ascending=[False, True])
    sections = []
    for row in topics.itertuples():
        members = frame[frame.topic == row.topic]
        if members.empty:
            continue
        rows = review.rows(members.id)
        centre = X[rows].mean(axis=0)
        order = np.argsort(-(X[rows] @ centre), kind="stable")[:n_representative]
        rep = [(members.id.iloc[i], members.title.iloc[i]) for i in order]
        included = [(r.id, r.title) for r in members.itertuples() if r.decision == "include"]
        tagged = [(r.id, r.title, list(r.tags)) for r in members.itertuples() if r.tags]
        notes = [
            (r.id, r.title, n.text) for r in members.itertuples() if r.notes for n in store.notes(r.id)
        ]
        sections.append(
            TopicSection(int(row.topic), str(row.label), int(row.size), list(row.words)[:10], rep, included, tagged, notes)
        )
    return sections


def _markdown(review: Review, sections: list[TopicSection], screening: ScreeningSummary | None = None) -> str:
    """The report as Markdown; paper text is shown as text (HTML and markup escaped)."""
    from ..store import markdown_code as code
    from ..store import markdown_lines as lines_of
    from ..store import markdown_text as md

    r = review
    lines = [f"# Review: {md(r.path.name)}", "", f"{len(r.papers)} papers, {sum(s.topic >= 0 for s in sections)} topics.", ""]
    lines += screening.markdown(md) if screening else []
    for s in sections:
        lines += [f"## {s.topic}: {md(s.label)} ({s.size} papers)", "", "Top words: " + md(", ".join(s.words)), ""]
        lines += ["Representative papers:", ""] + [f"- {md(t)} ({code(i)})" for i, t in s.representative] + [""]
        if s.included:
            lines += ["Included:", ""] + [f"- {md(t)} ({code(i)})" for i, t in s.included] + [""]
        if s.tagged:
            lines += ["Tagged:", ""] + [f"- {md(t)} ({code(i)}): {', '.join(code(g) for g in tags)}" for i, t, tags in s.tagged] + [""]
        if s.notes:
            lines += ["Notes:", ""]
            for i, t, n in s.notes:
                lines += [f"- {md(t)} ({code(i)}):"] + [f"  > {line}" for line in lines_of(n)]
            lines += [""]
    return "\n".join(lines).rstrip() + "\n"


def _html(review: Review, sections: list[TopicSection], image: str | None,
          screening: ScreeningSummary | None = None) -> str:
    r = review

    def items(rows):
        return "".join(f"<li>{escape(t)} <code>{escape(i)}</code></li>" for i, t in rows)

    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{escape(r.path.name)} report</title>",
        "<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
        "h2{border-bottom:1px solid #ddd}code{color:#666}.words{color:#444}</style></head><body>",
        f"<h1>Review: {escape(r.path.name)}</h1><p>{len(r.papers)} papers, {sum(s.topic >= 0 for s in sections)} topics.</p>",
    ]
    if image:
        parts.append(f"<img src='{escape(image)}' alt='map of the review' style='max-width:100%'>")
    if screening:
        parts.append(screening.html())
    for s in sections:
        parts.append(f"<h2>{s.topic}: {escape(s.label)} ({s.size} papers)</h2>")
        parts.append(f"<p class='words'>{escape(', '.join(s.words))}</p>")
        parts.append(f"<h3>Representative papers</h3><ul>{items(s.representative)}</ul>")
        if s.included:
            parts.append(f"<h3>Included</h3><ul>{items(s.included)}</ul>")
        if s.tagged:
            tagged = "".join(
                f"<li>{escape(t)} <code>{escape(i)}</code>: {escape(', '.join(tags))}</li>" for i, t, tags in s.tagged
            )
            parts.append(f"<h3>Tagged</h3><ul>{tagged}</ul>")
        if s.notes:
            notes = "".join(f"<li>{escape(t)} <code>{escape(i)}</code>: {escape(n)}</li>" for i, t, n in s.notes)
            parts.append(f"<h3>Notes</h3><ul>{notes}</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_static_map(review: Review, path: str | os.PathLike) -> Path:
    """A publication-style static map (datamapplot) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .._numba_cache import numba_cache_on_import

    with numba_cache_on_import():
        import datamapplot

    r = review
    labels = np.array([r.topic_labels().get(int(t), "Unassigned") if t >= 0 else "Unlabelled" for t in r.labels], dtype=object)
    fig, _ = datamapplot.create_plot(
        r.coords, labels, title=r.path.name, sub_title=f"{len(r.papers)} papers", noise_label="Unlabelled",
        label_font_size=9, font_family="DejaVu Sans", use_system_fonts=True,
    )
    path = Path(path)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def write_exports(store, folder: str | os.PathLike) -> dict[str, Path]:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for fmt, suffix in (("csv", "csv"), ("bibtex", "bib"), ("ris", "ris"), ("jsonl", "jsonl")):
        path = folder / f"annotations.{suffix}"
        store.export(fmt, path)
        out[fmt] = path
    return out


def write_report(review: Review, folder: str | os.PathLike | None = None, image: bool = True,
                 reviewer: str | None = None) -> dict[str, Path]:
    """Write report.md, report.html, map.png and the exports into ``folder`` (default:
    ``<review>/report``); the decisions shown are ``reviewer``'s."""
    folder = Path(folder or review.path / "report")
    folder.mkdir(parents=True, exist_ok=True)
    with review.store(reviewer=reviewer) as store:
        sections = topic_sections(review, store)
        screening = screening_summary(review, store)
        written = {}
        if image:
            written["map"] = write_static_map(review, folder / "map.png")
        atomic_write_text(folder / "report.md", _markdown(review, sections, screening))
        atomic_write_text(folder / "report.html", _html(review, sections, "map.png" if image else None, screening))
        written.update(markdown=folder / "report.md", html=folder / "report.html")
        written.update(write_exports(store, folder))
    return written
