"""genial's own search against OpenSpiel's ISMCTSBot (docs/openspiel.md, "Strength").

Two-player board games through ``open_spiel.python.algorithms.evaluate_bots``: genial's
``mcts:N`` and ``mc:N`` (``GenialBot``) against OpenSpiel's Python ``ISMCTSBot`` with random
rollouts, (a) at equal iterations (N simulations each) and (b) at equal time per move (genial
given the iterations that take it as long per move as ISMCTS's N simulations, measured first).
Each deal is played twice with the seats swapped (the same chance seed: the same deal, and the
same draws for as long as play agrees). Prints a markdown table with 95% Wilson intervals.

    python benchmarks/openspiel_strength.py --deals 20 --sims 100 [--part 0/2]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

import genial.integrations.openspiel  # noqa: F401  (registers the games)
from genial.integrations.openspiel import GenialBot
from genial.stats import wilson_interval


class _Timed:
    """Counts a bot's decisions and the seconds it spends on them."""

    def __init__(self) -> None:
        self.moves = 0
        self.seconds = 0.0


class _ISMCTS(ismcts.ISMCTSBot):
    def __init__(self, *args, clock: _Timed, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.clock = clock

    def step(self, state):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        action = super().step(state)
        self.clock.seconds += time.perf_counter() - began
        self.clock.moves += 1
        return action

    def restart_at(self, state):  # type: ignore[no-untyped-def]
        pass

    def inform_action(self, state, player_id, action):  # type: ignore[no-untyped-def]
        pass


class _Genial(GenialBot):
    def __init__(self, policy: str, seed: int, clock: _Timed) -> None:
        super().__init__(policy, seed)
        self.clock = clock

    def step(self, state):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        action = super().step(state)
        self.clock.seconds += time.perf_counter() - began
        self.clock.moves += 1
        return action


def _ismcts(game, sims: int, seed: int, clock: _Timed):  # type: ignore[no-untyped-def]
    rs = np.random.RandomState(seed)
    bot = _ISMCTS(
        game,
        mcts.RandomRolloutEvaluator(1, rs),
        2.0,
        sims,
        random_state=rs,
        allow_inconsistent_action_sets=True,
        clock=clock,
    )
    # OpenSpiel's default resampler's sampler is seeded by the OS; this one replays
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rs.uniform))
    return bot


def match(game, policy: str, sims: int, deals: int, first: int) -> dict:  # type: ignore[no-untyped-def]
    """genial ``policy`` against ISMCTS(``sims``) over ``deals`` deals, both seat orders."""
    wins = ties = games = 0
    ours, theirs = _Timed(), _Timed()
    for d in range(first, first + deals):
        for seat in (0, 1):
            bots = [None, None]
            bots[seat] = _Genial(policy, 10_000 + 2 * d + seat, ours)
            bots[1 - seat] = _ismcts(game, sims, 20_000 + 2 * d + seat, theirs)
            chance = np.random.RandomState(d)  # the same deal for both seat orders
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, chance)
            wins += returns[seat] > 0
            ties += returns[seat] == 0
            games += 1
    return {
        "policy": policy,
        "ismcts_sims": sims,
        "games": games,
        "wins": wins,
        "ties": ties,
        "genial_ms_per_move": 1000 * ours.seconds / max(ours.moves, 1),
        "ismcts_ms_per_move": 1000 * theirs.seconds / max(theirs.moves, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--policies", default="mcts,mc")
    parser.add_argument("--equal-time", type=int, default=0, help="genial's iterations there")
    parser.add_argument("--first", type=int, default=0, help="first deal (to split a run)")
    args = parser.parse_args()
    game = pyspiel.load_game("genial_board", {"players": 2})
    rows = []
    for kind in args.policies.split(","):
        rows.append(match(game, f"{kind}:{args.sims}", args.sims, args.deals, args.first))
        if args.equal_time:
            rows.append(
                match(game, f"{kind}:{args.equal_time}", args.sims, args.deals, args.first)
            )
    for row in rows:
        score = row["wins"] + 0.5 * row["ties"]
        lo, hi = wilson_interval(score, row["games"])
        row["score"] = score / row["games"]
        row["interval"] = [float(lo), float(hi)]
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
