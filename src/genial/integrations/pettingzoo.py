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

from functools import partial
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

from ..board.observer import BOARD_CELLS
from ..errors import GenialError, IllegalMoveError, excerpt
from ..registry import entry
from ..seeds import as_seed_sequence, child_seed
from ._common import ranking_rewards

__all__ = [
    "BOARD_CELLS",
    "BoardEnv",
    "CardEnv",
    "GameEnv",
    "env",
    "ranking_rewards",
    "raw_env",
]


_NOT_RESET = "call reset() first: no game has started"
_EPISODE_OVER = "the episode is over: every agent has been stepped with None; call reset()"


class GameEnv(AECEnv):  # type: ignore[misc]
    """Any registered game as a PettingZoo ``AECEnv``: agents, spaces, seeding, stepping and
    the rewards are the same for every game; how a game starts, what a seat sees and how it
    ends are the game's own (its entry's ``observer``: ``genial.board.observer.BoardObserver``,
    ``genial.cards.observer.CardObserver``). ``players=None`` is the game's default player
    count; ``rules`` and ``max_turns`` are the game's (``BoardEnv``, ``CardEnv``).

    >>> e = GameEnv("cards", 2)
    >>> e.reset(seed=5)
    >>> e.metadata["name"], e.action_space("player_1")
    ('genial_cards_v0', Discrete(32))
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "genial_v0",
        "is_parallelizable": False,
    }
    _game: Any

    def __init__(
        self,
        game: str = "board",
        players: Any = None,
        *,
        rules: Any = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        found = entry(game)
        if found.observer is None:
            raise GenialError(f"the game {found.name!r} has no environment")
        count = found.players if players is None else players
        observer = found.observer(count, rules=rules, max_turns=max_turns)
        super().__init__()
        # the game's own name (a class's metadata is PettingZoo's class variable)
        self.metadata = {**type(self).metadata, "name": observer.name}  # type: ignore[misc]
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise GenialError(
                f"render_mode must be None or one of {modes}, got {excerpt(render_mode)}"
            )
        self._observer = observer
        self._action_size: int = observer.action_size
        self.render_mode = render_mode
        self.rules = rules = observer.rules
        self.max_turns: int | None = observer.max_turns
        n = rules.players
        self.possible_agents: list[str] = [f"player_{i}" for i in range(n)]
        self._seats = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.layout: dict[str, slice] = _slices(observer.fields)
        size = max(s.stop for s in self.layout.values())
        self._size = size
        high = observer.high(self.layout, size)
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
        seed = root if episode == 0 else child_seed(root, episode - 1)
        game = self._observer.start(seed, position)
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
        self._observer.played(game, a)
        over = game.is_over
        truncated = self._observer.truncated(game)
        if over or truncated:
            rewards = self._observer.final(game, ranking_rewards)
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
        return {"observation": self._observer.observation(game, seat), "action_mask": mask}

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


class BoardEnv(GameEnv):
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

    def __init__(
        self,
        players: Any = 2,
        *,
        rules: Any = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            "board", players, rules=rules, max_turns=max_turns, render_mode=render_mode
        )


class CardEnv(GameEnv):
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

    def __init__(
        self,
        players: Any = 3,
        *,
        rules: Any = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__(
            "cards", players, rules=rules, max_turns=max_turns, render_mode=render_mode
        )


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
) -> GameEnv:
    """The bare environment of ``game`` (a registered game's name: ``'board'``, ``'cards'``)
    with these arguments (``players=None``: the game's default, 2 or 3): what the game's entry
    makes (``BoardEnv``, ``CardEnv``), or a ``GameEnv`` of the game."""
    found = entry(game)
    make: Any = found.env or partial(GameEnv, found.name)
    made: GameEnv = make(
        found.players if players is None else players,
        rules=rules,
        max_turns=max_turns,
        render_mode=render_mode,
    )
    return made


class _OrderEnforcing(OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` whose calls raise the environment's own errors:
    ``step``, ``observe``, ``last``, ``render`` and ``agent_iter`` before ``reset()`` a
    ``GenialError`` (PettingZoo's wrapper raises ``AssertionError``, or ``AttributeError`` for
    ``last``), a step after the episode a ``GenialError`` (the wrapper only logs a warning).
    Reading ``agents``, ``rewards`` ... before ``reset()`` is still the wrapper's
    ``AttributeError`` (``hasattr`` relies on it)."""

    env: GameEnv

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
