"""An interactive map of a review as one self-contained HTML file (plotly, works offline).

Points are coloured by topic id with the palette every map of the review shares
(:mod:`workbench.space.palette`), sized by the number of papers; the legend, beside the map, lists
``<topic>: <label> (<papers>)`` in topic order (click an entry to hide a topic, double-click to
isolate it); hovering shows the title, authors, year, topic and the first words of the
abstract; zoom and pan with the mouse.

Above :data:`MAX_POINTS` papers (a field map of a million abstracts) the file would be hundreds
of megabytes that no browser draws: it shows a seeded random sample of :data:`MAX_POINTS` papers
drawn from every topic in proportion (each topic keeps at least one point), says so in its title,
and the legend still counts every paper of a topic. The explore notebook draws them all.
"""

from __future__ import annotations

import bisect
import html
import os
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from .palette import point_size, topic_colours

__all__ = ["map_figure", "write_map_html"]

ABSTRACT_CHARS = 240  # of the abstract in a point's hover
MAX_POINTS = 200_000  # drawn in map.html; more are sampled (see the module's docstring)
SAMPLE_SEED = 0


def sample_rows(topics: np.ndarray, limit: int = MAX_POINTS, seed: int = SAMPLE_SEED) -> np.ndarray:
    """Sorted row numbers of at most ``limit`` papers, every topic in proportion to its size
    (rounded down, at least one paper each; the rest of the budget goes to the largest
    remainders), drawn with ``seed``: the same map gives the same sample."""
    topics = np.asarray(topics)
    if len(topics) <= limit:
        return np.arange(len(topics))
    rng = np.random.default_rng(seed)
    ids, sizes = np.unique(topics, return_counts=True)
    share = sizes * (limit / len(topics))
    take = np.maximum(1, np.floor(share)).astype(int)
    spare = limit - int(take.sum())
    if spare > 0:  # the largest remainders first, in topic order among equals
        order = np.argsort(-(share - np.floor(share)), kind="stable")[:spare]
        take[order] += 1
    take = np.minimum(take, sizes)
    rows = [rng.choice(np.flatnonzero(topics == t), size=k, replace=False) for t, k in zip(ids, take)]
    return np.sort(np.concatenate(rows))


def _hover(title: str, authors, year, label: str, abstract: str = "") -> str:
    who = ", ".join(list(authors)[:3]) + (" et al." if len(authors) > 3 else "")
    when = "" if pd.isna(year) else str(int(year))
    parts = [f"<b>{html.escape(title)}</b>"]
    if who or when:
        parts.append(html.escape(" · ".join(x for x in (who, when) if x)))
    parts.append(html.escape(label))
    if abstract:
        parts.append("<i>" + "<br>".join(html.escape(line) for line in excerpt_lines(abstract)) + "</i>")
    return "<br>".join(parts)


def excerpt_lines(abstract: str, width: int = ABSTRACT_CHARS, line: int = 70) -> list[str]:
    """The start of ``abstract`` as a point's hover shows it: ``textwrap.shorten`` to ``width``
    (placeholder " …"), wrapped by ``textwrap.wrap`` at ``line`` characters. The same lines from
    textwrap's own word splitting (hyphenated words may break after the hyphen), packed here
    ~5 times faster (13 s of a 50,000-paper build went to textwrap); a word longer than a line,
    which textwrap breaks, goes through textwrap itself."""
    # Only words starting within the first `width` characters can be on the shortened line, and
    # none of textwrap's choices about them looks more than a word (<= `line` here) further.
    keep = width + line + 2
    text = " ".join(abstract[: 2 * keep].split())  # (single-spaced as the whole would be, this far)
    if len(text) <= keep:
        text = " ".join(abstract.split())
    text = text[:keep]
    if "-" not in text:  # (most abstracts: their chunks are their words and the spaces between)
        lines = _plain_lines(text, width, line)
        if lines is not None:
            return lines
    lines = _hyphenated_lines(text, width, line)
    return textwrap.wrap(textwrap.shorten(text, width, placeholder=" …"), line) if lines is None else lines


def _plain_lines(text: str, width: int, line: int, placeholder: str = " …") -> list[str] | None:
    """:func:`excerpt_lines` of single-spaced ``text`` without a hyphen, whose chunks are its
    words and the spaces between them: textwrap's greedy choices are then the last space that
    fits, found by ``rfind`` (a few times faster than packing chunk by chunk). None where
    textwrap would break a word (longer than a line) or keep no word."""
    if len(text) > width:  # shortened: the most words that fit with the placeholder
        cut = text.rfind(" ", 0, width - len(placeholder) + 1)
        if cut <= 0:
            return None
        text = text[:cut] + placeholder
    if text and max(map(len, text.split(" "))) > line:
        return None
    lines = []
    while len(text) > line:
        cut = text.rfind(" ", 0, line + 1)
        lines.append(text[:cut])
        text = text[cut + 1:]
    return lines + [text] if text else lines


def _breaks(text: str) -> list[int]:
    """Where textwrap may end a line of single-spaced ``text``: 0, then the end of each chunk
    ``TextWrapper._split_chunks`` makes (words and the spaces between them, a hyphenated word
    split after its hyphens; its pattern looks no further than the word, so it is applied to
    the words that hold a hyphen only, ~10 times faster)."""
    split = textwrap.TextWrapper.wordsep_re.split
    out, at = [0], 0
    for word in text.split(" "):
        if at:
            at += 1
            out.append(at)  # (after the space before this word)
        if "-" in word:
            for piece in split(word):
                if piece:
                    at += len(piece)
                    out.append(at)
        elif word:
            at += len(word)
            out.append(at)
    return out


def _hyphenated_lines(text: str, width: int, line: int, placeholder: str = " …") -> list[str] | None:
    """:func:`excerpt_lines` of single-spaced ``text``: textwrap's greedy choices (the most chunks
    that fit, a space at either end of a line dropped) as the last chunk end that fits, found by
    bisection. None where textwrap would break a chunk longer than a line."""
    breaks = _breaks(text)
    if len(text) > width:  # shortened: the most chunks that fit with the placeholder, ending in a word
        i = bisect.bisect_right(breaks, width - len(placeholder)) - 1
        while i > 0 and text[breaks[i] - 1] == " ":
            i -= 1
        if breaks[-1] > width and max(b - a for a, b in zip(breaks, breaks[1:])) > width:
            return None  # (textwrap breaks a chunk longer than the whole excerpt)
        text = text[: breaks[i]] + placeholder if i > 0 else placeholder.lstrip()
        breaks = _breaks(text)
    lines, at = [], 0
    while at < len(text):
        if text[at] == " ":  # (between two lines)
            at += 1
        end = breaks[bisect.bisect_right(breaks, at + line) - 1]
        if end <= at:
            return None
        lines.append(text[at : end - 1] if text[end - 1] == " " else text[at:end])
        at = end
    return lines


def map_figure(review, max_points: int = MAX_POINTS):
    """``review``'s map as a plotly figure (one trace per topic); all paper text is escaped.
    Above ``max_points`` papers, a sample of them (:func:`sample_rows`), stated in the title."""
    import plotly.graph_objects as go

    full = review.papers_frame()
    sizes = full.groupby("topic").size()  # every paper counts in the legend, drawn or not
    rows = sample_rows(full["topic"].to_numpy(), max_points)
    frame = full.iloc[rows].copy() if len(rows) < len(full) else full
    texts = review.paper_texts  # (every text in one pass; a sample's one by one)
    frame["abstract"] = [t for _, t in texts] if len(rows) == len(texts) else [texts.text(int(i)) for i in rows]
    colours = topic_colours({int(t): int(n) for t, n in sizes.items()})
    size = point_size(len(frame))
    fig = go.Figure()
    for topic in sorted(sizes.index, key=lambda t: (t < 0, t)):  # topic order, the unassigned last
        group = frame[frame.topic == topic]
        label = group["topic_label"].iloc[0]
        name = f"{topic}: {label}" if topic >= 0 else "Unassigned"
        fig.add_trace(
            go.Scattergl(
                x=group["x"],
                y=group["y"],
                mode="markers",
                name=html.escape(f"{name[:60]} ({sizes[topic]:,})"),
                marker={"size": size if topic >= 0 else max(3, size - 2), "opacity": 0.9 if topic >= 0 else 0.6,
                        "color": colours[int(topic)]},
                text=[_hover(t, a, y, name, ab) for t, a, y, ab in
                      zip(group["title"], group["authors"], group["year"], group["abstract"])],
                customdata=group["id"],
                hovertemplate="%{text}<extra>%{customdata}</extra>",
            )
        )
    n_topics = int((review.topics.topic >= 0).sum())
    title = f"{review.path.name}: {len(full):,} papers, {n_topics} topics"
    if len(frame) < len(full):
        title += (f" (showing a random sample of {len(frame):,} papers, every topic in proportion;"
                  f" the explore notebook draws all {len(full):,})")
    fig.update_layout(
        title=html.escape(title),
        template="plotly_white",
        xaxis={"visible": False},
        yaxis={"visible": False, "scaleanchor": "x"},
        legend={"itemsizing": "constant", "title": {"text": "topic (papers)"}, "traceorder": "normal"},
        height=800,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
    )
    return fig


CONFIG = {"scrollZoom": True, "displaylogo": False}
_PLACEHOLDER = "__workbench_map_traces__"  # where the traces go in the page


def write_map_html(review, path: str | os.PathLike) -> Path:
    """Write ``review``'s map to ``path`` (see :func:`map_figure`)."""
    fig = map_figure(review)
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    write_page(fig, tmp)
    tmp.replace(path)
    return path


def write_page(fig, path: str | os.PathLike, div_id: str | None = None) -> None:
    """``fig.write_html(path, include_plotlyjs=True, full_html=True, config=CONFIG)``, the same
    bytes, without the page in memory: plotly encodes every trace into one JSON string and copies
    it into its script, its page and the page's UTF-8 bytes (at 50,000 points ~250 MB for a
    30 MB file, the build's peak). Here the page is made around a placeholder and each trace is
    encoded and written on its own, as ``Figure.to_dict`` gives it."""
    import plotly.io as pio
    from plotly.io.json import to_json_plotly

    try:
        from _plotly_utils.utils import convert_to_base64  # (what Figure.to_dict applies)
    except ImportError:  # another plotly: its own way, the whole page in memory
        fig.write_html(path, include_plotlyjs=True, full_html=True, config=CONFIG, div_id=div_id)
        return
    layout = fig.layout.to_plotly_json()
    convert_to_base64(layout)
    shell = {"data": [_PLACEHOLDER], "layout": layout}
    page = pio.to_html(shell, config=CONFIG, include_plotlyjs=True, full_html=True, validate=False, div_id=div_id)
    before, after = page.split(to_json_plotly([_PLACEHOLDER]))
    between = to_json_plotly([0, 0])[2:-2]  # what separates a list's items: ", " (orjson: ",")
    with open(path, "w", encoding="utf-8") as out:
        out.write(before)
        out.write("[")
        for i, trace in enumerate(fig.data):
            props = trace.to_plotly_json()  # (a copy of this trace's, as Figure.to_dict copies all)
            convert_to_base64(props)
            out.write((between if i else "") + to_json_plotly(props))
        out.write("]")
        out.write(after)
