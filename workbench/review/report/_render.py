"""The report as Markdown and as HTML, written from the same :class:`ReportContent`.

Both have the same parts in the same order, and the HTML is what the Markdown renders to (a
CommonMark renderer with tables gives the same text; ``tests/test_report.py`` checks it). Paper
text, notes, reasons, tags, labels and names are text in both: escaped in the HTML, shown
through the store's Markdown rules (``markdown_text``, ``markdown_code``, ``markdown_lines``) in
the Markdown. Only the HTML carries the map image.
"""

from __future__ import annotations

from html import escape

from ...corpus.paper import DECIDED
from ...store import markdown_code as code
from ...store import markdown_lines as lines_of
from ...store import markdown_text as md
from ._field import field_html, field_markdown
from ._content import DECISION_HEADINGS, Counts, DecidedPaper, ReportContent, TopicSection

__all__ = ["to_html", "to_markdown"]

COLUMNS = ("Reviewer", "Screened", "Included", "Excluded", "Maybe", "Undecided")

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.4}"
    "h2{border-bottom:1px solid #ddd}code{color:#666}table{border-collapse:collapse}"
    "th,td{padding:.2rem .6rem;border-bottom:1px solid #eee;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "blockquote{margin:.2rem 0 .2rem 1rem;padding-left:.6rem;border-left:3px solid #ddd;color:#333}"
    "blockquote p{white-space:pre-wrap;margin:0}"
)


# ----------------------------------------------------------------------------- the words, once

def _summary(c: ReportContent) -> str:
    return f"{c.n_papers} papers in {c.n_topics} topics. The decisions listed are {c.reviewer}'s."


def _row(counts: Counts, first: bool, several: bool) -> list[str]:
    who = counts.reviewer + (" (this report)" if first and several else "")
    return [who, *(str(n) for n in (counts.screened, counts.include, counts.exclude, counts.maybe, counts.undecided))]


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _remarks(c: ReportContent) -> list[str]:
    out = []
    others = [k.reviewer for k in c.counts[1:]]
    if others:
        out.append(f"The reviewers' decisions differ on {_n(c.disagreements, 'paper', 'papers')}.")
    if others and c.counts[0].screened == 0:
        out.append(f"{c.reviewer} has not screened any paper yet, so the lists below are empty; "
                   f"write the report as {' or '.join(others)} to list theirs.")
    if c.orphaned:
        out.append(f"{_n(c.orphaned, 'decision is on a paper', 'decisions are on papers')} no longer "
                   "in the review (not counted).")
    out += c.automation
    if c.prisma_note:
        out.append(c.prisma_note)
    if c.stopping is not None:
        s = c.stopping
        out.append(f"Stopping rule ({s.rule}, logged {s.at[:10]} by {s.reviewer}): "
                   f"{'may stop' if s.stop else 'keep screening'}. {s.claim}")
    return out


def _prisma_rows(c: ReportContent) -> list[tuple[str, str, str]]:
    return [(stage, box, str(n)) for stage, box, n in c.prisma.rows()] if c.prisma is not None else []


PRISMA_HEADING = "PRISMA 2020 flow"
UPDATED_NOTE = ("The review was updated with a new search: PRISMA 2020's diagram for updated reviews, "
                "of the latest update (its new records) against the studies included before it.")
PRISMA_COLUMNS = ("Stage", "Box", "n")


def _where(p: DecidedPaper) -> str:
    year = f", {p.year}" if p.year else ""
    return f"{year}, topic {p.topic}: {p.topic_label}"


def _topic_line(s: TopicSection) -> str:
    k = s.counts
    return (f"Screened by {k.reviewer}: {k.screened} of {k.total} ({k.include} included, "
            f"{k.exclude} excluded, {k.maybe} maybe).")


# ----------------------------------------------------------------------------- Markdown

def _md_paper(title: str, pid: str) -> str:
    return f"{md(title)} ({code(pid)})"


def _md_note(reviewer: str, text: str, indent: str) -> list[str]:
    return [f"{indent}- Note by {md(reviewer)}:"] + [f"{indent}  > {line}" for line in lines_of(text)]


def _md_decided(p: DecidedPaper) -> list[str]:
    lines = [f"- {_md_paper(p.title, p.id)}{md(_where(p))}"]
    if p.reason:
        lines.append(f"  - Reason: {md(p.reason)}")
    for n in p.notes:
        lines += _md_note(n.reviewer, n.text, "  ")
    for who, decision, reason in p.others:
        lines.append(f"  - {md(who)}: {DECIDED[decision]}" + (f" ({md(reason)})" if reason else ""))
    return lines


def _md_topic(s: TopicSection) -> list[str]:
    lines = [f"### {s.topic}: {md(s.label)} ({s.size} papers)", "", "Top words: " + md(", ".join(s.words)), "",
             md(_topic_line(s)), "",
             "#### Representative papers", ""] + [f"- {_md_paper(t, i)}" for i, t in s.representative] + [""]
    if s.included:
        lines += ["#### Included", ""] + [f"- {_md_paper(t, i)}" for i, t in s.included] + [""]
    if s.tagged:
        lines += ["#### Tagged", ""] + [f"- {_md_paper(t, i)}: {', '.join(code(g) for g in tags)}"
                                        for i, t, tags in s.tagged] + [""]
    if s.notes:
        lines += ["#### Notes", ""]
        for i, t, n in s.notes:
            lines += [f"- {_md_paper(t, i)}"] + _md_note(n.reviewer, n.text, "  ")
        lines += [""]
    return lines


def to_markdown(c: ReportContent) -> str:
    several = len(c.counts) > 1
    lines = [f"# {md(c.title)}", "", md(_summary(c)), "", "## Screening", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(md(v) for v in _row(k, i == 0, several)) + " |" for i, k in enumerate(c.counts)]
    lines += [""] + [line for r in _remarks(c) for line in (md(r), "")]
    if c.prisma is not None:
        lines += [f"## {PRISMA_HEADING}", ""] + ([UPDATED_NOTE, ""] if c.prisma.updated else [])
        lines += ["| " + " | ".join(PRISMA_COLUMNS) + " |", "|---|---|---:|"]
        lines += ["| " + " | ".join(md(v) for v in row) + " |" for row in _prisma_rows(c)] + [""]
    for decision, heading in DECISION_HEADINGS.items():
        papers = c.decided[decision]
        lines += [f"## {heading} ({len(papers)})", ""]
        lines += [line for p in papers for line in _md_decided(p)] if papers else ["None."]
        lines += [""]
    if c.field is not None:
        lines += field_markdown(c.field)
    if c.methods is not None:
        lines += c.methods.markdown().splitlines() + [""]
    lines += ["## Topics", ""]
    for s in c.sections:
        lines += _md_topic(s)
    return "\n".join(lines).rstrip() + "\n"


# ----------------------------------------------------------------------------- HTML

def _h_paper(title: str, pid: str) -> str:
    return f"{escape(title)} (<code>{escape(pid)}</code>)"


def _h_note(reviewer: str, text: str) -> str:
    paragraphs = [p for p in text.replace("\r\n", "\n").replace("\r", "\n").split("\n\n") if p.strip()]
    quoted = "".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    return f"<li>Note by {escape(reviewer)}:<blockquote>{quoted}</blockquote></li>"


def _h_decided(p: DecidedPaper) -> str:
    parts = [f"<li>{_h_paper(p.title, p.id)}{escape(_where(p))}"]
    subs = [f"<li>Reason: {escape(p.reason)}</li>"] if p.reason else []
    subs += [_h_note(n.reviewer, n.text) for n in p.notes]
    subs += [f"<li>{escape(who)}: {DECIDED[decision]}" + (f" ({escape(reason)})" if reason else "") + "</li>"
             for who, decision, reason in p.others]
    if subs:
        parts.append("<ul>" + "".join(subs) + "</ul>")
    return "".join(parts) + "</li>"


def _h_list(items: list[str]) -> str:
    return "<ul>" + "".join(items) + "</ul>"


def _h_topic(s: TopicSection) -> list[str]:
    parts = [f"<h3>{s.topic}: {escape(s.label)} ({s.size} papers)</h3>",
             f"<p class='words'>Top words: {escape(', '.join(s.words))}</p>",
             f"<p>{escape(_topic_line(s))}</p>",
             "<h4>Representative papers</h4>" + _h_list([f"<li>{_h_paper(t, i)}</li>" for i, t in s.representative])]
    if s.included:
        parts.append("<h4>Included</h4>" + _h_list([f"<li>{_h_paper(t, i)}</li>" for i, t in s.included]))
    if s.tagged:
        parts.append("<h4>Tagged</h4>" + _h_list([
            f"<li>{_h_paper(t, i)}: {', '.join(f'<code>{escape(g)}</code>' for g in tags)}</li>"
            for i, t, tags in s.tagged]))
    if s.notes:
        parts.append("<h4>Notes</h4>" + _h_list([
            f"<li>{_h_paper(t, i)}<ul>{_h_note(n.reviewer, n.text)}</ul></li>" for i, t, n in s.notes]))
    return parts


def to_html(c: ReportContent, image: str | None = None, prisma_image: str | None = None,
            field_images: tuple[str, ...] = ()) -> str:
    several = len(c.counts) > 1
    head = "".join(f"<th>{h}</th>" for h in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in _row(k, i == 0, several)) + "</tr>"
                   for i, k in enumerate(c.counts))
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>{escape(c.title)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{escape(c.title)}</h1>",
        f"<p>{escape(_summary(c))}</p>",
    ]
    if image:
        parts.append(f"<img src='{escape(image)}' alt='map of the review' style='max-width:100%'>")
    parts.append(f"<h2>Screening</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
    parts += [f"<p>{escape(r)}</p>" for r in _remarks(c)]
    if c.prisma is not None:
        rows = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in row) + "</tr>" for row in _prisma_rows(c))
        head = "".join(f"<th>{h}</th>" for h in PRISMA_COLUMNS)
        note = f"<p>{escape(UPDATED_NOTE)}</p>" if c.prisma.updated else ""
        parts.append(f"<h2>{PRISMA_HEADING}</h2>{note}<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        if prisma_image:
            parts.append(f"<img src='{escape(prisma_image)}' alt='PRISMA 2020 flow diagram' style='max-width:100%'>")
    for decision, heading in DECISION_HEADINGS.items():
        papers = c.decided[decision]
        parts.append(f"<h2>{heading} ({len(papers)})</h2>")
        parts.append(_h_list([_h_decided(p) for p in papers]) if papers else "<p>None.</p>")
    if c.field is not None:
        parts += field_html(c.field, field_images)
    if c.methods is not None:
        parts.append(c.methods.html())
    parts.append("<h2>Topics</h2>")
    for s in c.sections:
        parts += _h_topic(s)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
