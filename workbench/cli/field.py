"""Seeing the field of a review: links, trends, who.

``links`` prints the citation links inside the review (citing id, cited id, their topics and
titles); ``trends`` the topics rising and fading (papers per topic, without a year, the slope of
each topic's share per year); ``who`` the top venues and authors (names normalised) of the
review or of one topic. Each takes ``--format table|csv|json``; a summary line goes to stderr.
"""

from __future__ import annotations

from ..review import open_review
from .common import add_format, add_review, say, whole, write_table

__all__ = ["register"]


def links(args) -> int:
    review = open_review(args.review)
    found = review.field.links()
    frame = review.field.links_frame()
    say(f"{len(found)} citation links among {len(review.papers)} papers: {found.with_references} papers' sources "
        f"name {found.references} cited works, {found.resolved} of them in this review")
    write_table(frame, args.format)
    return 0


def trends(args) -> int:
    review = open_review(args.review)
    over = review.field.over_time(window=args.window)
    say(f"{over.coverage()}; trend: {over.measure}" if over.trending else f"{over.coverage()}; no trend is claimed")
    frame = over.trends.rename(columns={"slope": "slope_pp_per_year", "recent": "recent_share_pct",
                                        "before": "earlier_share_pct"})
    write_table(frame, args.format)
    return 0


def who(args) -> int:
    review = open_review(args.review)
    summary = review.field.field_summary(top=args.top, topic=args.topic)
    say(summary.describe())
    venues = summary.venues.assign(kind="venue")
    authors = summary.authors.assign(kind="author")
    import pandas as pd

    write_table(pd.concat([venues, authors], ignore_index=True)[["kind", "name", "papers"]], args.format)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("links", help="the citation links inside the review: citing id, cited id")
    add_review(p)
    add_format(p)
    p.set_defaults(func=links)
    p = subparsers.add_parser("trends", help="papers per topic without a year, and each topic's trend "
                                             "(slope of its share per year)")
    add_review(p)
    add_format(p)
    p.add_argument("--window", type=whole(1, 1000), default=10,
                   help="the last N years with papers the slope is fitted on")
    p.set_defaults(func=trends)
    p = subparsers.add_parser("who", help="top venues and authors (names normalised) of the review or a topic")
    add_review(p)
    add_format(p)
    p.add_argument("--topic", type=int, default=None, help="only the papers of this topic")
    p.add_argument("--top", type=whole(1), default=10, help="how many venues and authors")
    p.set_defaults(func=who)
