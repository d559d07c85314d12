"""The drawing kit that every game's SVG pictures share (``genial.board.svg``,
``genial.cards.svg``): the six colours' display values and shapes, number formatting, the SVG
document, the parts of a replay page's picture (``ReplayPicture``), and the HTML tables of the
results' pages (``genial.render.html``). It knows no game.

>>> _n(2.50), _n(-0.0001)
('2.5', '0')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np

from ..board.geometry import COLOUR_NAMES, COLOURS
from ..errors import GenialError, excerpt

__all__ = ["COLOUR_COLUMNS", "COLOUR_VALUES", "SHAPES", "ReplayPicture", "text_picture"]

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


def _text(x: float, y: float, text: str, size: float, extra: str = "") -> str:
    return f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}"{extra}>{escape(text)}</text>'


def _document(width: float, height: float, title: str, body: Sequence[str], defs: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
        f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" {FONT}>'
        f"<title>{escape(title)}</title>{_defs(defs)}"
        f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(body) + "</svg>"
    )


def _ordinal(rank: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` for competition ranks 0, 1, 2, 3."""
    place = rank + 1
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th') }"


def _turn_arrow(x: float, y: float, player: int, shown: bool, scale: float) -> str:
    hidden = "" if shown else ' display="none"'
    return (
        f'<path class="to-move" data-player="{player}" '
        f'd="M{_n(x)} {_n(y)}l{_n(9 * scale)} {_n(5 * scale)}l{_n(-9 * scale)} {_n(5 * scale)}z" '
        f'fill="{INK}"{hidden}/>'
    )


def _check_size(size: object) -> None:
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 4 <= size <= 200:
        raise GenialError(f"size: a hexagon radius in pixels, 4 to 200, got {excerpt(size)}")


# -- pieces for the replay viewer (genial.render.html) ------------------------------------------


COLOUR_COLUMNS: tuple[tuple[str, str], ...] = tuple(zip(COLOURS, COLOUR_NAMES, strict=True))
"""The replay page's score columns of the games scored in the six colours: (heading, title)."""


def colour_scores(game: Any) -> list[list[int]]:
    """Every player's score in the six colours (``game.scores``, players x colours)."""
    return [[int(v) for v in row] for row in game.scores]


@dataclass(frozen=True)
class ReplayPicture:
    """A recorded game's picture in parts, for the replay page: ``static`` is drawn once (every
    tile carries the steps it shows at), ``panel(game, player)`` draws what changes in one
    player's panel at a position of the game, ``status(game)`` the status line; ``noun``
    names the game in the page's title (``"board game"``), ``owed(game)`` is how many bonus
    moves the player to move is owed (a move then counts as a bonus one).

    The page's score table: ``columns`` are its columns (heading, title), ``scores(game)``
    every player's row of values at a position, and with ``lowest`` a last column ``low``
    holds each row's lowest value. The default: the six colours and the lowest
    (``game.scores``, players x colours)."""

    width: float
    height: float
    title: str
    static: str
    defs: str
    panel: Callable[[Any, int], str]
    status: Callable[[Any], str]
    noun: str = "game"
    owed: Callable[[Any], int] | None = None
    columns: tuple[tuple[str, str], ...] = COLOUR_COLUMNS
    scores: Callable[[Any], list[list[int]]] = colour_scores
    lowest: bool = True

    def document(self, panels: Sequence[str], status: str) -> str:
        body = [
            self.static,
            *(f'<g class="panel" data-player="{p}">{f}</g>' for p, f in enumerate(panels)),
            f'<text x="8" y="22" font-size="13" class="status">{escape(status)}</text>',
        ]
        return _document(self.width, self.height, self.title, body, self.defs)


_LINE = 18.0  # the text picture's line height
_CHAR = 7.8  # about the width of a character of its 13-pixel monospace text


def _seat_scores(game: Any) -> list[list[int]]:
    """Every player's scores as a row: ``game.scores`` holds one value per player, or a row
    per player (nothing for a game without ``scores``)."""
    values = np.asarray(getattr(game, "scores", np.zeros((game.players, 0))))
    if values.ndim not in (1, 2):
        return [[] for _ in range(game.players)]
    return [[int(v) for v in row] for row in values.reshape(len(values), -1)]


def _text_status(game: Any) -> str:
    if not game.is_over:
        return f"player {game.current_player} to move"
    ranks = np.asarray(game.ranks()) if hasattr(game, "ranks") else np.zeros(0)
    first = np.flatnonzero(ranks == 0)
    return f"game over: player {int(first[0])} wins" if len(first) == 1 else "game over"


def _text_panel(game: Any, player: int) -> str:
    """The whole position as its text (``str(game)``), line by line, in the first panel."""
    if player:
        return ""
    return "".join(
        f'<text x="12" y="{_n(48 + _LINE * i)}" font-size="13" font-family="monospace" '
        f'xml:space="preserve">{escape(line)}</text>'
        for i, line in enumerate(str(game).splitlines())
    )


def text_picture(final: Any, noun: str = "game") -> ReplayPicture:
    """The replay picture of a game without one of its own (its entry has no
    ``replay_picture``): each position as its text (``str(game)``) and a status line (who
    is to move, who won), the score table of the game's ``scores`` (a value per player, or a
    row per player). ``final`` is the game at the end of its record (not changed: the size
    of the picture is measured on a copy, undone to the start).

    >>> from genial import Game
    >>> game = Game(2, seed=1)
    >>> game.play(game.choose("greedy"))
    >>> picture = text_picture(game)
    >>> picture.panel(game, 0).count("<text"), picture.status(game), len(picture.columns)
    (16, 'player 1 to move', 6)
    """
    game = final.copy()
    lines = [str(game).splitlines()]
    for _ in range(len(game.moves)):
        game.undo()
        lines.append(str(game).splitlines())
    rows = max(len(text) for text in lines)
    chars = max((len(line) for text in lines for line in text), default=0)
    width = max(320.0, 24 + _CHAR * chars)
    shape = np.shape(getattr(final, "scores", ()))
    columns = (
        (("score", "score"),)
        if len(shape) == 1
        else tuple((str(c), f"score {c}") for c in range(shape[1] if len(shape) == 2 else 0))
    )
    return ReplayPicture(
        width=width,
        height=48 + _LINE * rows,
        title=f"genial {noun}, rules {final.rules}",
        static="",
        defs="",
        panel=_text_panel,
        status=_text_status,
        noun=noun,
        columns=columns,
        scores=_seat_scores,
        lowest=False,
    )


# -- HTML tables ---------------------------------------------------------------------------------

_STYLE = (
    "border-collapse:collapse;font-variant-numeric:tabular-nums;"
    "font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:0.9em"
)
_CELL = "padding:2px 8px;text-align:right;white-space:nowrap"
_HEAD = "padding:2px 8px;text-align:right;white-space:nowrap;border-bottom:1px solid #888"
_LEFT = "padding:2px 8px;text-align:left"


def _pct(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{x:.1%}"


def _num(x: float, digits: int = 2) -> str:
    return "–" if not math.isfinite(x) else f"{x:.{digits}f}"


def _table(
    caption: str,
    head: Sequence[str],
    rows: Sequence[Sequence[str]],
    foot: str = "",
    left: Sequence[int] = (0,),
) -> str:
    """A table; cells are escaped here, the columns in ``left`` aligned left."""
    out = [f'<table class="genial" style="{_STYLE}">']
    out.append(f'<caption style="text-align:left;caption-side:top">{escape(caption)}</caption>')
    out.append(
        "<thead><tr>"
        + "".join(
            f'<th style="{_HEAD}{";text-align:left" if i in left else ""}">{escape(h)}</th>'
            for i, h in enumerate(head)
        )
        + "</tr></thead><tbody>"
    )
    for row in rows:
        out.append(
            "<tr>"
            + "".join(
                f'<td style="{_LEFT if i in left else _CELL}">{escape(v)}</td>'
                for i, v in enumerate(row)
            )
            + "</tr>"
        )
    out.append("</tbody>")
    if foot:
        out.append(
            # the foot wraps within the table's width instead of widening it
            f'<tfoot><tr><td colspan="{len(head)}" style="{_LEFT};color:#555">'
            f'<div style="width:0;min-width:100%">{escape(foot)}</div></td></tr></tfoot>'
        )
    out.append("</table>")
    return "".join(out)
