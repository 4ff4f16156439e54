"""The colours every map of a review shares: the explore map, ``map.html`` and the report's map.

A topic's colour is keyed by its topic id, never by its label, so a renamed topic keeps its
colour; a theme (topics looked at as fewer, larger themes) takes the colour of its largest
topic; papers without a topic are grey.

The first :data:`DISTINCT` colours are Okabe and Ito's colour-blind-safe set without black
(Okabe & Ito 2008, "Color Universal Design"): topic ids 0-6, the largest topics as fitted,
stay apart under deuteranopia, protanopia and tritanopia as well as normal vision (the smallest
difference between two of them is about 11 CAM02-UCS units under each; tests/test_palette.py
measures it). Ids 7-14 take darker shades chosen to stay apart from those and from the grey;
past 14 the colours repeat, and the topic number beside each colour in the legends and tooltips
tells them apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["DECISION_COLOURS", "DISTINCT", "OUTLIER_COLOUR", "PALETTE", "RELEVANCE_RAMP", "category_colours", "point_size",
           "theme_parts", "topic_colour", "topic_colours"]

PALETTE: tuple[str, ...] = (
    # Okabe-Ito, ordered so that neighbouring ids differ in lightness as well as hue
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442",
    # darker shades for ids 7-14
    "#222255", "#663333", "#004488", "#882255", "#1B5E20", "#AA4499", "#8C564B", "#8E6C8A",
)
DISTINCT = 7  # the first DISTINCT colours stay apart under every common colour-vision deficiency
OUTLIER_COLOUR = "#b0b0b0"
DECISION_COLOURS = {"include": "#009E73", "exclude": "#D55E00", "maybe": "#E69F00", "undecided": OUTLIER_COLOUR}
#: Predicted relevance in ten bands, most likely relevant first: viridis from its dark end
#: (perceptually even, readable under colour-vision deficiencies and in grey), so the papers
#: most worth reading stand out darkest on the white map and the least likely fade to yellow.
RELEVANCE_RAMP: tuple[str, ...] = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e",
                                   "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725")


def topic_colour(topic: int) -> str:
    """The colour of topic id ``topic`` (``"#rrggbb"``); :data:`~workbench.corpus.paper.OUTLIER`
    and other negative ids are grey."""
    topic = int(topic)
    return OUTLIER_COLOUR if topic < 0 else PALETTE[topic % len(PALETTE)]


def topic_colours(sizes: Mapping[int, int] | Iterable[int],
                  parts: Mapping[int, Mapping[int, int]] | None = None) -> dict[int, str]:
    """``{topic id: "#rrggbb"}`` for every topic in ``sizes``.

    ``sizes``: the topic ids, or ``{topic id: number of papers}``. Without ``parts`` each topic
    has :func:`topic_colour` of its id. ``parts`` is for themes: ``{theme id: {topic id: papers
    the topic brings to the theme}}`` (see :func:`theme_parts`); a theme takes the colour of its
    largest topic. When two themes have the same largest topic, the larger theme keeps the
    colour and the other takes that of its next largest topic, else the first colour no theme
    has yet.
    """
    sizes = dict(sizes) if isinstance(sizes, Mapping) else {int(t): 0 for t in sizes}
    if parts is None:
        return {int(t): topic_colour(t) for t in sizes}
    colours: dict[int, str] = {}
    for theme in sorted(sizes, key=lambda t: (-sizes[t], t)):  # larger themes choose first
        if theme < 0:
            colours[theme] = OUTLIER_COLOUR
            continue
        ranked = sorted(((n, t) for t, n in parts.get(theme, {}).items() if t >= 0), key=lambda p: (-p[0], p[1]))
        taken = set(colours.values())
        free = [topic_colour(t) for _, t in ranked if topic_colour(t) not in taken]
        free += [c for c in PALETTE if c not in taken]
        colours[theme] = free[0] if free else topic_colour(theme)
    return {int(t): colours[int(t)] for t in sizes}


def theme_parts(topics: Sequence[int], themes: Sequence[int]) -> dict[int, dict[int, int]]:
    """``{theme: {topic: papers}}``: for each paper's topic in ``topics`` and its theme in
    ``themes`` (both in the same paper order), how many papers each topic brings to each theme."""
    if len(topics) != len(themes):
        raise ValueError(f"{len(topics)} topics and {len(themes)} themes given; expected one of each per paper")
    counts = Counter(zip((int(t) for t in themes), (int(t) for t in topics)))
    parts: dict[int, dict[int, int]] = {}
    for (theme, topic), n in counts.items():
        parts.setdefault(theme, {})[topic] = n
    return parts


def category_colours(categories: Sequence[str], grey: Iterable[str] = ("untagged", "undecided")) -> dict[str, str]:
    """Colours for other categories (tags, decisions): decisions their usual colours, ``grey``
    ones grey, the others the palette in the order given."""
    grey = set(grey)
    colours, n = {}, 0
    for name in categories:
        if name in DECISION_COLOURS:
            colours[name] = DECISION_COLOURS[name]
        elif name in grey:
            colours[name] = OUTLIER_COLOUR
        else:
            colours[name] = PALETTE[n % len(PALETTE)]
            n += 1
    return colours


def point_size(n_papers: int) -> int:
    """A point's diameter in pixels on a map of ``n_papers`` papers: 10 for a few dozen, 8 for
    about a hundred, 4 for a couple of thousand, 3 from about ten thousand on."""
    n = max(int(n_papers), 1)
    return int(min(10, max(3, round(2 + 70 / n ** 0.5))))
