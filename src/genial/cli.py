"""The ``genial`` command line. It only calls the library.

>>> main(["play", "--players", "2", "--seed", "1", "--quiet"])  # doctest: +ELLIPSIS
       r ...
game over after ... turns; ranks [...]
0
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ._version import __version__
from .game import Game
from .rules import Rules

POLICIES = ("random", "greedy")


def _play(args: argparse.Namespace) -> int:
    policies = args.policy or ["greedy"]
    if len(policies) == 1:
        policies = policies * args.players
    if len(policies) != args.players:
        raise SystemExit(
            f"genial play: give one --policy, or one per player ({args.players}), "
            f"not {len(policies)}"
        )
    game = Game(rules=_rules(args), seed=args.seed)
    while not game.is_over:
        player, turn = game.current_player, game.turn
        move = game.choose(policies[player])
        gains = game.gains(move) if move.kind == "place" else None
        game.play(move)
        if not args.quiet:
            extra = f"  +{gains[0]}/+{gains[1]}" if gains else ""
            print(f"turn {turn:>3}  player {player} ({policies[player]}): {move}{extra}")
    print(game)
    if args.record:
        with open(args.record, "w", encoding="utf-8") as fh:
            json.dump(game.to_record(), fh)
        print(f"record written to {args.record}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    from .batch import simulate

    runs = simulate(
        args.games,
        rules=_rules(args),
        policy=_policy(args, "random"),
        seed=args.seed,
        workers=args.workers,
        progress=not args.no_progress,
        epsilon=args.epsilon,
    )
    print(runs.summary())
    if args.out:
        runs.to_parquet(args.out)
        print(f"{len(runs):,} games written to {args.out} (one row per game and seat)")
    return 0


def _openings(args: argparse.Namespace) -> int:
    from .openings import analyse

    result = analyse(
        rules=_rules(args),
        games_per_opening=args.games_per_opening,
        policy=_policy(args, "greedy"),
        seed=args.seed,
        workers=args.workers,
        reply_to=args.reply_to,
        progress=not args.no_progress,
        epsilon=args.epsilon,
    )
    print(result.summary(rows=args.rows))
    if args.out:
        if str(args.out).endswith(".csv"):
            result.to_csv(args.out)
        else:
            result.to_parquet(args.out)
        print(f"{len(result.table)} opening classes written to {args.out}")
    if args.plot:
        result.plot(args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _policy(args: argparse.Namespace, default: str) -> str | list[str]:
    """One policy for every seat, or the list given once per seat."""
    policies: list[str] = args.policy or [default]
    return policies[0] if len(policies) == 1 else policies


def _add_rules(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players", type=int, choices=(1, 2, 3, 4), default=2, help="1 plays the solo game"
    )
    parser.add_argument("--teams", action="store_true", help="4 players in two teams")
    parser.add_argument("--tournament", action="store_true", help="tournament rules (2 players)")
    parser.add_argument(
        "--tiles", choices=("standard", "travel"), default="standard", help="tile set"
    )


def _rules(args: argparse.Namespace) -> Rules:
    return Rules(args.players, teams=args.teams, tournament=args.tournament, tiles=args.tiles)


def _policy_name(text: str) -> str:
    base = text.partition(":")[0]
    if base not in ("random", "greedy", "epsilon-greedy"):
        raise argparse.ArgumentTypeError(
            f"unknown policy {text!r}: random, greedy, epsilon-greedy or epsilon-greedy:EPS"
        )
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genial", description="Simulate Reiner Knizia's Ingenious (Einfach Genial)."
    )
    parser.add_argument("--version", action="version", version=f"genial {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play and print one game between built-in policies")
    _add_rules(play)
    play.add_argument("--seed", type=int, default=None, help="numpy seed (default: fresh entropy)")
    play.add_argument(
        "--policy",
        action="append",
        choices=POLICIES,
        help="policy of every seat, or give it once per seat in order (default: greedy)",
    )
    play.add_argument("--quiet", action="store_true", help="print only the final position")
    play.add_argument("--record", metavar="PATH", help="write the game record (JSON) here")
    play.set_defaults(func=_play)

    sim = sub.add_parser(
        "simulate", help="play many games in the compiled kernel and summarise them"
    )
    _add_rules(sim)
    sim.add_argument("--games", type=int, default=100_000, help="games to play (default 100000)")
    sim.add_argument(
        "--policy",
        action="append",
        type=_policy_name,
        metavar="POLICY",
        help="random, greedy, epsilon-greedy[:EPS]; once for every seat or once per seat",
    )
    sim.add_argument("--epsilon", type=float, default=0.1, help="epsilon-greedy's default 0.1")
    sim.add_argument("--workers", type=int, default=1, help="threads; -1 for all cores")
    sim.add_argument("--seed", type=int, default=None, help="numpy seed (default: fresh entropy)")
    sim.add_argument("--out", metavar="PATH", help="write the games as Parquet (genial[parquet])")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(func=_simulate)

    op = sub.add_parser(
        "openings", help="win rates of every class of first placements, with intervals"
    )
    _add_rules(op)
    op.add_argument("--games-per-opening", type=int, default=1000, metavar="N")
    op.add_argument(
        "--policy",
        action="append",
        type=_policy_name,
        metavar="POLICY",
        help="policy of the playouts (default greedy); once, or once per seat",
    )
    op.add_argument("--epsilon", type=float, default=0.1)
    op.add_argument("--workers", type=int, default=-1, help="threads; -1 (default) all cores")
    op.add_argument("--seed", type=int, default=None)
    op.add_argument("--reply-to", metavar="MOVE", help="analyse the replies to this opening")
    op.add_argument("--rows", type=int, default=10, help="best and worst rows to print")
    op.add_argument("--out", metavar="PATH", help="write the table (.parquet, or .csv)")
    op.add_argument("--plot", metavar="PATH", help="write the heatmap and ranked chart (PNG)")
    op.add_argument("--no-progress", action="store_true", help="no progress bar")
    op.set_defaults(func=_openings)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, ImportError) as exc:
        parser.exit(2, f"genial {args.command}: error: {exc}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
