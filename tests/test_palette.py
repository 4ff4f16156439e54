"""The maps' shared palette: keyed by topic id, themes take their largest topic's colour,
outliers grey, the first colours apart under colour-vision deficiencies."""

import itertools
import re

import numpy as np
import pytest

from workbench.space.palette import (
    DISTINCT, OUTLIER_COLOUR, PALETTE, category_colours, point_size, theme_parts, topic_colour,
    topic_colours
)
from workbench.corpus.paper import OUTLIER


def test_every_colour_is_hex_and_distinct_and_none_is_the_outliers_grey():
    assert all(re.fullmatch(r"#[0-9A-Fa-f]{6}", c) for c in (*PALETTE, OUTLIER_COLOUR))
    assert len(set(PALETTE)) == len(PALETTE) and OUTLIER_COLOUR not in PALETTE


def test_colours_are_keyed_by_topic_id_whatever_else_is_given():
    plain = topic_colours([0, 1, 2, OUTLIER])
    by_size = topic_colours({2: 5, 0: 40, 1: 12, OUTLIER: 9})
    assert plain == by_size == {0: PALETTE[0], 1: PALETTE[1], 2: PALETTE[2], OUTLIER: OUTLIER_COLOUR}
    assert topic_colours({7: 3}) == {7: topic_colour(7)}, "a topic alone keeps its id's colour"
    assert topic_colour(len(PALETTE)) == PALETTE[0], "past the palette the colours repeat"


def test_a_theme_takes_the_colour_of_its_largest_topic():
    topics = [0] * 30 + [1] * 20 + [2] * 12 + [3] * 8 + [OUTLIER] * 4
    themes = [1] * 30 + [0] * 20 + [0] * 12 + [1] * 8 + [OUTLIER] * 4  # theme 1 = topics 0+3, theme 0 = 1+2
    parts = theme_parts(topics, themes)
    assert parts == {1: {0: 30, 3: 8}, 0: {1: 20, 2: 12}, OUTLIER: {OUTLIER: 4}}
    colours = topic_colours({0: 32, 1: 38, OUTLIER: 4}, parts)
    assert colours == {0: topic_colour(1), 1: topic_colour(0), OUTLIER: OUTLIER_COLOUR}


def test_two_themes_with_the_same_largest_topic_do_not_share_its_colour():
    # a refit can split a topic: both themes are mostly topic 0; the larger keeps its colour
    parts = {0: {0: 10, 4: 2}, 1: {0: 15}, 2: {0: 6}}
    colours = topic_colours({0: 12, 1: 15, 2: 6}, parts)
    assert colours[1] == topic_colour(0)
    assert colours[0] == topic_colour(4), "the next largest topic's colour"
    assert colours[2] not in (colours[0], colours[1]) and colours[2] in PALETTE
    assert len(set(colours.values())) == 3


def test_theme_parts_needs_one_topic_and_one_theme_per_paper():
    with pytest.raises(ValueError, match="3 topics and 2 themes"):
        theme_parts([0, 1, 2], [0, 1])


def test_other_categories_decisions_in_their_colours_tags_in_palette_order():
    colours = category_colours(["include", "maybe", "undecided", "exclude"])
    assert colours["undecided"] == OUTLIER_COLOUR and len(set(colours.values())) == 4
    assert category_colours(["rlhf", "untagged", "agents"]) == {
        "rlhf": PALETTE[0], "untagged": OUTLIER_COLOUR, "agents": PALETTE[1]}


@pytest.mark.parametrize("cvd", [None, "deuteranomaly", "protanomaly", "tritanomaly"])
def test_the_first_colours_stay_apart_under_colour_vision_deficiencies(cvd):
    colorspacious = pytest.importorskip("colorspacious")

    def seen(hex_colour):
        rgb = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
        if cvd is None:
            return rgb
        space = {"name": "sRGB1+CVD", "cvd_type": cvd, "severity": 100}
        return np.clip(colorspacious.cspace_convert(rgb, space, "sRGB1"), 0, 1)

    first = [seen(c) for c in (*PALETTE[:DISTINCT], OUTLIER_COLOUR)]
    smallest = min(colorspacious.deltaE(a, b, input_space="sRGB1") for a, b in itertools.combinations(first, 2))
    assert smallest > 10, f"two of the first {DISTINCT} colours (or one and the grey) look alike under {cvd}"


def test_points_shrink_as_papers_grow():
    sizes = [point_size(n) for n in (1, 40, 133, 2000, 10_000, 1_000_000)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 10 and sizes[-1] == 3
    assert point_size(133) >= 6, "a seed-sized review has points you can see"
