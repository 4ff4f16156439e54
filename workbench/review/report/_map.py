"""The report's static map: a datamapplot PNG of the review, coloured by topic id.

Each topic is labelled ``"<id>: <label>"`` on the map, so two topics with the same label stay
apart and the labels carry the topic numbers the rest of the workbench shows. The colours come
from a ``{topic id: colour}`` mapping (:func:`label_colours`); without one, datamapplot picks
its own.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ...errors import InputError
from ...corpus.paper import OUTLIER
from ...store import check_output, write_output
from .._review import Review

__all__ = ["NOISE_LABEL", "label_colours", "map_labels", "write_static_map"]

NOISE_LABEL = "Unassigned"


def _topic_name(topic: int, label: str) -> str:
    return f"{topic}: {label}"


def map_labels(review: Review) -> np.ndarray:
    """Each paper's label on the map, in map order: ``"<topic>: <label>"``, or ``Unassigned``."""
    labels = review.topic_labels()
    return np.array([NOISE_LABEL if t == OUTLIER else _topic_name(int(t), labels.get(int(t), f"Topic {t}"))
                     for t in review.labels], dtype=object)


def label_colours(review: Review, topic_colours: Mapping[int, str]) -> dict[str, str]:
    """datamapplot's ``{map label: colour}`` from a ``{topic id: colour}`` mapping (the shared
    palette), for every topic on the map; a topic the mapping leaves out is an error."""
    labels = review.topic_labels()
    shown = sorted({int(t) for t in review.labels if t != OUTLIER})
    missing = [t for t in shown if t not in topic_colours]
    if missing:
        raise InputError(f"no colour for topics {missing} in the {len(topic_colours)} topic colours "
                         f"given; expected one for each of the topics {shown}")
    return {_topic_name(t, labels.get(t, f"Topic {t}")): topic_colours[t] for t in shown}


def write_static_map(review: Review, path: str | os.PathLike, title: str | None = None,
                     topic_colours: Mapping[int, str] | None = None) -> Path:
    """A publication-style static map (datamapplot) as PNG; ``title`` defaults to the folder's
    name, ``topic_colours`` (topic id -> colour) to datamapplot's own colours. ``path`` is
    checked first (:func:`workbench.store.check_output`) and written through a rename."""
    target = check_output(path, purpose="the static map")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..._runtime.numba_cache import numba_cache_on_import

    with numba_cache_on_import():
        import datamapplot

    colours = {} if topic_colours is None else {"label_color_map": label_colours(review, topic_colours)}
    fig, _ = datamapplot.create_plot(
        review.coords, map_labels(review), title=title or review.path.resolve().name,
        sub_title=f"{len(review.papers)} papers", noise_label=NOISE_LABEL,
        label_font_size=9, font_family="DejaVu Sans", use_system_fonts=True,
        # datamapplot draws the title at weight 900; DejaVu Sans (shipped with matplotlib) has
        # 400 and 700 only, and matplotlib logs "findfont: Failed to find font weight 900".
        title_keywords={"fontweight": "bold"},
        **colours,
    )
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=120, bbox_inches="tight")
    plt.close(fig)
    write_output(target, png.getvalue(), purpose="the static map")
    return Path(path)
