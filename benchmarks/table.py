"""Print the README's performance table from a pytest-benchmark JSON file.

python -m pytest benchmarks --benchmark-json bench.json && python benchmarks/table.py bench.json
"""

from __future__ import annotations

import json
import sys


def main(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    machine = data["machine_info"]
    print(
        f"Machine: {machine.get('cpu', {}).get('brand_raw', '?')}, "
        f"{machine.get('cpu', {}).get('count', '?')} cores, Python {machine['python_version']}"
    )
    print()
    print("| engine | rules | policy | workers | games/s | moves/s (placements or plays + swaps) |")
    print("|---|---|---|---|---|---|")
    for bench in data["benchmarks"]:
        info = bench["extra_info"]
        if "games_per_s" not in info:
            continue
        engine = "momaland" if "momaland" in bench["name"] else "genial"
        workers = "all" if info["workers"] == -1 else info["workers"]
        print(
            f"| {engine} | {info['players']} | {info['policy']} | {workers} | "
            f"{info['games_per_s']:,} | {info['moves_per_s']:,} |"
        )
    print()
    print("| operation (2 players, mid-game) | mean |")
    print("|---|---|")
    for bench in data["benchmarks"]:
        if "test_game_ops" in bench["fullname"]:
            mean = bench["stats"]["mean"]
            text = f"{mean * 1e6:,.1f} µs" if mean < 1e-3 else f"{mean * 1e3:,.2f} ms"
            print(f"| {bench['name'].removeprefix('test_')} | {text} |")


if __name__ == "__main__":
    main(sys.argv[1])
