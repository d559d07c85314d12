"""Pictures of games as SVG text: the board game's board as it lies on the table, and the card
game's hands, displays and scoring boards. Pure functions of a game's public face, returning one
self-contained SVG document (no script, no external reference, no randomness: the same game
gives the same text); ``Game._repr_svg_`` and ``CardGame._repr_svg_`` call them, so a game shows
itself in Jupyter.

Every colour has its own shape as well (the symbols printed on the board, RULES §1.4), so the
pictures stay readable without telling the colours apart:

>>> for name, shape in zip(COLOUR_NAMES, SHAPES):
...     print(f"{name:<7} {shape}")
red     12-pointed star
green   circle
blue    6-pointed star
orange  hexagon
yellow  24-pointed star
purple  ring

>>> from genial import Game
>>> game = Game(2, seed=1)
>>> game.play(game.choose("greedy"))
>>> picture = board_svg(game, highlight=[(0, 0)], coordinates=True)
>>> picture.startswith("<svg") and "<title>" in picture and 'class="last-move"' in picture
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING, Any

from ..board.geometry import BOARD_RADIUS, COLOUR_NAMES, COLOURS, DIRECTIONS, SYMBOLS, Cell, area
from ..board.moves import TILES, Move
from ..board.notation import max_matching
from ..cards.moves import CARDS
from ..errors import GenialError, excerpt

if TYPE_CHECKING:  # pragma: no cover
    from ..board.game import Game
    from ..cards.game import CardGame

__all__ = [
    "COLOUR_VALUES",
    "SHAPES",
    "board_svg",
    "cards_svg",
    "svg",
]

COLOUR_VALUES: tuple[str, ...] = ("#d62728", "#2ca02c", "#1f77b4", "#ff7f0e", "#f2c80f", "#9467bd")
"""Display colours of R G B O Y P (the same as the plots')."""
SHAPES: tuple[str, ...] = (
    "12-pointed star",
    "circle",
    "6-pointed star",
    "hexagon",
    "24-pointed star",
    "ring",
)
"""The shape drawn for each colour: the printed symbols of RULES §1.4."""

SQRT3 = math.sqrt(3.0)
FONT = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif"'
INK = "#222222"
BOARD_FRAME = "#6f6150"
CELL_IN = "#efe9db"  # the playing area of the player count
CELL_OUT = "#bfb6a5"  # the rest of the board
CELL_LINE_IN = "#b8ab92"
CELL_LINE_OUT = "#a89e8c"
TILE_FACE = "#fdfbf6"
TILE_EDGE = "#2b2b2b"
LAST_MOVE = "#c2185b"
HIGHLIGHT = "#0b5394"


# -- numbers and shapes --------------------------------------------------------------------------


def _n(x: float) -> str:
    """A coordinate with at most one decimal, no trailing zeros ('12', '12.5', '-3.1')."""
    text = f"{x:.1f}"
    if text.endswith(".0"):
        text = text[:-2]
    return "0" if text == "-0" else text


def _points(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _star(tips: int, inner: float, outer: float = 1.0) -> str:
    pts = []
    for k in range(2 * tips):
        radius = outer if k % 2 == 0 else inner
        angle = math.radians(-90 + 180 * k / tips)
        pts.append(f"{radius * math.cos(angle):.3f} {radius * math.sin(angle):.3f}")
    return "M" + "L".join(pts) + "Z"


def _circle(radius: float) -> str:
    r = f"{radius:g}"
    return f"M{r} 0A{r} {r} 0 1 1 -{r} 0A{r} {r} 0 1 1 {r} 0Z"


def _hexagon(radius: float, start: float) -> str:
    pts = []
    for k in range(6):
        angle = math.radians(start + 60 * k)
        pts.append(f"{radius * math.cos(angle):.3f} {radius * math.sin(angle):.3f}")
    return "M" + "L".join(pts) + "Z"


# unit-radius paths, centred on the origin, in colour order
_SHAPE_PATHS: tuple[str, ...] = (
    _star(12, 0.56),
    _circle(0.82),
    _star(6, 0.5),
    _hexagon(0.9, 0.0),
    _star(24, 0.74) + _circle(0.3),
    _circle(0.92) + _circle(0.5),
)


def _defs(more: str = "") -> str:
    """The six shapes, each in its colour with a dark outline, for ``<use>``; then ``more``."""
    parts = []
    for c, d in enumerate(_SHAPE_PATHS):
        rule = ' fill-rule="evenodd"' if c in (4, 5) else ""
        parts.append(
            f'<path id="genial-shape-{COLOURS[c]}" d="{d}" fill="{COLOUR_VALUES[c]}"{rule} '
            f'stroke="{INK}" stroke-width="0.11" stroke-linejoin="round"/>'
        )
    return "<defs>" + "".join(parts) + more + "</defs>"


def _shape(colour: int, x: float, y: float, radius: float) -> str:
    """The shape of ``colour`` centred at (x, y)."""
    return (
        f'<use href="#genial-shape-{COLOURS[colour]}" '
        f'transform="translate({_n(x)} {_n(y)}) scale({radius:.2f})"/>'
    )


def _placed(kind: str, pair: Sequence[int], x: float, y: float, scale: float, cls: str) -> str:
    """A rack tile or a card (``kind``), drawn from its definition, its corner at (x, y)."""
    name = COLOURS[pair[0]] + COLOURS[pair[1]]
    size = "" if scale == 1 else f" scale({scale:.3g})"
    return (
        f'<use href="#genial-{kind}-{name}" class="{cls}" data-{kind}="{name}" '
        f'transform="translate({_n(x)} {_n(y)}){size}"/>'
    )


def _tile_defs() -> str:
    """A rack tile of each of the 21 types (RULES §2.1), 22 x 12, its corner at the origin."""
    parts = []
    for a, b in TILES:
        parts.append(
            f'<g id="genial-tile-{COLOURS[a]}{COLOURS[b]}"><rect width="22" height="12" rx="2" '
            f'fill="{TILE_FACE}" stroke="{TILE_EDGE}" stroke-width="0.8"/>'
            f"{_shape(a, 5.5, 6, 4.6)}{_shape(b, 16.5, 6, 4.6)}</g>"
        )
    return "".join(parts)


def _card_defs() -> str:
    """A card of each of the 15 types (RULES §5.1), its two colours top and bottom, each as a
    tinted half with its shape, ``_CARD_W`` x ``_CARD_H``, its corner at the origin."""
    w, h = _CARD_W, _CARD_H
    parts = []
    for a, b in CARDS:
        parts.append(
            f'<g id="genial-card-{COLOURS[a]}{COLOURS[b]}">'
            f'<rect width="{_n(w)}" height="{_n(h)}" rx="3" fill="{TILE_FACE}" '
            f'stroke="{TILE_EDGE}" stroke-width="1"/>'
            f'<rect x="2" y="2" width="{_n(w - 4)}" height="{_n(h / 2 - 3)}" rx="2" '
            f'fill="{COLOUR_VALUES[a]}" fill-opacity="0.22"/>'
            f'<rect x="2" y="{_n(h / 2 + 1)}" width="{_n(w - 4)}" height="{_n(h / 2 - 3)}" '
            f'rx="2" fill="{COLOUR_VALUES[b]}" fill-opacity="0.22"/>'
            f"{_shape(a, w / 2, h / 4 + 0.5, 7)}{_shape(b, w / 2, 3 * h / 4 - 0.5, 7)}</g>"
        )
    return "".join(parts)


def _text(x: float, y: float, text: str, size: float, extra: str = "") -> str:
    return f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}"{extra}>{escape(text)}</text>'


def _document(width: float, height: float, title: str, body: Sequence[str], defs: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" {FONT}>'
        f"<title>{escape(title)}</title>{_defs(defs)}"
        f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(body) + "</svg>"
    )


# -- the board game ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Board:
    """Where the board game's picture puts things: hexagons of radius ``size`` around the
    centre (``cx``, ``cy``), the players' panels from ``px``."""

    size: float
    top: float
    cx: float
    cy: float
    px: float
    width: float
    height: float

    @classmethod
    def make(cls, size: float, players: int) -> _Board:
        scale = size / 20
        half_w = SQRT3 * size * (BOARD_RADIUS + 0.5) + size * 0.9
        half_h = 1.5 * size * BOARD_RADIUS + size * 1.9
        top = 34 * scale
        panel_h = top + players * _panel_height(size) + 36 * scale
        return cls(
            size=size,
            top=top,
            cx=8 * scale + half_w,
            cy=top + half_h,
            px=8 * scale + 2 * half_w + 16 * scale,
            width=(8 + 16 + _PANEL_W + 8) * scale + 2 * half_w,
            height=max(top + 2 * half_h + 8 * scale, panel_h),
        )

    def centre(self, cell: Cell) -> tuple[float, float]:
        q, r = cell
        return (self.cx + self.size * SQRT3 * (q + r / 2), self.cy + self.size * 1.5 * r)

    def corners(self, cell: Cell, scale: float = 1.0) -> list[tuple[float, float]]:
        """The six corners of a pointy-top cell, corner i at 60 i - 30 degrees (y down): the
        side between corners i and i + 1 faces direction i of ``_SIDE``."""
        x, y = self.centre(cell)
        s = self.size * scale
        return [
            (
                x + s * math.cos(math.radians(60 * i - 30)),
                y + s * math.sin(math.radians(60 * i - 30)),
            )
            for i in range(6)
        ]

    def tile_outline(self, a: Cell, b: Cell, inset: float = 0.0) -> list[tuple[float, float]]:
        """The ten corners of the outline of a tile on the adjacent cells a and b, moved
        ``inset`` pixels inwards (so that neighbouring tiles stand apart)."""
        k = _SIDE[(b[0] - a[0], b[1] - a[1])]
        ca, cb = self.corners(a), self.corners(b)
        outline = [ca[(k + 1 + i) % 6] for i in range(6)] + [cb[(k + 5 + i) % 6] for i in range(4)]
        return _inset(outline, inset) if inset else outline


def _inset(points: Sequence[tuple[float, float]], d: float) -> list[tuple[float, float]]:
    """A simple polygon with every side moved ``d`` inwards (consecutive sides' lines meet)."""
    n = len(points)
    twice_area = sum(
        points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1]
        for i in range(n)
    )
    turn = 1.0 if twice_area > 0 else -1.0  # inwards is to the left of a counter-clockwise side
    lines = []
    for i in range(n):
        (x0, y0), (x1, y1) = points[i], points[(i + 1) % n]
        length = math.hypot(x1 - x0, y1 - y0)
        nx, ny = -(y1 - y0) / length * turn, (x1 - x0) / length * turn
        lines.append(((x0 + d * nx, y0 + d * ny), (x1 - x0, y1 - y0)))
    out = []
    for i in range(n):
        (px, py), (ux, uy) = lines[i - 1]
        (qx, qy), (vx, vy) = lines[i]
        det = ux * vy - uy * vx
        t = ((qx - px) * vy - (qy - py) * vx) / det
        out.append((px + t * ux, py + t * uy))
    return out


# the side of a cell facing each neighbour (screen angles 0, 60, ... degrees, y down)
_SIDE: dict[Cell, int] = {(1, 0): 0, (0, 1): 1, (-1, 1): 2, (-1, 0): 3, (0, -1): 4, (1, -1): 5}
assert set(_SIDE) == set(DIRECTIONS)
_PANEL_W = 262.0


_TRACK_W = 200.0


def _panel_height(size: float) -> float:
    return (34 + 6 * 13 + 10) * size / 20


def _tiles(game: Game) -> tuple[list[tuple[Cell, Cell, int | None]], list[Cell]]:
    """The tiles on the board as ``(cell, cell, move index)``: those of the start position
    (index None, paired by a maximum matching) and those placed since (by ``game.moves``); and
    the covered cells that pair with nothing (boards read with ``pair_tiles=False``)."""
    board = game.board
    placed: list[tuple[Cell, Cell, int | None]] = []
    covered: set[Cell] = set()
    for i, move in enumerate(game.moves):
        if move.cells is not None and all(c in board for c in move.cells):
            placed.append((move.cells[0], move.cells[1], i))
            covered.update(move.cells)
    rest = sorted((c for c in board if c not in covered), key=lambda c: (c[1], c[0]))
    index = {cell: i for i, cell in enumerate(rest)}
    adj = [
        [index[n] for n in ((q + dq, r + dr) for dq, dr in DIRECTIONS) if n in index]
        for q, r in rest
    ]
    match = max_matching(adj) if rest else []
    start: list[tuple[Cell, Cell, int | None]] = []
    lone = []
    for i, j in enumerate(match):
        if j == -1:
            lone.append(rest[i])
        elif i < j:
            start.append((rest[i], rest[j], None))
    return start + placed, lone


def _cells_of(highlight: Iterable[Cell] | Move | None) -> list[Cell]:
    if highlight is None:
        return []
    if isinstance(highlight, Move):
        return [] if highlight.cells is None else list(highlight.cells)
    try:
        cells = [(int(q), int(r)) for q, r in highlight]
    except (TypeError, ValueError):
        raise GenialError(
            f"highlight: expected cells (q, r) or a Move, got {excerpt(highlight)}"
        ) from None
    return cells


def _board_static(game: Game, box: _Board) -> list[str]:
    """The board itself: frame, cells (the area of the player count light, the rest darker)
    and the printed symbols."""
    s = box.size
    radius = game.radius
    inside = set(area(radius))
    out = []
    rim = BOARD_RADIUS + 0.78
    frame = []
    for k in range(6):
        angle = math.radians(60 * k)
        frame.append(
            (box.cx + s * SQRT3 * rim * math.cos(angle), box.cy + s * SQRT3 * rim * math.sin(angle))
        )
    out.append(
        f'<polygon class="frame" points="{_points(frame)}" fill="{BOARD_FRAME}" '
        f'stroke="{INK}" stroke-width="1.5" stroke-linejoin="round"/>'
    )
    printed = {cell: c for c, cell in enumerate(SYMBOLS)}
    for cell in area(BOARD_RADIUS):
        play = cell in inside
        fill, line = (CELL_IN, CELL_LINE_IN) if play else (CELL_OUT, CELL_LINE_OUT)
        kind = "cell in-area" if play else "cell off-area"
        out.append(
            f'<polygon class="{kind}" data-cell="{cell[0]},{cell[1]}" '
            f'points="{_points(box.corners(cell, 0.97))}" fill="{fill}" stroke="{line}" '
            f'stroke-width="1"/>'
        )
    for cell, c in printed.items():
        x, y = box.centre(cell)
        out.append(
            f'<g class="printed" data-colour="{COLOURS[c]}">'
            f'<polygon points="{_points(box.corners(cell, 0.97))}" fill="#e2d9c4" '
            f'stroke="{INK}" stroke-width="1.6"/>{_shape(c, x, y, 0.7 * s)}</g>'
        )
    return out


def _coordinates(game: Game, box: _Board) -> list[str]:
    """Each cell's ``q,r``: in the middle of an empty cell, low in a covered or printed one."""
    s = box.size
    low = set(game.board) | set(SYMBOLS)
    out = []
    for cell in area(BOARD_RADIUS):
        x, y = box.centre(cell)
        out.append(
            _text(
                x,
                y + (0.8 if cell in low else 0.11) * s,
                f"{cell[0]},{cell[1]}",
                0.3 * s,
                f' text-anchor="middle" fill="{"#4a4a4a" if cell in low else "#7a7060"}" '
                'class="coord"',
            )
        )
    return out


def _tile_svg(box: _Board, a: Cell, b: Cell, ca: int, cb: int, extra: str = "") -> str:
    s = box.size
    (xa, ya), (xb, yb) = box.centre(a), box.centre(b)
    k = _SIDE[(b[0] - a[0], b[1] - a[1])]
    shared = box.corners(a)[k : k + 2] if k < 5 else [box.corners(a)[5], box.corners(a)[0]]
    return (
        f'<g class="tile" data-cells="{a[0]},{a[1]} {b[0]},{b[1]}"{extra}>'
        f'<polygon class="tile-outline" points="{_points(box.tile_outline(a, b, 0.1 * s))}" '
        f'fill="{TILE_FACE}" stroke="{TILE_EDGE}" stroke-width="{_n(0.1 * s)}" '
        f'stroke-linejoin="round"/>'
        f'<line x1="{_n(shared[0][0])}" y1="{_n(shared[0][1])}" x2="{_n(shared[1][0])}" '
        f'y2="{_n(shared[1][1])}" stroke="#c9c2b4" stroke-width="0.8" stroke-dasharray="2 2"/>'
        f"{_shape(ca, xa, ya, 0.6 * s)}{_shape(cb, xb, yb, 0.6 * s)}</g>"
    )


def _last_svg(box: _Board, a: Cell, b: Cell, extra: str = "") -> str:
    s = box.size
    pts = _points(box.tile_outline(a, b))
    return (
        f'<g class="last-move"{extra}><polygon points="{pts}" fill="none" stroke="#ffffff" '
        f'stroke-width="{_n(0.34 * s)}" stroke-linejoin="round"/><polygon points="{pts}" '
        f'fill="none" stroke="{LAST_MOVE}" stroke-width="{_n(0.2 * s)}" '
        f'stroke-linejoin="round"/></g>'
    )


def _board_overlay(game: Game, box: _Board, replay: bool) -> tuple[list[str], list[str]]:
    """The tiles (each half's shape, an outline around both halves) and the last-move marks.
    In a replay every tile and mark carries the steps it is shown at (``data-from``,
    ``data-to``); otherwise only the last placement is marked."""
    tiles, lone = _tiles(game)
    board = game.board
    s = box.size
    body = []
    for cell in lone:
        x, y = box.centre(cell)
        body.append(
            f'<g class="half"><polygon points="{_points(box.corners(cell))}" fill="{TILE_FACE}" '
            f'stroke="{TILE_EDGE}" stroke-width="{_n(0.1 * s)}"/>'
            f"{_shape(board[cell], x, y, 0.6 * s)}</g>"
        )
    marks = []
    order = sorted((i, a, b) for a, b, i in tiles if i is not None)
    for a, b, i in tiles:
        extra = f' data-from="{i + 1}"' if replay and i is not None else ""
        body.append(_tile_svg(box, a, b, board[a], board[b], extra))
    if replay:
        for k, (i, a, b) in enumerate(order):
            until = f' data-to="{order[k + 1][0]}"' if k + 1 < len(order) else ""
            marks.append(_last_svg(box, a, b, f' data-from="{i + 1}"{until}'))
    elif order:
        _, a, b = order[-1]
        marks.append(_last_svg(box, a, b))
    return body, marks


def _highlights(box: _Board, cells: Iterable[Cell]) -> list[str]:
    return [
        f'<polygon class="highlight" data-cell="{q},{r}" '
        f'points="{_points(box.corners((q, r), 0.86))}" fill="{HIGHLIGHT}" fill-opacity="0.25" '
        f'stroke="{HIGHLIGHT}" stroke-width="{_n(0.14 * box.size)}" stroke-dasharray="4 2"/>'
        for q, r in cells
    ]


def _board_status(game: Game) -> str:
    if game.is_over:
        winner = game.winner()
        who = (
            "first place shared"
            if winner is None
            else (f"team {winner} wins" if game.rules.teams else f"player {winner} wins")
        )
        if game.players == 1:
            who = f"result {int(game.scores[0].min())}"
        return f"game over after {game.turn} turns: {who}"
    what = "to place" if game.phase == "place" else "to decide on the swap"
    bonus = (
        f", {game.bonus_plays} bonus play{'s' * (game.bonus_plays > 1)} owed"
        if game.bonus_plays
        else ""
    )
    return f"turn {game.turn}: player {game.current_player} {what}{bonus}"


def _ordinal(rank: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` for competition ranks 0, 1, 2, 3."""
    place = rank + 1
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th') }"


def _panel_top(box: _Board, player: int) -> float:
    return box.top + player * _panel_height(box.size)


def _track_y(box: _Board, player: int, colour: int) -> float:
    return _panel_top(box, player) + (34 + 13 * colour) * box.size / 20


def _board_panel(game: Game, player: int, box: _Board) -> str:
    """One player's panel: name, rack, and the six score tracks with their counters."""
    scale = box.size / 20
    x0 = box.px
    y0 = _panel_top(box, player)
    rules = game.rules
    cap = rules.cap
    out = []
    label = f"player {player}"
    if rules.teams:
        label += f", team {rules.team_of(player)}"
    if game.is_over and game.players > 1:
        label += f": {_ordinal(int(game.ranks()[player]))}"
    out.append(_text(x0 + 14 * scale, y0 + 12 * scale, label, 12 * scale, ' font-weight="bold"'))
    rack = game.rack(player)
    rx = x0 + 22 * scale
    ry = y0 + 17 * scale
    for i, tile in enumerate(rack):
        out.append(_placed("tile", tile, rx + i * 24 * scale, ry, scale, "rack"))
    if not rack:
        out.append(_text(rx, ry + 9 * scale, "rack empty", 9 * scale, ' fill="#6b6254"'))
    scores = game.scores[player]
    w = _TRACK_W * scale / (cap + 1)
    tx = x0 + 22 * scale
    for c in range(6):
        y = _track_y(box, player, c)
        v = int(scores[c])
        if v:
            out.append(
                f'<rect class="score-bar" data-colour="{COLOURS[c]}" x="{_n(tx + w)}" '
                f'y="{_n(y)}" width="{_n(v * w)}" height="{_n(9 * scale)}" '
                f'fill="{COLOUR_VALUES[c]}" fill-opacity="0.55"/>'
            )
        out.append(_shape(c, tx + (v + 0.5) * w, y + 4.5 * scale, 5.6 * scale))
        out.append(
            _text(
                tx + (cap + 1) * w + 6 * scale,
                y + 8.5 * scale,
                str(v),
                10 * scale,
                f' class="score" data-colour="{COLOURS[c]}"',
            )
        )
    return "".join(out)


def _board_panel_static(game: Game, box: _Board) -> list[str]:
    """The score tracks' boxes (0 .. cap; 18, and 36 with double-length counters, framed:
    reaching them earns a bonus play), the same at every step; and the legend of shapes."""
    scale = box.size / 20
    cap = game.rules.cap
    w = _TRACK_W * scale / (cap + 1)
    tx = box.px + 22 * scale
    h = 9 * scale
    out = []
    for p in range(game.players):
        for c in range(6):
            y = _track_y(box, p, c)
            ticks = "".join(f"M{_n(tx + k * w)} {_n(y)}v{_n(h)}" for k in range(1, cap + 1))
            bonus = "".join(
                f'<rect x="{_n(tx + k * w)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
                f'fill="none" stroke="{INK}" stroke-width="1"/>'
                for k in sorted({game.rules.crossing, cap})
            )
            out.append(
                f'<g class="track" data-colour="{COLOURS[c]}"><rect x="{_n(tx)}" y="{_n(y)}" '
                f'width="{_n((cap + 1) * w)}" height="{_n(h)}" fill="#f7f4ec" '
                f'stroke="#8a8170" stroke-width="0.7"/><path d="{ticks}" stroke="#cfc7b6" '
                f'stroke-width="0.6"/>{bonus}</g>'
            )
    out.append(_legend(box.px + 4 * scale, _panel_top(box, game.players) + 4 * scale, scale))
    return out


def _legend(x: float, y: float, scale: float) -> str:
    """The six shapes with their colours' names."""
    parts = ['<g class="legend">']
    for c in range(6):
        cx = x + (c % 3) * 76 * scale
        cy = y + (c // 3) * 14 * scale
        parts.append(_shape(c, cx + 6 * scale, cy + 6 * scale, 5.5 * scale))
        parts.append(_text(cx + 15 * scale, cy + 10 * scale, COLOUR_NAMES[c], 9.5 * scale))
    parts.append("</g>")
    return "".join(parts)


def _turn_arrow(x: float, y: float, player: int, shown: bool, scale: float) -> str:
    hidden = "" if shown else ' display="none"'
    return (
        f'<path class="to-move" data-player="{player}" '
        f'd="M{_n(x)} {_n(y)}l{_n(9 * scale)} {_n(5 * scale)}l{_n(-9 * scale)} {_n(5 * scale)}z" '
        f'fill="{INK}"{hidden}/>'
    )


def _board_parts(
    game: Game,
    *,
    highlight: Iterable[Cell] | Move | None,
    coordinates: bool,
    size: float,
    replay: bool,
) -> tuple[_Board, list[str], list[str]]:
    """The picture's static part (all of it but the players' panels and the status line) and
    the overlays drawn above them (last-move marks, highlights)."""
    box = _Board.make(size, game.players)
    static = _board_static(game, box)
    tiles, marks = _board_overlay(game, box, replay)
    static += tiles
    if coordinates:
        static += _coordinates(game, box)
    static += _board_panel_static(game, box)
    scale = size / 20
    for p in range(game.players):
        shown = not replay and not game.is_over and p == game.current_player
        static.append(_turn_arrow(box.px, _panel_top(box, p) + 3 * scale, p, shown, scale))
    overlay = marks + _highlights(box, _cells_of(highlight))
    return box, static, overlay


def _board_title(game: Game) -> str:
    return f"genial board game, rules {game.rules}: {_board_status(game)}"


def board_svg(
    game: Game,
    *,
    highlight: Iterable[Cell] | Move | None = None,
    coordinates: bool = False,
    size: float = 20.0,
) -> str:
    """The board game as SVG text: the whole board in its real geometry with the playing area
    of the player count shaded (RULES §1.3), the printed symbols (§1.4), every tile with an
    outline around its two halves, the last placement marked, and per player the rack and the
    six score tracks (0 to 18, or 36 with double-length counters, §4.1).

    ``highlight`` marks cells (or a move's two cells); ``coordinates=True`` writes each cell's
    ``q,r``; ``size`` is a hexagon's radius in pixels.

    >>> from genial import Game
    >>> import xml.etree.ElementTree as ET
    >>> game = Game(3, seed=2)
    >>> for _ in range(4):
    ...     game.play(game.choose("greedy"))
    >>> root = ET.fromstring(board_svg(game))
    >>> ns = {"s": "http://www.w3.org/2000/svg"}
    >>> cells = root.findall(".//s:polygon[@data-cell]", ns)
    >>> tiles = root.findall(".//s:g[@class='tile']", ns)
    >>> len(cells), len(tiles)
    (169, 4)
    >>> board_svg(game) == board_svg(game.copy())
    True
    """
    _check_size(size)
    box, static, overlay = _board_parts(
        game, highlight=highlight, coordinates=bool(coordinates), size=size, replay=False
    )
    panels = [
        f'<g class="panel" data-player="{p}">{_board_panel(game, p, box)}</g>'
        for p in range(game.players)
    ]
    status = _text(8, 22 * size / 20, _board_status(game), 13 * size / 20, ' class="status"')
    body = [*static, *panels, *overlay, status]
    return _document(box.width, box.height, _board_title(game), body, _tile_defs())


def _check_size(size: object) -> None:
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 4 <= size <= 200:
        raise GenialError(f"size: a hexagon radius in pixels, 4 to 200, got {excerpt(size)}")


# -- the card game -------------------------------------------------------------------------------

_CARD_W = 24.0
_CARD_H = 36.0
_CELL = 14.0  # a column of the scoring board
_BLOCK_H = 118.0  # one player's block
_AREA_SHADES = ("#e9e4d8", "#f6f3ec", "#e9e4d8", "#f6f3ec")


def _display_slots(players: int) -> int:
    """Display cards a seat can hold: one (two with two players, RULES §5.8) and the card
    that won (RULES §5.7)."""
    return 3 if players == 2 else 2


def _cards_layout(players: int, scale: float) -> tuple[float, float]:
    width = (8 + 30 + 11 * _CELL + 26 + _display_slots(players) * 28 + 16 + 6 * 28 + 8) * scale
    height = (34 + players * _BLOCK_H + 8) * scale
    return width, height


def _cards_static(game: CardGame, scale: float, replay: bool) -> list[str]:
    """Each player's scoring board: six rows, columns 0..10 in the four areas (RULES §5.1)."""
    from ..cards.notation import AREAS

    out = []
    for p in range(game.players):
        y0 = (34 + p * _BLOCK_H) * scale
        bx = (8 + 30) * scale
        by = y0 + 30 * scale
        for k, columns in enumerate(AREAS):
            x = bx + columns.start * _CELL * scale
            out.append(
                f'<rect class="area" data-area="A{k}" x="{_n(x)}" y="{_n(by)}" '
                f'width="{_n(len(columns) * _CELL * scale)}" height="{_n(6 * 12 * scale)}" '
                f'fill="{_AREA_SHADES[k]}" stroke="#8a8170" stroke-width="0.8"/>'
            )
            out.append(
                _text(
                    x + len(columns) * _CELL * scale / 2,
                    by - 3 * scale,
                    f"A{k}",
                    9 * scale,
                    ' text-anchor="middle" fill="#6b6254"',
                )
            )
        ticks = "".join(
            f"M{_n(bx + k * _CELL * scale)} {_n(by)}v{_n(72 * scale)}"
            for k in range(1, 11)
            if k not in (1, 4, 7)
        )
        rows = "".join(
            f"M{_n(bx)} {_n(by + c * 12 * scale)}h{_n(11 * _CELL * scale)}" for c in range(1, 6)
        )
        out.append(f'<path d="{ticks}{rows}" stroke="#d3cbbb" stroke-width="0.6" fill="none"/>')
        for c in range(6):
            out.append(_shape(c, bx - 10 * scale, by + (12 * c + 6) * scale, 5 * scale))
        out.append(
            "".join(
                _text(
                    bx + (k + 0.5) * _CELL * scale,
                    by + 81 * scale,
                    str(k),
                    7 * scale,
                    ' text-anchor="middle" fill="#6b6254"',
                )
                for k in range(11)
            )
        )
        shown = not replay and not game.is_over and p == game.current_player
        out.append(_turn_arrow(8 * scale, y0 + 4 * scale, p, shown, scale))
    return out


def _cards_panel(game: CardGame, player: int, scale: float) -> str:
    """What changes in a player's block: the markers, the limit of RULES §5.4, the display
    and the hand."""
    from ..cards.notation import area_of, limit_of

    y0 = (34 + player * _BLOCK_H) * scale
    bx = (8 + 30) * scale
    by = y0 + 30 * scale
    markers = [int(v) for v in game.scores[player]]
    low = min(markers)
    limit = limit_of(markers)
    label = f"player {player}: lowest {low} in A{area_of(low)}, limit {limit}"
    if game.is_over:
        label += f": {_ordinal(int(game.ranks()[player]))}"
    out = [_text(20 * scale, y0 + 13 * scale, label, 11 * scale, ' font-weight="bold"')]
    for c, v in enumerate(markers):
        y = by + 12 * c * scale
        if v:
            out.append(
                f'<rect class="marker-trail" data-colour="{COLOURS[c]}" x="{_n(bx)}" '
                f'y="{_n(y + 2 * scale)}" width="{_n(v * _CELL * scale)}" height="{_n(8 * scale)}" '
                f'fill="{COLOUR_VALUES[c]}" fill-opacity="0.35"/>'
            )
        out.append(_shape(c, bx + (v + 0.5) * _CELL * scale, y + 6 * scale, 5.2 * scale))
    lx = bx + (limit + 1) * _CELL * scale
    out.append(
        f'<line class="limit" x1="{_n(lx)}" y1="{_n(by - 1 * scale)}" x2="{_n(lx)}" '
        f'y2="{_n(by + 73 * scale)}" stroke="{LAST_MOVE}" stroke-width="{_n(2 * scale)}" '
        f'stroke-dasharray="4 2"/>'
    )
    dx = bx + 11 * _CELL * scale + 26 * scale
    out.append(_text(dx, by - 3 * scale, "display", 9 * scale, ' fill="#6b6254"'))
    for i, card in enumerate(game.display(player)):
        out.append(_placed("card", card, dx + i * 28 * scale, by + 4 * scale, scale, "display"))
    hx = dx + (_display_slots(game.players) * 28 + 16) * scale
    hand = game.hand(player)
    out.append(_text(hx, by - 3 * scale, f"hand ({len(hand)})", 9 * scale, ' fill="#6b6254"'))
    for i, card in enumerate(hand):
        out.append(_placed("card", card, hx + i * 28 * scale, by + 4 * scale, scale, "hand"))
    return "".join(out)


def _cards_status(game: CardGame) -> str:
    piles = f"deck {game.deck_size}, discard pile {game.discard_size}"
    if game.is_over:
        winner = game.winner()
        if game.truncated:
            who = "stopped at the turn cap"
        else:
            who = "first place shared" if winner is None else f"player {winner} wins"
        return f"game over on turn {game.turn}: {who}; {piles}"
    what = "to play" if game.phase == "play" else "to decide on the swap"
    bonus = (
        f", {game.bonus_turns} bonus turn{'s' * (game.bonus_turns > 1)}" if game.bonus_turns else ""
    )
    return f"turn {game.turn}: player {game.current_player} {what}{bonus}; {piles}"


def _cards_title(game: CardGame) -> str:
    return f"genial card game, rules {game.rules}: {_cards_status(game)}"


def cards_svg(game: CardGame, *, size: float = 1.0) -> str:
    """The card game as SVG text: per player the scoring board with its four areas and the
    six markers (RULES §5.1), the last column the markers may reach (§5.4, dashed), the
    display cards (oldest first) and the hand; each card shows its two colours as shapes.
    ``size`` scales the picture.

    >>> from genial.cards import CardGame
    >>> import xml.etree.ElementTree as ET
    >>> game = CardGame(3, seed=1)
    >>> root = ET.fromstring(cards_svg(game))
    >>> ns = {"s": "http://www.w3.org/2000/svg"}
    >>> hands = root.findall(".//s:use[@class='hand']", ns)
    >>> displays = root.findall(".//s:use[@class='display']", ns)
    >>> len(hands), len(displays), displays[0].get("data-card")
    (18, 3, 'RG')
    """
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 0.2 <= size <= 10:
        raise GenialError(f"size: a scale factor, 0.2 to 10, got {excerpt(size)}")
    scale = float(size)
    width, height = _cards_layout(game.players, scale)
    static = _cards_static(game, scale, replay=False)
    panels = [
        f'<g class="panel" data-player="{p}">{_cards_panel(game, p, scale)}</g>'
        for p in range(game.players)
    ]
    status = _text(8, 22 * scale, _cards_status(game), 13 * scale, ' class="status"')
    return _document(width, height, _cards_title(game), [*static, *panels, status], _card_defs())


# -- either game ---------------------------------------------------------------------------------


def svg(game: Any, **options: Any) -> str:
    """The picture of a ``Game`` (``board_svg``) or a ``CardGame`` (``cards_svg``).

    >>> from genial import Game
    >>> svg(Game(2, seed=0)) == board_svg(Game(2, seed=0))
    True
    """
    from ..board.game import Game
    from ..cards.game import CardGame

    if isinstance(game, Game):
        return board_svg(game, **options)
    if isinstance(game, CardGame):
        return cards_svg(game, **options)
    raise GenialError(f"svg: expected a genial Game or CardGame, got {type(game).__name__}")


# -- pieces for the replay viewer (genial.render.html) ------------------------------------------


@dataclass(frozen=True)
class ReplayPicture:
    """A recorded game's picture in parts, for the replay page: ``static`` is drawn once (every
    tile carries the steps it shows at), ``panel(game, player)`` draws what changes in one
    player's panel at a position of the game, ``status(game)`` the status line."""

    width: float
    height: float
    title: str
    static: str
    defs: str
    panel: Callable[[Any, int], str]
    status: Callable[[Any], str]

    def document(self, panels: Sequence[str], status: str) -> str:
        body = [
            self.static,
            *(f'<g class="panel" data-player="{p}">{f}</g>' for p, f in enumerate(panels)),
            f'<text x="8" y="22" font-size="13" class="status">{escape(status)}</text>',
        ]
        return _document(self.width, self.height, self.title, body, self.defs)


def replay_picture(final: Any) -> ReplayPicture:
    """The parts of the replay page's picture, from the game at the end of its record."""
    from ..board.game import Game

    if isinstance(final, Game):
        box, static, overlay = _board_parts(
            final, highlight=None, coordinates=False, size=20.0, replay=True
        )
        return ReplayPicture(
            width=box.width,
            height=box.height,
            title=f"genial board game, rules {final.rules}",
            static="".join(static) + f'<g class="overlay">{"".join(overlay)}</g>',
            defs=_tile_defs(),
            panel=lambda game, p: _board_panel(game, p, box),
            status=_board_status,
        )
    width, height = _cards_layout(final.players, 1.0)
    return ReplayPicture(
        width=width,
        height=height,
        title=f"genial card game, rules {final.rules}",
        static="".join(_cards_static(final, 1.0, replay=True)),
        defs=_card_defs(),
        panel=lambda game, p: _cards_panel(game, p, 1.0),
        status=_cards_status,
    )
