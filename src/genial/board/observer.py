"""What an agent of the board game sees, as the flat int8 vector of the PettingZoo environment
(``genial.integrations.pettingzoo``, ``docs/rl.md``): the board game's part of the environment,
which itself knows no game. Needs numpy only.

>>> watch = BoardObserver(2)
>>> game = watch.start(np.random.SeedSequence(1), None)
>>> watch.observation(game, 0).shape, watch.action_size
((1227,), 15338)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GenialError, excerpt
from .game import Game
from .geometry import BOARD_RADIUS, SYMBOLS, Cell, area
from .moves import ACTION_SIZE, ACTION_SWAP, MOVES, TILES
from .notation import Position
from .rules import Rules

__all__ = ["BOARD_CELLS", "BoardObserver"]

BOARD_CELLS: tuple[Cell, ...] = area(BOARD_RADIUS)
"""The 169 cells of the full board in row-major order: the cell axis of the board planes, the
same for every player count (cells outside the game's area stay 0 in every plane)."""
_CELL_INDEX: dict[Cell, int] = {cell: i for i, cell in enumerate(BOARD_CELLS)}
_N_CELLS = len(BOARD_CELLS)
_BOARD_PLANES = 7  # six colours, then the free cells of the area
_TILE_INDEX = {tile: i for i, tile in enumerate(TILES)}
_PHASES = {"place": 0, "swap": 1, "over": 2}
_MAX_OWED = 12  # bonus plays owed at once: at most one per colour and crossing


class BoardObserver:
    """The board game in an environment: how a game starts (``start``), what a seat sees
    (``observation``, its ``fields`` and their bounds ``high``), when the game is cut short
    (``truncated``) and its rewards (``final``). ``players``, ``rules`` and ``max_turns`` are
    ``BoardEnv``'s."""

    name = "genial_board_v0"
    action_size = ACTION_SIZE

    def __init__(
        self,
        players: int | str | Rules = 2,
        *,
        rules: Rules | str | None = None,
        max_turns: int | None = None,
    ) -> None:
        if max_turns is not None and (
            isinstance(max_turns, bool)
            or not isinstance(max_turns, (int, np.integer))
            or max_turns < 1
        ):
            raise GenialError(f"max_turns must be None or an int >= 1, got {excerpt(max_turns)}")
        self.max_turns = None if max_turns is None else int(max_turns)
        self.rules = game_rules = Rules.of(players, rules=rules)
        # the board planes of the empty board: the printed symbols in their colours' planes,
        # the area's other cells free (a bytearray: a copy is one memcpy, a cell one store)
        empty = bytearray(_BOARD_PLANES * _N_CELLS)
        for cell in area(game_rules.radius):
            empty[6 * _N_CELLS + _CELL_INDEX[cell]] = 1
        for colour, cell in enumerate(SYMBOLS):
            empty[colour * _N_CELLS + _CELL_INDEX[cell]] = 1
            empty[6 * _N_CELLS + _CELL_INDEX[cell]] = 0
        self._empty = bytes(empty)
        self._board = bytearray(self._empty)
        n = game_rules.players
        self.fields: list[tuple[str, int]] = [  # the observation's fields and their widths
            ("board", _BOARD_PLANES * _N_CELLS),
            ("rack", len(TILES)),
            ("rack_sizes", n),
            ("scores", 6 * n),
            ("bag_size", 1),
            ("phase", 3),
            ("bonus_plays", 1),
            ("seat", n),
            ("to_move", n),
        ]

    def high(self, lay: dict[str, slice], size: int) -> npt.NDArray[np.int8]:
        """The observation's upper bounds (``lay``: the fields' slices)."""
        rules = self.rules
        high = np.ones(size, dtype=np.int8)
        high[lay["rack"]] = rules.rack_size
        high[lay["rack_sizes"]] = rules.rack_size
        high[lay["scores"]] = rules.cap
        high[lay["bag_size"]] = rules.tile_total
        high[lay["bonus_plays"]] = _MAX_OWED
        return high

    def start(self, seed: np.random.SeedSequence, position: Any) -> Game:
        """A new game of these rules, or from ``position`` (a text or a ``Position``)."""
        if position is None:
            game = Game(self.rules, seed=seed)
        else:
            pos = Position.parse(position) if isinstance(position, str) else position
            if not isinstance(pos, Position):
                raise GenialError(
                    f"options['position'] must be a position text or a genial.Position, "
                    f"got {excerpt(position)}"
                )
            if pos.rules != self.rules:
                raise GenialError(
                    f"the position is a {pos.rules} game, this environment plays {self.rules}"
                )
            game = Game.from_position(pos, seed=seed)
        self._board = bytearray(self._empty)  # kept up to date by played
        if position is not None:
            for cell, colour in game.board.items():
                self._cover(cell, colour)
        return game

    def _cover(self, cell: Cell, colour: int) -> None:
        i = _CELL_INDEX[cell]
        self._board[colour * _N_CELLS + i] = 1
        self._board[6 * _N_CELLS + i] = 0

    def played(self, game: Game, action: int) -> None:
        """Called after each action the environment plays: the board planes follow it."""
        if action >= ACTION_SWAP:
            return
        move = MOVES[action]
        assert move.cells is not None and move.colours is not None
        for cell, colour in zip(move.cells, move.colours, strict=True):
            self._cover(cell, colour)

    def follow(self, game: Game) -> None:
        """Set the board planes from ``game``'s board (any game of these rules, where
        ``played`` follows one game move by move)."""
        self._board = bytearray(self._empty)
        for cell, colour in game.board.items():
            self._cover(cell, colour)

    def truncated(self, game: Game) -> bool:
        """Whether the game stopped at the turn cap (checked after every action)."""
        return self.max_turns is not None and not game.is_over and game.turn > self.max_turns

    def observation(self, game: Game, seat: int) -> npt.NDArray[np.int8]:
        """What ``seat`` sees (the fields in layout order)."""
        n = self.rules.players
        racks = [game.rack(q) for q in range(n)]
        rack = [0] * len(TILES)
        for tile in racks[seat]:
            rack[_TILE_INDEX[tile]] += 1
        phase = [0, 0, 0]
        phase[_PHASES[game.phase]] = 1
        me = [0] * n
        me[seat] = 1
        to_move = [0] * n
        to_move[game.current_player] = 1
        out = bytearray(self._board)  # the fields in layout order, every value in 0..127
        out += bytes(
            rack
            + [len(r) for r in racks]
            + game.scores.reshape(-1).tolist()
            + [game.bag_size]
            + phase
            + [game.bonus_plays]
            + me
            + to_move
        )
        return np.frombuffer(out, dtype=np.int8)

    def final(self, game: Game, rewards: Any) -> list[float]:
        """The seats' rewards of a finished (or truncated) game; ``rewards(ranks)`` ranks the
        sides (``genial.integrations.pettingzoo.ranking_rewards``)."""
        rules = self.rules
        if rules.counter_sets == 1:  # solo (RULES §4.1): the lowest counter, higher is better
            return [float(game.scores[0].min()) / rules.cap]
        side = rewards(game.ranks()[: rules.counter_sets].tolist())
        return [side[rules.team_of(seat)] for seat in range(rules.players)]
