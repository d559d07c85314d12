"""Pictures: the SVG of both games, the HTML tables, the replay page's content (the browser test
is tests/test_replay_browser.py) and the opening heatmap's honesty."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from genial import Game, GenialError, RecordError, simulate
from genial.board.geometry import BOARD_RADIUS, COLOURS, SYMBOLS, area
from genial.cards import CardGame
from genial.render.html import openings_html, playouts_html, replay_html, summary_html
from genial.render.svg import COLOUR_VALUES, SHAPES, board_svg, cards_svg, svg

SVG = "{http://www.w3.org/2000/svg}"


def played(game: Any, moves: int | None = None, policy: str = "greedy") -> Any:
    done = 0
    while not game.is_over and (moves is None or done < moves):
        game.play(game.choose(policy))
        done += 1
    return game


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def points(element: ET.Element) -> list[tuple[float, float]]:
    return [
        (float(x), float(y)) for x, y in (p.split(",") for p in element.get("points", "").split())
    ]


def cell_of(text: str) -> tuple[int, int]:
    q, r = (int(v) for v in text.split(","))
    return (q, r)


def centroid(pts: list[tuple[float, float]]) -> tuple[float, float]:
    return (sum(x for x, _ in pts) / len(pts), sum(y for _, y in pts) / len(pts))


def cell_polygons(root: ET.Element) -> dict[tuple[int, int], ET.Element]:
    out = {}
    for poly in root.iter(f"{SVG}polygon"):
        if "cell" in (poly.get("class") or "").split():
            q, r = (int(v) for v in poly.get("data-cell", "").split(","))
            out[(q, r)] = poly
    return out


def shape_at(element: ET.Element) -> list[tuple[str, float, float]]:
    """(colour letter, x, y) of each shape drawn inside ``element``."""
    out = []
    for use in element.iter(f"{SVG}use"):
        letter = use.get("href", "").removeprefix("#genial-shape-")
        m = re.match(r"translate\(([-0-9.]+) ([-0-9.]+)\)", use.get("transform", ""))
        assert m, use.attrib
        out.append((letter, float(m.group(1)), float(m.group(2))))
    return out


def by_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{SVG}{tag}") if e.get("class") == cls]


def panel_of(root: ET.Element, player: int) -> ET.Element:
    return next(g for g in by_class(root, "g", "panel") if g.get("data-player") == str(player))


def no_outside_references(text: str) -> None:
    """Self-contained: no script, no image, no link other than to its own shapes."""
    assert "<script" not in text and "<image" not in text and "<foreignObject" not in text
    for ref in re.findall(r'href="([^"]*)"', text):  # only its own definitions
        assert re.fullmatch(r"#genial-(shape-[RGBOYP]|tile-[RGBOYP]{2}|card-[RGBOYP]{2})", ref)
        assert f'id="{ref[1:]}"' in text
    assert re.findall(r"https?://[^\"']*", text) == ["http://www.w3.org/2000/svg"]


# -- the board game ----------------------------------------------------------------------------


@pytest.mark.parametrize("token", ["1", "2", "3", "4", "4t", "2T"])
def test_board_svg_is_well_formed_self_contained_and_deterministic(token: str) -> None:
    game = played(Game(token, seed=3), 12)
    text = board_svg(game)
    root = parse(text)
    assert root.tag == f"{SVG}svg"
    assert (
        root.find(f"{SVG}title") is not None and f"rules {token}" in root.find(f"{SVG}title").text
    )
    no_outside_references(text)
    assert board_svg(game.copy()) == text == board_svg(Game.from_record(game.to_record()))


@pytest.mark.parametrize(("players", "in_area"), [(2, 91), (3, 127), (4, 169)])
def test_one_regular_hexagon_per_cell_and_the_area_shaded(players: int, in_area: int) -> None:
    """RULES §1.1, §1.3: the whole board's 169 cells, the player count's area set apart."""
    root = parse(board_svg(Game(players, seed=1)))
    cells = cell_polygons(root)
    assert set(cells) == set(area(BOARD_RADIUS))
    inside = {c for c, poly in cells.items() if "in-area" in poly.get("class", "")}
    assert inside == set(area({2: 5, 3: 6, 4: 7}[players])) and len(inside) == in_area
    fills = {poly.get("fill") for c, poly in cells.items() if c not in inside}
    assert len(fills) <= 1 and not fills & {cells[(0, 0)].get("fill")}
    for poly in cells.values():  # six corners, all at one distance from the centre
        pts = points(poly)
        cx, cy = centroid(pts)
        radii = [math.hypot(x - cx, y - cy) for x, y in pts]
        assert len(pts) == 6 and max(radii) - min(radii) < 0.2
    # neighbours along E are one cell width apart, along SE half a width across and 1.5 down
    (x0, y0), (x1, y1) = centroid(points(cells[(0, 0)])), centroid(points(cells[(1, 0)]))
    x2, y2 = centroid(points(cells[(0, 1)]))
    width = x1 - x0
    assert abs(y1 - y0) < 0.2 and abs(x2 - x0 - width / 2) < 0.2
    assert abs((y2 - y0) - width * math.sqrt(3) / 2) < 0.2


def test_every_half_has_its_colours_shape_and_each_tile_one_outline() -> None:
    game = played(Game(4, seed=8), 30)
    root = parse(board_svg(game))
    cells = cell_polygons(root)
    board = game.board
    tiles = by_class(root, "g", "tile")
    placements = [m for m in game.moves if m.cells is not None]
    assert len(tiles) == len(placements) == len(board) // 2
    drawn = {}
    for tile in tiles:
        outline = by_class(tile, "polygon", "tile-outline")
        assert len(outline) == 1 and len(points(outline[0])) == 10
        halves = shape_at(tile)
        assert len(halves) == 2
        for letter, x, y in halves:  # each shape sits on the centre of a covered cell
            cell = min(cells, key=lambda c: math.dist(centroid(points(cells[c])), (x, y)))
            assert math.dist(centroid(points(cells[cell])), (x, y)) < 0.2
            drawn[cell] = COLOURS.index(letter)
        a, b = (cell_of(c) for c in tile.get("data-cells", "").split())
        # the outline joins exactly the tile's two cells: its centre is halfway between them
        (xa, ya), (xb, yb) = centroid(points(cells[a])), centroid(points(cells[b]))
        assert math.dist(centroid(points(outline[0])), ((xa + xb) / 2, (ya + yb) / 2)) < 0.3
    assert drawn == board
    assert {frozenset(m.cells) for m in placements} == {
        frozenset(tuple(int(v) for v in c.split(",")) for c in t.get("data-cells", "").split())
        for t in tiles
    }


def test_the_six_colours_have_six_distinct_shapes() -> None:
    root = parse(board_svg(Game(2, seed=1)))
    defs = {p.get("id"): p for p in root.iter(f"{SVG}path") if p.get("id")}
    assert set(defs) == {f"genial-shape-{c}" for c in COLOURS}
    assert len({p.get("d") for p in defs.values()}) == 6  # shapes tell the colours apart
    assert [defs[f"genial-shape-{c}"].get("fill") for c in COLOURS] == list(COLOUR_VALUES)
    assert len(set(SHAPES)) == 6
    # the printed symbols (RULES §1.4) in their colours' shapes, on their cells
    cells = cell_polygons(root)
    printed = by_class(root, "g", "printed")
    assert len(printed) == 6
    for group in printed:
        ((letter, x, y),) = shape_at(group)
        assert letter == group.get("data-colour")
        assert math.dist((x, y), centroid(points(cells[SYMBOLS[COLOURS.index(letter)]]))) < 0.2


def test_the_last_placement_is_marked() -> None:
    game = played(Game(2, seed=5), 9)
    last = [m for m in game.moves if m.cells is not None][-1]
    root = parse(board_svg(game))
    marks = by_class(root, "g", "last-move")
    assert len(marks) == 1
    cells = cell_polygons(root)
    a, b = (centroid(points(cells[c])) for c in last.cells)
    for poly in marks[0].iter(f"{SVG}polygon"):
        assert math.dist(centroid(points(poly)), ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)) < 0.3
    assert 'class="last-move"' not in board_svg(Game(2, seed=5))  # nothing to mark yet


def test_highlights_and_coordinates() -> None:
    game = Game(3, seed=2)
    move = game.legal_moves()[0]
    root = parse(board_svg(game, highlight=move, coordinates=True))
    marked = {p.get("data-cell") for p in by_class(root, "polygon", "highlight")}
    assert marked == {f"{q},{r}" for q, r in move.cells}
    root = parse(board_svg(game, highlight=[(0, 0), (-7, 7)]))
    marked = {p.get("data-cell") for p in by_class(root, "polygon", "highlight")}
    assert marked == {"0,0", "-7,7"}
    root = parse(board_svg(game, coordinates=True))
    cells = cell_polygons(root)
    labels = [t for t in root.iter(f"{SVG}text") if t.get("class") == "coord"]
    assert len(labels) == 169
    for label in labels:  # each cell's "q,r" on that cell
        q, r = (int(v) for v in (label.text or "").split(","))
        assert abs(float(label.get("x", "0")) - centroid(points(cells[(q, r)]))[0]) < 0.2
    assert 'class="coord"' not in board_svg(game)
    with pytest.raises(GenialError, match="highlight"):
        board_svg(game, highlight=[("a", 1)])
    with pytest.raises(GenialError, match="size"):
        board_svg(game, size=0)


@pytest.mark.parametrize("token", ["3", "4t", "1"])
def test_the_score_tracks_show_every_counter(token: str) -> None:
    """A track per player and colour, 0..18 (0..36 with double-length counters, RULES §4.1)."""
    game = played(Game(token, seed=6), 25)
    root = parse(board_svg(game))
    for p in range(game.players):
        panel = panel_of(root, p)
        values = {t.get("data-colour"): int(t.text or "") for t in by_class(panel, "text", "score")}
        assert values == {COLOURS[c]: int(v) for c, v in enumerate(game.scores[p])}
        bars = {
            r.get("data-colour"): float(r.get("width", "0"))
            for r in by_class(panel, "rect", "score-bar")
        }
        unit = [bars[c] / values[c] for c in bars]  # bars proportional to the counters
        assert not unit or max(unit) - min(unit) < 0.2
        assert set(bars) == {c for c, v in values.items() if v}
        rack = [u.get("data-tile") for u in by_class(panel, "use", "rack")]
        assert rack == [COLOURS[a] + COLOURS[b] for a, b in game.rack(p)]
    tracks = by_class(root, "g", "track")
    assert len(tracks) == 6 * game.players
    ticks = tracks[0].find(f"{SVG}path").get("d").count("M")
    assert ticks == game.rules.cap  # cap + 1 boxes


def test_a_start_position_with_tiles_and_unpaired_halves() -> None:
    """Tiles of a position read from text are paired by a matching; halves that pair with
    nothing (``pair_tiles=False``) are drawn alone."""
    game = played(Game(2, seed=4), 20)
    again = Game.from_text(game.to_text())
    root = parse(board_svg(again))
    tiles = by_class(root, "g", "tile")
    assert len(tiles) == len(again.board) // 2 and not again.moves
    assert 'class="last-move"' not in board_svg(again)
    board = dict(again.board)
    gone = next(iter(board))
    del board[gone]  # its tile's other half is left alone
    cut = Game.from_position(again.position.replace(board=board), pair_tiles=False)
    root = parse(board_svg(cut))
    halves = by_class(root, "g", "half")
    tiles = by_class(root, "g", "tile")
    assert len(halves) == 1 and len(tiles) == (len(board) - 1) // 2
    assert shape_at(halves[0])[0][0] in COLOURS


def test_games_show_themselves_in_jupyter() -> None:
    game = played(Game(2, seed=1), 3)
    cards = played(CardGame(3, seed=1), 3)
    assert game._repr_svg_() == board_svg(game) == svg(game)
    assert cards._repr_svg_() == cards_svg(cards) == svg(cards)
    with pytest.raises(GenialError, match="Game or CardGame"):
        svg("RG")


# -- the card game -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cards_svg_shows_hands_displays_and_scoring_boards(players: int) -> None:
    """RULES §5.1: each scoring board has four areas A0 = {0}, A1 = 1-3, A2 = 4-6, A3 = 7-10;
    §5.2, §5.8: hands and displays."""
    game = played(CardGame(players, seed=2), 17)
    text = cards_svg(game)
    no_outside_references(text)
    root = parse(text)
    assert root.find(f"{SVG}title") is not None
    for p in range(players):
        panel = panel_of(root, p)
        hand = [u.get("data-card") for u in by_class(panel, "use", "hand")]
        shown = [u.get("data-card") for u in by_class(panel, "use", "display")]
        assert hand == [COLOURS[a] + COLOURS[b] for a, b in game.hand(p)]
        assert shown == [COLOURS[a] + COLOURS[b] for a, b in game.display(p)]
        for card in (*by_class(panel, "use", "hand"), *by_class(panel, "use", "display")):
            assert card.get("href") == f"#genial-card-{card.get('data-card')}"
    faces = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    for name, face in faces.items():  # each card shows its two colours' shapes, top and bottom
        (top, _, y0), (bottom, _, y1) = shape_at(face)
        assert name == f"genial-card-{top}{bottom}" and y0 < y1
    assert len(faces) == 15
    areas = by_class(root, "rect", "area")
    assert len(areas) == 4 * players
    widths = [float(r.get("width", "0")) for r in areas[:4]]
    assert [round(w / widths[0]) for w in widths] == [1, 3, 3, 4]
    column = widths[0]
    origin = float(areas[0].get("x", "0"))
    panel = panel_of(root, 0)
    markers = shape_at(panel)[:6]  # the markers come first, in colour order
    for (letter, x, _), value in zip(markers, game.scores[0], strict=True):
        assert abs(x - (origin + (value + 0.5) * column)) < 0.3, letter
    assert cards_svg(game) == cards_svg(game.copy())
    with pytest.raises(GenialError, match="size"):
        cards_svg(game, size=-1)


# -- HTML tables -------------------------------------------------------------------------------


def test_summary_html_is_compact_and_escaped() -> None:
    runs = simulate(20_000, 3, policy=["greedy", "random", "random"], seed=1)
    summary = runs.summary()
    page = summary_html(summary)
    assert page.count("<tr>") == 1 + 3 + 1 and len(page) < 4000
    assert "greedy" in page and f"{summary.win_rate[0]:.1%}" in page
    assert f"[{summary.win_rate_lo[0]:.1%}, {summary.win_rate_hi[0]:.1%}]" in page
    assert summary._repr_html_() == page
    odd = dataclasses.replace(summary, policies=("<b>x</b>", "a&b", '"q"'))
    page = summary_html(odd)
    assert "<b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page and "a&amp;b" in page
    solo = summary_html(simulate(500, 1, seed=2).summary())
    assert "mean result" in solo and "win rate" not in solo
    teams = summary_html(simulate(500, "4t", seed=2).summary())
    assert teams.count("<tr>") == 1 + 2 + 1 and "team 1" in teams
    empty = summary_html(simulate(0, 2, seed=1).summary())
    assert "–" in empty


def test_playouts_html_is_a_small_table_not_a_dump() -> None:
    runs = simulate(100_000, 2, seed=3)
    page = playouts_html(runs)
    assert len(page) < 4000 and page.count("<tr>") == 1 + 5 + 1
    assert "99,995 more games" in page and "scores (100000, 2, 6)" in page
    assert runs._repr_html_() == page
    first = runs.game[0], runs.turns[0], runs.lowest[0]
    assert f'<td style="padding:2px 8px;text-align:left">{first[0]}</td>' in page
    assert f">{int(first[1])}<" in page and " ".join(str(int(v)) for v in first[2]) in page
    cards = playouts_html(simulate(7, 4, game="cards", seed=1))
    assert "plays" in cards and cards.count("<tr>") == 1 + 5 + 1
    assert len(repr(runs)) < 200  # repr stays one line


def test_openings_html() -> None:
    from genial.board.openings import analyse

    result = analyse(2, games_per_opening=3, seed=2, workers=1)
    page = result._repr_html_()
    assert page.count("<tr>") == 1 + 5 + 1 + 5 + 1
    assert str(result.table["example"].iloc[0]) in page
    assert str(result.table["example"].iloc[-1]) in page
    odd = result.table.copy()
    odd.loc[0, "description"] = "<script>alert(1)</script>"
    page = openings_html(dataclasses.replace(result, table=odd))
    assert "<script>" not in page and "&lt;script&gt;" in page


# -- the replay page (content; the browser test runs it) ---------------------------------------


def test_replay_pages_stay_small_and_hold_every_step() -> None:
    game = played(Game(4, seed=11))
    record = game.to_record()
    page = replay_html(record)
    assert len(page.encode()) < 1_500_000, len(page.encode())
    assert page.count("<li data-step=") == len(game.moves) + 1
    assert page.count("</script>") == 2  # the data cannot close its script element early
    data = json.loads(re.search(r'id="genial-data">(.*?)</script>', page).group(1))
    assert len(data["steps"]) == len(game.moves) + 1
    assert data["steps"][-1]["scores"] == game.scores.tolist()
    assert data["steps"][0]["scores"] == [[0] * 6] * 4
    assert "http" not in page.replace("http://www.w3.org/2000/svg", "")
    cards = played(CardGame(4, seed=11))
    page = replay_html(cards.to_record(), title="<my game>")
    assert "&lt;my game&gt;" in page and "<my game>" not in page
    assert len(page.encode()) < 1_500_000


def test_a_replay_from_a_position_with_tiles_shows_them_from_the_start() -> None:
    middle = played(Game(3, seed=9), 15)
    game = played(Game.from_text(middle.to_text(), seed=1), 5)
    page = replay_html(game.to_record())
    root = parse(re.search(r"<svg.*?</svg>", page, re.S).group(0))
    tiles = by_class(root, "g", "tile")
    always = [t for t in tiles if t.get("data-from") is None]
    assert len(always) == len(middle.board) // 2
    steps = sorted(int(t.get("data-from", "0")) for t in tiles if t not in always)
    assert steps == [i + 1 for i, m in enumerate(game.moves) if m.cells is not None]


def test_replay_refuses_what_is_not_a_record() -> None:
    with pytest.raises(RecordError, match="format"):
        replay_html({"format": "chess", "moves": []})
    with pytest.raises(RecordError, match="dict"):
        replay_html([])
    record = played(Game(2, seed=1), 3).to_record()
    record["moves"][1]["move"] = "R9,9+R9,8"
    with pytest.raises(RecordError, match="move 1"):
        replay_html(record)


# -- the opening heatmap -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def analysis() -> Any:
    pytest.importorskip("matplotlib")
    from genial.board.openings import analyse

    return analyse(2, games_per_opening=60, seed=5, workers=1)


def test_the_heatmap_is_centred_on_the_average_and_not_narrower_than_the_intervals(
    analysis: Any,
) -> None:
    from genial.render.plot import CMAP, cell_statistics

    stats = cell_statistics(analysis)
    figure = analysis.plot()
    board, _, bar = figure.axes  # the heatmap, the ranked chart, the colour bar
    vmin, vmax = bar.get_ylim()
    assert (vmin + vmax) / 2 == pytest.approx(analysis.average, abs=1e-12)
    intervals = (analysis.table["win_rate_hi"] - analysis.table["win_rate_lo"]) / 2
    assert (vmax - vmin) / 2 >= float(intervals.median()) - 1e-12
    # the old scale spanned only the cells' values, narrower than any class's interval
    assert vmax - vmin > max(stats.values.values()) - min(stats.values.values())
    assert CMAP == "PuOr"
    # with 60 games a class nothing is significant: every covered cell neutral and hatched
    assert not stats.significant
    hatched = [p for p in board.patches if p.get_hatch()]
    assert len(hatched) == len(stats.values)
    caption = figure.get_supxlabel()
    assert "purple = above" in caption and "95%" in caption and "Holm" in caption
    assert "centre: average" in bar.get_ylabel()


def test_the_heatmap_colours_only_supported_differences(analysis: Any) -> None:
    """Classes made clearly better (tight intervals) colour their cells; the rest stay
    neutral."""
    from genial.render.plot import board_heatmap, cell_statistics

    table = analysis.table.copy()
    strong = table["rim"] == 2
    table.loc[strong, ["win_rate", "win_rate_lo", "win_rate_hi"]] = [0.30, 0.295, 0.305]
    result = dataclasses.replace(analysis, table=table)
    stats = cell_statistics(result)
    assert stats.significant
    assert all(stats.values[c] < stats.average for c in stats.significant)
    assert stats.scale() >= max(abs(stats.values[c] - stats.average) for c in stats.significant)
    figure = result.plot()
    hatched = [p for p in figure.axes[0].patches if p.get_hatch()]
    assert len(hatched) == len(stats.values) - len(stats.significant)
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    mapping = board_heatmap(ax, {(0, 0): 0.6, (1, 0): 0.45}, 2, centre=0.5)
    assert (mapping.norm.vmin, mapping.norm.vmax) == pytest.approx((0.4, 0.6))


def test_figures_display_themselves_without_pyplot(tmp_path: Any) -> None:
    """No backend is chosen and pyplot is never imported; the figure has its own PNG repr."""
    pytest.importorskip("matplotlib")
    code = (
        "import sys\n"
        "from genial.board.openings import analyse\n"
        "a = analyse(2, games_per_opening=2, seed=1, workers=1)\n"
        "f = a.plot()\n"
        "png = f._repr_png_()\n"
        "print(png[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'matplotlib.pyplot' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]
