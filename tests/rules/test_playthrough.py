"""Whole games checked step by step against the rules (RULES §3.2-§3.6).

The hand-computed tests in test_rules*.py pin single positions; here seeded games are played to
the end through the public API and every step is checked against a direct reading of the
rules: the rays of §3.3 counted on game.board, the cap and bonus plays of §3.3-§3.4, the swap
condition of §3.5, the first-round rule of §3.2, the end of §3.6 and the 120 tiles of §2.1.
"""

import random

import pytest

import genial

from . import positions as helpers

h = helpers


def _ray_points(board, players, cell, colour, partner):
    """RULES §3.3: the 5 rays of a half not pointing into its partner."""
    total = 0
    for dq, dr in h.DIRECTIONS:
        n = (cell[0] + dq, cell[1] + dr)
        if n == partner:
            continue
        while h.dist(n) <= h.RADIUS[players] and (
            board.get(n) == colour or h.PRINTED.get(n) == colour
        ):
            total += 1
            n = (n[0] + dq, n[1] + dr)
    return total


def _free_pairs(board, players):
    empty = {c for c in h.area_cells(players) if c not in h.PRINTED and c not in board}
    return sum(1 for c in empty for n in h.neighbours(c) if n in empty) // 2


def _material(g):
    tiles = sum(int(ch) for ch in h.field(g, h.F_BAG)) + sum(
        len(g.rack(p)) for p in range(g.players)
    )
    assert len(g.board) % 2 == 0
    return tiles + len(g.board) // 2


@pytest.mark.parametrize(
    ("players", "seed", "greedy"),
    [
        (2, 1, False),
        (3, 3, False),
        (4, 4, False),
        (2, 11, True),
        (2, 12, True),
        (2, 13, True),
        (3, 14, True),
        (3, 15, True),
        (4, 16, True),
    ],
)
def test_seeded_game_follows_the_rules(players, seed, greedy):
    """RULES §2.1, §3.2-§3.6 on every step of a seeded game with random legal choices."""
    rng = random.Random(seed)
    g = genial.Game(players, seed=seed)
    touched = set()
    steps = 0
    while not g.is_over:
        steps += 1
        assert steps < 1000
        p = g.current_player
        assert _material(g) == 120
        assert g.free_pairs == _free_pairs(g.board, players)
        legal = g.legal_moves()
        if g.phase == "swap":
            assert legal == [genial.Move.swap(), genial.Move.keep()]
            g.play(rng.choice(legal))
            continue
        assert g.phase == "place"
        first = h.field(g, h.F_FIRST)[p] == "-" and g.bonus_plays == 0
        pairs = h.cell_pairs(legal)
        if first:
            for pair in pairs:  # RULES §3.2: touch a symbol nobody touched first
                syms = {n for c in pair for n in h.neighbours(c) if n in h.PRINTED}
                assert syms and not syms & touched
        else:
            assert len(pairs) == g.free_pairs
        board = dict(g.board)
        if greedy and rng.random() < 0.85:
            # mostly greedy, so that counters reach 18 and bonus plays happen
            def value(mv, board=board):
                c0, c1 = (tuple(c) for c in mv.cells)
                return _ray_points(board, players, c0, mv.colours[0], c1) + _ray_points(
                    board, players, c1, mv.colours[1], c0
                )

            m = max(legal, key=lambda mv: (value(mv), rng.random()))
        else:
            m = rng.choice(legal)
        cells = [tuple(c) for c in m.cells]
        cols = list(m.colours)
        expect = [_ray_points(board, players, cells[i], cols[i], cells[1 - i]) for i in (0, 1)]
        assert [int(x) for x in g.gains(m)] == expect
        before = h.scores(g)[p]
        owed = g.bonus_plays
        rack_before = h.rack(g, p)
        g.play(m)
        if first:
            touched |= {n for c in cells for n in h.neighbours(c) if n in h.PRINTED}
        after = h.scores(g)[p]
        want = list(before)
        for c, pts in zip(cols, expect, strict=False):
            want[c] += pts
        want = [min(18, x) for x in want]
        assert after == want  # RULES §3.3 cap
        earned = sum(1 for c in range(6) if before[c] < 18 <= want[c])
        rack_left = list(rack_before)
        rack_left.remove((min(cols), max(cols)))
        if g.is_over:
            assert after == [18] * 6 or _free_pairs(g.board, players) == 0  # RULES §3.6
            break
        assert _free_pairs(g.board, players) > 0 and after != [18] * 6
        if owed + earned - (1 if owed else 0) > 0 and rack_left:
            # RULES §3.4: the same player places again
            assert g.current_player == p and g.phase == "place"
            assert g.bonus_plays == owed - (1 if owed else 0) + earned
            continue
        lowest = min(after)
        swap_ok = bool(rack_left) and not any(
            after[a] == lowest or after[b] == lowest for a, b in rack_left
        )
        if swap_ok:  # RULES §3.5
            assert g.phase == "swap" and g.current_player == p
        else:
            assert g.phase == "place" and g.current_player == (p + 1) % players
            assert g.bonus_plays == 0
            assert len(h.rack(g, p)) == 6 or g.bag_size == 0  # refill (RULES §3.2 d)
    assert g.legal_moves() == []
    assert g.phase == "over"
    ranks = [int(x) for x in g.ranks()]
    vectors = [sorted(row) for row in h.scores(g)]
    for i in range(players):  # RULES §3.7
        if vectors[i] == [18] * 6:
            assert ranks[i] == 0
        else:
            assert ranks[i] == sum(1 for j in range(players) if vectors[j] > vectors[i])
