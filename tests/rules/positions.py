"""Helpers shared by the hand-computed rule tests (tests/rules/).

Nothing here is a test.  The helpers only *write* position texts in the notation of the spec
(``<rules> <board> <scores> <racks> <bag> <to-move> <phase> <bonus> <first-round> <turn>``) and
name a few geometric facts of RULES §1; every expected number lives, with its derivation, in the
test that checks it.
"""

import genial

LETTERS = "RGBOYP"
R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)

# RULES §1.4: the printed symbols, at distance 5, for every player count.
PRINTED = {(0, -5): R, (5, -5): G, (5, 0): B, (0, 5): O, (-5, 5): Y, (-5, 0): P}
# RULES §1.3: area radius per player count (RULES §4.1: the solo game uses the 2-player area).
RADIUS = {1: 5, 2: 5, 3: 6, 4: 7}
# RULES §1.2: E, NE, NW, W, SW, SE.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
# spec: tile type index order, lexicographic on (lo, hi).
TILE_TYPES = [(a, b) for a in range(6) for b in range(a, 6)]
EMPTY_BAG = "0" * 21
FULL_BAG = "566666566665666566565"

# field indices of the position text
F_RULES, F_BOARD, F_SCORES, F_RACKS, F_BAG, F_TO_MOVE, F_PHASE, F_BONUS, F_FIRST, F_TURN = range(10)


def dist(cell):
    q, r = cell
    return max(abs(q), abs(r), abs(q + r))


def neighbours(cell):
    q, r = cell
    return [(q + dq, r + dr) for dq, dr in DIRECTIONS]


def area_cells(players):
    """Cells of the area in row-major (r, q) order, printed cells included."""
    rad = RADIUS[players]
    return [
        (q, r)
        for r in range(-rad, rad + 1)
        for q in range(max(-rad, -rad - r), min(rad, rad - r) + 1)
    ]


def touches_symbol(cells):
    return any(n in PRINTED for c in cells for n in neighbours(c))


def tile(code):
    """'BR' or 'RB' -> (0, 2)."""
    a, b = (LETTERS.index(ch) for ch in code)
    return (min(a, b), max(a, b))


def tile_code(t):
    return LETTERS[t[0]] + LETTERS[t[1]]


def colour(v):
    return LETTERS.index(v) if isinstance(v, str) else int(v)


def bag_text(bag):
    """None -> empty bag; a 21-digit string as is; a dict {'RG': 3, ...} -> digits."""
    if bag is None:
        return EMPTY_BAG
    if isinstance(bag, str):
        return bag
    counts = [0] * 21
    for code, n in bag.items():
        counts[TILE_TYPES.index(tile(code))] += n
    return "".join(str(n) for n in counts)


def rack_text(codes):
    tiles = sorted(tile(c) for c in codes)
    return "".join(tile_code(t) for t in tiles) or "-"


def position(
    players=2,
    covered=(),
    scores=None,
    racks=None,
    bag=None,
    to_move=0,
    phase=None,
    bonus=0,
    first=None,
    turn=None,
    rules=None,
):
    """Write a position text.

    rules: the first field (README "Variants"), e.g. "1", "2Tv", "4t" or a genial.Rules; its
    leading digit sets the player count (then ``players`` is ignored).  Default: ``players``.

    covered: {(q, r): colour (int or letter)} cells covered by tile halves (no printed cells).
    scores: one 6-list per player (default zeros).  racks: one list of tile codes per player
    (default empty).  first: the first-round field (default: every player has placed).
    phase: default "p", or "x" when every rack is empty (RULES §3.6: such a game is over; the
    scoring tests use these analysis positions, where gains() still answers).
    """
    rules = str(players) if rules is None else str(rules)
    players = int(rules[0])
    covered = {tuple(c): colour(v) for c, v in dict(covered).items()}
    area = area_cells(players)
    assert set(covered) <= set(area), "helper misuse: covered cell outside the area"
    assert not set(covered) & set(PRINTED), "helper misuse: covered printed cell"
    rad = RADIUS[players]
    rows = []
    for r in range(-rad, rad + 1):
        row = ""
        for q in range(max(-rad, -rad - r), min(rad, rad - r) + 1):
            c = (q, r)
            if c in PRINTED:
                row += LETTERS[PRINTED[c]]
            elif c in covered:
                row += LETTERS[covered[c]]
            else:
                row += "-"
        rows.append(row)
    if scores is None:
        scores = [[0] * 6 for _ in range(players)]
    if racks is None:
        racks = [[] for _ in range(players)]
    if phase is None:
        phase = "x" if not any(racks) else "p"
    if first is None:
        first = "RBYG"[:players] if players < 4 else "RBYG"
    if turn is None:
        turn = 2 * players + 1
    fields = [
        rules,
        "/".join(rows),
        "/".join(",".join(str(int(s)) for s in row) for row in scores),
        "/".join(rack_text(r) for r in racks),
        bag_text(bag),
        str(to_move),
        phase,
        str(bonus),
        first,
        str(turn),
    ]
    return " ".join(fields)


def game(**kw):
    """A game at ``position(**kw)``. Rule tests place single halves where a ray needs them, so
    their boards need not pair into tiles (``pair_tiles=False``; every other check applies)."""
    return genial.Game.from_text(position(**kw), pair_tiles=False)


def field(g, index):
    return g.to_text().split(" ")[index]


def mv(text):
    return genial.Move.parse(text)


def half_points(g, text):
    """game.gains of a placement, keyed by cell: {cell: points of the half on that cell}.

    The spec gives gains as (points for move.colours[0], points for move.colours[1]) with the
    move canonicalised, so cells[i] carries colours[i]."""
    m = mv(text)
    pts = g.gains(m)
    return {tuple(m.cells[0]): int(pts[0]), tuple(m.cells[1]): int(pts[1])}


def scores(g):
    return [[int(x) for x in row] for row in g.scores]


def rack(g, p):
    return [tuple(t) for t in g.rack(p)]


def cell_pairs(moves):
    return {frozenset(tuple(c) for c in m.cells) for m in moves if m.kind == "place"}
