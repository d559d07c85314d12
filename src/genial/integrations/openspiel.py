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
from ..errors import GenialError, IllegalMoveError, excerpt
from ..registry import entry
from ._common import ranking_rewards

__all__ = ["BoardGame", "CardsGame", "GenialBot", "GenialGame", "GenialState", "load"]

_ITEMS = {"board": TILES, "cards": CARDS}  # what is drawn, by type id: two colours each
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


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
        return GenialState(self)

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

    __slots__ = ("counts", "deal", "drawn", "game", "log", "owner", "pending")

    def __init__(self, owner: GenialGame) -> None:
        self.owner = owner  # the OpenSpiel game (shared by copies)
        self.counts: list[int] | None = None  # the pile of the next draw (chance nodes)
        self.deal: list[int] = []  # the deal's draws so far (before the game exists)
        self.game: Any = None  # the genial game once dealt
        self.pending: int | None = None  # a decision waiting for its draws
        self.drawn: list[int] = []  # the pending decision's draws so far
        self.log: list[tuple[int, int, int]] = []  # (seat, kind 0 decision / 1 draw, value)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        other = _Held(self.owner)
        other.counts = self.counts
        other.deal = list(self.deal)
        other.game = None if self.game is None else self.game.copy()
        other.pending = self.pending
        other.drawn = list(self.drawn)
        other.log = list(self.log)
        return other

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        record = None if self.game is None else self.game.to_record()
        owner = (self.owner._spec.short, dict(self.owner.get_parameters()))
        return (_unheld, (owner, self.deal, record, self.pending, self.drawn, self.log))


def _unheld(owner: Any, deal: Any, record: Any, pending: Any, drawn: Any, log: Any) -> _Held:
    from ..registry import replay

    held = _Held(pyspiel.load_game(*owner))
    held.deal = list(deal)
    held.game = None if record is None else replay(record)
    held.pending = pending
    held.drawn = list(drawn)
    held.log = [tuple(e) for e in log]
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
    def _apply_action(self, action: int) -> None:
        held = self._held
        owner = held.owner
        a = int(action)
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
            if not game.is_legal(a):
                game.play(a)  # raises the game's IllegalMoveError, saying why
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

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"draw {self._item_text(action)}"
        move = self._held.owner._moves[int(action)]
        return str(move)

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

    def resample_from_infostate(self, player: int, probability_sampler: Any = None) -> Any:
        """A state ``player`` cannot tell from this one: what it cannot see (the other racks or
        hands, the bag, deck and discard pile) dealt again at random (the kernel's redeal), at
        a decision node. ``probability_sampler`` is OpenSpiel's; its draws seed the redeal."""
        held = self._held
        if held.game is None or held.pending is not None:
            raise GenialError("resample_from_infostate is defined at decision nodes only")
        u = probability_sampler()
        seed = int(float(u) * 2**53)
        other = self.clone()
        ohold = other._held
        ohold.game = held.game._determinised(int(player), np.random.PCG64(seed))
        other._held.counts = None
        return other

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

