"""Both games as OpenSpiel games: ``genial_board`` and ``genial_cards``.

Needs the extra ``genial-sim[openspiel]`` (``open_spiel``). Importing this module registers both
games with ``pyspiel.register_game``; ``pyspiel.load_game("genial_board", {"players": 3})`` then
works, and so does every OpenSpiel algorithm that takes a sequential imperfect-information game
with explicit chance (``docs/openspiel.md``).

- **Parameters.** ``genial_board``: ``players`` (1 to 4, default 2), ``teams`` and
  ``tournament`` (``False``), ``tiles`` (``"standard"`` or ``"travel"``), as ``genial.Rules``
  takes them; or one ``rules`` token instead (``"4t"`` teams, ``"2T"`` tournament, ``"2v"``
  travel tiles, ``"2Tv"``), which then overrides ``players``.
  ``genial_cards``: ``players`` (2 to 4, default 3) and ``turn_cap`` (RULES §5.7, default 1000).
- **Actions.** The games' own fixed action ids (15,338 and 32; ``docs/rl.md``); bonus plays and
  the swap decision are ordinary decisions of the same player.
- **Chance.** Every tile drawn from the bag (card from the deck, the reshuffle of the discard pile
  included) is a chance node whose outcomes are the item types still in the pile, each with its
  exact probability (its count over the pile's size). The deal is the first chance nodes.
- **Returns** (``ZERO_SUM``): ``(sides ranked below - sides ranked above) / (sides - 1)`` from
  the final ranking (RULES §3.7, §5.7; the team game ranks two sides); solo (``GENERAL_SUM``):
  the lowest counter over the cap.
- **Observations.** ``information_state_string(p)``: every decision and every draw in order, the
  items ``p`` cannot see shown as ``?``; ``observation_string(p)``: the position text with the
  other racks (hands) and the bag (deck, discard pile) hidden; ``observation_tensor(p)``: the
  PettingZoo observation vector (``docs/rl.md`` gives the layout).

>>> import pyspiel
>>> game = pyspiel.load_game("genial_board", {"players": 2})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), round(sum(p for _, p in state.chance_outcomes()), 12)
(True, 1.0)
>>> rng = np.random.default_rng(1)
>>> while state.is_chance_node():
...     actions, probs = zip(*state.chance_outcomes())
...     state.apply_action(int(rng.choice(actions, p=probs)))
>>> state.current_player(), len(state.legal_actions()) > 100
(0, True)
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the extra is installed wherever tests run
    raise ImportError(
        "genial.integrations.openspiel needs open_spiel: pip install 'genial-sim[openspiel]'"
    ) from exc

from ..board.geometry import COLOURS
from ..board.moves import TILES
from ..cards.moves import CARDS
from ..errors import GenialError, IllegalMoveError, RecordError, excerpt, is_int
from ..files import load_json
from ..registry import entry
from ._common import ranking_rewards

__all__ = [
    "BoardGame",
    "CardsGame",
    "GenialBot",
    "GenialGame",
    "GenialState",
    "IllegalActionError",
    "OpenSpielError",
    "StateStringError",
    "load",
]

_ITEMS = {"board": TILES, "cards": CARDS}  # what is drawn, by type id: two colours each
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

STATE_FORMAT = "genial-openspiel-state"
"""The ``format`` field of a state string (``GenialState.serialize``)."""

MAX_STATE_CHARS = 16 << 20
"""The longest state string ``deserialize_state`` reads (a whole card game at the largest
turn cap takes well under a megabyte)."""

_SEED_LIMIT = 2**53  # resample seeds: a sampler's draw in [0, 1] times 2**53


class OpenSpielError(GenialError, pyspiel.SpielError):  # type: ignore[misc]
    """A call of the OpenSpiel wrapper that cannot be done: both genial's error (a
    ``ValueError``) and OpenSpiel's (``pyspiel.SpielError``), so that either ``except`` clause
    catches it. The state it was called on is left exactly as it was."""


class IllegalActionError(IllegalMoveError, OpenSpielError):
    """An action id that is not an int, outside the game's ids, or not legal at this node (a
    decision that is not legal, a chance outcome not in the pile, any action at the end)."""


class StateStringError(RecordError, OpenSpielError):
    """A state string (``game.deserialize_state``, ``pyspiel.deserialize_game_and_state``)
    that is not one ``GenialState.serialize`` wrote for this game, or does not replay."""


class _Spec:
    """What differs between the two games here: the registry name, the parameters and how
    they name the rules, who sees each draw of the deal, and the position text's hidden
    fields (the racks or hands, by index in the text's fields, and the piles)."""

    def __init__(
        self,
        short: str,
        long: str,
        game: str,
        params: dict[str, Any],
        players: tuple[int, int],
        hands: int,
        piles: tuple[int, ...],
    ) -> None:
        self.short, self.long, self.game, self.params = short, long, game, params
        self.min_players, self.max_players = players
        self.hands, self.piles = hands, piles

    def rules(self, params: dict[str, Any]) -> Any:
        found = entry(self.game)
        if self.game == "board":
            token = str(params["rules"])
            variants = {k: params[k] for k in ("teams", "tournament", "tiles")}
            if not token:
                return found.rules_type(int(params["players"]), **variants)
            if variants != {k: self.params[k] for k in variants}:
                raise ValueError("give the variants as one rules token or as parameters, not both")
            return found.rules(token)
        return found.rules_type.of(int(params["players"]), turn_cap=int(params["turn_cap"]))

    def deal_seat(self, rules: Any, i: int) -> int:
        """The seat draw ``i`` of the deal goes to (-1: face up for everyone, the displays)."""
        size = int(getattr(rules, "rack_size", 6))
        return i // size if i < size * rules.players else -1


_SPECS = {
    "genial_board": _Spec(
        "genial_board",
        "Ingenious (Einfach Genial), genial's engine",
        "board",
        {"players": 2, "rules": "", "teams": False, "tournament": False, "tiles": "standard"},
        (1, 4),
        hands=3,
        piles=(4,),
    ),
    "genial_cards": _Spec(
        "genial_cards",
        "Einfach Genial: Das Kartenspiel, genial's engine",
        "cards",
        {"players": 3, "turn_cap": 1000},
        (2, 4),
        hands=2,
        piles=(4, 5),
    ),
}


def _game_type(spec: _Spec, solo: bool = False) -> Any:
    return pyspiel.GameType(
        short_name=spec.short,
        long_name=spec.long,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.GENERAL_SUM if solo else pyspiel.GameType.Utility.ZERO_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(spec.params),
    )


class GenialGame(pyspiel.Game):  # type: ignore[misc]
    """One of genial's games with its rules, as an OpenSpiel game (``pyspiel.load_game``)."""

    def __init__(self, params: dict[str, Any] | None = None, *, spec: str = "genial_board"):
        self._spec = found = _SPECS[spec]
        merged = {**found.params, **(params or {})}
        try:
            self.genial_rules = rules = found.rules(merged)
        except ValueError as exc:
            raise GenialError(f"{spec}: {exc}") from None
        self._entry = entry(found.game)
        self._moves = self._entry.game._move_table  # every move, by action id
        cap = getattr(rules, "turn_cap", None)
        if self._entry.observer is None:  # pragma: no cover - both games have one
            raise GenialError(f"{spec}: the game has no observer")
        self._observer = self._entry.observer(rules, max_turns=cap)
        self._solo = rules.players == 1
        n = int(rules.players)
        size = int(self._observer.action_size)
        items = len(self._entry.game._next_deal_draw(rules, []))
        length = 400 if found.game == "board" else 4 * int(merged.get("turn_cap", 1000)) + 50
        info = pyspiel.GameInfo(
            num_distinct_actions=size,
            max_chance_outcomes=items,
            num_players=n,
            min_utility=0.0 if self._solo else -1.0,
            max_utility=1.0,
            utility_sum=None if self._solo else 0.0,
            max_game_length=length,
        )
        self._items = _ITEMS[found.game]
        super().__init__(_game_type(found, self._solo), info, merged)

    def new_initial_state(self) -> GenialState:
        """The start: before the deal (a chance node)."""
        if getattr(_GUARD, "active", False):
            # OpenSpiel's own reader of a Python state unpickles the string's attributes right
            # after this call: refused (a genial state string is read by deserialize_state)
            raise StateStringError(
                f"{self._spec.short}: not a state string of this game (genial reads its own "
                "format only, never a pickle)"
            )
        return GenialState(self)

    def deserialize_state(self, text: Any) -> GenialState:
        """The state ``text`` (from ``GenialState.serialize``) describes, rebuilt by replaying
        its actions from the start, each checked like any action applied (and each resample
        redone from its seed). ``text`` is read as untrusted data: never unpickled or
        evaluated; anything else raises ``StateStringError`` (a ``GenialError`` and a
        ``pyspiel.SpielError``)."""
        return _read_state(self, text)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _Observer:
        """OpenSpiel's observer: the information state (perfect recall) or the observation."""
        if params:
            raise GenialError(f"observer parameters are not supported, got {excerpt(params)}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _Observer(self, recall)


class _Held:
    """What a state holds (one attribute, copied cheaply by OpenSpiel's clone, which deep-copies
    a state's attributes, and pickled through genial's own record by its serialisation)."""

    __slots__ = ("counts", "deal", "drawn", "game", "log", "owner", "pending", "resamples")

    def __init__(self, owner: GenialGame) -> None:
        self.owner = owner  # the OpenSpiel game (shared by copies)
        self.counts: list[int] | None = None  # the pile of the next draw (chance nodes)
        self.deal: list[int] = []  # the deal's draws so far (before the game exists)
        self.game: Any = None  # the genial game once dealt
        self.pending: int | None = None  # a decision waiting for its draws
        self.drawn: list[int] = []  # the pending decision's draws so far
        self.log: list[tuple[int, int, int]] = []  # (seat, kind 0 decision / 1 draw, value)
        self.resamples: list[tuple[int, int, int]] = []  # (actions before, player, seed)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        other = _Held(self.owner)
        other.counts = self.counts
        other.deal = list(self.deal)
        other.game = None if self.game is None else self.game.copy()
        other.pending = self.pending
        other.drawn = list(self.drawn)
        other.log = list(self.log)
        other.resamples = list(self.resamples)
        return other

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # (OpenSpiel's own serialisation of a Python state, which pickles its attributes: used
        # by its C++ tools such as random_sim_test; a pickle is trusted data)
        record = None if self.game is None else self.game.to_record()
        owner = (self.owner._spec.short, dict(self.owner.get_parameters()))
        args = (owner, self.deal, record, self.pending, self.drawn, self.log, self.resamples)
        return (_unheld, args)


def _unheld(
    owner: Any,
    deal: Any,
    record: Any,
    pending: Any,
    drawn: Any,
    log: Any,
    resamples: Any = (),
) -> _Held:
    from ..registry import replay

    held = _Held(pyspiel.load_game(*owner))
    held.deal = list(deal)
    held.game = None if record is None else replay(record)
    held.pending = pending
    held.drawn = list(drawn)
    held.log = [tuple(e) for e in log]
    held.resamples = [tuple(e) for e in resamples]
    return held


class GenialState(pyspiel.State):  # type: ignore[misc]
    """A state of a ``GenialGame``: a genial game (``game``), or the deal before it, and the
    decision waiting for its draws when a chance node follows a move."""

    def __init__(self, game: GenialGame) -> None:
        super().__init__(game)
        self._held = held = _Held(game)
        held.counts = game._entry.game._next_deal_draw(game.genial_rules, [])

    # -- reading ---------------------------------------------------------------------------------
    @property
    def game(self) -> Any:
        """The genial game (``genial.Game``, ``genial.cards.CardGame``); ``None`` before the deal
        is done. While a move waits for its draws it is the position before that move."""
        return self._held.game

    def current_player(self) -> int:
        held = self._held
        if held.game is None or held.pending is not None:
            return _CHANCE
        if held.game.is_over or self._truncated():
            return _TERMINAL
        return int(held.game.current_player)

    def _truncated(self) -> bool:
        return bool(getattr(self._held.game, "truncated", False))

    def is_terminal(self) -> bool:
        return self.current_player() == _TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        actions: list[int] = self._held.game.legal_actions().tolist()
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        counts = self._chance_counts()
        total = sum(counts)
        return [(t, c / total) for t, c in enumerate(counts) if c]

    def _chance_counts(self) -> list[int]:
        held = self._held
        if held.counts is None:  # a clone: found again
            if held.game is None:
                rules = held.owner.genial_rules
                held.counts = held.owner._entry.game._next_deal_draw(rules, held.deal)
            else:
                held.counts = held.game._next_draw(held.pending, held.drawn)
        assert held.counts is not None
        return held.counts

    # -- moves -----------------------------------------------------------------------------------
    def _checked(self, action: Any) -> int:
        """``action`` as an int that is legal at this node; ``IllegalActionError`` otherwise
        (nothing changed)."""
        if not is_int(action):
            raise IllegalActionError(f"an action must be an int, got {excerpt(action)}")
        a = int(action)
        player = self.current_player()
        if player == _TERMINAL:
            raise IllegalActionError(f"action {excerpt(a)}: the game is over")
        if player == _CHANCE:
            counts = self._chance_counts()
            if not 0 <= a < len(counts) or counts[a] == 0:
                raise IllegalActionError(f"chance outcome {excerpt(a)} is not in the pile")
            return a
        size = len(self._held.owner._moves)
        if not 0 <= a < size:
            raise IllegalActionError(f"action {excerpt(a)} is outside 0..{size - 1}")
        game = self._held.game
        if not game.is_legal(a):
            try:  # the game's own reason, on a copy
                game.copy().play(a)
            except GenialError as exc:
                raise IllegalActionError(str(exc)) from None
            raise IllegalActionError(f"action {a} is not legal here")  # pragma: no cover
        return a

    def apply_action(self, action: Any) -> None:
        """Apply a decision or a chance outcome. Anything that is not an int legal at this node
        (negative, past the game's ids, not legal here, a chance outcome not in the pile, any
        action at the end, a bool, a float, ...) raises ``IllegalActionError`` and changes
        nothing."""
        pyspiel.State.apply_action(self, self._checked(action))

    def apply_action_with_legality_check(self, action: Any) -> None:
        """``apply_action``, which checks legality anyway."""
        self.apply_action(action)

    def child(self, action: Any) -> GenialState:
        """A copy with ``action`` applied (checked as ``apply_action`` checks it)."""
        other: GenialState = pyspiel.State.child(self, self._checked(action))
        return other

    def apply_actions(self, actions: Any) -> None:
        """Refused: the games are sequential (one action at a time)."""
        raise IllegalActionError("apply_actions is for simultaneous games: use apply_action")

    def apply_actions_with_legality_checks(self, actions: Any) -> None:
        """Refused: the games are sequential (one action at a time)."""
        self.apply_actions(actions)

    def _apply_action(self, action: int) -> None:
        held = self._held
        owner = held.owner
        a = self._checked(action)  # (OpenSpiel's C++ calls come here directly)
        if held.game is None:  # the deal
            self._draw(a)
            held.deal.append(a)
            held.log.append((owner._spec.deal_seat(owner.genial_rules, len(held.deal) - 1), 1, a))
            held.counts = owner._entry.game._next_deal_draw(owner.genial_rules, held.deal)
            if held.counts is None:
                held.game = owner._entry.game._dealt(owner.genial_rules, held.deal, 0)
            return
        game = held.game
        if held.pending is None:  # a decision
            held.log.append((game.current_player, 0, a))
            held.counts = game._next_draw(a, [])
            if held.counts is None:
                game._play_drawn(a, [])
            else:
                held.pending, held.drawn = a, []
            return
        self._draw(a)
        held.drawn.append(a)
        held.log.append((game.current_player, 1, a))
        held.counts = game._next_draw(held.pending, held.drawn)
        if held.counts is None:
            game._play_drawn(held.pending, held.drawn)
            held.pending, held.drawn = None, []

    def _draw(self, item: int) -> None:
        counts = self._chance_counts()
        if not 0 <= item < len(counts) or counts[item] == 0:
            raise IllegalMoveError(f"chance outcome {item} is not in the pile")
        self._held.counts = None

    def action_to_string(self, *args: Any) -> str:
        """``action_to_string(player, action)`` or ``action_to_string(action)`` (the player to
        move): genial's move text, or ``draw RB`` for a chance outcome (``player`` -1). Any
        action id of the game may be named, legal here or not; an id outside the game's ids,
        a player that is not a seat or chance, or a non-int raises ``IllegalActionError``."""
        if len(args) == 1:
            return self._action_to_string(self.current_player(), args[0])
        if len(args) == 2:
            return self._action_to_string(args[0], args[1])
        raise IllegalActionError(f"action_to_string takes (player, action), got {len(args)} values")

    def _action_to_string(self, player: Any, action: Any) -> str:
        owner = self._held.owner
        n = int(owner.genial_rules.players)
        if not is_int(player) or not (player == _CHANCE or 0 <= player < n):
            raise IllegalActionError(
                f"player must be -1 (chance) or in 0..{n - 1}, got {excerpt(player)}"
            )
        if not is_int(action):
            raise IllegalActionError(f"an action must be an int, got {excerpt(action)}")
        if player == _CHANCE:
            if not 0 <= action < len(owner._items):
                raise IllegalActionError(
                    f"chance outcome {excerpt(int(action))} is outside 0..{len(owner._items) - 1}"
                )
            return f"draw {self._item_text(int(action))}"
        if not 0 <= action < len(owner._moves):
            raise IllegalActionError(
                f"action {excerpt(int(action))} is outside 0..{len(owner._moves) - 1}"
            )
        return str(owner._moves[int(action)])

    def _item_text(self, item: int) -> str:
        """A tile's or card's text: its two colours' letters (``RB``)."""
        return "".join(COLOURS[c] for c in self._held.owner._items[item])

    # -- the end ---------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        n = self._held.owner.genial_rules.players
        if not self.is_terminal():
            return [0.0] * n
        result: list[float] = self._held.owner._observer.final(self._held.game, ranking_rewards)
        return result

    def resample_from_infostate(self, player: Any, probability_sampler: Any = None) -> Any:
        """A state ``player`` cannot tell from this one: what it cannot see (the other racks or
        hands, the bag, deck and discard pile) dealt again at random (the kernel's redeal), at
        a decision node. ``probability_sampler`` is OpenSpiel's (any callable returning a
        number in [0, 1]); its draw seeds the redeal. A bad player, node, sampler or draw
        raises ``OpenSpielError``; this state is never changed."""
        held = self._held
        if held.game is None or held.pending is not None or self.is_terminal():
            raise OpenSpielError("resample_from_infostate is defined at decision nodes only")
        n = int(held.owner.genial_rules.players)
        if not is_int(player) or not 0 <= player < n:
            raise OpenSpielError(f"player must be in 0..{n - 1}, got {excerpt(player)}")
        if not callable(probability_sampler):
            raise OpenSpielError(
                f"probability_sampler must be callable, got {excerpt(probability_sampler)}"
            )
        u = probability_sampler()
        real = isinstance(u, (int, float, np.integer, np.floating))
        if not real or isinstance(u, (bool, np.bool_)) or not 0 <= u <= 1:  # (NaN fails too)
            raise OpenSpielError(
                f"probability_sampler must return a number in [0, 1], got {excerpt(u)}"
            )
        other = self.clone()
        other._redeal(int(player), int(float(u) * _SEED_LIMIT))
        return other

    def _redeal(self, player: int, seed: int) -> None:
        """Deal again what ``player`` cannot see, from ``seed`` (kept for serialisation)."""
        held = self._held
        held.game = held.game._determinised(player, np.random.PCG64(seed))
        held.counts = None
        held.resamples.append((len(held.log), player, seed))

    # -- serialisation -----------------------------------------------------------------------
    def serialize(self) -> str:
        """The state as compact JSON data (never a pickle): the game's name and parameters,
        every action applied from the start (the history) and each resample (the actions
        before it, the player, the seed). ``game.deserialize_state`` reads it back."""
        held = self._held
        owner = held.owner
        data = {
            "format": STATE_FORMAT,
            "version": 1,
            "game": owner._spec.short,
            "params": dict(owner.get_parameters()),
            "actions": [value for _, _, value in held.log],
            "resamples": [list(r) for r in held.resamples],
        }
        return json.dumps(data, separators=(",", ":"), sort_keys=True)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # pickle (and copy) through the state string, which is read back with every check
        return (_state_from_string, (serialize_game_and_state(self._held.owner, self),))

    def __str__(self) -> str:
        held = self._held
        if held.game is None:
            return f"dealing: {len(held.deal)} drawn"
        text = str(held.game)
        if held.pending is not None:
            move = self._held.owner._moves[held.pending]
            text += f"\n{move} waits for its draws ({len(held.drawn)} drawn)"
        return text

    # -- what a player sees ---------------------------------------------------------------------
    def information(self, player: int) -> str:
        """Everything ``player`` has seen, in order: each decision, and each draw (``?`` for
        the items it cannot see)."""
        out = []
        for seat, kind, value in self._held.log:
            who = "all" if seat < 0 else f"p{seat}"
            if kind == 0:
                out.append(f"{who} {self._action_to_string(seat, value)}")
            elif seat < 0 or seat == player:
                out.append(f"{who} draws {self._item_text(value)}")
            else:
                out.append(f"{who} draws ?")
        return "\n".join(out)

    def view(self, player: int) -> str:
        """The position as ``player`` sees it: the position text with the other racks (hands)
        and the piles hidden (``?`` for each item, ``#n`` for a pile of ``n``)."""
        game = self._held.game
        if game is None:
            return f"dealing ({len(self._held.deal)} drawn)"
        spec = self._held.owner._spec
        fields = game.to_text().split(" ")
        racks = fields[spec.hands].split("/")
        fields[spec.hands] = "/".join(
            r if q == player else "?" * (len(r) // 2) for q, r in enumerate(racks)
        )
        sizes = [game.bag_size] if spec.game == "board" else [game.deck_size, game.discard_size]
        for i, size in zip(spec.piles, sizes, strict=True):
            fields[i] = f"#{size}"
        text = " ".join(fields)
        if self._held.pending is not None:
            text += f" | {self._action_to_string(0, self._held.pending)} drawing"
        return text


class _Observer:
    """OpenSpiel's Python observer of a ``GenialGame``: the string (information state or view)
    and the observation tensor (the PettingZoo layout, ``docs/rl.md``)."""

    def __init__(self, game: GenialGame, recall: bool) -> None:
        self._game = game
        self._recall = recall
        self._watch = game._observer
        size = sum(width for _, width in self._watch.fields)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {}
        start = 0
        for name, width in self._watch.fields:
            self.dict[name] = self.tensor[start : start + width]
            start += width

    def set_from(self, state: GenialState, player: int) -> None:
        game = state.game
        if game is None:
            self.tensor[:] = 0
            return
        self._watch.follow(game)
        self.tensor[:] = self._watch.observation(game, int(player))

    def string_from(self, state: GenialState, player: int) -> str:
        return state.information(player) if self._recall else state.view(player)


class BoardGame(GenialGame):
    """``genial_board``: the board game (RULES §3, §4) as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params, spec="genial_board")


class CardsGame(GenialGame):
    """``genial_cards``: the card game (RULES §5) as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(params, spec="genial_cards")


# -- state strings --------------------------------------------------------------------------
_GUARD = threading.local()  # set while OpenSpiel's own (pickling) reader runs on a string
_STATE_FIELDS = ("actions", "format", "game", "params", "resamples", "version")
_MAX_RESAMPLES = 100_000
_HEADER = "# Automatically generated by OpenSpiel SerializeGameAndState\n[Meta]\nVersion: 1\n\n"


def _read_state(game: GenialGame, text: Any) -> GenialState:
    """``game.deserialize_state(text)``: every field checked, then the actions replayed."""
    where = f"{game._spec.short} state string"
    if not isinstance(text, (str, bytes)):
        raise StateStringError(f"{where}: must be a str, got {excerpt(text)}")
    if len(text) > MAX_STATE_CHARS:
        raise StateStringError(f"{where}: {len(text):,} characters, more than {MAX_STATE_CHARS:,}")
    data = load_json(text, where, StateStringError)
    if not isinstance(data, dict) or sorted(data) != list(_STATE_FIELDS):
        got = sorted(data)[:8] if isinstance(data, dict) else type(data).__name__
        raise StateStringError(
            f"{where}: must be an object with fields {', '.join(_STATE_FIELDS)}, got {excerpt(got)}"
        )
    if data["format"] != STATE_FORMAT:
        raise StateStringError(
            f"{where}: format must be {STATE_FORMAT!r}, got {excerpt(data['format'])}"
        )
    if not is_int(data["version"]) or data["version"] != 1:
        raise StateStringError(f"{where}: version must be 1, got {excerpt(data['version'])}")
    if data["game"] != game._spec.short:
        raise StateStringError(
            f"{where}: game must be {game._spec.short!r}, got {excerpt(data['game'])}"
        )
    mine = dict(game.get_parameters())
    params = data["params"]
    same = isinstance(params, dict) and sorted(params) == sorted(mine)
    if not same or any(type(params[k]) is not type(v) or params[k] != v for k, v in mine.items()):
        raise StateStringError(
            f"{where}: params must be this game's {excerpt(mine, 200)}, got {excerpt(params, 200)}"
        )
    actions = data["actions"]
    most = 8 * int(game.max_game_length()) + 64
    if not isinstance(actions, list) or len(actions) > most:
        raise StateStringError(f"{where}: actions must be a list of at most {most:,} action ids")
    resamples = data["resamples"]
    if not isinstance(resamples, list) or len(resamples) > _MAX_RESAMPLES:
        raise StateStringError(
            f"{where}: resamples must be a list of at most "
            f"{_MAX_RESAMPLES:,} [actions before, player, seed]"
        )
    n = int(game.genial_rules.players)
    last = 0
    for i, r in enumerate(resamples):
        ok = isinstance(r, list) and len(r) == 3 and all(is_int(x) for x in r)
        if not ok or not last <= r[0] <= len(actions) or not 0 <= r[1] < n:
            raise StateStringError(
                f"{where}: resample {i} must be [actions before (in order, at "
                f"most {len(actions)}), player (0..{n - 1}), seed], got "
                f"{excerpt(r)}"
            )
        if not 0 <= r[2] <= _SEED_LIMIT:
            raise StateStringError(
                f"{where}: resample {i}: seed must be in 0..2**53, got {excerpt(r[2])}"
            )
        last = r[0]
    state = GenialState(game)
    pending = iter(resamples)
    upcoming = next(pending, None)
    for i in range(len(actions) + 1):
        while upcoming is not None and upcoming[0] == i:
            if state.current_player() < 0:
                raise StateStringError(
                    f"{where}: a resample after action {i} is not at a decision node"
                )
            state._redeal(upcoming[1], upcoming[2])
            upcoming = next(pending, None)
        if i == len(actions):
            break
        try:
            state.apply_action(actions[i])
        except GenialError as exc:
            raise StateStringError(
                f"{where}: action {i} ({excerpt(actions[i])}) does not replay: {exc}"
            ) from None
    return state


def _sections(text: Any) -> tuple[str, str] | None:
    """The game and state sections of ``pyspiel.serialize_game_and_state``'s text, if it names
    one of genial's games."""
    if not isinstance(text, str):
        return None
    lines = text.split("\n")
    try:
        start = lines.index("[Game]")
        middle = lines.index("[State]", start + 1)
    except ValueError:
        return None
    game_string = "\n".join(lines[start + 1 : middle]).strip()
    if game_string.split("(", 1)[0].strip() not in _SPECS:
        return None
    return game_string, "\n".join(lines[middle + 1 :]).rstrip("\n")


@contextmanager
def _refusing() -> Iterator[None]:
    """While OpenSpiel's own reader runs: it unpickles a Python state's attributes, so any
    genial game it reaches refuses to make the state (``GenialGame.new_initial_state``)."""
    before = getattr(_GUARD, "active", False)
    _GUARD.active = True
    try:
        yield
    finally:
        _GUARD.active = before


_openspiel_serialize = getattr(
    pyspiel.serialize_game_and_state, "openspiel", pyspiel.serialize_game_and_state
)
_openspiel_deserialize = getattr(
    pyspiel.deserialize_game_and_state, "openspiel", pyspiel.deserialize_game_and_state
)


def serialize_game_and_state(game: Any, state: Any) -> str:
    """``pyspiel.serialize_game_and_state``: OpenSpiel's text (the game string, then the state
    string), with a genial state's own data format (``GenialState.serialize``). Other games'
    states go to OpenSpiel's function."""
    if isinstance(state, GenialState):
        owner = state._held.owner
        if not isinstance(game, GenialGame) or game.serialize() != owner.serialize():
            raise OpenSpielError(
                f"the state is a state of {owner.serialize()}, not of {excerpt(str(game), 200)}"
            )
        return f"{_HEADER}[Game]\n{owner.serialize()}\n[State]\n{state.serialize()}\n"
    result: str = _openspiel_serialize(game, state)
    return result


def deserialize_game_and_state(text: Any) -> tuple[Any, Any]:
    """``pyspiel.deserialize_game_and_state``: a text naming one of genial's games is read by
    ``GenialGame.deserialize_state`` (never unpickled: ``StateStringError`` if it is not
    genial's format); other games' texts go to OpenSpiel's function, which refuses to make a
    genial state (it would unpickle it)."""
    found = _sections(text)
    if found is None:
        with _refusing():
            return tuple(_openspiel_deserialize(text))
    game_string, state_string = found
    where = f"state string of {excerpt(game_string, 200)}"
    try:
        game = pyspiel.load_game(game_string)
    except (GenialError, pyspiel.SpielError) as exc:
        why = excerpt(str(exc), 200)
        raise StateStringError(f"{where}: the game does not load ({why})") from None
    if not isinstance(game, GenialGame):  # pragma: no cover - the name is genial's
        raise StateStringError(f"{where}: not one of genial's games")
    return game, game.deserialize_state(state_string)


def _state_from_string(text: str) -> GenialState:
    """A pickled state (``GenialState.__reduce__``), read back as a state string."""
    _, state = deserialize_game_and_state(text)
    assert isinstance(state, GenialState)
    return state


serialize_game_and_state.openspiel = _openspiel_serialize  # type: ignore[attr-defined]
deserialize_game_and_state.openspiel = _openspiel_deserialize  # type: ignore[attr-defined]
pyspiel.serialize_game_and_state = serialize_game_and_state
pyspiel.deserialize_game_and_state = deserialize_game_and_state

pyspiel.register_game(_game_type(_SPECS["genial_board"]), BoardGame)
pyspiel.register_game(_game_type(_SPECS["genial_cards"]), CardsGame)


def load(name: str = "genial_board", **params: Any) -> Any:
    """``pyspiel.load_game(name, params)``: ``load("genial_board", players=3)``."""
    if name not in _SPECS:
        raise GenialError(f"unknown game {excerpt(name)}: one of {', '.join(_SPECS)}")
    return pyspiel.load_game(name, params)


class GenialBot(pyspiel.Bot):  # type: ignore[misc]
    """A genial policy (``'greedy'``, ``'mc:200'``, ``'mcts:500'``, ...) as an OpenSpiel bot,
    drawing from its own stream (``seed``). The search policies never read another seat's rack
    (docs/search.md), so playing on the true state is fair."""

    def __init__(self, policy: str = "greedy", seed: Any = None) -> None:
        pyspiel.Bot.__init__(self)
        self.policy = policy
        self._rng = np.random.PCG64(seed)

    def step(self, state: GenialState) -> int:
        game = state.game
        if game is None or state.is_chance_node():
            raise GenialError("a bot steps at a decision node")
        action: int = game._choose(self.policy, 0.1, self._rng)
        return action

    def restart_at(self, state: Any) -> None:
        """Nothing to forget."""

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to follow."""

    def provides_policy(self) -> bool:
        return False
