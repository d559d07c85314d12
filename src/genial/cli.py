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

from .game import Game

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
    game = Game(players=args.players, seed=args.seed)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="genial", description="Simulate Reiner Knizia's Ingenious (Einfach Genial)."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    play = sub.add_parser("play", help="play and print one game between built-in policies")
    play.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
