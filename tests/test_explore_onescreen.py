"""01 on one screen, without a browser: the sizes the view takes from the room the browser measured
(the map as large as the visible cell allows, its aspect kept, the legend beside it or above it,
the card and the actions in the column beside it, or under it in a narrow cell), and the opened
paper's card: next / previous (the card's ◀ ▶ and the keys j/k) through the selection in the
table's order, a one-paper selection opened at once, the card closed when its paper leaves the
selection. The real sizes on screen are checked in tests/test_browser_onescreen.py."""

from __future__ import annotations

import pytest

from workbench.widgets import Session, explore
from workbench.widgets._room import GAP  # px between the legend and the map, and the map and the column


TOOLBAR = 38  # px: jupyter-scatter's tool buttons beside the map (at most)


@pytest.fixture
def view(built):
    with Session.open(built, reviewer="tester") as session:
        yield explore(session)


def px(value: str | None) -> float:
    return float(value.removesuffix("px")) if value else 0.0


@pytest.mark.parametrize("width, height, above, legend", [
    (848, 679, 121, "above"),  # 1280x800 with the file browser open
    (1488, 959, 89, "beside"),  # 1920x1080
    (1160, 780, 90, "above"),  # 1440x900
])
def test_the_map_and_the_column_beside_it_share_the_room(view, width, height, above, legend):
    aspect = view.map.width / view.map.height
    view.room.measured(width, height, above)
    m = view.map
    assert abs(m.width / m.height - aspect) < 0.02, "the data's aspect is kept"
    assert (m.scatter.widget.width, m.scatter.widget.height) == (m.width, m.height)
    assert m.legend.above == (legend == "above")
    legend_h = 78 if legend == "above" else 0
    assert m.height <= height - above - legend_h, "the map fits the visible height under its tools"
    side = view.side.layout
    beside = px(m.legend.layout.width) + GAP if legend == "beside" else 0
    assert beside + TOOLBAR + m.width + GAP + int(side.flex.split()[-1].removesuffix("px")) <= width, \
        "the legend, the map and the column beside it fit the cell's width"
    assert int(side.flex.split()[-1].removesuffix("px")) >= 330, "the card and the actions have room"
    assert px(side.max_height) == height - above - 10, "the card column is no taller than the screen"
    side_at_most = min(640, max(330, 0.42 * width))  # the column beside the map takes 42 % of the width
    assert m.height >= min(height - above - legend_h - 10, (width - beside - TOOLBAR - GAP - side_at_most) / aspect) - 1, \
        "the map takes what the height or the width leaves"


def test_a_narrow_cell_puts_the_card_under_the_map(view):
    view.room.measured(468, 679, 185)
    assert view.side.layout.flex == "1 1 100%" and view.side.layout.max_height is None
    assert view.map.width + TOOLBAR <= 468 and view.map.legend.above


def test_next_and_previous_step_through_the_selection_in_the_tables_order(view):
    view.play([{"select": "topic:0"}])
    order = view.table.ids()
    assert len(order) > 10 and view.card.card.get("id") is None and "Click a point" in view.card.card["empty"]
    view.keys.press("j")  # the first paper
    assert view.card.card["id"] == order[0] == view.table.opened and view.card.card["where"] == f"1 of {len(order)} selected"
    view.card.act("move", "j")  # the card's "next ▶"
    assert view.card.card["id"] == order[1]
    view.keys.press("k")
    view.keys.press("k")  # no paper before the first
    assert view.card.card["id"] == order[0]
    for _ in range(10):
        view.keys.press("j")
    assert view.card.card["id"] == order[10] and view.table.page == 1, "the table shows the opened paper's row"
    row = view.session.rows_of([order[10]])[0]
    (box,) = view.scatter.annotations()["annotations"]
    assert box.x_start < view.frame.at[row, "x"] < box.x_end, "the opened paper is lit up on the map"


def test_one_paper_selected_opens_its_card_and_a_selection_without_it_closes_the_card(view):
    pid = view.session.ids[5]
    view._on_select(view.session.rows_of([pid]))  # what a click on its point sends
    assert view.selected == [pid] and view.card.card["id"] == pid and view.card.card["where"] == "1 of 1 selected"
    other = [p for p in view.session.ids[:30] if p != pid]
    view.select(other)
    assert view.table.opened == "" and "id" not in view.card.card and view.scatter.annotations()["annotations"] == []
    view.select([])
    view.keys.press("j")
    assert "No papers selected" in view.card.card["empty"]


def test_a_click_on_another_point_opens_that_paper_in_place_of_the_opened_one(view):
    first, second = view.session.ids[5], view.session.ids[6]
    view._on_select(view.session.rows_of([first]))
    view._on_select(view.session.rows_of([second]))  # a click on another point while a card is open
    assert view.table.opened == second and view.card.card["id"] == second
    assert view.card.card["where"] == "1 of 1 selected"
