"""The card kernel's games pinned bit for bit (issue 19): digests of whole runs' result rows and
logs, recorded before the kernel was made faster. A change of the rules' arithmetic, of the
order or bounds of the random draws, or of the greedy's tie order changes a digest; a change of
speed does not. (Regenerate only for an intended change of the games, and say so.)"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import genial

# (rules, policy): the first 20 hex digits of the sha256 of the rows then the logs of 300 games,
# seed 1 ("c3:40": three players, a turn cap of 40, so that games are truncated)
GOLDEN: dict[tuple[int | str, str], str] = {
    (2, "random"): "9f32b9f318f2769b09b3",
    (2, "greedy"): "b872fd7e90d8cbf320a0",
    (2, "epsilon-greedy"): "d62c570ece289e3d653f",
    (2, "epsilon-greedy:0.5"): "7c56bbf7df925cda2fc7",
    (3, "random"): "cc67b893397481041586",
    (3, "greedy"): "5e53f76993b4a54eee65",
    (3, "epsilon-greedy"): "199c81d5f551135ca366",
    (3, "epsilon-greedy:0.5"): "5d45e9daf26d5e114a9b",
    (4, "random"): "1e5a291188c104b44200",
    (4, "greedy"): "e687f2386b41af883fb8",
    (4, "epsilon-greedy"): "cabd14a57fc5b7e8b98e",
    (4, "epsilon-greedy:0.5"): "52331c6be22169d6a4e3",
    ("c3:40", "random"): "30c547d753ce7f51f316",
    ("c3:40", "greedy"): "1a4e47a4dab2a1c3f78d",
    ("c3:40", "epsilon-greedy"): "6d7faebf18fc916bde14",
    ("c3:40", "epsilon-greedy:0.5"): "a3e663218f09528b568a",
}


def digest(rules: int | str, policy: str) -> str:
    runs = genial.simulate(300, rules, game="cards", policy=policy, seed=1, workers=1, records=True)
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(runs.rows).tobytes())
    h.update(np.ascontiguousarray(runs.logs).tobytes())
    return h.hexdigest()[:20]


@pytest.mark.parametrize("key", list(GOLDEN), ids=lambda key: f"{key[0]}-{key[1]}")
def test_runs_match_their_golden_digest(key: tuple[int | str, str]) -> None:
    assert digest(*key) == GOLDEN[key]
