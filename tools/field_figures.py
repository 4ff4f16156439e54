"""The figures and numbers of docs/field.md: the SYNERGY corpus (../shared/data) over time, its
venues and authors, the co-authorship of one of its reviews, and the citation links its sources
carry.

Each of SYNERGY's nine systematic reviews stands in for a topic (the labels are real: every paper
was found for one review). The figures are the ones a review's report draws
(``workbench.field.figures``), saved palette-quantised into docs/images/ like the screenshots.

    python tools/field_figures.py [--data ../shared/data] [--out docs/images]
"""

from __future__ import annotations

import argparse
import io
import time
from collections import Counter
from pathlib import Path

from PIL import Image

from workbench import read_sources
from workbench.field import coauthorship, over_time, resolve_links, summarise
from workbench.field.figures import plot_coauthors, plot_field, plot_over_time

ROOT = Path(__file__).resolve().parents[1]
COAUTHORS = "van_der_Valk_2021"  # the review whose co-authorship docs/field.md shows


def save_quantised(fig, path: Path) -> None:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    image = Image.open(buf).convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE)
    image.save(path, optimize=True)
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size:,} bytes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / ".." / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    source = args.data / "corpora" / "synergy" / "synergy_v1_flat.csv"
    start = time.perf_counter()
    papers, _ = read_sources([source])
    read_s = time.perf_counter() - start
    reviews = [name for name, _ in Counter(p.collection for p in papers).most_common()]
    topic = {name: i for i, name in enumerate(reviews)}
    start = time.perf_counter()
    over = over_time([p.year for p in papers], [topic[p.collection] for p in papers], dict(enumerate(reviews)))
    summary = summarise(papers, top=10)
    links = resolve_links(papers)
    field_s = time.perf_counter() - start
    print(f"{len(papers):,} papers (read and deduplicated in {read_s:.1f}s; over time, venues, authors and "
          f"links in {field_s:.2f}s); {over.no_year} without a year; years {over.years[0]}-{over.years[-1]}")
    print(f"trend: {over.measure}")
    print(over.trends.to_string(index=False))
    print(summary.describe(10))
    print(f"links: {len(links)} (sources name {links.references} cited works)")
    args.out.mkdir(parents=True, exist_ok=True)
    save_quantised(plot_over_time(over, dict(enumerate(reviews)), "SYNERGY: papers per review per year", top=9),
                   args.out / "field_over_time.png")
    save_quantised(plot_over_time(over, dict(enumerate(reviews)), "SYNERGY: each review's share of the year's papers",
                                  top=9, shares=True), args.out / "field_over_time_shares.png")
    save_quantised(plot_field(summary, f"SYNERGY: {len(papers):,} papers per year"), args.out / "field_who.png")
    start = time.perf_counter()
    graph = coauthorship([p for p in papers if p.collection == COAUTHORS], top=20)
    co_s = time.perf_counter() - start
    print(f"co-authorship of {COAUTHORS}: {graph.graph} -> {graph.number_of_edges()} lines among the top 20 "
          f"({co_s:.2f}s)")
    save_quantised(plot_coauthors(graph, f"SYNERGY {COAUTHORS}: who writes with whom (the 20 authors with most papers)"),
                   args.out / "field_coauthors.png")


if __name__ == "__main__":
    main()
