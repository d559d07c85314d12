"""The board game's picture as SVG text (``board_svg``; ``Game._repr_svg_`` shows it in
Jupyter) and the parts of its replay page (``replay_picture``), drawn with the shared kit
(``genial.render.kit``). Reads a game through its public face only.

>>> from genial import Game
>>> game = Game(2, seed=1)
>>> game.play(game.choose("greedy"))
>>> picture = board_svg(game, highlight=[(0, 0)], coordinates=True)
>>> picture.startswith("<svg") and "<title>" in picture and 'class="last-move"' in picture
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import GenialError, excerpt
from ..render.kit import (
    BOARD_FRAME,
    CELL_IN,
    CELL_LINE_IN,
    CELL_LINE_OUT,
    CELL_OUT,
    COLOUR_VALUES,
    HIGHLIGHT,
    INK,
    LAST_MOVE,
    SQRT3,
    TILE_EDGE,
    TILE_FACE,
    ReplayPicture,
    _check_size,
    _document,
    _n,
    _ordinal,
    _placed,
    _points,
    _shape,
    _text,
    _turn_arrow,
)
from .geometry import BOARD_RADIUS, COLOUR_NAMES, COLOURS, DIRECTIONS, SYMBOLS, Cell, area
from .moves import TILES, Move
from .notation import max_matching

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

__all__ = ["board_svg", "replay_picture"]


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


def replay_picture(final: Game) -> ReplayPicture:
    """The parts of the replay page's picture (``genial.render.html.replay_html``), from the
    game at the end of its record."""
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
        noun="board game",
        owed=lambda game: int(game.bonus_plays),
    )
