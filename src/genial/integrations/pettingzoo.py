"""PettingZoo AEC environments for the board game (and its variants) and the card game.

Needs the extra ``genial-sim[rl]`` (pettingzoo and gymnasium). ``env(game, ...)`` gives an
environment wrapped in PettingZoo's ``OrderEnforcingWrapper`` (a subclass whose errors are the
environment's own); ``raw_env`` (or the classes ``BoardEnv`` and ``CardEnv``) the bare
``AECEnv``. ``docs/rl.md`` describes the spaces, the observation layout, the rewards and the
errors: a wrong call raises a ``genial.GenialError``, wrapped or not.

- Agents are ``"player_0"`` ... ``"player_{n-1}"``, seat ``i`` of the game.
- Actions are the game's fixed action ids: ``Discrete(genial.ACTION_SIZE)`` (15,338) for the
  board game, ``Discrete(32)`` for the card game. Bonus plays and the swap decision are ordinary
  steps: the same agent stays selected.
- Observations are ``{"observation": int8 vector, "action_mask": int8 vector}``: what the agent
  can see (never another seat's rack or hand, nor the bag's or the deck's contents) and the
  legal actions (all zeros unless the agent is to move).
- Rewards come once, when the game ends, from its ranking (``ranking_rewards``); every agent is
  then terminated (or truncated at a turn cap) and is stepped with ``None``.

>>> from genial.integrations.pettingzoo import env
>>> e = env("board", players=2)
>>> e.reset(seed=1)
>>> e.agent_selection
'player_0'
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, obs["observation"].dtype, int(obs["action_mask"].sum())
((1227,), dtype('int8'), 540)
>>> while e.agents:
...     obs, reward, terminated, truncated, info = e.last()
...     agent = e.agent_selection
...     action = None if terminated or truncated else e.action_space(agent).sample(
...         obs["action_mask"])
...     e.step(action)
>>> rewards = e.unwrapped.final_rewards     # +1 / -1, or 0 / 0 for a shared first place
>>> sum(rewards), max(rewards) in (1.0, 0.0)
(0.0, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv  # type: ignore[import-untyped]
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper  # type: ignore[import-untyped]
    from pettingzoo.utils.wrappers.order_enforcing import (  # type: ignore[import-untyped]
        AECOrderEnforcingIterable,
    )
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise ImportError(
        "genial.integrations.pettingzoo needs pettingzoo and gymnasium: "
        "pip install 'genial-sim[rl]'"
    ) from exc

from ..board.game import Game
from ..board.geometry import BOARD_RADIUS, SYMBOLS, Cell, area
from ..board.moves import ACTION_SIZE, ACTION_SWAP, MOVES, TILES
from ..board.notation import Position
from ..board.rules import Rules
from ..cards.game import CardGame
from ..cards.moves import ACTION_SIZE as CARD_ACTION_SIZE
from ..cards.moves import CARDS
from ..cards.notation import PHASES as CARD_PHASES
from ..cards.notation import CardPosition
from ..cards.rules import DEFAULT_TURN_CAP, CardRules
from ..errors import GenialError, IllegalMoveError, excerpt
from ..registry import entry
from ..seeds import as_seed_sequence, child_seed

__all__ = ["BOARD_CELLS", "BoardEnv", "CardEnv", "env", "ranking_rewards", "raw_env"]

BOARD_CELLS: tuple[Cell, ...] = area(BOARD_RADIUS)
"""The 169 cells of the full board in row-major order: the cell axis of the board planes, the
same for every player count (cells outside the game's area stay 0 in every plane)."""
_CELL_INDEX: dict[Cell, int] = {cell: i for i, cell in enumerate(BOARD_CELLS)}
_N_CELLS = len(BOARD_CELLS)
_BOARD_PLANES = 7  # six colours, then the free cells of the area
_TILE_INDEX = {tile: i for i, tile in enumerate(TILES)}
_CARD_INDEX = {card: i for i, card in enumerate(CARDS)}
_BOARD_PHASES = {"place": 0, "swap": 1, "over": 2}
_CARD_PHASE_INDEX = {phase: i for i, phase in enumerate(CARD_PHASES)}
_MAX_OWED = 12  # bonus plays or turns owed at once: at most one per colour and crossing


_NOT_RESET = "call reset() first: no game has started"
_EPISODE_OVER = "the episode is over: every agent has been stepped with None; call reset()"


def ranking_rewards(ranks: Sequence[int]) -> list[float]:
    """The rewards of a finished game with ``n >= 2`` sides ranked ``ranks`` (0 = best, ties
    equal): each side gets ``(sides ranked below it - sides ranked above it) / (n - 1)``.

    A sole winner gets +1 and a sole loser -1; tied sides get the same reward; the rewards sum to
    0. Two players: +1 / -1, a tie 0 / 0.

    >>> ranking_rewards([0, 1])
    [1.0, -1.0]
    >>> ranking_rewards([0, 1, 1])        # second place shared
    [1.0, -0.5, -0.5]
    >>> ranking_rewards([1, 0, 2, 3])
    [0.3333333333333333, 1.0, -0.3333333333333333, -1.0]
    """
    r = [int(v) for v in ranks]
    n = len(r)
    if n < 2:
        raise GenialError(f"a ranking reward needs two or more sides, got {n}")
    return [(sum(o > v for o in r) - sum(o < v for o in r)) / (n - 1) for v in r]


class _GenialEnv(AECEnv):  # type: ignore[misc]
    """What both environments share: agents, spaces, seeding, stepping and the rewards. The
    subclasses say how to start a game (``_start``), what a seat sees (``_observation``) and how
    the game ends (``_final``)."""

    metadata: ClassVar[dict[str, Any]]
    _action_size: ClassVar[int]
    _game: Any

    def __init__(self, rules: Any, render_mode: str | None) -> None:
        super().__init__()
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise GenialError(
                f"render_mode must be None or one of {modes}, got {excerpt(render_mode)}"
            )
        self.render_mode = render_mode
        self.rules = rules
        n = rules.players
        self.possible_agents: list[str] = [f"player_{i}" for i in range(n)]
        self._seats = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.layout: dict[str, slice] = self._make_layout()
        size = max(s.stop for s in self.layout.values())
        self._size = size
        high = self._high(size)
        # one space object per agent (seeded apart), each returned as the same object every call
        self.observation_spaces: dict[str, spaces.Dict] = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, high, (size,), np.int8),
                    "action_mask": spaces.Box(0, 1, (self._action_size,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(self._action_size) for agent in self.possible_agents
        }
        self._root: np.random.SeedSequence | None = None
        self._episode = 0
        self._game = None
        self.final_rewards: list[float] | None = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = self.possible_agents[0]

    # -- the subclass's part ---------------------------------------------------------------------
    def _make_layout(self) -> dict[str, slice]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _high(self, size: int) -> npt.NDArray[np.int8]:  # pragma: no cover
        raise NotImplementedError

    def _start(self, seed: np.random.SeedSequence, position: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def _observation(self, seat: int) -> npt.NDArray[np.int8]:  # pragma: no cover
        raise NotImplementedError

    def _played(self, action: int) -> None:
        """Called after each action the environment plays (the board game updates its planes)."""

    def _truncated(self) -> bool:
        """Whether the game stopped at a turn cap (checked after every action)."""
        return False

    def _final(self) -> list[float]:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    # -- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        """The agent's observation space (the same object on every call)."""
        self._seat_of(agent)
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """The agent's action space (the same object on every call)."""
        self._seat_of(agent)
        return self.action_spaces[agent]

    def _seat_of(self, agent: str) -> int:
        seat = self._seats.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise GenialError(
                f"unknown agent {excerpt(agent)}: expected one of {', '.join(self.possible_agents)}"
            )
        return seat

    # -- the episode -----------------------------------------------------------------------------
    def reset(self, seed: Any = None, options: dict[str, Any] | None = None) -> None:
        """Start a game. ``reset(seed=s)`` plays the game ``Game(rules, seed=s)`` (or
        ``CardGame``) would; a reset without a seed starts the next game of a stream derived
        from the last seed (fresh entropy if none was ever given). ``options={"position": p}``
        starts from a position (its text or a ``Position``/``CardPosition`` of these rules; the
        draws that follow come from the seed). Other options are ignored; ``options`` that are
        not a dict (or None) are a ``GenialError``, the environment unchanged."""
        if options is not None and not isinstance(options, dict):
            raise GenialError(f"reset: options must be a dict (or None), got {excerpt(options)}")
        if seed is not None:
            root, episode = as_seed_sequence(seed), 0
        elif self._root is None:
            root, episode = as_seed_sequence(None), 0
        else:
            root, episode = self._root, self._episode
        position = options.get("position") if options is not None else None
        game = self._start(root if episode == 0 else child_seed(root, episode - 1), position)
        if game.is_over:
            raise GenialError("the position is over: an episode needs a game still running")
        self._root, self._episode = root, episode + 1
        self._game = game
        self.final_rewards = None
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None  # AECEnv's bookkeeping of finished agents' steps
        self.agent_selection = self.possible_agents[game.current_player]

    def step(self, action: Any) -> None:
        """Play the selected agent's action (an int id the mask allows); a finished agent is
        stepped with ``None``. An illegal or malformed action (anything but ``None`` for a
        finished agent) raises ``IllegalMoveError`` and changes nothing; a step before
        ``reset()`` or after the episode (no agents left) a ``GenialError``."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            if action is not None:
                done = "terminated" if self.terminations.get(agent) else "truncated"
                raise IllegalMoveError(
                    f"{agent} is {done}: step it with None, not {excerpt(action)}"
                )
            self._was_dead_step(action)
            return
        game = self._require_game()
        if not self.agents:
            raise GenialError(_EPISODE_OVER)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMoveError(
                f"an action is an int id in 0..{self._action_size - 1}, got {excerpt(action)}"
            )
        a = int(action)
        if not 0 <= a < self._action_size:
            raise IllegalMoveError(f"action {a} is outside 0..{self._action_size - 1}")
        game.play(a)
        self._cumulative_rewards[agent] = 0.0
        self._played(a)
        over = game.is_over
        truncated = self._truncated()
        if over or truncated:
            rewards = self._final()
            ranks = game.ranks().tolist()
            self.final_rewards = rewards
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] = rewards[seat]
                self.terminations[name] = not truncated
                self.truncations[name] = truncated
                self.infos[name] = {"rank": int(ranks[seat])}
            self._accumulate_rewards()
        self.agent_selection = self.possible_agents[game.current_player]

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, npt.NDArray[np.int8]] | None, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation (``None`` with ``observe=False``), cumulative
        reward, termination, truncation and info. A ``GenialError`` before ``reset()``, and
        once every agent has been stepped with ``None`` (no agent is selected)."""
        self._require_game()
        agent = self.agent_selection
        if agent not in self._cumulative_rewards:
            raise GenialError(_EPISODE_OVER)
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """The selected agents, one per step, until none is left (``GenialError`` before
        ``reset()``: it would yield nothing)."""
        self._require_game()
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, npt.NDArray[np.int8]]:
        """What ``agent`` sees now (fresh arrays): ``observation`` (``docs/rl.md`` gives the
        layout, ``self.layout`` the slices) and ``action_mask`` (1 at the legal actions when the
        agent is to move, else all 0)."""
        seat = self._seat_of(agent)
        game = self._require_game()
        if seat == game.current_player and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            mask = self._mask(game)
        else:
            mask = np.zeros(self._action_size, dtype=np.int8)
        return {"observation": self._observation(seat), "action_mask": mask}

    def _mask(self, game: Any) -> npt.NDArray[np.int8]:
        mask: npt.NDArray[np.int8] = game.action_mask().view(np.int8)
        return mask

    # -- the game --------------------------------------------------------------------------------
    @property
    def game(self) -> Any:
        """A copy of the game being played (an independent ``Game`` or ``CardGame``)."""
        return self._require_game().copy()

    def choose(self, policy: str = "greedy", *, epsilon: float = 0.1) -> int:
        """The action id a built-in policy (``'random'``, ``'greedy'``, ``'epsilon-greedy'``)
        would play now, from the game's policy stream (reproducible from the seed)."""
        action: int = self._require_game().choose(policy, epsilon=epsilon).action
        return action

    def _require_game(self) -> Any:
        if self._game is None:
            raise GenialError(_NOT_RESET)
        return self._game

    def render(self) -> str | None:
        """``'human'``: print the game; ``'ansi'``: return its text (``str(game)``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: nothing to render")
            return None
        text = str(self._require_game())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class BoardEnv(_GenialEnv):
    """The board game (RULES §3, §4) as a PettingZoo ``AECEnv``.

    Parameters
    ----------
    players : int, str or Rules
        2, 3 or 4, 1 for solo, or the rules as a token (``"2T"``, ``"4t"``, ``"2v"``) or a
        ``genial.Rules``.
    rules : Rules or str
        The rules instead of ``players``.
    max_turns : int, optional
        Truncate the game once this many turns are done (``None``: every game ends by the rules,
        after at most 81 placements).
    render_mode : ``None``, ``'human'`` or ``'ansi'``

    >>> e = BoardEnv("4t")
    >>> e.reset(seed=3)
    >>> e.possible_agents, e.action_space("player_0")
    (['player_0', 'player_1', 'player_2', 'player_3'], Discrete(15338))
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "genial_board_v0",
        "is_parallelizable": False,
    }
    _action_size = ACTION_SIZE
    _game: Game | None

    def __init__(
        self,
        players: int | str | Rules = 2,
        *,
        rules: Rules | str | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        if max_turns is not None and (
            isinstance(max_turns, bool)
            or not isinstance(max_turns, (int, np.integer))
            or max_turns < 1
        ):
            raise GenialError(f"max_turns must be None or an int >= 1, got {excerpt(max_turns)}")
        self.max_turns = None if max_turns is None else int(max_turns)
        game_rules = Rules.of(players, rules=rules)
        super().__init__(game_rules, render_mode)
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

    def _make_layout(self) -> dict[str, slice]:
        n = self.rules.players
        fields = [
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
        return _slices(fields)

    def _high(self, size: int) -> npt.NDArray[np.int8]:
        rules = self.rules
        high = np.ones(size, dtype=np.int8)
        lay = self.layout
        high[lay["rack"]] = rules.rack_size
        high[lay["rack_sizes"]] = rules.rack_size
        high[lay["scores"]] = rules.cap
        high[lay["bag_size"]] = rules.tile_total
        high[lay["bonus_plays"]] = _MAX_OWED
        return high

    def _start(self, seed: np.random.SeedSequence, position: Any) -> Game:
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
        self._board = bytearray(self._empty)  # kept up to date by _played
        if position is not None:
            for cell, colour in game.board.items():
                self._cover(cell, colour)
        return game

    def _cover(self, cell: Cell, colour: int) -> None:
        i = _CELL_INDEX[cell]
        self._board[colour * _N_CELLS + i] = 1
        self._board[6 * _N_CELLS + i] = 0

    def _played(self, action: int) -> None:
        if action >= ACTION_SWAP:
            return
        move = MOVES[action]
        assert move.cells is not None and move.colours is not None
        for cell, colour in zip(move.cells, move.colours, strict=True):
            self._cover(cell, colour)

    def _truncated(self) -> bool:
        game = self._game
        return (
            self.max_turns is not None
            and game is not None
            and not game.is_over
            and game.turn > self.max_turns
        )

    def _observation(self, seat: int) -> npt.NDArray[np.int8]:
        game = self._game
        assert game is not None
        n = self.rules.players
        racks = [game.rack(q) for q in range(n)]
        rack = [0] * len(TILES)
        for tile in racks[seat]:
            rack[_TILE_INDEX[tile]] += 1
        phase = [0, 0, 0]
        phase[_BOARD_PHASES[game.phase]] = 1
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

    def _final(self) -> list[float]:
        game = self._game
        assert game is not None
        rules = self.rules
        if rules.counter_sets == 1:  # solo (RULES §4.1): the lowest counter, higher is better
            return [float(game.scores[0].min()) / rules.cap]
        side = ranking_rewards(game.ranks()[: rules.counter_sets].tolist())
        return [side[rules.team_of(seat)] for seat in range(rules.players)]


class CardEnv(_GenialEnv):
    """The card game (RULES §5) as a PettingZoo ``AECEnv``.

    Parameters
    ----------
    players : int, str or CardRules
        2, 3 or 4, or the rules as a token (``"c3"``, ``"c2:50"``) or a ``CardRules``.
    rules : CardRules or str
        The rules instead of ``players``.
    max_turns : int, optional
        The turn cap (RULES §5.7 Decision; default 1,000): a game stopped there is truncated.
    render_mode : ``None``, ``'human'`` or ``'ansi'``

    >>> e = CardEnv(3)
    >>> e.reset(seed=1)
    >>> obs = e.observe("player_0")
    >>> obs["observation"][e.layout["hand"]].tolist()   # RG RB GY GY BY OP (CardGame(3, seed=1))
    [1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 1, 0]
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "genial_cards_v0",
        "is_parallelizable": False,
    }
    _action_size = CARD_ACTION_SIZE
    _game: CardGame | None

    def __init__(
        self,
        players: int | str | CardRules = 3,
        *,
        rules: CardRules | str | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        cap = DEFAULT_TURN_CAP if max_turns is None else max_turns
        game_rules = CardRules.of(players, turn_cap=cap, rules=rules)
        self.max_turns = game_rules.turn_cap
        # display slots per seat: one more than the display, for the winning card (RULES §5.7)
        self._slots = game_rules.display_size + 1
        super().__init__(game_rules, render_mode)

    def _make_layout(self) -> dict[str, slice]:
        n = self.rules.players
        fields = [
            ("hand", len(CARDS)),
            ("hand_sizes", n),
            ("displays", n * self._slots * len(CARDS)),
            ("markers", 6 * n),
            ("deck_size", 1),
            ("discard_size", 1),
            ("phase", 3),
            ("bonus_turns", 1),
            ("seat", n),
            ("to_move", n),
        ]
        return _slices(fields)

    def _high(self, size: int) -> npt.NDArray[np.int8]:
        high = np.ones(size, dtype=np.int8)
        lay = self.layout
        total = 4 * len(CARDS)  # 60 cards (RULES §5.1)
        high[lay["hand"]] = 6
        high[lay["hand_sizes"]] = 6
        high[lay["markers"]] = self.rules.cap
        high[lay["deck_size"]] = total
        high[lay["discard_size"]] = total
        high[lay["bonus_turns"]] = _MAX_OWED
        return high

    def _start(self, seed: np.random.SeedSequence, position: Any) -> CardGame:
        if position is None:
            return CardGame(rules=self.rules, seed=seed)
        pos = CardPosition.parse(position) if isinstance(position, str) else position
        if not isinstance(pos, CardPosition):
            raise GenialError(
                f"options['position'] must be a position text or a genial.cards.CardPosition, "
                f"got {excerpt(position)}"
            )
        if pos.rules != self.rules:
            raise GenialError(
                f"the position is a {pos.rules} game, this environment plays {self.rules}"
            )
        return CardGame.from_position(pos, seed=seed)

    def _truncated(self) -> bool:
        game = self._game
        return game is not None and game.truncated

    def _observation(self, seat: int) -> npt.NDArray[np.int8]:
        game = self._game
        assert game is not None
        n = self.rules.players
        k = len(CARDS)
        slots = self._slots
        hands = [game.hand(q) for q in range(n)]
        hand = [0] * k
        for card in hands[seat]:
            hand[_CARD_INDEX[card]] += 1
        displays = [0] * (n * slots * k)
        for q in range(n):
            for j, card in enumerate(game.display(q)):
                displays[(q * slots + j) * k + _CARD_INDEX[card]] = 1
        phase = [0, 0, 0]
        phase[_CARD_PHASE_INDEX[game.phase]] = 1
        me = [0] * n
        me[seat] = 1
        to_move = [0] * n
        to_move[game.current_player] = 1
        out = bytearray(  # the fields in layout order, every value in 0..127
            hand
            + [len(h) for h in hands]
            + displays
            + game.scores.reshape(-1).tolist()
            + [game.deck_size, game.discard_size]
            + phase
            + [game.bonus_turns]
            + me
            + to_move
        )
        return np.frombuffer(out, dtype=np.int8)

    def _final(self) -> list[float]:
        game = self._game
        assert game is not None
        return ranking_rewards(game.ranks().tolist())


def _slices(fields: list[tuple[str, int]]) -> dict[str, slice]:
    out = {}
    start = 0
    for name, width in fields:
        out[name] = slice(start, start + width)
        start += width
    return out


def raw_env(
    game: str = "board",
    players: Any = None,
    *,
    rules: Any = None,
    max_turns: int | None = None,
    render_mode: str | None = None,
) -> BoardEnv | CardEnv:
    """The bare environment of ``game`` (``'board'`` or ``'cards'``): ``BoardEnv`` or
    ``CardEnv`` with these arguments (``players=None``: the game's default, 2 or 3)."""
    name = entry(game).name
    if name == "board":
        return BoardEnv(
            2 if players is None else players,
            rules=rules,
            max_turns=max_turns,
            render_mode=render_mode,
        )
    return CardEnv(
        3 if players is None else players, rules=rules, max_turns=max_turns, render_mode=render_mode
    )


class _OrderEnforcing(OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` whose calls raise the environment's own errors:
    ``step``, ``observe``, ``last``, ``render`` and ``agent_iter`` before ``reset()`` a
    ``GenialError`` (PettingZoo's wrapper raises ``AssertionError``, or ``AttributeError`` for
    ``last``), a step after the episode a ``GenialError`` (the wrapper only logs a warning).
    Reading ``agents``, ``rewards`` ... before ``reset()`` is still the wrapper's
    ``AttributeError`` (``hasattr`` relies on it)."""

    env: _GenialEnv

    def step(self, action: Any) -> None:
        self._has_updated = True
        self.env.step(action)

    def observe(self, agent: str) -> dict[str, npt.NDArray[np.int8]]:
        return self.env.observe(agent)

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, npt.NDArray[np.int8]] | None, float, bool, bool, dict[str, Any]]:
        return self.env.last(observe)

    def render(self) -> str | None:
        return self.env.render()

    def state(self) -> Any:
        return self.env.state()  # PettingZoo's NotImplementedError: no global state

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        self.env._require_game()
        return AECOrderEnforcingIterable(self, max_iter)

    def __str__(self) -> str:
        return str(self.env)


def env(
    game: str = "board",
    players: Any = None,
    *,
    rules: Any = None,
    max_turns: int | None = None,
    render_mode: str | None = None,
) -> Any:
    """``raw_env(...)`` inside PettingZoo's ``OrderEnforcingWrapper`` (a subclass: a step, an
    observation, ``last()`` or ``agent_iter()`` before ``reset()`` raises the environment's
    ``GenialError``, as does a step after the episode; ``docs/rl.md``, "Errors").

    >>> e = env("cards", players=2)
    >>> e.reset(seed=5)
    >>> e.observation_space("player_0")["action_mask"].shape
    (32,)
    """
    return _OrderEnforcing(
        raw_env(game, players, rules=rules, max_turns=max_turns, render_mode=render_mode)
    )
