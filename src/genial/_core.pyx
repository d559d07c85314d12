# cython: language_level=3
"""The compiled kernel of genial: board tables, game state, rules, policies, search, playouts.

Everything here works on a fixed-size C struct (:c:type:`State`), so that copying a game is a
``memcpy`` and whole games run without the GIL. The Python layer (``genial.game``) is a thin,
checked face of this module; nothing here knows about it.

Geometry (RULES §1.2): axial ``(q, r)``, pointy-top cells. Cells live in a padded 17 x 17 grid,
``index = (r + 8) * 17 + (q + 8)``, so that a neighbour is ``index + OFF[d]`` and a walk always
stops on a WALL cell before leaving the array::

          NW (0,-1)   NE (1,-1)             direction  index  (dq, dr)  offset
               \\       /                      E          0    ( 1, 0)    +1
      W (-1,0) -- cell -- E (1,0)              NE         1    ( 1,-1)   -16
               /       \\                      NW         2    ( 0,-1)   -17
          SW (-1,1)   SE (0,1)                 W          3    (-1, 0)    -1
                                               SW         4    (-1, 1)   +16
                                               SE         5    ( 0, 1)   +17

Scoring (RULES §3.3) uses *potentials*: ``pot[cell][colour]`` is, for an empty cell, the sum of its
six rays of that colour. A half's score equals the potential of its cell on the board before the
placement, and filling one cell only changes the potentials of the empty cells at the two ends of
the runs through it, on its three axes. The potentials are kept up to date by :c:func:`fill`.

The search policies (``mc``, ``mcts``; docs/search.md) play games out from determinisations
(:c:func:`redeal`: the racks the seat to move cannot see are redrawn from the unseen tiles) with
their own generators seeded from the policy stream, on copies of the state.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.math cimport exp, log, sqrt
from libc.stdlib cimport calloc, free, malloc, qsort
from libc.string cimport memcmp, memcpy, memset
from numpy.random cimport bitgen_t

from genial._common cimport (
    BAG_CAP,
    Bag,
    Draws,
    bag_draw,
    bag_fill,
    bag_put,
    bag_sort,
    bag_take,
    bitgen_of,
    common_init,
    ctz64,
    popcount64,
    rand_below,
    rand_unit,
    select64,
)
from genial._checks cimport check_bag, read_policies, small_int
from genial._ranking cimport rank_key

import numpy as np

cimport numpy as cnp

cnp.import_array()

PHASES = ("place", "swap", "over")
ACTION_SIZE = ACT_SIZE
ACTION_SWAP = ACT_SWAP
ACTION_KEEP = ACT_KEEP
N_EDGES = NEDGE
N_TILE_TYPES = NTYPE
MAX_BAG = BAG_CAP
POLICIES = {"random": POL_RANDOM, "greedy": POL_GREEDY, "epsilon-greedy": POL_EPSILON,
            "mc": POL_MC, "mcts": POL_MCTS, "value": POL_VALUE}
N_FEATURES = NFEAT
SEARCH_POLICIES = ("mc", "mcts", "value")   # the policies with parameters (Search)
ROLLOUTS = ("random", "greedy", "value")
MAX_SEARCH_ITERATIONS = MAX_ITERATIONS
MAX_ROLLOUT_DEPTH = MAX_DEPTH_TURNS
MAX_TOP_K = MAXCAND
ILLEGAL = {
    ILLEGAL_OVER: "over",
    ILLEGAL_DECIDE_SWAP: "decide-swap",
    ILLEGAL_NOT_DECISION: "not-decision",
    ILLEGAL_RANGE: "range",
    ILLEGAL_OUTSIDE: "outside",
    ILLEGAL_COVERED: "covered",
    ILLEGAL_NO_TILE: "no-tile",
    ILLEGAL_FIRST_ROUND: "first-round",
}

# ---------------------------------------------------------------------------------------------
# tables, built once at import

cdef int OFF[6]
OFF[:] = [1, -16, -17, -1, 16, 17]

cdef uint8_t DIST[NCELL]            # distance from the centre, 255 off the board
cdef int16_t EDGE_A[NEDGE]          # the edge's first cell (row-major order)
cdef int16_t EDGE_B[NEDGE]
cdef int16_t EDGE_DIR[NEDGE]        # direction from A to B
cdef int16_t AREA_EDGES[8][NEDGE]   # the edges inside the area of each radius (5, 6, 7)
cdef int16_t N_AREA_EDGES[8]
cdef int16_t AREA_CELLS[8][NCELL]   # the cells of the area of each radius a tile may cover
cdef int16_t N_AREA_CELLS[8]
cdef uint8_t CELL_WORD[NCELL]       # a cell's edges lie in free_bits words CELL_WORD, CELL_WORD+1
cdef uint64_t CELL_MASK[NCELL][2]   # ... with these bits
cdef int16_t EDGE_SYMBOL[NEDGE]     # the symbol the edge touches, -1 if none
cdef int16_t SYMBOL_EDGES[NCOL][24] # edges touching each symbol (24 each)
cdef int16_t N_SYMBOL_EDGES[NCOL]
cdef uint64_t SYMBOL_BITS[NCOL][NWORDS]  # the same edges as a free_bits mask
cdef uint8_t TOUCHES[NCELL]         # symbol a cell is adjacent to, 255 if none
cdef int16_t SYMBOL_CELL[NCOL]
cdef uint8_t TILE_LO[NTYPE]
cdef uint8_t TILE_HI[NTYPE]
cdef uint8_t TILE_MASK[NTYPE]       # bit c set if the tile shows colour c
cdef uint8_t TILE_OF[NCOL][NCOL]
cdef uint8_t STANDARD_SET[NTYPE]    # tiles of each type in the standard set
cdef uint8_t TRAVEL_SET[NTYPE]      # the travel set (RULES §2.2)

SYMBOLS = ((0, -5), (5, -5), (5, 0), (0, 5), (-5, 5), (-5, 0))
COLOURS = "RGBOYP"


cdef inline int cell_index(int q, int r) noexcept nogil:
    return (r + 8) * W + (q + 8)


def index_of(int q, int r):
    """Index of cell ``(q, r)`` in the padded grid (no range check)."""
    return cell_index(q, r)


def coords_of(int idx):
    """Axial ``(q, r)`` of a padded-grid index."""
    return (idx % W - 8, idx // W - 8)


cdef void _build_tables():
    cdef int q, r, s, i, d, e, n, t, a, b, k, z
    for i in range(NCELL):
        DIST[i] = 255
        TOUCHES[i] = 255
        CELL_WORD[i] = 0
        CELL_MASK[i][0] = 0
        CELL_MASK[i][1] = 0
    for r in range(-7, 8):
        for q in range(-7, 8):
            s = -q - r
            if -7 <= s <= 7:
                DIST[cell_index(q, r)] = max(abs(q), abs(r), abs(s))
    for k in range(NCOL):
        N_SYMBOL_EDGES[k] = 0
        for i in range(NWORDS):
            SYMBOL_BITS[k][i] = 0
        SYMBOL_CELL[k] = cell_index(SYMBOLS[k][0], SYMBOLS[k][1])
        for d in range(6):
            TOUCHES[SYMBOL_CELL[k] + OFF[d]] = k
    # edges: row-major over the first cell, then the second (E, SW, SE all point forward)
    for k in range(8):
        N_AREA_EDGES[k] = 0
        N_AREA_CELLS[k] = 0
        for a in range(NCELL):
            if DIST[a] <= k and not _is_symbol(a):
                AREA_CELLS[k][N_AREA_CELLS[k]] = a
                N_AREA_CELLS[k] += 1
    e = 0
    for a in range(NCELL):
        if DIST[a] == 255 or _is_symbol(a):
            continue
        pairs = []
        for d in (0, 4, 5):
            b = a + OFF[d]
            if DIST[b] != 255 and not _is_symbol(b):
                pairs.append((b, d))
        for b, d in sorted(pairs):
            EDGE_A[e] = a
            EDGE_B[e] = b
            EDGE_DIR[e] = d
            for z in (a, b):
                if CELL_MASK[z][0] == 0 and CELL_MASK[z][1] == 0:
                    CELL_WORD[z] = e >> 6
                assert 0 <= (e >> 6) - CELL_WORD[z] <= 1, "a cell's edges span two words at most"
                CELL_MASK[z][(e >> 6) - CELL_WORD[z]] |= (<uint64_t>1) << (e & 63)
            for k in range(5, 8):
                if DIST[a] <= k and DIST[b] <= k:
                    AREA_EDGES[k][N_AREA_EDGES[k]] = e
                    N_AREA_EDGES[k] += 1
            EDGE_SYMBOL[e] = TOUCHES[a] if TOUCHES[a] != 255 else TOUCHES[b]
            if EDGE_SYMBOL[e] == 255:
                EDGE_SYMBOL[e] = -1
            else:
                k = EDGE_SYMBOL[e]
                assert N_SYMBOL_EDGES[k] < 24
                SYMBOL_EDGES[k][N_SYMBOL_EDGES[k]] = e
                N_SYMBOL_EDGES[k] += 1
                SYMBOL_BITS[k][e >> 6] |= (<uint64_t>1) << (e & 63)
            e += 1
    assert e == NEDGE, e
    t = 0
    for a in range(NCOL):
        for b in range(a, NCOL):
            TILE_LO[t] = a
            TILE_HI[t] = b
            TILE_MASK[t] = (1 << a) | (1 << b)
            TILE_OF[a][b] = t
            TILE_OF[b][a] = t
            STANDARD_SET[t] = 5 if a == b else 6   # RULES §2.1
            TRAVEL_SET[t] = 2 if a == b else 3     # RULES §2.2
            t += 1


cdef bint _is_symbol(int idx) noexcept nogil:
    cdef int k
    for k in range(NCOL):
        if SYMBOL_CELL[k] == idx:
            return True
    return False


cdef void _init_state(State *st, int players, int radius, int rack_size, int cap, int cross,
                      int bonus_rule, int first_rule, int swap_rule, bint teams,
                      const uint8_t *tiles):
    """An empty board with a full bag, nobody dealt, under the given rules (see ``Core``)."""
    cdef int i
    memset(st, 0, sizeof(State))
    st.rules.players = players
    st.rules.radius = radius
    st.rules.rack_size = rack_size
    st.rules.cap = cap
    st.rules.cross = cross
    st.rules.bonus_rule = bonus_rule
    st.rules.first_rule = first_rule
    st.rules.swap_rule = swap_rule
    st.rules.n_sets = 2 if teams else players
    for i in range(MAXP):
        st.rules.counter_of[i] = i % 2 if teams else i   # teams: seats 0 and 2, 1 and 3 (RULES §4.2)
        st.first_symbol[i] = NOSYM
        st.opening[i] = -1
    st.phase = PH_PLACE
    st.turn = 1
    _reset_board(st)
    bag_fill(&st.bag, tiles, NTYPE)


cdef void _reset_board(State *st) noexcept nogil:
    """Empty the area, then put the printed symbols on it (through fill, so potentials follow)."""
    cdef int i, e, k
    for i in range(NCELL):
        st.board[i] = EMPTY if DIST[i] <= st.rules.radius else WALL
    memset(st.pot, 0, sizeof(st.pot))
    memset(st.live, 0, sizeof(st.live))
    for k in range(NCOL):
        fill(st, SYMBOL_CELL[k], k)
    memset(st.free_bits, 0, sizeof(st.free_bits))
    for e in range(N_AREA_EDGES[st.rules.radius]):
        k = AREA_EDGES[st.rules.radius][e]
        st.free_bits[k >> 6] |= (<uint64_t>1) << (k & 63)
    st.n_free = N_AREA_EDGES[st.rules.radius]


# ---------------------------------------------------------------------------------------------
# the board

cdef inline bint is_free(State *st, int e) noexcept nogil:
    """Whether both cells of edge ``e`` are empty cells of the area."""
    return (st.free_bits[e >> 6] >> (e & 63)) & 1


cdef inline int nth_free(State *st, int k) noexcept nogil:
    """The k-th free edge (0-based) in edge order, for k < n_free. Branch-free: which word and
    which bit are as unpredictable as the random k, so every step is a select, not a jump."""
    cdef int i, c, t, word = 0, before = 0, total = 0
    for i in range(NWORDS):
        c = popcount64(st.free_bits[i])
        total += c
        t = total <= k             # the running total is monotone: count the words before k's
        word += t
        before += c if t else 0
    return word * 64 + select64(st.free_bits[word], k - before)


cdef inline void fill_axis(State *st, int z, int c, int step) noexcept nogil:
    """The potentials of colour ``c`` at the two ends of the run through ``z`` (just given
    colour ``c``) along one axis: each end gains one plus the run's length beyond the other
    side of ``z``. ``step`` is a constant at each call (the axis' offset), so the walks use
    immediate offsets. The first step of each walk is taken without a branch (it advances only
    onto a cell of colour ``c``, so it never leaves the padded grid), the rest in a loop."""
    cdef const uint8_t *bd = st.board
    cdef int ef = z + step, eb = z - step, nf, nb
    nf = 0
    nb = 0
    while bd[ef] == c:
        ef += step
        nf += 1
    while bd[eb] == c:
        eb -= step
        nb += 1
    # written whatever the end cell holds (no branch): potentials are only read for empty
    # cells, and a covered cell never becomes empty again
    st.pot[ef][c] += 1 + nb
    st.live[ef] |= 1 << c
    st.pot[eb][c] += 1 + nf
    st.live[eb] |= 1 << c


cdef inline void fill(State *st, int z, int c) noexcept nogil:
    """Put colour ``c`` on the empty cell ``z``; update potentials and the free-edge count."""
    cdef int w
    cdef uint64_t old0, old1
    st.board[z] = c
    fill_axis(st, z, c, 1)      # the three axes: E-W, NE-SW, NW-SE (OFF[0], -OFF[1], -OFF[2])
    fill_axis(st, z, c, 16)
    fill_axis(st, z, c, 17)
    # the edges from z are no longer free: two words of the bit set, no dependency chain
    w = CELL_WORD[z]
    old0 = st.free_bits[w]
    old1 = st.free_bits[w + 1]
    st.n_free -= popcount64(old0 & CELL_MASK[z][0]) + popcount64(old1 & CELL_MASK[z][1])
    st.free_bits[w] = old0 & ~CELL_MASK[z][0]
    st.free_bits[w + 1] = old1 & ~CELL_MASK[z][1]


cdef inline int add_points(State *st, int k, int c, int g) noexcept nogil:
    """Add ``g`` points to counter set ``k``, colour ``c``; return the bonus plays earned."""
    cdef int old = st.score[k][c]
    cdef int new = old + g
    if old < st.rules.cross and new >= st.rules.cross:
        st.score[k][c] = st.rules.cross          # the excess is lost at the crossing (RULES §3.3, §4.1)
        return 1
    if new >= st.rules.cap:
        st.score[k][c] = st.rules.cap
        return 1 if old < st.rules.cap else 0
    st.score[k][c] = new
    return 0


# ---------------------------------------------------------------------------------------------
# rules of a turn

cdef inline int rack_find(State *st, int p, int t) noexcept nogil:
    """The first slot of seat ``p``'s rack holding tile type ``t``, -1 if none (the slots are
    scanned from the last, each a conditional move, not a branch)."""
    cdef int i, found = -1
    for i in range(st.rack_n[p] - 1, -1, -1):
        found = i if st.rack[p][i] == t else found
    return found


cdef inline uint8_t used_symbols(State *st) noexcept nogil:
    cdef uint8_t used = 0
    cdef int i
    for i in range(st.rules.players):
        if st.first_symbol[i] < NCOL:
            used |= 1 << st.first_symbol[i]
    return used


cdef inline bint touches_tile(State *st, int e) noexcept nogil:
    """Whether a cell of edge ``e`` is next to a printed symbol or a tile (RULES §4.3)."""
    cdef int d
    for d in range(6):
        if st.board[EDGE_A[e] + OFF[d]] < NCOL or st.board[EDGE_B[e] + OFF[d]] < NCOL:
            return True
    return False


cdef inline int first_round_ok(State *st, int e, uint8_t used) noexcept nogil:
    """Whether edge ``e`` is allowed for the current seat's first placement (RULES §3.2)."""
    if st.rules.first_rule == FIRST_NEW_SYMBOL:
        return EDGE_SYMBOL[e] >= 0 and not (used >> EDGE_SYMBOL[e]) & 1
    if st.rules.first_rule == FIRST_SYMBOL_OR_TILE:
        return touches_tile(st, e)
    return True


cdef bint first_rule_possible(State *st) noexcept nogil:
    """Whether some free edge satisfies the first-round rule for the current seat."""
    cdef uint8_t used = used_symbols(st)
    cdef int k, i, w, e
    cdef uint64_t bits
    if st.rules.first_rule == FIRST_NEW_SYMBOL:
        bits = 0
        for k in range(NCOL):
            if not (used >> k) & 1:
                for w in range(NWORDS):
                    bits |= st.free_bits[w] & SYMBOL_BITS[k][w]
        return bits != 0
    for w in range(NWORDS):
        bits = st.free_bits[w]
        while bits:
            e = w * 64 + ctz64(bits)
            bits &= bits - 1
            if first_round_ok(st, e, used):
                return True
    return False


cdef inline bint is_first_placement(State *st) noexcept nogil:
    """Whether the first-round rule binds the current placement (RULES §3.2): the seat has not
    placed yet, and (Decision, only reachable in constructed positions) some free pair of cells
    still satisfies the rule; when none does, the rule lapses for this placement."""
    return (st.rules.first_rule != FIRST_NONE and st.first_symbol[st.current] == NOSYM
            and first_rule_possible(st))


cdef inline uint8_t lowest_colours(const State *st, int p) noexcept nogil:
    """Bit c set if colour c is among the lowest of seat ``p``'s counters (ties included)."""
    cdef const uint8_t *s = st.score[st.rules.counter_of[p]]
    cdef int c, low = s[0]
    cdef uint8_t mask = 0
    for c in range(1, NCOL):
        low = s[c] if s[c] < low else low
    for c in range(NCOL):
        mask |= (s[c] == low) << c
    return mask


cdef bint swap_allowed(State *st) noexcept nogil:
    """RULES §3.5: no rack tile shows any of the lowest colours (ties included); the rack and
    the bag are non-empty (decision: with an empty bag the swap would only throw the rack away)."""
    cdef int p = st.current
    cdef int i
    cdef uint8_t colours
    if st.rack_n[p] == 0 or st.bag.n == 0 or not st.rules.swap_rule:
        return False                       # nothing to swap, or nothing to draw
    colours = 0
    for i in range(st.rack_n[p]):
        colours |= TILE_MASK[st.rack[p][i]]
    return (colours & lowest_colours(st, p)) == 0


cdef int next_turn(State *st) noexcept nogil:
    """Pass the turn to the next seat holding tiles; end the game if nobody holds any."""
    cdef int i, q = st.current
    for i in range(st.rules.players):
        q += 1
        if q == st.rules.players:
            q = 0
        if st.rack_n[q] > 0:
            st.current = q
            st.phase = PH_PLACE
            st.bonus = 0
            if st.turn < 32767:            # saturate rather than wrap (int16)
                st.turn += 1
            return 0
    st.phase = PH_OVER
    return 0


cdef int refill(State *st, int p, Draws *ds) noexcept nogil:
    """Fill ``p``'s rack from the bag, one tile at a time; with ``ds.luck``, add each draw's
    luck to ``ds.luck[p]`` (``draw_values``: the evaluation after the tile drawn minus its
    expectation over the bag, from ``p``'s view)."""
    cdef int t
    cdef double values[NTYPE]
    cdef double expected = 0.0
    while st.rack_n[p] < st.rules.rack_size and st.bag.n > 0:
        if ds.luck != NULL:
            expected = draw_values(st, p, values)
        t = bag_draw(&st.bag, ds)
        if t < 0:
            return -1
        if ds.luck != NULL:
            ds.luck[p] += values[t] - expected
        st.rack[p][st.rack_n[p]] = t
        st.rack_n[p] += 1
    return 0


cdef int do_swap(State *st, Draws *ds) noexcept nogil:
    """RULES §3.5: set the rack aside, draw a new one, return the old tiles to the bag."""
    cdef int p = st.current
    cdef uint8_t old[MAXRACK]
    cdef int i, n = st.rack_n[p]
    for i in range(n):
        old[i] = st.rack[p][i]
    st.rack_n[p] = 0
    if refill(st, p, ds) < 0:
        return -1
    for i in range(n):
        bag_put(&st.bag, old[i])
    st.n_swaps[p] += 1
    return next_turn(st)


cdef int end_placements(State *st, Draws *ds) noexcept nogil:
    """The placements of the turn are done: offer the swap, or refill and pass."""
    st.bonus = 0
    if swap_allowed(st):
        st.phase = PH_SWAP
        return 0
    if refill(st, st.current, ds) < 0:
        return -1
    return next_turn(st)


cdef inline int place_tile(State *st, int action) noexcept nogil:
    """Apply a legal placement (RULES §3.2-§3.6) up to the end of the turn's placements: the
    tile, the points, the bonus plays earned, the end of the game. Returns 1 if the turn's
    placements are over (``end_placements`` is due: the swap offer or the refill), else 0 (a
    bonus placement follows, or the game is over). Draws nothing."""
    cdef int p = st.current
    cdef int k = st.rules.counter_of[p]
    cdef unsigned int u = <unsigned int>action      # a legal placement: 0 <= action < ACT_SWAP
    cdef int e = u // 36
    cdef int c0 = (u // 6) % 6
    cdef int c1 = u % 6
    cdef int a = EDGE_A[e], b = EDGE_B[e]
    cdef int g0 = st.pot[a][c0], g1 = st.pot[b][c1]   # both read before either half is placed
    cdef int i, c, earned, full
    i = rack_find(st, p, TILE_OF[c0][c1])
    st.rack_n[p] -= 1
    st.rack[p][i] = st.rack[p][st.rack_n[p]]
    if st.first_symbol[p] == NOSYM:
        # the symbol it touched; ANYSYM if none, or if the first-round rule had lapsed and the
        # symbol was an earlier seat's (RULES §3.2 Decision)
        if EDGE_SYMBOL[e] >= 0 and (st.rules.first_rule != FIRST_NEW_SYMBOL
                                    or not (used_symbols(st) >> EDGE_SYMBOL[e]) & 1):
            st.first_symbol[p] = EDGE_SYMBOL[e]
        else:
            st.first_symbol[p] = ANYSYM
        st.opening[p] = action
    fill(st, a, c0)
    fill(st, b, c1)
    st.placements += 1
    if st.bonus > 0:
        st.bonus -= 1
        st.n_bonus[p] += 1
    if c0 == c1:
        earned = add_points(st, k, c0, g0 + g1)
    else:
        earned = add_points(st, k, c0, g0) + add_points(st, k, c1, g1)
    # RULES §3.6: six counters at the cap win at once (only a placement that reached a
    # threshold can complete them); a board without free pairs ends the game
    full = 0
    if earned:
        full = 1
        for c in range(NCOL):
            if st.score[k][c] < st.rules.cap:
                full = 0
    if st.rules.bonus_rule == BONUS_NONE:
        earned = 0
    elif st.rules.bonus_rule == BONUS_ONE and earned > 1:
        earned = 1
    st.bonus += earned
    if full or st.n_free == 0:
        st.phase = PH_OVER
        st.bonus = 0
        return 0
    if st.bonus > 0 and st.rack_n[p] > 0:
        return 0                           # a bonus placement follows (RULES §3.4)
    return 1


cdef int place(State *st, int action, Draws *ds) noexcept nogil:
    """Apply a legal placement (RULES §3.2-§3.6): score, bonus plays, end of turn or game."""
    if place_tile(st, action):
        return end_placements(st, ds)
    return 0


cdef int apply_action(State *st, int action, Draws *ds) noexcept nogil:
    """Apply a legal action (unchecked). Returns 0, or -1 when a draw failed."""
    if action == ACT_SWAP:
        return do_swap(st, ds)
    if action == ACT_KEEP:
        if refill(st, st.current, ds) < 0:
            return -1
        return next_turn(st)
    return place(st, action, ds)


cdef int illegal_reason(State *st, int action) noexcept nogil:
    """ILLEGAL_NONE (0) if ``action`` is legal now, else why not (ILLEGAL_*)."""
    cdef int e, c0, c1
    if st.phase == PH_OVER:
        return ILLEGAL_OVER
    if action < 0 or action >= ACT_SIZE:
        return ILLEGAL_RANGE
    if st.phase == PH_SWAP:
        return ILLEGAL_NONE if action == ACT_SWAP or action == ACT_KEEP else ILLEGAL_DECIDE_SWAP
    if action >= ACT_SWAP:
        return ILLEGAL_NOT_DECISION
    e = action // 36
    c0 = (action // 6) % 6
    c1 = action % 6
    if DIST[EDGE_A[e]] > st.rules.radius or DIST[EDGE_B[e]] > st.rules.radius:
        return ILLEGAL_OUTSIDE
    if not is_free(st, e):
        return ILLEGAL_COVERED
    if rack_find(st, st.current, TILE_OF[c0][c1]) < 0:
        return ILLEGAL_NO_TILE
    if is_first_placement(st) and not first_round_ok(st, e, used_symbols(st)):
        return ILLEGAL_FIRST_ROUND
    return ILLEGAL_NONE


cdef bint is_legal(State *st, int action) noexcept nogil:
    return illegal_reason(st, action) == ILLEGAL_NONE


cdef int legal_actions(State *st, int32_t *out) noexcept nogil:
    """Write the legal actions in increasing order; return their number."""
    cdef int n = 0, e, c0, c1, i
    cdef uint8_t have[NTYPE]
    cdef uint8_t used
    cdef bint first
    if st.phase == PH_SWAP:
        out[0] = ACT_SWAP
        out[1] = ACT_KEEP
        return 2
    if st.phase != PH_PLACE:
        return 0
    memset(have, 0, sizeof(have))
    for i in range(st.rack_n[st.current]):
        have[st.rack[st.current][i]] = 1
    first = is_first_placement(st)
    used = used_symbols(st)
    for e in range(NEDGE):
        if not is_free(st, e):
            continue
        if first and not first_round_ok(st, e, used):
            continue
        for c0 in range(NCOL):
            for c1 in range(NCOL):
                if have[TILE_OF[c0][c1]]:
                    out[n] = e * 36 + c0 * 6 + c1
                    n += 1
    return n


cdef void ranks(State *st, int16_t *out) noexcept nogil:
    """Competition ranks per seat: the number of seats with a strictly better counter vector."""
    cdef uint64_t key[MAXP]
    cdef int i, j
    for i in range(st.rules.players):
        key[i] = rank_key(st.score[st.rules.counter_of[i]])
    for i in range(st.rules.players):
        out[i] = 0
        for j in range(st.rules.players):
            if key[j] > key[i]:
                out[i] += 1


# ---------------------------------------------------------------------------------------------
# policies

cdef inline int symbol_edges_free(State *st, uint8_t used) noexcept nogil:
    """How many free edges touch a symbol not in ``used`` (an edge touches one symbol at most:
    ``EDGE_SYMBOL``)."""
    cdef int k, w, n = 0
    for k in range(NCOL):
        if not (used >> k) & 1:
            for w in range(NWORDS):
                n += popcount64(st.free_bits[w] & SYMBOL_BITS[k][w])
    return n


cdef inline int nth_symbol_edge(State *st, uint8_t used, int j) noexcept nogil:
    """The j-th free edge (0-based) of the list of ``SYMBOL_EDGES`` of the symbols not in
    ``used``, symbol by symbol (each symbol's edges in edge order), j < symbol_edges_free."""
    cdef int k, w, c
    cdef uint64_t bits
    for k in range(NCOL):
        if not (used >> k) & 1:
            for w in range(NWORDS):
                bits = st.free_bits[w] & SYMBOL_BITS[k][w]
                c = popcount64(bits)
                if j < c:
                    return w * 64 + select64(bits, j)
                j -= c
    return -1


cdef int choose_random(State *st, bitgen_t *rng) noexcept nogil:
    """A uniformly random rack tile on a uniformly random legal pair of cells, random way round;
    the swap decision on a fair coin."""
    cdef int p = st.current, t, e, i, k, n, lo, hi, pick
    cdef int16_t cand[NEDGE]
    cdef uint8_t used
    if st.phase == PH_SWAP:
        return ACT_SWAP if rand_below(rng, 2) else ACT_KEEP
    if st.rack_n[p] == 0 or st.n_free == 0:
        return -1
    pick = rand_below(rng, 2 * st.rack_n[p])   # one draw: the rack slot and the way round
    t = st.rack[p][pick >> 1]
    if is_first_placement(st):
        used = used_symbols(st)
        n = 0
        if st.rules.first_rule == FIRST_NEW_SYMBOL:     # only the few edges next to unused symbols
            n = symbol_edges_free(st, used)
            if n > 0:
                e = nth_symbol_edge(st, used, rand_below(rng, n))
                n = -1
        else:
            # rejection: a uniform free edge until one is allowed (uniform over the allowed
            # ones); after a few misses, the exact list (still uniform overall)
            for i in range(16):
                e = nth_free(st, rand_below(rng, st.n_free))
                if first_round_ok(st, e, used):
                    n = -1
                    break
            if n == 0:
                for i in range(N_AREA_EDGES[st.rules.radius]):
                    e = AREA_EDGES[st.rules.radius][i]
                    if is_free(st, e) and first_round_ok(st, e, used):
                        cand[n] = e
                        n += 1
        if n == 0:
            return -1
        if n > 0:
            e = cand[rand_below(rng, n)]
    else:
        e = nth_free(st, rand_below(rng, st.n_free))
    lo = TILE_LO[t]
    hi = TILE_HI[t]
    k = (lo ^ hi) & -(pick & 1)         # the other way round if pick is odd (no branch)
    return e * 36 + (lo ^ k) * 6 + (hi ^ k)


cdef struct Rack:
    # the distinct tile types of the mover's rack, for the placement loops of the policies
    uint8_t lo[MAXRACK]         # colours of each distinct type, in rack order
    uint8_t hi[MAXRACK]
    uint8_t ntypes
    uint8_t nways               # (type, way round) pairs: 1 per double, 2 otherwise
    uint8_t colours             # bit c set if a rack tile shows colour c
    uint8_t slo[MAXRACK]        # the two-colour types
    uint8_t shi[MAXRACK]
    uint8_t nsingle
    uint8_t dc[MAXRACK]         # the colours of the doubles
    uint8_t ndouble


cdef inline void rack_of(State *st, Rack *r) noexcept nogil:
    cdef int p = st.current, i, t, lo, hi
    cdef uint32_t seen = 0
    r.ntypes = 0
    r.nways = 0
    r.colours = 0
    r.nsingle = 0
    r.ndouble = 0
    for i in range(st.rack_n[p]):
        t = st.rack[p][i]
        if not (seen >> t) & 1:
            seen |= (<uint32_t>1) << t
            lo = TILE_LO[t]
            hi = TILE_HI[t]
            r.lo[r.ntypes] = lo
            r.hi[r.ntypes] = hi
            r.ntypes += 1
            r.colours |= TILE_MASK[t]
            if lo == hi:
                r.nways += 1
                r.dc[r.ndouble] = lo
                r.ndouble += 1
            else:
                r.nways += 2
                r.slo[r.nsingle] = lo
                r.shi[r.nsingle] = hi
                r.nsingle += 1


cdef inline int nth_way(Rack *r, int e, int j) noexcept nogil:
    """The j-th (tile type, way round) of the rack on edge ``e``, j < r.nways."""
    cdef int i, lo, hi
    for i in range(r.ntypes):
        lo = r.lo[i]
        hi = r.hi[i]
        if lo == hi:
            if j == 0:
                return e * 36 + lo * 7
            j -= 1
        else:
            if j < 2:
                return e * 36 + (lo * 6 + hi if j == 0 else hi * 6 + lo)
            j -= 2
    return -1


cdef struct Gain:
    # the greedy objective for the mover, per colour: adding g points to counter c raises
    # sum_c -(cap - s_c)^2 by d2[c] - max(d[c] - g, m[c])^2, the points lost at the crossing
    # and the cap (as in add_points) not counting
    int d[NCOL]                 # cap - s
    int m[NCOL]                 # cap - the limit of this move: cap - cross below the crossing
    int d2[NCOL]
    # the same in 16 bits, two lanes more (0), for gain_row (cap <= 120: d2 <= 14400)
    int16_t d16[8]
    int16_t m16[8]
    int16_t d2_16[8]


cdef inline void gain_of(State *st, Gain *gn) noexcept nogil:
    cdef int k = st.rules.counter_of[st.current]
    cdef int cap = st.rules.cap, cross = st.rules.cross, c, s
    for c in range(NCOL):
        s = st.score[k][c]
        gn.d[c] = cap - s
        gn.m[c] = cap - cross if s < cross else 0
        gn.d2[c] = gn.d[c] * gn.d[c]
    for c in range(8):
        gn.d16[c] = gn.d[c] if c < NCOL else 0
        gn.m16[c] = gn.m[c] if c < NCOL else 0
        gn.d2_16[c] = gn.d2[c] if c < NCOL else 0


cdef inline int gain_v(const Gain *gn, int c, int g) noexcept nogil:
    cdef int t = gn.d[c] - g
    t = gn.m[c] if t < gn.m[c] else t
    return gn.d2[c] - t * t


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    #define GENIAL_SSE2 1
    #endif

    /* The greedy value of the best placement of a rack tile on an edge whose cells have the
       potentials pa[0..5], pb[0..5] (genial/_core.pyx, edge_best): in eight 16-bit lanes (two
       spare, 0). gain(c, g) = d2[c] - max(d[c] - g, m[c])^2 (0 <= m <= d <= 120, so each
       value is in 0..14400 and a sum of two fits a lane). The best of: for each colour x on
       the first cell, x with every colour y on the second, masked by two[x] (-1 where a
       two-colour rack type shows x and y), and the doubles' values, masked by dbl. A masked
       lane is 0, never above a value (every value is >= 0). */
    #ifdef GENIAL_SSE2
    static inline __m128i genial_load6(const uint8_t *p) {
        /* bytes 0..3 and 4..5 loaded apart and joined in a register (one 8-byte load of the
           two stores of a memcpy would wait on a failed store forwarding) */
        uint32_t lo;
        uint16_t hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 2);
        return _mm_unpacklo_epi8(_mm_insert_epi16(_mm_cvtsi32_si128((int)lo), hi, 2),
                                 _mm_setzero_si128());
    }
    static inline __m128i genial_gain8(__m128i g, __m128i d, __m128i m, __m128i d2) {
        __m128i t = _mm_max_epi16(_mm_sub_epi16(d, g), m);
        return _mm_sub_epi16(d2, _mm_mullo_epi16(t, t));
    }
    /* lane x of va in every lane (x < 4: from the low half, else the high), plus vb */
    #define GENIAL_BCAST(x) ((x) < 4 \
        ? _mm_shuffle_epi32(_mm_shufflelo_epi16(va, ((x) & 3) * 0x55), 0x00) \
        : _mm_shuffle_epi32(_mm_shufflehi_epi16(va, ((x) & 3) * 0x55), 0xAA))
    #define GENIAL_PAIR(x) acc = _mm_max_epi16(acc, _mm_and_si128( \
        _mm_add_epi16(GENIAL_BCAST(x), vb), _mm_loadu_si128((const __m128i *)two[x])))
    static inline int genial_edge_best(const uint8_t *pa, const uint8_t *pb, const int16_t *d16,
                                       const int16_t *m16, const int16_t *d2_16,
                                       const int16_t (*two)[8], const int16_t *dbl) {
        __m128i d = _mm_loadu_si128((const __m128i *)d16);
        __m128i m = _mm_loadu_si128((const __m128i *)m16);
        __m128i d2 = _mm_loadu_si128((const __m128i *)d2_16);
        __m128i ga = genial_load6(pa), gb = genial_load6(pb);
        __m128i va = genial_gain8(ga, d, m, d2), vb = genial_gain8(gb, d, m, d2);
        __m128i acc = _mm_and_si128(genial_gain8(_mm_add_epi16(ga, gb), d, m, d2),
                                    _mm_loadu_si128((const __m128i *)dbl));
        GENIAL_PAIR(0); GENIAL_PAIR(1); GENIAL_PAIR(2);
        GENIAL_PAIR(3); GENIAL_PAIR(4); GENIAL_PAIR(5);
        acc = _mm_max_epi16(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(1, 0, 3, 2)));
        acc = _mm_max_epi16(acc, _mm_shuffle_epi32(acc, _MM_SHUFFLE(2, 3, 0, 1)));
        acc = _mm_max_epi16(acc, _mm_shufflelo_epi16(acc, _MM_SHUFFLE(2, 3, 0, 1)));
        return _mm_cvtsi128_si32(acc) & 0xFFFF;
    }
    #undef GENIAL_PAIR
    #undef GENIAL_BCAST
    #else
    static inline int genial_gain1(int g, int d, int m, int d2) {
        int t = d - g;
        t = t < m ? m : t;
        return d2 - t * t;
    }
    static inline int genial_edge_best(const uint8_t *pa, const uint8_t *pb, const int16_t *d16,
                                       const int16_t *m16, const int16_t *d2_16,
                                       const int16_t (*two)[8], const int16_t *dbl) {
        int va[6], vb[6], x, y, v, best = 0;
        for (x = 0; x < 6; x++) {
            va[x] = genial_gain1(pa[x], d16[x], m16[x], d2_16[x]);
            vb[x] = genial_gain1(pb[x], d16[x], m16[x], d2_16[x]);
            v = genial_gain1(pa[x] + pb[x], d16[x], m16[x], d2_16[x]) & dbl[x];
            best = v > best ? v : best;
        }
        for (x = 0; x < 6; x++)
            for (y = 0; y < 6; y++) {
                v = (va[x] + vb[y]) & two[x][y];
                best = v > best ? v : best;
            }
        return best;
    }
    #endif
    """
    int c_edge_best "genial_edge_best"(const uint8_t *pa, const uint8_t *pb, const int16_t *d16,
                                       const int16_t *m16, const int16_t *d2_16,
                                       const int16_t (*two)[8], const int16_t *dbl) noexcept nogil


cdef struct Pairs:
    # the rack's tile types as 16-bit lane masks, for edge_best
    int16_t two[NCOL][8]        # two[x][y] = -1 if a two-colour rack type shows x and y, else 0
    int16_t dbl[8]              # dbl[c] = -1 if the rack holds the double of colour c, else 0


cdef inline void pairs_of(const Rack *r, Pairs *pr) noexcept nogil:
    cdef int i
    memset(pr, 0, sizeof(Pairs))
    for i in range(r.nsingle):
        pr.two[r.slo[i]][r.shi[i]] = -1
        pr.two[r.shi[i]][r.slo[i]] = -1
    for i in range(r.ndouble):
        pr.dbl[r.dc[i]] = -1


cdef inline int edge_best(State *st, const Pairs *pr, const Gain *gn, int e) noexcept nogil:
    """The greedy value of the best placement of a rack tile on edge ``e``: the maximum over
    the two-colour types, both ways round, of ``gain(x on A) + gain(y on B)`` and over the
    doubles of ``gain(c, both halves)``; branch-free, in 16-bit lanes (``genial_edge_best``
    above: SSE2 vectors, a scalar loop elsewhere)."""
    return c_edge_best(st.pot[EDGE_A[e]], st.pot[EDGE_B[e]], gn.d16, gn.m16, gn.d2_16,
                       pr.two, pr.dbl)


cdef inline int edge_push(State *st, const Rack *r, const Gain *gn, int e, int best,
                          int32_t *cand, int n) noexcept nogil:
    """Append the placements on edge ``e`` worth ``best`` to ``cand[n:]``, in rack order, the
    way ``lo, hi`` first (the order of ``legal_actions`` within a type); return the new n."""
    cdef const uint8_t *pa = st.pot[EDGE_A[e]]
    cdef const uint8_t *pb = st.pot[EDGE_B[e]]
    cdef int j, lo, hi
    for j in range(r.ntypes):
        lo = r.lo[j]
        hi = r.hi[j]
        if lo == hi:
            if gain_v(gn, lo, pa[lo] + pb[lo]) == best:
                cand[n] = e * 36 + lo * 7
                n += 1
        else:
            if gain_v(gn, lo, pa[lo]) + gain_v(gn, hi, pb[hi]) == best:
                cand[n] = e * 36 + lo * 6 + hi
                n += 1
            if gain_v(gn, hi, pa[hi]) + gain_v(gn, lo, pb[lo]) == best:
                cand[n] = e * 36 + hi * 6 + lo
                n += 1
    return n


cdef inline int greedy_edges(State *st, const Rack *r, int16_t *out, int *n_allowed) noexcept nogil:
    """The edges where a rack tile may score (a cell live in a rack colour), in edge order, and
    in ``n_allowed`` the number of edges allowed now; -1 there if it is every free edge. The
    loop over the free edges is branch-free (every edge is written, the live ones kept)."""
    cdef uint64_t bits
    cdef uint8_t used
    cdef int w, e, n = 0, allowed = 0
    if is_first_placement(st):
        # the first-round rule restricts the edges: go through every allowed one (once a game)
        used = used_symbols(st)
        for w in range(NWORDS):
            bits = st.free_bits[w]
            while bits:
                e = w * 64 + ctz64(bits)
                bits &= bits - 1
                if first_round_ok(st, e, used):
                    allowed += 1
                    if (st.live[EDGE_A[e]] | st.live[EDGE_B[e]]) & r.colours:
                        out[n] = e
                        n += 1
        n_allowed[0] = allowed
        return n
    n_allowed[0] = -1
    for w in range(NWORDS):
        bits = st.free_bits[w]
        while bits:
            e = w * 64 + ctz64(bits)
            bits &= bits - 1
            out[n] = e
            n += ((st.live[EDGE_A[e]] | st.live[EDGE_B[e]]) & r.colours) != 0
    return n


cdef inline int nth_allowed(State *st, int k) noexcept nogil:
    """The k-th edge allowed by the first-round rule, in edge order."""
    cdef uint8_t used = used_symbols(st)
    cdef uint64_t bits
    cdef int w, e
    for w in range(NWORDS):
        bits = st.free_bits[w]
        while bits:
            e = w * 64 + ctz64(bits)
            bits &= bits - 1
            if first_round_ok(st, e, used):
                if k == 0:
                    return e
                k -= 1
    return -1


cdef int choose_greedy(State *st, bitgen_t *rng) noexcept nogil:
    """The placement maximising sum_c -(cap - s_c)^2 after it, ties at random; always swap.

    Every placement's value is >= 0, and it is 0 unless one of its halves has a potential in its
    colour; so only edges with a live potential in a rack colour are scored (``greedy_edges``).
    Two passes: the best value of each such edge
    (branch-free), then the placements worth the overall best, in the order of
    ``legal_actions`` (edge, then rack order); one is drawn uniformly. If none scores, every
    legal placement ties at 0 and one is drawn uniformly: a uniform legal edge, then a uniform
    (tile type, way round) among those of the rack, the same for every edge.
    """
    cdef int i, e, v, ne, allowed, best = 0, n = 0
    cdef int16_t edges[NEDGE]
    cdef int32_t value[NEDGE]
    cdef int32_t cand[MAXCAND]
    cdef Rack r
    cdef Gain gn
    cdef Pairs pr
    if st.phase == PH_SWAP:
        return ACT_SWAP
    rack_of(st, &r)
    if r.ntypes == 0:
        return -1
    gain_of(st, &gn)
    pairs_of(&r, &pr)
    ne = greedy_edges(st, &r, edges, &allowed)
    for i in range(ne):
        v = edge_best(st, &pr, &gn, edges[i])
        value[i] = v
        best = v if v > best else best
    if best > 0:
        for i in range(ne):
            if value[i] == best:
                n = edge_push(st, &r, &gn, edges[i], best, cand, n)
        return cand[rand_below(rng, n)]
    # every placement is worth 0: uniform over (edge, tile type, way round)
    if allowed < 0:
        if st.n_free == 0:
            return -1
        e = nth_free(st, rand_below(rng, st.n_free))
    else:
        if allowed == 0:
            return -1
        e = nth_allowed(st, rand_below(rng, allowed))
    return nth_way(&r, e, rand_below(rng, r.nways))


cdef inline int choose(State *st, int policy, double epsilon, bitgen_t *rng) noexcept nogil:
    if policy == POL_RANDOM:
        return choose_random(st, rng)
    if policy == POL_EPSILON and rand_unit(rng) < epsilon:
        return choose_random(st, rng)
    return choose_greedy(st, rng)


cdef void deal(State *st, Draws *ds) noexcept nogil:
    cdef int p
    for p in range(st.rules.players):
        refill(st, p, ds)


# ---------------------------------------------------------------------------------------------
# search policies: flat Monte Carlo and information-set MCTS over determinisations
# (docs/search.md). Everything runs on copies of the state, draws its randomness (the
# determinisations, the draws from the bag and the rollouts' choices) from generators seeded by
# one 64-bit draw from the policy stream, and never reads a rack its seat cannot see.

cdef extern from *:
    """
    #include "numpy/random/bitgen.h"
    /* SplitMix64 (Steele, Lea, Flood 2014) behind numpy's bitgen_t interface: a search's own
       generators, seeded from the policy stream (never copy one: gen.state points into it) */
    typedef struct { uint64_t s; bitgen_t gen; } genial_sm;
    static inline uint64_t genial_mix64(uint64_t z) {
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    static uint64_t genial_sm64(void *p) {
        genial_sm *g = (genial_sm *)p;
        g->s += 0x9E3779B97F4A7C15ULL;
        return genial_mix64(g->s);
    }
    static uint32_t genial_sm32(void *p) { return (uint32_t)(genial_sm64(p) >> 32); }
    static double genial_smd(void *p) { return (genial_sm64(p) >> 11) * (1.0 / 9007199254740992.0); }
    static void genial_sm_seed(genial_sm *g, uint64_t seed) {
        g->s = seed;
        g->gen.state = g;
        g->gen.next_uint64 = genial_sm64;
        g->gen.next_uint32 = genial_sm32;
        g->gen.next_double = genial_smd;
        g->gen.next_raw = genial_sm64;
    }
    """
    ctypedef struct SplitMix "genial_sm":
        uint64_t s
        bitgen_t gen
    void sm_seed "genial_sm_seed"(SplitMix *g, uint64_t seed) noexcept nogil
    uint64_t mix64 "genial_mix64"(uint64_t z) noexcept nogil

# the value of a finished playout for a seat: its share of first place plus MARGIN times its
# lowest counter's margin over the best lowest counter of the other counter sets, over the cap
cdef double MARGIN = 0.05


cdef struct Pool:
    # a root state with the racks its observer cannot see returned to the bag (canonical order)
    State st
    uint8_t held[MAXP]          # the tiles each of those racks held
    int seat                    # the observer
    int bound                   # a seat at its swap decision whose rack is redealt, or -1
    uint8_t low                 # that seat's lowest colours: its rack shows none of them


cdef void pool_of(const State *root, int seat, Pool *pool) noexcept nogil:
    """The unseen pool of ``seat`` at ``root`` (``seat < 0``: every rack), what ``determinise``
    draws from, sorted once. When another seat is at its swap decision, everyone knows that its
    rack shows none of its lowest colours (RULES §3.5): that rack is ``bound`` to them."""
    cdef int p, i
    memcpy(&pool.st, root, sizeof(State))
    pool.seat = seat
    pool.bound = root.current if root.phase == PH_SWAP and root.current != seat else -1
    pool.low = lowest_colours(root, root.current) if pool.bound >= 0 else 0
    for p in range(MAXP):
        pool.held[p] = 0
    for p in range(root.rules.players):
        if p == seat:
            continue
        pool.held[p] = pool.st.rack_n[p]
        for i in range(pool.st.rack_n[p]):
            bag_put(&pool.st.bag, pool.st.rack[p][i])
        pool.st.rack_n[p] = 0
    bag_sort(&pool.st.bag)


cdef void determinise(State *st, const Pool *pool, Draws *ds) noexcept nogil:
    """``st`` := the pool's root, redealt for its observer: each rack it cannot see, in seat
    order, draws as many tiles as it held from the pool. A ``bound`` rack is dealt first,
    uniformly from the pool's tiles showing none of its lowest colours (the uniform deal given
    what is known of it: the real rack is among them)."""
    cdef int p, i, t
    cdef Bag sub
    memcpy(st, &pool.st, sizeof(State))
    if pool.bound >= 0:
        sub.n = 0
        for i in range(st.bag.n):
            if not TILE_MASK[st.bag.item[i]] & pool.low:
                bag_put(&sub, st.bag.item[i])
        for i in range(pool.held[pool.bound]):
            t = bag_draw(&sub, ds)
            if t < 0:
                return
            bag_take(&st.bag, t)
            st.rack[pool.bound][st.rack_n[pool.bound]] = t
            st.rack_n[pool.bound] += 1
    for p in range(st.rules.players):
        if p == pool.bound:
            continue
        for i in range(pool.held[p]):
            t = bag_draw(&st.bag, ds)
            if t < 0:
                return
            st.rack[p][st.rack_n[p]] = t
            st.rack_n[p] += 1


cdef void redeal(State *st, int view_seat, Draws *ds) noexcept nogil:
    """Determinise the state for ``view_seat`` in place (``pool_of`` then ``determinise``):
    every other seat returns its rack to the bag, the bag is put in canonical order
    (``bag_sort``), and each of those seats, in seat order, draws as many tiles as it held (a
    seat at its swap decision from the tiles it may hold, first). What ``view_seat`` sees (its
    rack, the board, every counter, the number of tiles each seat holds, the phase) is
    unchanged; the tiles it cannot see (the other racks and the bag) are redrawn from their pool
    (``view_seat < 0`` redeals every seat)."""
    cdef Pool pool
    pool_of(st, view_seat, &pool)
    determinise(st, &pool, ds)


cdef int rollout(State *st, const Search *sp, int cut, bitgen_t *rng, Draws *ds) noexcept nogil:
    """Play on with the search's rollout policy for every seat: to the end; or, for ``value``
    rollouts, greedy until the game is over or turn ``cut`` has begun (``seat_values`` then
    scores the position by the evaluation). 1 if stuck (hand-made positions)."""
    cdef int a, kind = sp.rollout
    if kind == POL_VALUE:
        kind = POL_GREEDY
    else:
        cut = 1 << 30
    while st.phase != PH_OVER and st.turn < cut:
        a = choose(st, kind, 0.0, rng)
        if a < 0:
            st.phase = PH_OVER
            return 1
        apply_action(st, a, ds)
    return 0


cdef double cut_value(State *st, int q) noexcept nogil:
    """The learned evaluation of the unfinished ``st`` for seat ``q`` (a ``value`` rollout's
    cut), from what ``q`` would see there; at ``q``'s swap decision, the better option."""
    cdef double share[NCOL]
    unseen_shares(st, q, share)
    return best_option(st, q, share, st.phase == PH_SWAP and st.current == q)


cdef void seat_values(State *st, double *out) noexcept nogil:
    """The value of ``st`` for each seat (see ``MARGIN``): its share of first place if the game
    is over, else (a ``value`` rollout's cut) its ``cut_value``, plus the margin term; solo: the
    lowest counter over the cap, or its ``cut_value``."""
    cdef int16_t rk[MAXP]
    cdef int low[MAXP]
    cdef int q, k, c, nfirst = 0, other
    cdef double share
    cdef bint over = st.phase == PH_OVER
    ranks(st, rk)
    for k in range(st.rules.n_sets):
        low[k] = st.score[k][0]
        for c in range(1, NCOL):
            low[k] = st.score[k][c] if st.score[k][c] < low[k] else low[k]
        nfirst += rk[k] == 0           # seat k < n_sets stands for counter set k
    for q in range(st.rules.players):
        k = st.rules.counter_of[q]
        if st.rules.n_sets == 1:
            out[q] = <double>low[k] / st.rules.cap if over else cut_value(st, q)
            continue
        if over:
            share = 1.0 / nfirst if rk[q] == 0 else 0.0
        else:
            share = cut_value(st, q)
        other = -1
        for c in range(st.rules.n_sets):
            if c != k and low[c] > other:
                other = low[c]
        out[q] = share + MARGIN * (low[k] - other) / st.rules.cap


cdef inline uint64_t tie_key(int action, uint64_t salt) noexcept nogil:
    return mix64(<uint64_t>action * 0x9E3779B97F4A7C15ULL + salt) & 0xFFFFFFFFULL


cdef inline int keep_best(uint64_t *keys, int32_t *acts, int n, int cap, uint64_t key,
                          int action) noexcept nogil:
    """Insert (key, action) into the ``n`` best kept so far, sorted by key descending, at most
    ``cap`` of them; return the new count."""
    cdef int i
    if n == cap:
        if key <= keys[n - 1]:
            return n
        n -= 1
    i = n
    while i > 0 and keys[i - 1] < key:
        keys[i] = keys[i - 1]
        acts[i] = acts[i - 1]
        i -= 1
    keys[i] = key
    acts[i] = action
    return n + 1


cdef inline int earns(const Gain *gn, int c, int g) noexcept nogil:
    """1 if ``g`` points take counter ``c`` to its next threshold (a bonus play, RULES §3.4)."""
    return (gn.d[c] > gn.m[c]) & (gn.d[c] - g <= gn.m[c])


cdef inline uint64_t cand_key(int bonus, int value, int action, uint64_t salt) noexcept nogil:
    """The order of the candidates: bonus plays earned, then greedy value, then a random tie key."""
    return ((<uint64_t>bonus) << 56) | ((<uint64_t>value) << 32) | tie_key(action, salt)


cdef inline int scan_edge(State *st, const Rack *r, const Gain *gn, int e, uint64_t salt,
                          int bonus_cap, bint positive_only, uint64_t *keys, int32_t *out,
                          int n, int top_k, int *n_positive) noexcept nogil:
    """Offer every (tile, way round) of the rack on edge ``e`` to the ``top_k`` best kept in
    ``keys``/``out`` (``keep_best``); with ``positive_only``, only those earning a bonus play
    or a positive greedy value. Counts those in ``n_positive``."""
    cdef const uint8_t *pa = st.pot[EDGE_A[e]]
    cdef const uint8_t *pb = st.pot[EDGE_B[e]]
    cdef int va[NCOL]
    cdef int vb[NCOL]
    cdef int ba[NCOL]
    cdef int bb[NCOL]
    cdef int j, c, lo, hi, a, v, bonus, way
    for c in range(NCOL):
        va[c] = gain_v(gn, c, pa[c])
        vb[c] = gain_v(gn, c, pb[c])
        ba[c] = earns(gn, c, pa[c])
        bb[c] = earns(gn, c, pb[c])
    for j in range(r.ntypes):
        lo = r.lo[j]
        hi = r.hi[j]
        for way in range(1 if lo == hi else 2):
            if lo == hi:
                a = e * 36 + lo * 7
                v = gain_v(gn, lo, pa[lo] + pb[lo])
                bonus = earns(gn, lo, pa[lo] + pb[lo])
            elif way == 0:
                a = e * 36 + lo * 6 + hi
                v = va[lo] + vb[hi]
                bonus = ba[lo] + bb[hi]
            else:
                a = e * 36 + hi * 6 + lo
                v = va[hi] + vb[lo]
                bonus = ba[hi] + bb[lo]
            bonus = bonus if bonus < bonus_cap else bonus_cap
            if v > 0 or bonus > 0:
                n_positive[0] += 1
            elif positive_only:
                continue
            n = keep_best(keys, out, n, top_k, cand_key(bonus, v, a, salt), a)
    return n


cdef int candidates(State *st, int top_k, uint64_t salt, int32_t *out) noexcept nogil:
    """The moves a search considers here: swap and keep at the swap decision; else the legal
    placements, the ``top_k`` best by (bonus plays earned, greedy value), best first, ties in a
    random order drawn from ``salt`` (``top_k == 0``: every legal placement, in action order).
    The bonus plays come first because the greedy value of a counter's last points is small
    (17 to 18 is worth 1) while the bonus placements it earns are worth a whole move each.

    Only edges with a cell live in a rack colour can earn anything (``greedy_edges``): they are
    scanned first; if they hold at least ``top_k`` placements earning something, those are the
    answer, else every allowed edge is scanned (the same answer, found the long way)."""
    cdef uint64_t keys[MAXCAND]
    cdef int16_t edges[NEDGE]
    cdef Rack r
    cdef Gain gn
    cdef int n = 0, i, w, e, bonus_cap, ne, allowed, n_positive = 0
    cdef uint64_t bits
    cdef uint8_t used
    cdef bint first
    if st.phase == PH_SWAP:
        out[0] = ACT_SWAP
        out[1] = ACT_KEEP
        return 2
    if st.phase != PH_PLACE:
        return 0
    rack_of(st, &r)
    if r.ntypes == 0:
        return 0
    if top_k == 0:
        return legal_actions(st, out)
    if top_k > MAXCAND:
        top_k = MAXCAND
    gain_of(st, &gn)
    bonus_cap = (0 if st.rules.bonus_rule == BONUS_NONE
                 else 1 if st.rules.bonus_rule == BONUS_ONE else 2)
    ne = greedy_edges(st, &r, edges, &allowed)
    for i in range(ne):
        n = scan_edge(st, &r, &gn, edges[i], salt, bonus_cap, True, keys, out, n, top_k,
                      &n_positive)
    if n_positive >= top_k:
        return n
    n = 0
    first = is_first_placement(st)
    used = used_symbols(st)
    for w in range(NWORDS):
        bits = st.free_bits[w]
        while bits:
            e = w * 64 + ctz64(bits)
            bits &= bits - 1
            if first and not first_round_ok(st, e, used):
                continue
            n = scan_edge(st, &r, &gn, e, salt, bonus_cap, False, keys, out, n, top_k,
                          &n_positive)
    return n


cdef double playout(const Pool *pool, State *work, int action, uint64_t seed,
                    const Search *sp) noexcept nogil:
    """One playout of ``action`` for the pool's observer: a determinisation, the action, a
    rollout, all from a generator seeded with ``seed``; the observer's value."""
    cdef SplitMix g
    cdef Draws ds
    cdef double values[MAXP]
    sm_seed(&g, seed)
    memset(&ds, 0, sizeof(Draws))
    ds.rng = &g.gen
    determinise(work, pool, &ds)
    apply_action(work, action, &ds)
    rollout(work, sp, pool.st.turn + sp.depth, &g.gen, &ds)   # a value rollout: a fixed turn
    seat_values(work, values)
    return values[pool.seat]


cdef struct Arm:
    double mean
    int32_t index               # the candidate's place in the greedy order


cdef int arm_order(const void *x, const void *y) noexcept nogil:
    """Higher mean first, then the greedy order (a total order: the sort is deterministic)."""
    cdef const Arm *a = <const Arm *>x
    cdef const Arm *b = <const Arm *>y
    if a.mean != b.mean:
        return -1 if a.mean > b.mean else 1
    return a.index - b.index


cdef int choose_mc(State *st, const Search *sp, bitgen_t *rng) noexcept nogil:
    """Flat Monte Carlo with sequential halving (Karnin, Koren, Somekh 2013): the candidates
    get equal shares of each round's playouts, and the better half (by mean value) survives to
    the next round, until one is left. Round r's j-th playout of every candidate uses the same
    determinisation and generator seed (common random numbers). Each round gives every survivor
    at least one playout, so a budget below the candidates' number is exceeded."""
    cdef int32_t cand[MAXCAND]
    cdef uint64_t seed = rng.next_uint64(rng.state)
    cdef int n = candidates(st, sp.top_k, seed, cand)
    cdef int rounds = 0, r, i, j, m, per, remaining = sp.iterations, best
    cdef Pool *pool
    cdef State *work
    cdef Arm *arms
    cdef double *total
    cdef int32_t *count
    if n <= 1:
        return cand[0] if n == 1 else -1
    pool = <Pool *>malloc(sizeof(Pool) + sizeof(State))
    arms = <Arm *>malloc(n * sizeof(Arm))
    total = <double *>calloc(n, sizeof(double))
    count = <int32_t *>calloc(n, sizeof(int32_t))
    if pool == NULL or arms == NULL or total == NULL or count == NULL:
        free(pool); free(arms); free(total); free(count)
        return choose_greedy(st, rng)           # out of memory: play greedy
    work = <State *>(pool + 1)
    pool_of(st, st.current, pool)
    while (1 << rounds) < n:
        rounds += 1
    m = n
    for i in range(n):
        arms[i].index = i
        arms[i].mean = 0.0
    for r in range(rounds):
        per = remaining // (rounds - r) // m
        per = per if per > 1 else 1
        for j in range(per):
            for i in range(m):
                total[arms[i].index] += playout(pool, work, cand[arms[i].index],
                                                mix64(seed ^ ((<uint64_t>(r + 1) << 40) + j)),
                                                sp)
                count[arms[i].index] += 1
        remaining -= per * m
        for i in range(m):
            arms[i].mean = total[arms[i].index] / count[arms[i].index]
        qsort(arms, m, sizeof(Arm), arm_order)
        m = (m + 1) // 2
    best = cand[arms[0].index]
    free(pool); free(arms); free(total); free(count)
    return best


cdef struct Node:
    # a node of the information-set tree: the action from its parent, by ``player``
    double reward               # the sum of the playouts' values for ``player``
    int32_t child               # first child, -1 if none
    int32_t sibling             # next sibling, -1 if none
    int32_t visits
    int32_t avail               # times it was available when its parent selected (SO-ISMCTS)
    int16_t action
    uint8_t player

cdef enum:
    MAX_DEPTH = 512             # moves from the root an iteration may go through the tree


cdef int choose_mcts(State *st, const Search *sp, bitgen_t *rng) noexcept nogil:
    """Single-observer information-set MCTS (Cowling, Powley, Whitehouse 2012): each iteration
    determinises the hidden racks for the seat to move, descends the tree by UCB1 over the
    children whose action is a candidate in this determinisation (with availability counts),
    expands the first untried candidate (greedy order), rolls out, and adds the playout's value
    for each node's player to that node. The node pool (one node per iteration) is allocated
    once. The move is the root child visited most (ties: the higher mean)."""
    cdef int32_t cand[MAXCAND]
    cdef int32_t root[MAXCAND]
    cdef uint8_t matched[MAXCAND]
    cdef int32_t path[MAX_DEPTH]
    cdef double values[MAXP]
    cdef uint64_t seed = rng.next_uint64(rng.state)
    cdef int n = candidates(st, sp.top_k, seed, cand)
    cdef int it, i, nc, node, ch, depth, nn, untried, pick, best
    cdef double u, best_u, logn
    cdef Pool *pool
    cdef State *work
    cdef Node *nodes
    cdef Node *x
    cdef SplitMix g
    cdef Draws ds
    if n <= 1:
        return cand[0] if n == 1 else -1
    memcpy(root, cand, n * sizeof(int32_t))
    pool = <Pool *>malloc(sizeof(Pool) + sizeof(State))
    nodes = <Node *>malloc((<size_t>sp.iterations + 1) * sizeof(Node))
    if pool == NULL or nodes == NULL:
        free(pool); free(nodes)
        return choose_greedy(st, rng)           # out of memory: play greedy
    work = <State *>(pool + 1)
    pool_of(st, st.current, pool)
    sm_seed(&g, seed)
    memset(&ds, 0, sizeof(Draws))
    ds.rng = &g.gen
    memset(&nodes[0], 0, sizeof(Node))
    nodes[0].child = -1
    nodes[0].sibling = -1
    nodes[0].action = -1
    nn = 1
    for it in range(sp.iterations):
        determinise(work, pool, &ds)
        node = 0
        depth = 0
        path[0] = 0
        while work.phase != PH_OVER and depth + 1 < MAX_DEPTH:
            # one tie order for the whole decision: the same information, the same candidates
            # (at the root they are the same in every determinisation: the mover's own rack)
            if node == 0:
                nc = n
                memcpy(cand, root, n * sizeof(int32_t))
            else:
                nc = candidates(work, sp.top_k, seed, cand)
            if nc == 0:
                break
            memset(matched, 0, nc)
            ch = nodes[node].child
            while ch >= 0:
                for i in range(nc):
                    if cand[i] == nodes[ch].action:
                        matched[i] = 1
                        break
                ch = nodes[ch].sibling
            untried = -1
            for i in range(nc):
                if not matched[i]:
                    untried = i
                    break
            if untried >= 0 and nn <= sp.iterations:
                # expand: a new child for the first untried candidate, then roll out from it
                x = &nodes[nn]
                x.reward = 0.0
                x.visits = 0
                x.avail = 1
                x.action = cand[untried]
                x.player = work.current
                x.child = -1
                x.sibling = nodes[node].child
                nodes[node].child = nn
                apply_action(work, cand[untried], &ds)
                depth += 1
                path[depth] = nn
                nn += 1
                break
            # select among the available children by UCB1 with availability counts
            pick = -1
            best_u = -1e300
            ch = nodes[node].child
            while ch >= 0:
                x = &nodes[ch]
                for i in range(nc):
                    if cand[i] == x.action:
                        x.avail += 1
                        logn = log(<double>x.avail)
                        u = x.reward / x.visits + sp.explore * sqrt(logn / x.visits)
                        if u > best_u:
                            best_u = u
                            pick = ch
                        break
                ch = x.sibling
            if pick < 0:
                break
            apply_action(work, nodes[pick].action, &ds)
            node = pick
            depth += 1
            path[depth] = pick
        rollout(work, sp, work.turn + sp.depth, &g.gen, &ds)   # value: depth turns on
        seat_values(work, values)
        nodes[0].visits += 1
        for i in range(1, depth + 1):
            x = &nodes[path[i]]
            x.visits += 1
            x.reward += values[x.player]
    best = -1
    ch = nodes[0].child
    while ch >= 0:
        x = &nodes[ch]
        if best < 0 or x.visits > nodes[best].visits or (
                x.visits == nodes[best].visits
                and x.reward * nodes[best].visits > nodes[best].reward * x.visits):
            best = ch
        ch = x.sibling
    pick = nodes[best].action if best >= 0 else cand[0]
    free(pool)
    free(nodes)
    return pick


include "genial/_value.pxi"


cdef int choose_policy(State *st, const Policy *pol, bitgen_t *rng) noexcept nogil:
    """The move of a seat's policy (a built-in one, a search, or the learned evaluation's)."""
    if st.phase == PH_OVER:
        return -1
    if pol.kind == POL_VALUE:
        return choose_value(st, pol.search.top_k, rng)
    if pol.kind == POL_MC:
        return choose_mc(st, &pol.search, rng)
    if pol.kind == POL_MCTS:
        return choose_mcts(st, &pol.search, rng)
    return choose(st, pol.kind, pol.epsilon, rng)


cdef int _t
common_init()
_build_tables()
STANDARD_COUNTS = tuple(STANDARD_SET[_t] for _t in range(NTYPE))
TRAVEL_COUNTS = tuple(TRAVEL_SET[_t] for _t in range(NTYPE))
TILES = tuple((TILE_LO[_t], TILE_HI[_t]) for _t in range(NTYPE))
EDGES = tuple((coords_of(EDGE_A[_t]), coords_of(EDGE_B[_t])) for _t in range(NEDGE))

# the numpy dtypes of the result structs, derived from them (as scikit-learn's NODE_DTYPE)
cdef GameRow _row_dummy
cdef GameLog _log_dummy
ROW_DTYPE = np.asarray(<GameRow[:1]>(&_row_dummy)).dtype
LOG_DTYPE = np.asarray(<GameLog[:1]>(&_log_dummy)).dtype
cdef Search _search_dummy
SEARCH_DTYPE = np.asarray(<Search[:1]>(&_search_dummy)).dtype
cdef State _state_dummy
STATE_DTYPE = np.asarray(<State[:1]>(&_state_dummy)).dtype   # a snapshot's fields, by name
MAX_PLAYERS = MAXP
TILE_SETS = {"standard": STANDARD_COUNTS, "travel": TRAVEL_COUNTS}


# ---------------------------------------------------------------------------------------------
# the Python face of the kernel

cdef int check_state(const State *st) except -1:
    """``ValueError`` naming the part, unless ``st`` is a state the kernel can act on: rules as
    ``Core()`` makes them, every seat, id, count and phase in range, at most ``BAG_CAP`` tiles
    in the bag and on the racks, the board's cells those of its area (walls outside, the
    printed symbols on their cells), and its derived parts (the free edges, their count, the
    potentials of the empty cells) exactly those its cells give. Every state the kernel makes
    passes; ``Core.restore`` and ``set_position`` (and the vector kernel) check with it what
    they are given. (A ``Core.__new__`` holds zeros, which fail here: it has no rules.)"""
    cdef const Params *r = &st.rules
    cdef State ref
    cdef int i, c, k, p, held = 0
    cdef uint8_t b
    if not 1 <= r.players <= MAXP:
        raise ValueError(f"rules: {r.players} players, not 1..{MAXP}")
    if not 1 <= r.radius <= 7 or not 1 <= r.rack_size <= MAXRACK:
        raise ValueError(f"rules: radius {r.radius} or rack size {r.rack_size} out of range")
    if not 1 <= r.cross <= r.cap <= 120:
        raise ValueError(f"rules: crossing {r.cross} and cap {r.cap} out of range")
    if r.bonus_rule > BONUS_ONE or r.first_rule > FIRST_SYMBOL_OR_TILE or r.swap_rule > 1:
        raise ValueError("rules: bad bonus, first-round or swap rule")
    if r.n_sets == r.players:
        for i in range(MAXP):
            if r.counter_of[i] != i:
                raise ValueError(f"rules: seat {i} scores on counter set {r.counter_of[i]}")
    elif r.n_sets == 2 and r.players == 4:
        for i in range(MAXP):
            if r.counter_of[i] != i % 2:
                raise ValueError(f"rules: seat {i} scores on counter set {r.counter_of[i]}")
    else:
        raise ValueError(f"rules: {r.n_sets} counter sets for {r.players} players")
    if st.current >= r.players:
        raise ValueError(f"current: no seat {st.current}")
    if st.phase > PH_OVER:
        raise ValueError(f"phase: no phase {st.phase}")
    if st.turn < 1 or st.placements < 0:
        raise ValueError(f"turn {st.turn} or placements {st.placements} out of range")
    for p in range(MAXP):
        b = st.first_symbol[p]
        if (b >= NCOL and b != ANYSYM and b != NOSYM) or (p >= r.players and b != NOSYM):
            raise ValueError(f"first symbol of seat {p}: {b}")
        if not -1 <= st.opening[p] < ACT_SWAP:
            raise ValueError(f"opening of seat {p}: {st.opening[p]}")
        for c in range(NCOL):
            if st.score[p][c] > (r.cap if p < r.n_sets else 0):
                raise ValueError(f"scores: counter set {p} colour {c} at {st.score[p][c]}")
        if st.rack_n[p] > (r.rack_size if p < r.players else 0):
            raise ValueError(f"rack of seat {p}: {st.rack_n[p]} tiles")
        for i in range(st.rack_n[p]):
            if st.rack[p][i] >= NTYPE:
                raise ValueError(f"rack of seat {p}: tile type {st.rack[p][i]}")
        held += st.rack_n[p]
    check_bag(&st.bag, NTYPE, "bag")
    if st.bag.n + held > BAG_CAP:
        raise ValueError(f"{st.bag.n} tiles in the bag and {held} on racks, at most {BAG_CAP}")
    for k in range(NCOL):
        if st.board[SYMBOL_CELL[k]] != k:
            raise ValueError(f"board: symbol {k} is not on its cell")
    for i in range(NCELL):
        b = st.board[i]
        if _is_symbol(i):
            continue
        if DIST[i] > r.radius:
            if b != WALL:
                raise ValueError(f"board: cell {coords_of(i)} is outside the area")
        elif b != EMPTY and b >= NCOL:
            raise ValueError(f"board: cell {coords_of(i)} holds {b}")
    # the derived parts, rebuilt from the cells (potentials do not depend on the order)
    memcpy(&ref.rules, r, sizeof(Params))
    _reset_board(&ref)
    for i in range(NCELL):
        if ref.board[i] == EMPTY and st.board[i] < NCOL:
            fill(&ref, i, st.board[i])
    if ref.n_free != st.n_free or memcmp(ref.free_bits, st.free_bits, sizeof(ref.free_bits)):
        raise ValueError("board: the free edges are not those of its cells")
    for i in range(NCELL):
        if ref.board[i] == EMPTY and (ref.live[i] != st.live[i]
                                      or memcmp(ref.pot[i], st.pot[i], NCOL)):
            raise ValueError(f"board: the potentials of cell {coords_of(i)} are not its cells'")
    return 0


cdef bint is_fresh_board(const State *st) noexcept nogil:
    """Whether no tile is on the board (every area cell but the symbols' is empty)."""
    cdef int i
    for i in range(NCELL):
        if DIST[i] <= st.rules.radius and not _is_symbol(i) and st.board[i] != EMPTY:
            return False
    return True


cdef int _check_edge(int edge) except -1:
    if not 0 <= edge < NEDGE:
        raise ValueError(f"edge {edge} is outside 0..{NEDGE - 1}")
    return 0


cdef int _check_search(const Search *sp) except -1:
    if not 1 <= sp.iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be in 1..{MAX_ITERATIONS}, got {sp.iterations}")
    if sp.rollout != POL_RANDOM and sp.rollout != POL_GREEDY and sp.rollout != POL_VALUE:
        raise ValueError(f"bad rollout policy code {sp.rollout}")
    if sp.rollout == POL_VALUE:
        check_value_ready()
        if sp.depth > MAX_DEPTH_TURNS:
            raise ValueError(f"depth must be in 0..{MAX_DEPTH_TURNS}, got {sp.depth}")
    if sp.top_k > MAXCAND:
        raise ValueError(f"top_k must be in 0..{MAXCAND}, got {sp.top_k}")
    if not 0.0 <= sp.explore <= 100.0:
        raise ValueError(f"explore must be in [0, 100], got {sp.explore}")
    return 0


# the bodies the Python face shares with the card kernel's are genial/_state.pxi; what they ask
# of the board game:

ctypedef State GState
ITEM = "tile"
PILE = "bag"
N_ITEMS = NTYPE
ITEM_TEXT = TILES

cdef enum:
    MAX_DRAWS = BAG_CAP         # one call draws at most the whole bag
    SWAP_ACTION = ACT_SWAP      # (and the batch engine's: swap, keep and the actions' count)
    N_ACTIONS = ACT_SIZE


cdef inline void sort_pile(State *st) noexcept nogil:
    bag_sort(&st.bag)


cdef int no_source(State *st, Draws *ds, uint8_t *buf) except -1:
    if st.bag.n > 0:
        raise ValueError("a bit generator or a script is needed to draw")
    return 0


cdef int _check_undealt(const State *st) except -1:
    """``ValueError`` unless every rack is empty (``next_draw`` of the deal)."""
    cdef int p
    for p in range(st.rules.players):
        if st.rack_n[p]:
            raise ValueError("the racks are already dealt")
    return 0


include "genial/_state.pxi"


cdef class Core(_State):
    """A game state of the kernel, with checked entry points for the Python layer.

    Made empty (board empty, bag full, nobody dealt: call :meth:`deal`) under rules that are all
    given, by keyword (``genial.Rules.core()`` is the one caller that knows them): ``players``,
    ``radius`` of the area, ``rack_size``, counter ``cap`` and ``cross`` (the crossing point where
    excess points are lost), ``bonus`` (0 none, 1 one per counter reaching a threshold, 2 at most
    one per placement), ``first`` (0 no first-round rule, 1 a symbol no earlier first placement
    touched, 2 a symbol or a tile), ``swap`` (whether the rack swap is offered), ``teams``
    (seats 0+2 and 1+3 share counters) and ``tile_counts`` (tiles of each of the 21 types).
    Pickles as its bytes.
    """

    search_policies = SEARCH_POLICIES      # the kernel policies with parameters (``choose``)

    def __init__(self, *, int players, int radius, int rack_size, int cap, int cross, int bonus,
                 int first, bint swap, bint teams, tile_counts):
        cdef uint8_t counts[NTYPE]
        cdef int t, total = 0
        if not 1 <= players <= MAXP:
            raise ValueError(f"players must be 1 to 4, got {players}")
        if not 1 <= radius <= 7 or not 1 <= rack_size <= MAXRACK or not 1 <= cross <= cap <= 120:
            raise ValueError("bad radius, rack size, crossing or cap")
        if bonus not in (BONUS_NONE, BONUS_EACH, BONUS_ONE):
            raise ValueError(f"bad bonus rule {bonus}")
        if first not in (FIRST_NONE, FIRST_NEW_SYMBOL, FIRST_SYMBOL_OR_TILE):
            raise ValueError(f"bad first-round rule {first}")
        if teams and players != 4:
            raise ValueError("teams need 4 players")
        row = list(tile_counts)
        if len(row) != NTYPE:
            raise ValueError(f"tile_counts: {NTYPE} counts expected")
        for t in range(NTYPE):
            counts[t] = small_int(row[t], 0, BAG_CAP, "tile_counts: a count")
            total += counts[t]
        if total > BAG_CAP:
            raise ValueError(f"at most {BAG_CAP} tiles")
        _init_state(&self.st, players, radius, rack_size, cap, cross, bonus, first, swap, teams,
                    counts)

    # -- copying, snapshots, pickling -----------------------------------------------------------
    def copy(self):
        cdef Core other = Core.__new__(Core)
        memcpy(&other.st, &self.st, sizeof(State))
        return other

    def __eq__(self, other):
        return isinstance(other, Core) and self.snapshot() == other.snapshot()

    __hash__ = None

    # -- reading ---------------------------------------------------------------------------------
    @property
    def players(self):
        return self.st.rules.players

    @property
    def turn(self):
        return self.st.turn

    @property
    def placements(self):
        return self.st.placements

    @property
    def n_free(self):
        return self.st.n_free

    @property
    def bag_n(self):
        return self.st.bag.n

    @property
    def radius(self):
        return self.st.rules.radius

    @property
    def cap(self):
        return self.st.rules.cap

    @property
    def rack_size(self):
        return self.st.rules.rack_size

    def scores(self):
        """Counters per seat, shape (players, 6)."""
        out = np.zeros((self.st.rules.players, NCOL), dtype=np.int64)
        cdef int i, c
        for i in range(self.st.rules.players):
            for c in range(NCOL):
                out[i, c] = self.st.score[self.st.rules.counter_of[i]][c]
        return out

    def rack(self, int p):
        """Tile type ids of seat ``p``'s rack, sorted."""
        if not 0 <= p < self.st.rules.players:
            raise ValueError(f"no seat {p}")
        return sorted(self.st.rack[p][i] for i in range(self.st.rack_n[p]))

    def bag_counts(self):
        out = [0] * NTYPE
        cdef int i
        for i in range(self.st.bag.n):
            out[self.st.bag.item[i]] += 1
        return out

    def board(self):
        """The padded board as a bytes object of length 289 (colour, 6 = empty, 7 = wall)."""
        return bytes(self.st.board[i] for i in range(NCELL))

    def first_symbols(self):
        return [self.st.first_symbol[i] for i in range(self.st.rules.players)]

    def ranks(self):
        cdef int16_t out[MAXP]
        ranks(&self.st, out)
        return np.array([out[i] for i in range(self.st.rules.players)], dtype=np.int64)

    # -- moves -----------------------------------------------------------------------------------
    def action_mask(self):
        """A bool array of ``ACTION_SIZE``, True at the legal actions."""
        cdef int32_t ids[ACT_SIZE]
        cdef int n = legal_actions(&self.st, ids)
        cdef int i
        out = np.zeros(ACT_SIZE, dtype=np.bool_)
        cdef uint8_t[::1] view = out.view(np.uint8)
        for i in range(n):
            view[ids[i]] = 1
        return out

    def illegal_reason(self, int action):
        """``None`` if legal, else a word for why not (see ``ILLEGAL``)."""
        cdef int why = illegal_reason(&self.st, action)
        return None if why == ILLEGAL_NONE else ILLEGAL[why]

    def is_first_placement(self):
        return bool(self.st.phase == PH_PLACE and is_first_placement(&self.st))

    def first_round_ok(self, int edge):
        _check_edge(edge)
        return bool(first_round_ok(&self.st, edge, used_symbols(&self.st)))

    def is_free_edge(self, int edge):
        _check_edge(edge)
        return bool(is_free(&self.st, edge))

    def gains(self, int action):
        """Points each half of placement ``action`` (``0 <= action < ACTION_SWAP``) would score
        now, before the cap: colour ``c0 = action // 6 % 6`` on its edge's first cell, ``c1 =
        action % 6`` on the second (the tile need not be on the rack, nor the cells empty)."""
        if not 0 <= action < ACT_SWAP:
            raise ValueError(f"action {action} is not a placement")
        return (self.st.pot[EDGE_A[action // 36]][(action // 6) % 6],
                self.st.pot[EDGE_B[action // 36]][action % 6])

    def deal(self, bit_generator=None, script=None):
        """Fill every rack from the bag; return the drawn tile types."""
        return run_step(&self.st, -1, bit_generator, script)

    def choose(self, str policy, object bit_generator, double epsilon=0.1, int iterations=0,
               str rollout="greedy", int top_k=0, double explore=0.7, int depth=0):
        """The action a kernel policy picks here (``bit_generator``: a numpy BitGenerator).

        ``policy`` is a key of ``POLICIES``; ``"value"`` takes ``top_k`` (its candidates, as a
        search's); the search policies (``"mc"``, ``"mcts"``) take ``iterations`` (playouts or
        iterations per decision, 1 to ``MAX_ITERATIONS``), ``rollout`` (one of ``ROLLOUTS``;
        ``"value"``: greedy for ``depth`` turns, 0 to ``MAX_ROLLOUT_DEPTH``, then the learned
        evaluation), ``top_k`` (candidates: greedy's best k placements, 0 for every legal one)
        and ``explore`` (mcts's UCB constant); they play on copies and never read the other
        seats' racks (docs/search.md). Runs without the GIL.
        """
        cdef Policy pol
        cdef State work
        cdef bitgen_t *rng = bitgen_of(bit_generator)
        cdef int a
        memset(&pol, 0, sizeof(Policy))
        if policy not in POLICIES:
            raise ValueError(f"policy: one of {', '.join(POLICIES)}, got {policy[:40]!r}")
        pol.kind = POLICIES[policy]
        pol.epsilon = epsilon
        if pol.kind == POL_VALUE:
            check_value_ready()
            iterations = 1
        if pol.kind >= POL_MC:
            if rollout not in ROLLOUTS:
                raise ValueError(f"rollout: one of {', '.join(ROLLOUTS)}, got {rollout!r}")
            if not 0 <= top_k <= MAXCAND:
                raise ValueError(f"top_k must be in 0..{MAXCAND}, got {top_k}")
            pol.search.iterations = iterations
            pol.search.rollout = POLICIES[rollout]
            pol.search.top_k = top_k
            pol.search.explore = explore
            if not 0 <= depth <= MAX_DEPTH_TURNS:
                raise ValueError(f"depth must be in 0..{MAX_DEPTH_TURNS}, got {depth}")
            pol.search.depth = depth
            _check_search(&pol.search)
        if self.st.phase == PH_OVER:
            raise ValueError("the game is over")
        memcpy(&work, &self.st, sizeof(State))     # no other thread sees a state half changed
        with bit_generator.lock, nogil:
            a = choose_policy(&work, &pol, rng)
        return a

    def value_features(self, int seat, bint fresh=False):
        """The learned evaluation's features of this position for ``seat`` (docs/value.md;
        ``fresh``: as if its rack were swapped for a new one), a float64 array of
        ``N_FEATURES``. They use only what ``seat`` can see."""
        cdef double share[NCOL]
        cdef double f[NFEAT]
        cdef int i
        if not 0 <= seat < self.st.rules.players:
            raise ValueError(f"no seat {seat}")
        unseen_shares(&self.st, seat, share)
        value_features(&self.st, seat, share, fresh, f)
        return np.array([f[i] for i in range(NFEAT)])

    def value(self, int seat, bint fresh=False):
        """The learned evaluation of this position for ``seat``: its estimated share of first
        place (solo: its lowest counter over the cap); exact once the game is over."""
        cdef double share[NCOL]
        if not 0 <= seat < self.st.rules.players:
            raise ValueError(f"no seat {seat}")
        if self.st.phase == PH_OVER:
            return final_value(&self.st, seat)
        check_value_ready()
        unseen_shares(&self.st, seat, share)
        return rate(&self.st, seat, share, fresh)

    def draw_values(self, int seat):
        """The luck adjustment's terms of ``seat``'s next draw (``run_chunk(luck=...)``): an
        array of the learned evaluation for ``seat`` just after it draws a tile of each type
        (NaN for a type not in the bag), and their expectation over the bag. ``ValueError``
        unless the seat has room on its rack and the bag a tile."""
        cdef State work
        cdef double values[NTYPE]
        cdef double expected
        cdef int t, i
        cdef int counts[NTYPE]
        if not 0 <= seat < self.st.rules.players:
            raise ValueError(f"no seat {seat}")
        if self.st.phase == PH_OVER:
            raise ValueError("the game is over: nothing is drawn")
        if self.st.rack_n[seat] >= self.st.rules.rack_size or self.st.bag.n == 0:
            raise ValueError(f"seat {seat} draws nothing: its rack is full or the bag empty")
        check_value_ready()
        memcpy(&work, &self.st, sizeof(State))
        expected = draw_values(&work, seat, values)
        for t in range(NTYPE):
            counts[t] = 0
        for i in range(work.bag.n):
            counts[work.bag.item[i]] += 1
        present = np.full(NTYPE, np.nan)
        for t in range(NTYPE):
            if counts[t] > 0:
                present[t] = values[t]
        return present, expected

    def redeal(self, int view_seat, object bit_generator):
        """Determinise in place for ``view_seat``: every other seat's rack goes back to the bag,
        the bag is put in canonical order, and those seats draw as many tiles again (in seat
        order, from ``bit_generator``, a numpy BitGenerator; a seat at its swap decision first,
        from the tiles showing none of its lowest colours, RULES §3.5). Only what ``view_seat``
        cannot see changes (the other racks and the bag); the sizes of the racks stay."""
        cdef Draws ds
        cdef State work
        cdef bitgen_t *rng = bitgen_of(bit_generator)
        if not 0 <= view_seat < self.st.rules.players:
            raise ValueError(f"no seat {view_seat}")
        memset(&ds, 0, sizeof(Draws))
        ds.rng = rng
        memcpy(&work, &self.st, sizeof(State))     # changed without the GIL: a copy, kept
        with bit_generator.lock, nogil:
            redeal(&work, view_seat, &ds)
        memcpy(&self.st, &work, sizeof(State))

    def give(self, int seat, int tile):
        """Move one tile of type ``tile`` from the bag to ``seat``'s rack (before a deal)."""
        if not 0 <= seat < self.st.rules.players or not 0 <= tile < NTYPE:
            raise ValueError(f"bad seat {seat} or tile type {tile}")
        if self.st.rack_n[seat] >= self.st.rules.rack_size:
            raise ValueError(f"the rack of seat {seat} is full")
        if not bag_take(&self.st.bag, tile):
            raise ValueError(f"no tile {TILES[tile]} left in the bag")
        self.st.rack[seat][self.st.rack_n[seat]] = tile
        self.st.rack_n[seat] += 1

    # -- building a position ---------------------------------------------------------------------
    def set_position(self, dict cells, scores, racks, bag_counts, int current, int phase,
                     int bonus, first_symbols, int turn):
        """Replace the whole state under the same rules. ``cells`` maps padded indices to
        colours (tile halves only), ``scores`` holds six counters per seat, ``racks`` tile type
        ids per seat, ``bag_counts`` the bag's tiles per type, ``first_symbols`` each seat's
        ``first_symbol`` code (a colour, 254 or 255). ``genial.notation`` checks what a
        position means by the rules; this checks every value the kernel relies on
        (``ValueError`` naming it, ``check_state``) and leaves the state unchanged on error."""
        cdef State work
        cdef uint8_t counts[NTYPE]
        cdef int i, c, z, players = self.st.rules.players
        cdef list row
        memcpy(&work, &self.st, sizeof(State))
        if not 1 <= players <= MAXP:
            raise ValueError("this Core has no rules (made with Core.__new__)")
        _reset_board(&work)
        for key, value in list(cells.items()):
            z = small_int(key, 0, NCELL - 1, "cells: a cell index")
            c = small_int(value, 0, NCOL - 1, f"cells: the colour of cell {z}")
            if DIST[z] > work.rules.radius or work.board[z] != EMPTY:
                raise ValueError(f"cells: {coords_of(z)} is not a free cell of the area")
            fill(&work, z, c)
        for i in range(players):
            row = list(scores[i])
            if len(row) != NCOL:
                raise ValueError(f"scores of seat {i}: {NCOL} counters expected")
            for c in range(NCOL):
                work.score[work.rules.counter_of[i]][c] = small_int(
                    row[c], 0, work.rules.cap, f"scores of seat {i}")
            row = list(racks[i])
            if len(row) > work.rules.rack_size:
                raise ValueError(f"rack of seat {i}: {len(row)} tiles, at most "
                                 f"{work.rules.rack_size}")
            work.rack_n[i] = len(row)
            for c in range(len(row)):
                work.rack[i][c] = small_int(row[c], 0, NTYPE - 1, f"rack of seat {i}: a tile type")
            work.first_symbol[i] = small_int(first_symbols[i], 0, 255, f"first symbol of seat {i}")
            work.opening[i] = -1
            work.n_bonus[i] = 0
            work.n_swaps[i] = 0
        row = list(bag_counts)
        if len(row) != NTYPE:
            raise ValueError(f"bag: {NTYPE} counts expected")
        z = 0
        for i in range(NTYPE):
            counts[i] = small_int(row[i], 0, BAG_CAP, "bag: a count")
            z += counts[i]
        if z > BAG_CAP:
            raise ValueError(f"bag: {z} tiles, at most {BAG_CAP}")
        bag_fill(&work.bag, counts, NTYPE)
        work.current = small_int(current, 0, players - 1, "current: a seat")
        work.phase = small_int(phase, 0, PH_OVER, "phase")
        work.bonus = small_int(bonus, 0, 255, "bonus")
        work.turn = small_int(turn, 1, 32767, "turn")
        work.placements = len(cells) // 2
        check_state(&work)
        memcpy(&self.st, &work, sizeof(State))


# ---------------------------------------------------------------------------------------------
# whole games: the batch engine

# the batch engine (play_game, run_chunk) is genial/_batch.pxi, shared with the card game's
# kernel; what it asks of the board game:

ctypedef GameRow GRow
ctypedef GameLog GLog


cdef inline int choose_seat(State *st, const Policy *pol, bitgen_t *rng) noexcept nogil:
    if pol.kind < POL_MC:              # the built-in policies inline, the searches called
        return choose(st, pol.kind, pol.epsilon, rng)
    return choose_policy(st, pol, rng)


cdef void write_row(State *st, GameRow *row, int stop) noexcept nogil:
    """The result row of a finished game; truncated if it stopped with no legal move
    (``play_game``'s ``stop`` code 1)."""
    cdef int16_t rk[MAXP]
    cdef int i, c, first = -1, nfirst = 0
    ranks(st, rk)
    memset(row, 0, sizeof(GameRow))
    for i in range(st.rules.players):
        for c in range(NCOL):
            row.scores[i][c] = st.score[st.rules.counter_of[i]][c]
        row.ranks[i] = rk[i]
        row.bonus[i] = st.n_bonus[i]
        row.swaps[i] = st.n_swaps[i]
        row.opening[i] = st.opening[i]
        if rk[i] == 0 and i < st.rules.n_sets:   # seat i < n_sets stands for counter set i
            nfirst += 1
            first = i
    row.winner = first if nfirst == 1 else -1
    row.placements = st.placements
    row.turns = st.turn
    row.truncated = stop == 1


cdef int read_start(object start, State *out, bint deal) except -1:
    """Copy ``start`` (a ``Core``), its bag in canonical order: the games depend on the start's
    contents only. Returns its seats."""
    cdef Core core
    if not isinstance(start, Core):
        raise TypeError(f"start: a Core, got {type(start).__name__}")
    core = start
    if not 1 <= core.st.rules.players <= MAXP:
        raise ValueError("start: this Core has no rules (made with Core.__new__)")
    memcpy(out, &core.st, sizeof(State))
    bag_sort(&out.bag)
    return out.rules.players


cdef int read_seats(const uint8_t[::1] policies, const double[::1] epsilons, object search,
                    int players, Policy *pols) except -1:
    """The seats' policies; a search's parameters from ``search`` (``SEARCH_DTYPE``)."""
    cdef uint8_t codes[MAXP]
    cdef double eps[MAXP]
    cdef const Search[::1] params = None
    cdef int i
    read_policies(policies, epsilons, players, POL_VALUE, codes, eps)
    if search is not None:
        params = search
    for i in range(players):
        pols[i].kind = codes[i]
        pols[i].epsilon = eps[i]
        if codes[i] >= POL_MC:
            if params is None or params.shape[0] <= i:
                raise ValueError("a search or value policy needs its parameters (search=)")
            pols[i].search = params[i]
            _check_search(&pols[i].search)
        if codes[i] == POL_VALUE:
            check_value_ready()
    return 0


cdef int luck_ready() except -1:
    """The luck of the draws is measured by the learned evaluation (``draw_values``)."""
    return check_value_ready()


include "genial/_batch.pxi"


def value_samples(object start, object chance, object policy, const uint8_t[::1] policies,
                  const double[::1] epsilons, object search, float[:, ::1] features,
                  int16_t[::1] seats, float[::1] targets, Py_ssize_t games):
    """Training positions for the learned evaluation (docs/value.md): up to ``games`` games
    from ``start`` (a ``Core``, dealt first), draws from ``chance``, the seats' policies
    (``policies``, ``epsilons``, ``search`` as for ``run_chunk``) from ``policy``; after every
    placement that does not end the game, one row: the ``value_features`` of the position for
    the seat that placed (as ``choose_value`` sees it), that seat, and once the game is over
    the target, ``final_value`` for that seat. Stops before a game that might not fit the
    rows left (a game has fewer placements than half the area's cells plus one). Returns
    ``(games played, rows written)``; a game that stops with no legal move keeps no rows."""
    cdef State base
    cdef State st
    cdef Policy pols[MAXP]
    cdef Draws ds
    cdef double share[NCOL]
    cdef double f[NFEAT]
    cdef bitgen_t *rng = bitgen_of(chance)
    cdef bitgen_t *prng = bitgen_of(policy)
    cdef Py_ssize_t rows = features.shape[0], n = 0, g = 0, first, i
    cdef int a, p, more, j, stuck, per_game, players
    if chance is policy:
        raise ValueError("the chance and policy streams must be two bit generators")
    if features.shape[1] != NFEAT or seats.shape[0] != rows or targets.shape[0] != rows:
        raise ValueError(f"features: (rows, {NFEAT}); seats and targets: one per row")
    if games < 0:
        raise ValueError("games must be >= 0")
    players = read_start(start, &base, True)
    memset(pols, 0, sizeof(pols))
    read_seats(policies, epsilons, search, players, pols)
    per_game = N_AREA_CELLS[base.rules.radius] // 2 + 1
    memset(&ds, 0, sizeof(Draws))
    ds.rng = rng
    with chance.lock, policy.lock, nogil:
        while g < games and rows - n >= per_game:
            memcpy(&st, &base, sizeof(State))
            deal(&st, &ds)
            first = n
            stuck = 0
            while st.phase != PH_OVER:
                a = choose_seat(&st, &pols[st.current], prng)
                if a < 0:
                    stuck = 1
                    break
                if a >= ACT_SWAP:
                    apply_action(&st, a, &ds)
                    continue
                p = st.current
                more = place_tile(&st, a)
                if st.phase == PH_OVER:
                    break
                if more:
                    st.bonus = 0
                unseen_shares(&st, p, share)
                value_features(&st, p, share, False, f)
                for j in range(NFEAT):
                    features[n, j] = <float>f[j]
                seats[n] = p
                n += 1
                if more:
                    end_placements(&st, &ds)
            g += 1
            if stuck:
                n = first
                continue
            for i in range(first, n):
                targets[i] = <float>final_value(&st, seats[i])
    return g, n
