"""The report's "Field" part: topics over time, the citation links inside the review, the most
cited papers per topic, and the top venues and authors, as plain sentences and rows that the
Markdown and the HTML both render (so they say the same)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from ...field import MIN_TOPIC_TREND
from ...store import markdown_code as code
from ...store import markdown_text as md

__all__ = ["FieldContent", "field_content", "field_html", "field_markdown"]

TREND_COLUMNS = ("Topic", "Papers", "No year", "Trend (pp/year)", "Earlier share (%)", "Recent share (%)")


@dataclass
class FieldContent:
    """``sentences`` in order; ``trends``: one row per topic (strings, :data:`TREND_COLUMNS`);
    ``most_cited``: (topic heading, [(id, title, times cited)])."""

    sentences: list[str]
    trends: list[tuple[str, ...]]
    most_cited: list[tuple[str, list[tuple[str, str, int]]]] = field(default_factory=list)
    who: list[str] = field(default_factory=list)


def _topic(t, labels) -> str:
    return f"{t}: {labels.get(int(t), 'Unassigned')}"


def _trend_sentences(over, labels) -> list[str]:
    if not over.trending:  # too few papers carry a year to say what rises or fades
        return [f"{over.coverage()}; no trend is claimed."]
    span = f" ({over.years[0]}-{over.years[-1]})" if over.years else ""
    out = [f"{over.with_year} papers have a year{span}; {over.no_year} have none and are shown as \"no year\"."]
    out.append(f"Trend: {over.measure}; a topic is named as rising or fading with {MIN_TOPIC_TREND} papers "
               "or more with a year in that window.")
    for name, rows in (("Rising most", over.rising()), ("Fading most", over.fading())):
        if len(rows):
            items = "; ".join(f"{_topic(r.topic, labels)} ({r.slope:+.2f} pp/year)" for r in rows.itertuples())
            out.append(f"{name}: {items}.")
    return out


def _link_sentence(links) -> str:
    if not links.references and not len(links):
        return ("Citation links: none; the sources carry no references (OpenAlex and Semantic Scholar "
                "exports do, and Web of Science or Scopus exports with cited references).")
    return (f"Citation links inside the review: {len(links)}. The sources of {links.with_references} papers "
            f"name {links.references} cited works; {links.resolved} of them are papers of this review.")


def field_content(review, n_cited: int = 3) -> FieldContent:
    labels = review.topic_labels()
    over = review.field.over_time()
    trends = [(_topic(r.topic, labels), str(r.papers), str(r.no_year), f"{r.slope:+.2f}", f"{r.before:.1f}",
               f"{r.recent:.1f}") for r in over.trends.sort_values("topic").itertuples()] if over.trending else []
    links = review.field.links()
    cited = [(_topic(t, labels), [(pid, review.paper(pid).title, n) for pid, n in found])
             for t, found in sorted(review.field.most_cited(n_cited).items())]
    summary = review.field.field_summary(top=5)
    who = [f"Top venues ({summary.no_venue} papers without one): "
           + ("; ".join(f"{r.name} ({r.papers})" for r in summary.venues.itertuples()) or "none") + ".",
           f"Top authors ({summary.no_authors} papers without any; names normalised to surname and initial): "
           + ("; ".join(f"{r.name} ({r.papers})" for r in summary.authors.itertuples()) or "none") + ".",
           "Writing together most (papers shared): "
           + ("; ".join(f"{r.author} & {r.coauthor} ({r.papers})" for r in summary.coauthors.itertuples()) or "none")
           + "."]
    return FieldContent(_trend_sentences(over, labels) + [_link_sentence(links)], trends, cited, who)


def field_markdown(f: FieldContent) -> list[str]:
    lines = ["## Field", ""] + [line for s in f.sentences for line in (md(s), "")]
    if f.trends:
        lines += ["| " + " | ".join(TREND_COLUMNS) + " |", "|---|" + "---:|" * (len(TREND_COLUMNS) - 1)]
        lines += ["| " + " | ".join(md(v) for v in row) + " |" for row in f.trends] + [""]
    if f.most_cited:
        lines += ["### Most cited inside the review", ""]
        for heading, papers in f.most_cited:
            lines += [f"- {md(heading)}"] + [f"  - {md(t)} ({code(i)}): cited by {n}" for i, t, n in papers]
        lines += [""]
    lines += [line for s in f.who for line in (md(s), "")]
    return lines


def field_html(f: FieldContent, images: tuple[str, ...] = ()) -> list[str]:
    parts = ["<h2>Field</h2>"] + [f"<p>{escape(s)}</p>" for s in f.sentences]
    parts += [f"<img src='{escape(i)}' alt='{escape(i.rsplit('.', 1)[0].replace('_', ' '))}' "
              "style='max-width:100%'>" for i in images]
    head = "".join(f"<th>{h}</th>" for h in TREND_COLUMNS)
    rows = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in row) + "</tr>" for row in f.trends)
    if f.trends:
        parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
    if f.most_cited:
        items = "".join(f"<li>{escape(h)}<ul>" + "".join(
            f"<li>{escape(t)} (<code>{escape(i)}</code>): cited by {n}</li>" for i, t, n in papers) + "</ul></li>"
            for h, papers in f.most_cited)
        parts.append(f"<h3>Most cited inside the review</h3><ul>{items}</ul>")
    parts += [f"<p>{escape(s)}</p>" for s in f.who]
    return parts
