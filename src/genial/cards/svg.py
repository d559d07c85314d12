"""The card game's picture as SVG text (``cards_svg``; ``CardGame._repr_svg_`` shows it in
Jupyter) and the parts of its replay page (``replay_picture``), drawn with the shared kit
(``genial.render.kit``). Reads a game through its public face only."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from ..board.geometry import COLOURS
from ..errors import GenialError, excerpt
from ..render import kit
from ..render.kit import _n, _shape, _text
from .moves import CARDS

if TYPE_CHECKING:  # pragma: no cover
    from .game import CardGame

__all__ = ["cards_svg", "replay_picture"]


def _card_defs() -> str:
    """A card of each of the 15 types (RULES §5.1), its two colours top and bottom, each as a
    tinted half with its shape, ``_CARD_W`` x ``_CARD_H``, its corner at the origin."""
    w, h = _CARD_W, _CARD_H
    parts = []
    for a, b in CARDS:
        parts.append(
            f'<g id="genial-card-{COLOURS[a]}{COLOURS[b]}">'
            f'<rect width="{_n(w)}" height="{_n(h)}" rx="3" fill="{kit.TILE_FACE}" '
            f'stroke="{kit.TILE_EDGE}" stroke-width="1"/>'
            f'<rect x="2" y="2" width="{_n(w - 4)}" height="{_n(h / 2 - 3)}" rx="2" '
            f'fill="{kit.COLOUR_VALUES[a]}" fill-opacity="0.22"/>'
            f'<rect x="2" y="{_n(h / 2 + 1)}" width="{_n(w - 4)}" height="{_n(h / 2 - 3)}" '
            f'rx="2" fill="{kit.COLOUR_VALUES[b]}" fill-opacity="0.22"/>'
            f"{_shape(a, w / 2, h / 4 + 0.5, 7)}{_shape(b, w / 2, 3 * h / 4 - 0.5, 7)}</g>"
        )
    return "".join(parts)


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
        out.append(kit._turn_arrow(8 * scale, y0 + 4 * scale, p, shown, scale))
    return out


def _cards_panel(game: CardGame, player: int, scale: float) -> str:
    """What changes in a player's block: the markers, the last column they may reach (RULES
    §5.4, ``_marker_label``), the display and the hand."""
    from ..cards.notation import limit_of

    y0 = (34 + player * _BLOCK_H) * scale
    bx = (8 + 30) * scale
    by = y0 + 30 * scale
    markers = [int(v) for v in game.scores[player]]
    limit = limit_of(markers)
    place = kit._ordinal(int(game.ranks()[player])) if game.is_over else None
    who, what = _marker_label(player, markers, place).split(": ", 1)
    out = [
        f'<text class="label" x="{_n(20 * scale)}" y="{_n(y0 + 13 * scale)}" '
        f'font-size="{_n(11 * scale)}"><tspan font-weight="bold">{escape(who)}:</tspan> '
        f"{escape(what)}</text>"
    ]
    for c, v in enumerate(markers):
        y = by + 12 * c * scale
        if v:
            out.append(
                f'<rect class="marker-trail" data-colour="{COLOURS[c]}" x="{_n(bx)}" '
                f'y="{_n(y + 2 * scale)}" width="{_n(v * _CELL * scale)}" height="{_n(8 * scale)}" '
                f'fill="{kit.COLOUR_VALUES[c]}" fill-opacity="0.35"/>'
            )
        out.append(_shape(c, bx + (v + 0.5) * _CELL * scale, y + 6 * scale, 5.2 * scale))
    lx = bx + (limit + 1) * _CELL * scale
    out.append(
        f'<line class="limit" x1="{_n(lx)}" y1="{_n(by - 1 * scale)}" x2="{_n(lx)}" '
        f'y2="{_n(by + 73 * scale)}" stroke="{kit.LAST_MOVE}" stroke-width="{_n(2 * scale)}" '
        f'stroke-dasharray="4 2"><title>markers can advance up to column {limit}</title></line>'
    )
    dx = bx + 11 * _CELL * scale + 26 * scale
    out.append(_text(dx, by - 3 * scale, "display", 9 * scale, ' fill="#6b6254"'))
    for i, card in enumerate(game.display(player)):
        out.append(kit._placed("card", card, dx + i * 28 * scale, by + 4 * scale, scale, "display"))
    hx = dx + (_display_slots(game.players) * 28 + 16) * scale
    hand = game.hand(player)
    out.append(_text(hx, by - 3 * scale, f"hand ({len(hand)})", 9 * scale, ' fill="#6b6254"'))
    for i, card in enumerate(hand):
        out.append(kit._placed("card", card, hx + i * 28 * scale, by + 4 * scale, scale, "hand"))
    return "".join(out)


def _marker_label(player: int, markers: list[int], place: str | None = None) -> str:
    """The heading of a player's block: the lowest marker and, by it, the last column any
    marker may advance to (RULES §5.4: 3 while a marker is at 0, 6 while the lowest is at 1
    to 3, else 10), with the final ``place`` once the game is over.

    >>> _marker_label(0, [0, 2, 1, 3, 0, 1])
    'player 0: lowest marker 0; markers can advance up to column 3'
    >>> _marker_label(2, [5, 7, 9, 4, 6, 8], "1st")
    'player 2 (1st): lowest marker 4; markers can advance up to column 10'
    """
    from ..cards.notation import limit_of

    who = f"player {player}" + (f" ({place})" if place else "")
    reach = limit_of(markers)
    return f"{who}: lowest marker {min(markers)}; markers can advance up to column {reach}"


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
    return kit._document(
        width, height, _cards_title(game), [*static, *panels, status], _card_defs()
    )


def replay_picture(final: CardGame) -> kit.ReplayPicture:
    """The parts of the replay page's picture (``genial.render.html.replay_html``), from the
    game at the end of its record."""
    width, height = _cards_layout(final.players, 1.0)
    return kit.ReplayPicture(
        width=width,
        height=height,
        title=f"genial card game, rules {final.rules}",
        static="".join(_cards_static(final, 1.0, replay=True)),
        defs=_card_defs(),
        panel=lambda game, p: _cards_panel(game, p, 1.0),
        status=_cards_status,
        noun="card game",
        owed=lambda game: int(game.bonus_turns),
    )
