# cython: language_level=3
"""The compiled kernel of genial: board tables, game state, rules, policies, playouts.

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
"""

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
from numpy.random cimport bitgen_t

import numpy as np

cimport numpy as cnp

cnp.import_array()

# ---------------------------------------------------------------------------------------------
# constants

cdef enum:
    W = 17              # width of the padded grid
    NCELL = 289         # cells of the padded grid
    NEDGE = 426         # pairs of adjacent non-printed cells of the full board (the action edges)
    NTYPE = 21          # tile types
    NCOL = 6            # colours
    EMPTY = 6           # board value of an empty area cell
    WALL = 7            # board value of a cell outside the area (or outside the board)
    MAXP = 4            # seats
    MAXRACK = 6         # tiles in a rack
    MAXBAG = 120        # tiles in the largest set
    NOSYM = 255         # first_symbol: this seat has not placed yet
    ANYSYM = 254        # first_symbol: placed, touching no symbol (rules without the symbol rule)
    ACT_SWAP = 15336    # NEDGE * 36
    ACT_KEEP = 15337
    ACT_SIZE = 15338
    MAXCAND = 5120      # placements with distinct values: <= 6 tiles x 2 ways x 426 edges
    NWORDS = 7          # 64-bit words of the free-edge bit set (edge NEDGE is a dummy)

cdef enum:
    PH_PLACE = 0
    PH_SWAP = 1
    PH_OVER = 2

cdef enum:
    BONUS_NONE = 0      # no bonus plays (solo)
    BONUS_EACH = 1      # one per counter reaching a threshold (RULES §3.4)
    BONUS_ONE = 2       # at most one per placement (tournament rules, RULES §4.3)

cdef enum:
    FIRST_NONE = 0      # no first-round rule
    FIRST_NEW_SYMBOL = 1  # touch a symbol no earlier first placement touched (RULES §3.2)
    FIRST_SYMBOL_OR_TILE = 2  # touch a symbol or a tile (RULES §4.3)

cdef enum:
    POL_RANDOM = 0
    POL_GREEDY = 1
    POL_EPSILON = 2

PHASES = ("place", "swap", "over")
ACTION_SIZE = ACT_SIZE
ACTION_SWAP = ACT_SWAP
ACTION_KEEP = ACT_KEEP
N_EDGES = NEDGE
N_TILE_TYPES = NTYPE
POLICIES = {"random": POL_RANDOM, "greedy": POL_GREEDY, "epsilon-greedy": POL_EPSILON}

# ---------------------------------------------------------------------------------------------
# the state

cdef struct State:
    # rules (parameters of the game, RULES §1.3, §2, §3, §4)
    uint8_t players             # seats
    uint8_t radius              # area: cells at distance <= radius
    uint8_t rack_size           # tiles a rack is refilled to
    uint8_t cap                 # a counter's maximum
    uint8_t cross               # crossing point: points beyond it are lost when it is reached
    uint8_t bonus_rule          # BONUS_*
    uint8_t first_rule          # FIRST_*
    uint8_t swap_rule           # 1: the rack swap of RULES §3.5 is offered; 0: never (solo)
    uint8_t n_sets              # counter sets: one per seat, or one per team
    uint8_t counter_of[MAXP]    # the counter set each seat scores on (teams share one)
    # whose turn, and where in the turn
    uint8_t current             # seat to move
    uint8_t phase               # PH_*
    uint8_t bonus               # bonus placements still owed this turn
    uint8_t first_symbol[MAXP]  # symbol each seat's first placement touched, NOSYM, ANYSYM
    int16_t turn                # turns started, 1 at the start
    int16_t placements          # placements made
    # statistics of the game so far
    uint16_t n_bonus[MAXP]      # bonus placements made per seat
    uint16_t n_swaps[MAXP]      # swaps per seat
    int16_t opening[MAXP]       # each seat's first placement (action id), -1 before it
    # material
    uint8_t score[MAXP][NCOL]   # counters, per counter set and colour
    uint8_t rack[MAXP][MAXRACK] # tile types
    uint8_t rack_n[MAXP]
    uint8_t bag[MAXBAG]         # tile types, unordered
    uint8_t bag_n
    # board
    uint8_t board[NCELL]        # colour 0..5, EMPTY or WALL
    uint8_t pot[NCELL][NCOL]    # potentials of empty cells (see the module docstring)
    uint8_t live[NCELL]         # bit c set when pot[cell][c] > 0
    uint64_t free_bits[NWORDS + 1]  # bit e set when both cells of edge e are empty area cells
    int16_t n_free              # pairs of adjacent empty cells (free edges) in the area

cdef struct Draws:
    # where drawn tiles come from and where they are logged
    bitgen_t *rng               # random draws, when script is NULL
    const uint8_t *script       # scripted draws (replaying a record)
    int n_script
    int pos
    uint8_t *log                # every drawn tile is appended here, if not NULL
    int n_log
    int max_log
    int error                   # set when a scripted tile is missing or not in the bag

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
cdef uint8_t CELL_WORD[NCELL]       # a cell's edges lie in free_bits words CELL_WORD, CELL_WORD+1
cdef uint64_t CELL_MASK[NCELL][2]   # ... with these bits
cdef int16_t EDGE_SYMBOL[NEDGE]     # the symbol the edge touches, -1 if none
cdef int16_t SYMBOL_EDGES[NCOL][24] # edges touching each symbol (24 each)
cdef int16_t N_SYMBOL_EDGES[NCOL]
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
        SYMBOL_CELL[k] = cell_index(SYMBOLS[k][0], SYMBOLS[k][1])
        for d in range(6):
            TOUCHES[SYMBOL_CELL[k] + OFF[d]] = k
    # edges: row-major over the first cell, then the second (E, SW, SE all point forward)
    for k in range(8):
        N_AREA_EDGES[k] = 0
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
            e += 1
    assert e == NEDGE, e
    for a in range(256):
        k = 0
        for b in range(8):
            SELECT_IN_BYTE[a][b] = 0
            if (a >> b) & 1:
                SELECT_IN_BYTE[a][k] = b
                k += 1
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


cdef bint _is_symbol(int idx):
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
    st.players = players
    st.radius = radius
    st.rack_size = rack_size
    st.cap = cap
    st.cross = cross
    st.bonus_rule = bonus_rule
    st.first_rule = first_rule
    st.swap_rule = swap_rule
    st.n_sets = 2 if teams else players
    for i in range(MAXP):
        st.counter_of[i] = i % 2 if teams else i   # teams: seats 0 and 2, 1 and 3 (RULES §4.2)
        st.first_symbol[i] = NOSYM
        st.opening[i] = -1
    st.phase = PH_PLACE
    st.turn = 1
    _reset_board(st)
    fill_bag(st, tiles)


cdef void _reset_board(State *st) noexcept nogil:
    """Empty the area, then put the printed symbols on it (through fill, so potentials follow)."""
    cdef int i, e, k
    for i in range(NCELL):
        st.board[i] = EMPTY if DIST[i] <= st.radius else WALL
    memset(st.pot, 0, sizeof(st.pot))
    memset(st.live, 0, sizeof(st.live))
    for k in range(NCOL):
        fill(st, SYMBOL_CELL[k], k)
    memset(st.free_bits, 0, sizeof(st.free_bits))
    for e in range(N_AREA_EDGES[st.radius]):
        k = AREA_EDGES[st.radius][e]
        st.free_bits[k >> 6] |= (<uint64_t>1) << (k & 63)
    st.n_free = N_AREA_EDGES[st.radius]


# ---------------------------------------------------------------------------------------------
# randomness

cdef inline uint32_t rand_below(bitgen_t *rng, uint32_t n) noexcept nogil:
    """A uniform integer in [0, n), n >= 1 (Lemire's multiply-shift with rejection)."""
    cdef uint64_t m = <uint64_t>rng.next_uint32(rng.state) * n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t threshold
    if low < n:
        threshold = (<uint32_t>0 - n) % n
        while low < threshold:
            m = <uint64_t>rng.next_uint32(rng.state) * n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef inline int draw_tile(State *st, Draws *ds) noexcept nogil:
    """Take one tile from the bag (random, or the next scripted one); -1 if impossible."""
    cdef int i, t
    if st.bag_n == 0:
        return -1
    if ds.script != NULL:
        if ds.pos >= ds.n_script:
            ds.error = 1
            return -1
        t = ds.script[ds.pos]
        ds.pos += 1
        i = 0
        while i < st.bag_n and st.bag[i] != t:
            i += 1
        if i == st.bag_n:
            ds.error = 2
            return -1
    else:
        i = rand_below(ds.rng, st.bag_n)
        t = st.bag[i]
    st.bag_n -= 1
    st.bag[i] = st.bag[st.bag_n]
    if ds.log != NULL and ds.n_log < ds.max_log:
        ds.log[ds.n_log] = t
        ds.n_log += 1
    return t


# ---------------------------------------------------------------------------------------------
# the board

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define genial_popcount64(x) __builtin_popcountll(x)
    #define genial_ctz64(x) __builtin_ctzll(x)
    #else
    static int genial_popcount64(unsigned long long x) {
        int n = 0; while (x) { x &= x - 1; n++; } return n; }
    static int genial_ctz64(unsigned long long x) {
        int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
    #endif
    """
    int popcount64 "genial_popcount64"(uint64_t x) noexcept nogil
    int ctz64 "genial_ctz64"(uint64_t x) noexcept nogil


cdef inline bint is_free(State *st, int e) noexcept nogil:
    """Whether both cells of edge ``e`` are empty cells of the area."""
    return (st.free_bits[e >> 6] >> (e & 63)) & 1


cdef uint8_t SELECT_IN_BYTE[256][8]  # position of the j-th set bit of a byte


cdef inline int select64(uint64_t w, int k) noexcept nogil:
    """Position of the k-th set bit (0-based) of w, k < popcount(w): broadword select (byte
    counts summed by one multiplication, the byte found by a parallel compare, then a table)."""
    cdef uint64_t L8 = 0x0101010101010101ULL
    cdef uint64_t H8 = 0x8080808080808080ULL
    cdef uint64_t s = w - ((w >> 1) & 0x5555555555555555ULL)
    cdef int b, before
    s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL)
    s = ((s + (s >> 4)) & 0x0F0F0F0F0F0F0F0FULL) * L8   # byte i: set bits in bytes 0..i
    b = popcount64((((<uint64_t>k) * L8 | H8) - s) & H8)    # bytes whose running count <= k
    before = ((s << 8) >> (b * 8)) & 0xFF
    return b * 8 + SELECT_IN_BYTE[(w >> (b * 8)) & 0xFF][k - before]


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


cdef void fill(State *st, int z, int c) noexcept nogil:
    """Put colour ``c`` on the empty cell ``z``; update potentials and the free-edge count."""
    cdef int d, step, ef, eb, nf, nb, w
    cdef uint64_t old0, old1
    st.board[z] = c
    for d in range(3):
        step = OFF[d]
        ef = z + step
        nf = 0
        while st.board[ef] == c:
            ef += step
            nf += 1
        eb = z - step
        nb = 0
        while st.board[eb] == c:
            eb -= step
            nb += 1
        # written whatever the end cell holds (no branch): potentials are only read for empty
        # cells, and a covered cell never becomes empty again
        st.pot[ef][c] += 1 + nb
        st.live[ef] |= 1 << c
        st.pot[eb][c] += 1 + nf
        st.live[eb] |= 1 << c
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
    if old < st.cross and new >= st.cross:
        st.score[k][c] = st.cross          # the excess is lost at the crossing (RULES §3.3, §4.1)
        return 1
    if new >= st.cap:
        st.score[k][c] = st.cap
        return 1 if old < st.cap else 0
    st.score[k][c] = new
    return 0


# ---------------------------------------------------------------------------------------------
# rules of a turn

cdef inline int rack_find(State *st, int p, int t) noexcept nogil:
    cdef int i
    for i in range(st.rack_n[p]):
        if st.rack[p][i] == t:
            return i
    return -1


cdef inline uint8_t used_symbols(State *st) noexcept nogil:
    cdef uint8_t used = 0
    cdef int i
    for i in range(st.players):
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
    if st.first_rule == FIRST_NEW_SYMBOL:
        return EDGE_SYMBOL[e] >= 0 and not (used >> EDGE_SYMBOL[e]) & 1
    if st.first_rule == FIRST_SYMBOL_OR_TILE:
        return touches_tile(st, e)
    return True


cdef inline bint is_first_placement(State *st) noexcept nogil:
    return st.first_rule != FIRST_NONE and st.first_symbol[st.current] == NOSYM


cdef bint swap_allowed(State *st) noexcept nogil:
    """RULES §3.5: no rack tile shows any of the lowest colours (ties included); the rack and
    the bag are non-empty (decision: with an empty bag the swap would only throw the rack away)."""
    cdef int p = st.current
    cdef int k = st.counter_of[p]
    cdef int c, i, low
    cdef uint8_t mask = 0
    cdef const uint8_t *s = st.score[k]
    if st.rack_n[p] == 0 or st.bag_n == 0 or not st.swap_rule:
        return False                       # nothing to swap, or nothing to draw
    low = s[0]
    for c in range(1, NCOL):
        low = s[c] if s[c] < low else low
    for c in range(NCOL):
        mask |= (s[c] == low) << c
    for i in range(st.rack_n[p]):
        if TILE_MASK[st.rack[p][i]] & mask:
            return False
    return True


cdef int next_turn(State *st) noexcept nogil:
    """Pass the turn to the next seat holding tiles; end the game if nobody holds any."""
    cdef int i, q = st.current
    for i in range(st.players):
        q += 1
        if q == st.players:
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
    cdef int t
    while st.rack_n[p] < st.rack_size and st.bag_n > 0:
        t = draw_tile(st, ds)
        if t < 0:
            return -1
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
        st.bag[st.bag_n] = old[i]
        st.bag_n += 1
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


cdef int place(State *st, int action, Draws *ds) noexcept nogil:
    """Apply a legal placement (RULES §3.2-§3.6): score, bonus plays, end of turn or game."""
    cdef int p = st.current
    cdef int k = st.counter_of[p]
    cdef int e = action // 36
    cdef int c0 = (action // 6) % 6
    cdef int c1 = action % 6
    cdef int a = EDGE_A[e], b = EDGE_B[e]
    cdef int g0 = st.pot[a][c0], g1 = st.pot[b][c1]   # both read before either half is placed
    cdef int i, c, earned, full
    i = rack_find(st, p, TILE_OF[c0][c1])
    st.rack_n[p] -= 1
    st.rack[p][i] = st.rack[p][st.rack_n[p]]
    if st.first_symbol[p] == NOSYM:
        st.first_symbol[p] = EDGE_SYMBOL[e] if EDGE_SYMBOL[e] >= 0 else ANYSYM
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
            if st.score[k][c] < st.cap:
                full = 0
    if st.bonus_rule == BONUS_NONE:
        earned = 0
    elif st.bonus_rule == BONUS_ONE and earned > 1:
        earned = 1
    st.bonus += earned
    if full or st.n_free == 0:
        st.phase = PH_OVER
        st.bonus = 0
        return 0
    if st.bonus > 0 and st.rack_n[p] > 0:
        return 0                           # a bonus placement follows (RULES §3.4)
    return end_placements(st, ds)


cdef int apply_action(State *st, int action, Draws *ds) noexcept nogil:
    """Apply a legal action (unchecked). Returns 0, or -1 when a draw failed."""
    if action == ACT_SWAP:
        return do_swap(st, ds)
    if action == ACT_KEEP:
        if refill(st, st.current, ds) < 0:
            return -1
        return next_turn(st)
    return place(st, action, ds)


cdef bint is_legal(State *st, int action) noexcept nogil:
    cdef int e, c0, c1
    if st.phase == PH_SWAP:
        return action == ACT_SWAP or action == ACT_KEEP
    if st.phase != PH_PLACE or action < 0 or action >= ACT_SWAP:
        return False
    e = action // 36
    c0 = (action // 6) % 6
    c1 = action % 6
    if not is_free(st, e) or rack_find(st, st.current, TILE_OF[c0][c1]) < 0:
        return False
    if is_first_placement(st) and not first_round_ok(st, e, used_symbols(st)):
        return False
    return True


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


cdef uint64_t rank_key(State *st, int k) noexcept nogil:
    """Counters of set ``k`` sorted ascending, packed so that a larger key ranks higher (§3.7)."""
    cdef uint8_t v[NCOL]
    cdef int i, j
    cdef uint8_t x
    cdef uint64_t key = 0
    for i in range(NCOL):
        x = st.score[k][i]
        j = i
        while j > 0 and v[j - 1] > x:
            v[j] = v[j - 1]
            j -= 1
        v[j] = x
    for i in range(NCOL):
        key = (key << 8) | v[i]
    return key


cdef void ranks(State *st, int16_t *out) noexcept nogil:
    """Competition ranks per seat: the number of seats with a strictly better counter vector."""
    cdef uint64_t key[MAXP]
    cdef int i, j
    for i in range(st.players):
        key[i] = rank_key(st, st.counter_of[i])
    for i in range(st.players):
        out[i] = 0
        for j in range(st.players):
            if key[j] > key[i]:
                out[i] += 1


# ---------------------------------------------------------------------------------------------
# policies

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
        if st.first_rule == FIRST_NEW_SYMBOL:     # only the few edges next to unused symbols
            for k in range(NCOL):
                if not (used >> k) & 1:
                    for i in range(N_SYMBOL_EDGES[k]):
                        e = SYMBOL_EDGES[k][i]
                        if is_free(st, e):
                            cand[n] = e
                            n += 1
        else:
            # rejection: a uniform free edge until one is allowed (uniform over the allowed
            # ones); after a few misses, the exact list (still uniform overall)
            for i in range(16):
                e = nth_free(st, rand_below(rng, st.n_free))
                if first_round_ok(st, e, used):
                    n = -1
                    break
            if n == 0:
                for i in range(N_AREA_EDGES[st.radius]):
                    e = AREA_EDGES[st.radius][i]
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
    if pick & 1:
        lo, hi = hi, lo
    return e * 36 + lo * 6 + hi


cdef inline int gain_value(int s, int g, int cross, int cap) noexcept nogil:
    """Increase of -(cap - s)^2 when ``g`` points are added to a counter at ``s`` (the points
    lost at the crossing and the cap, as in ``add_points``, do not count)."""
    cdef int limit = cross if s < cross else cap
    cdef int t = s + g
    if t > limit:
        t = limit
    return (cap - s) * (cap - s) - (cap - t) * (cap - t)


cdef int choose_greedy(State *st, bitgen_t *rng) noexcept nogil:
    """The placement maximising sum_c -(cap - s_c)^2 after it, ties at random; always swap.

    Every placement's value is >= 0, and it is 0 unless one of its halves has a potential in its
    colour; so only edges with a live potential in a rack colour are scored. If none scores,
    every legal placement ties at 0 and one is drawn uniformly: a uniform legal edge, then a
    uniform (tile type, way round) among those of the rack, the same for every edge.
    """
    cdef int p = st.current
    cdef int k = st.counter_of[p]
    cdef int cap = st.cap, cross = st.cross
    cdef int i, j, w, e, a, b, lo, hi, t, v, best = 0, n = 0, nways = 0
    cdef uint64_t bits
    cdef int ntypes = 0
    cdef uint8_t types[MAXRACK]
    cdef uint8_t have[NTYPE]
    cdef uint8_t colours = 0
    cdef int32_t cand[MAXCAND]
    cdef int16_t edges[NEDGE]
    cdef int nedges = 0
    cdef uint8_t used
    cdef bint first
    if st.phase == PH_SWAP:
        return ACT_SWAP
    memset(have, 0, sizeof(have))
    for i in range(st.rack_n[p]):
        t = st.rack[p][i]
        if not have[t]:
            have[t] = 1
            types[ntypes] = t
            ntypes += 1
            colours |= TILE_MASK[t]
            nways += 1 if TILE_LO[t] == TILE_HI[t] else 2
    if ntypes == 0:
        return -1
    first = is_first_placement(st)
    used = used_symbols(st)
    for w in range(NWORDS):
      bits = st.free_bits[w]
      while bits:
        e = w * 64 + ctz64(bits)
        bits &= bits - 1
        if first and not first_round_ok(st, e, used):
            continue
        edges[nedges] = e
        nedges += 1
        a = EDGE_A[e]
        b = EDGE_B[e]
        if not ((st.live[a] | st.live[b]) & colours):
            continue
        for j in range(ntypes):
            lo = TILE_LO[types[j]]
            hi = TILE_HI[types[j]]
            if lo == hi:
                v = gain_value(st.score[k][lo], st.pot[a][lo] + st.pot[b][lo], cross, cap)
                if v >= best and v > 0:
                    if v > best:
                        best = v
                        n = 0
                    cand[n] = e * 36 + lo * 7
                    n += 1
            else:
                v = (gain_value(st.score[k][lo], st.pot[a][lo], cross, cap)
                     + gain_value(st.score[k][hi], st.pot[b][hi], cross, cap))
                if v >= best and v > 0:
                    if v > best:
                        best = v
                        n = 0
                    cand[n] = e * 36 + lo * 6 + hi
                    n += 1
                v = (gain_value(st.score[k][hi], st.pot[a][hi], cross, cap)
                     + gain_value(st.score[k][lo], st.pot[b][lo], cross, cap))
                if v >= best and v > 0:
                    if v > best:
                        best = v
                        n = 0
                    cand[n] = e * 36 + hi * 6 + lo
                    n += 1
    if n > 0:
        return cand[rand_below(rng, n)]
    if nedges == 0:
        return -1
    # every placement is worth 0: uniform over (edge, tile type, way round)
    e = edges[rand_below(rng, nedges)]
    j = rand_below(rng, nways)
    for i in range(ntypes):
        lo = TILE_LO[types[i]]
        hi = TILE_HI[types[i]]
        if lo == hi:
            if j == 0:
                return e * 36 + lo * 7
            j -= 1
        else:
            if j < 2:
                return e * 36 + (lo * 6 + hi if j == 0 else hi * 6 + lo)
            j -= 2
    return -1


cdef inline int choose(State *st, int policy, double epsilon, bitgen_t *rng) noexcept nogil:
    if policy == POL_RANDOM:
        return choose_random(st, rng)
    if policy == POL_EPSILON and rng.next_double(rng.state) < epsilon:
        return choose_random(st, rng)
    return choose_greedy(st, rng)


cdef void deal(State *st, Draws *ds) noexcept nogil:
    cdef int p
    for p in range(st.players):
        refill(st, p, ds)


cdef void fill_bag(State *st, const uint8_t *counts) noexcept nogil:
    cdef int t, i
    st.bag_n = 0
    for t in range(NTYPE):
        for i in range(counts[t]):
            st.bag[st.bag_n] = t
            st.bag_n += 1


cdef int _t
_build_tables()
STANDARD_COUNTS = tuple(STANDARD_SET[_t] for _t in range(NTYPE))
TRAVEL_COUNTS = tuple(TRAVEL_SET[_t] for _t in range(NTYPE))
TILES = tuple((TILE_LO[_t], TILE_HI[_t]) for _t in range(NTYPE))
EDGES = tuple((coords_of(EDGE_A[_t]), coords_of(EDGE_B[_t])) for _t in range(NEDGE))


# ---------------------------------------------------------------------------------------------
# the Python face of the kernel

cdef int _check_edge(int edge) except -1:
    if not 0 <= edge < NEDGE:
        raise ValueError(f"edge {edge} is outside 0..{NEDGE - 1}")
    return 0


cdef bitgen_t *_bitgen(object bit_generator) except NULL:
    return <bitgen_t *>PyCapsule_GetPointer(bit_generator.capsule, "BitGenerator")


cdef class Core:
    """A game state of the kernel, with checked entry points for the Python layer.

    The board is empty, the bag full and nobody dealt: call :meth:`deal`. The rules are the
    base game's (RULES §3) unless given: ``radius`` of the area (default by players: 5, 6, 7;
    5 for one player), ``rack_size``, counter ``cap`` and ``cross`` (the crossing point where
    excess points are lost), ``bonus`` (0 none, 1 one per counter reaching a threshold, 2 at most
    one per placement), ``first`` (0 no first-round rule, 1 a symbol no earlier first placement
    touched, 2 a symbol or a tile), ``swap`` (whether the rack swap is offered), ``teams``
    (seats 0+2 and 1+3 share counters) and ``tiles`` ("standard" or "travel").
    """

    cdef State st

    def __init__(self, int players, *, radius=None, int rack_size=6, int cap=18, int cross=18,
                 int bonus=BONUS_EACH, int first=FIRST_NEW_SYMBOL, bint swap=True,
                 bint teams=False, str tiles="standard"):
        if players < 1 or players > MAXP:
            raise ValueError(f"players must be 1 to 4, got {players}")
        r = {1: 5, 2: 5, 3: 6, 4: 7}[players] if radius is None else radius
        if not 1 <= r <= 7 or not 1 <= rack_size <= MAXRACK or not 1 <= cross <= cap <= 120:
            raise ValueError("bad radius, rack size, crossing or cap")
        if teams and players != 4:
            raise ValueError("teams need 4 players")
        if tiles not in ("standard", "travel"):
            raise ValueError(f"unknown tile set {tiles!r}")
        cdef const uint8_t *counts = &STANDARD_SET[0] if tiles == "standard" else &TRAVEL_SET[0]
        _init_state(&self.st, players, r, rack_size, cap, cross, bonus, first, swap, teams, counts)

    # -- copying and snapshots ------------------------------------------------------------------
    def copy(self):
        cdef Core other = Core.__new__(Core)
        memcpy(&other.st, &self.st, sizeof(State))
        return other

    def snapshot(self):
        """The whole state as bytes (for undo)."""
        return (<char *>&self.st)[:sizeof(State)]

    def restore(self, bytes data):
        if len(data) != sizeof(State):
            raise ValueError("snapshot of the wrong size")
        memcpy(&self.st, <char *>data, sizeof(State))

    # -- reading ---------------------------------------------------------------------------------
    @property
    def players(self):
        return self.st.players

    @property
    def current(self):
        return self.st.current

    @property
    def phase(self):
        return self.st.phase

    @property
    def bonus(self):
        return self.st.bonus

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
        return self.st.bag_n

    @property
    def radius(self):
        return self.st.radius

    @property
    def cap(self):
        return self.st.cap

    @property
    def rack_size(self):
        return self.st.rack_size

    def scores(self):
        """Counters per seat, shape (players, 6)."""
        out = np.zeros((self.st.players, NCOL), dtype=np.int64)
        cdef int i, c
        for i in range(self.st.players):
            for c in range(NCOL):
                out[i, c] = self.st.score[self.st.counter_of[i]][c]
        return out

    def rack(self, int p):
        """Tile type ids of seat ``p``'s rack, sorted."""
        if not 0 <= p < self.st.players:
            raise ValueError(f"no seat {p}")
        return sorted(self.st.rack[p][i] for i in range(self.st.rack_n[p]))

    def bag_counts(self):
        out = [0] * NTYPE
        cdef int i
        for i in range(self.st.bag_n):
            out[self.st.bag[i]] += 1
        return out

    def board(self):
        """The padded board as a bytes object of length 289 (colour, 6 = empty, 7 = wall)."""
        return bytes(self.st.board[i] for i in range(NCELL))

    def first_symbols(self):
        return [self.st.first_symbol[i] for i in range(self.st.players)]

    def ranks(self):
        cdef int16_t out[MAXP]
        ranks(&self.st, out)
        return np.array([out[i] for i in range(self.st.players)], dtype=np.int64)

    # -- moves -----------------------------------------------------------------------------------
    def legal_actions(self):
        out = np.empty(ACT_SIZE, dtype=np.int32)
        cdef int32_t[::1] view = out
        cdef int n = legal_actions(&self.st, &view[0])
        return out[:n].copy()

    def is_legal(self, int action):
        return bool(is_legal(&self.st, action))

    def is_first_placement(self):
        return bool(self.st.phase == PH_PLACE and is_first_placement(&self.st))

    def first_round_ok(self, int edge):
        _check_edge(edge)
        return bool(first_round_ok(&self.st, edge, used_symbols(&self.st)))

    def swap_allowed(self):
        return bool(swap_allowed(&self.st))

    def is_free_edge(self, int edge):
        _check_edge(edge)
        return bool(is_free(&self.st, edge))

    def gains(self, int edge, int c0, int c1):
        """Points of each half of ``c0`` on the edge's first cell and ``c1`` on its second."""
        _check_edge(edge)
        if not (0 <= c0 < NCOL and 0 <= c1 < NCOL):
            raise ValueError(f"bad colours {c0}, {c1}")
        return (self.st.pot[EDGE_A[edge]][c0], self.st.pot[EDGE_B[edge]][c1])

    def deal(self, bit_generator=None, script=None):
        """Fill every rack from the bag; return the drawn tile types."""
        return self._run(-1, bit_generator, script)

    def apply(self, int action, bit_generator=None, script=None):
        """Apply a legal action; return the tile types drawn. Raises ValueError if illegal.

        Draws come from ``bit_generator`` (a numpy BitGenerator) or, when ``script`` (a sequence
        of tile type ids) is given, from the script, which must hold exactly the tiles drawn.
        On any error the state is unchanged.
        """
        if not is_legal(&self.st, action):
            raise ValueError(f"illegal action {action}")
        return self._run(action, bit_generator, script)

    def _run(self, int action, bit_generator, script):
        cdef State work
        cdef Draws ds
        cdef uint8_t log[MAXBAG]
        cdef uint8_t buf[MAXBAG]
        cdef int i, rc
        memset(&ds, 0, sizeof(Draws))
        ds.log = log
        ds.max_log = MAXBAG
        if script is not None:
            if len(script) > MAXBAG:
                raise ValueError("too many scripted draws")
            for i in range(len(script)):
                if not 0 <= script[i] < NTYPE:
                    raise ValueError(f"bad tile type {script[i]}")
                buf[i] = script[i]
            ds.script = buf
            ds.n_script = len(script)
        elif bit_generator is not None:
            ds.rng = _bitgen(bit_generator)
        elif self.st.bag_n > 0:
            raise ValueError("a bit generator or a script is needed to draw")
        memcpy(&work, &self.st, sizeof(State))
        if bit_generator is not None and script is None:
            with bit_generator.lock, nogil:
                rc = self._step(&work, action, &ds)
        else:
            rc = self._step(&work, action, &ds)
        if ds.error == 1:
            raise ValueError(f"the record's draws run out after {ds.pos} tiles")
        if ds.error == 2:
            raise ValueError(f"drawn tile {TILES[ds.script[ds.pos - 1]]} is not in the bag")
        if script is not None and ds.pos != ds.n_script:
            raise ValueError(f"{ds.n_script} tiles given to draw, {ds.pos} drawn")
        if rc < 0:
            raise ValueError("drawing from the bag failed")
        memcpy(&self.st, &work, sizeof(State))
        return [log[i] for i in range(ds.n_log)]

    cdef int _step(self, State *st, int action, Draws *ds) noexcept nogil:
        if action < 0:
            deal(st, ds)
            return 0
        return apply_action(st, action, ds)

    def choose(self, str policy="random", object bit_generator=None, double epsilon=0.1):
        """The action a built-in policy picks here (``bit_generator``: a numpy BitGenerator)."""
        cdef int pol = POLICIES[policy]
        cdef bitgen_t *rng = _bitgen(bit_generator)
        cdef int a
        if self.st.phase == PH_OVER:
            raise ValueError("the game is over")
        with bit_generator.lock, nogil:
            a = choose(&self.st, pol, epsilon, rng)
        return a

    def give(self, int seat, int tile):
        """Move one tile of type ``tile`` from the bag to ``seat``'s rack (before a deal)."""
        cdef int i
        if not 0 <= seat < self.st.players or not 0 <= tile < NTYPE:
            raise ValueError(f"bad seat {seat} or tile type {tile}")
        if self.st.rack_n[seat] >= self.st.rack_size:
            raise ValueError(f"the rack of seat {seat} is full")
        for i in range(self.st.bag_n):
            if self.st.bag[i] == tile:
                self.st.bag_n -= 1
                self.st.bag[i] = self.st.bag[self.st.bag_n]
                self.st.rack[seat][self.st.rack_n[seat]] = tile
                self.st.rack_n[seat] += 1
                return
        raise ValueError(f"no tile {TILES[tile]} left in the bag")

    # -- building a position ---------------------------------------------------------------------
    def set_position(self, dict cells, scores, racks, bag_counts, int current, int phase,
                     int bonus, first_symbols, int turn):
        """Replace the whole state. ``cells`` maps padded indices to colours (tile halves only).

        The caller (``Game.from_text``) has checked every value's range.
        """
        cdef State *st = &self.st
        cdef uint8_t counts[NTYPE]
        cdef int i, c, z
        _reset_board(st)
        for z, c in cells.items():
            fill(st, z, c)
        for i in range(st.players):
            for c in range(NCOL):
                st.score[st.counter_of[i]][c] = scores[i][c]
            st.rack_n[i] = len(racks[i])
            for c in range(len(racks[i])):
                st.rack[i][c] = racks[i][c]
            st.first_symbol[i] = first_symbols[i]
            st.opening[i] = -1
            st.n_bonus[i] = 0
            st.n_swaps[i] = 0
        for i in range(NTYPE):
            counts[i] = bag_counts[i]
        fill_bag(st, counts)
        st.current = current
        st.phase = phase
        st.bonus = bonus
        st.turn = turn
        st.placements = len(cells) // 2


# ---------------------------------------------------------------------------------------------
# whole games: the batch engine

cdef int play_game(State *st, const uint8_t *pol, const double *eps, Draws *ds,
                   int16_t *moves, uint8_t *counts, int max_moves,
                   const int16_t *forced_seat, const int16_t *forced_action,
                   int n_forced) noexcept nogil:
    """Play the game in ``st`` to its end with the seats' policies; log the moves if asked.

    The ``n_forced`` forced placements are made, in order, at the next placement decision of
    their seat (the caller has checked that they are legal then). Returns the number of moves
    (decisions) made."""
    cdef int a, before, n = 0, f = 0
    while st.phase != PH_OVER:
        if f < n_forced and st.phase == PH_PLACE and st.current == forced_seat[f]:
            a = forced_action[f]
            f += 1
        else:
            a = choose(st, pol[st.current], eps[st.current], ds.rng)
        if a < 0:                       # nothing playable (only in hand-made positions)
            st.phase = PH_OVER
            break
        before = ds.n_log
        apply_action(st, a, ds)
        if moves != NULL and n < max_moves:
            moves[n] = a
            counts[n] = ds.n_log - before
        n += 1
    return n


MAX_LOG_MOVES = 512
MAX_LOG_DRAWS = 2048


def run_chunk(Core start not None, object bit_generator, bint deal,
              const uint8_t[::1] policies, const double[::1] epsilons,
              uint8_t[:, :, ::1] scores, int8_t[:, ::1] ranks_out, int8_t[::1] winner,
              int16_t[::1] placements, int16_t[::1] turns, int16_t[:, ::1] bonus,
              int16_t[:, ::1] swaps, int16_t[:, ::1] opening,
              int16_t[:, ::1] log_moves=None, uint8_t[:, ::1] log_counts=None,
              uint8_t[:, ::1] log_draws=None, int16_t[::1] log_n=None,
              int16_t[::1] log_n_draws=None, const int16_t[::1] forced_seats=None,
              const int16_t[::1] forced_actions=None):
    """Play ``len(winner)`` games from ``start`` (dealt first if ``deal``) with one bit generator,
    writing one row per game into the arrays. Runs without the GIL.

    The ``log_*`` arrays, when given, receive each game's moves (action ids), the number of tiles
    drawn after each move and every drawn tile (the deal first), for records.
    ``forced_seats``/``forced_actions``: placements every game makes (see ``play_game``).
    """
    cdef Py_ssize_t n = winner.shape[0], g
    cdef int players = start.st.players
    cdef int i, c, first, nfirst
    cdef bint logging = log_moves is not None
    cdef State st
    cdef Draws ds
    cdef int16_t rk[MAXP]
    cdef bitgen_t *rng = _bitgen(bit_generator)
    cdef int n_forced = 0
    cdef const int16_t *fseat = NULL
    cdef const int16_t *fact = NULL
    if policies.shape[0] < players or epsilons.shape[0] < players:
        raise ValueError("one policy and one epsilon per seat are needed")
    if forced_seats is not None and forced_seats.shape[0] > 0:
        if forced_actions is None or forced_actions.shape[0] != forced_seats.shape[0]:
            raise ValueError("one forced action per forced seat")
        n_forced = forced_seats.shape[0]
        fseat = &forced_seats[0]
        fact = &forced_actions[0]
    with bit_generator.lock, nogil:
        for g in range(n):
            memcpy(&st, &start.st, sizeof(State))
            memset(&ds, 0, sizeof(Draws))
            ds.rng = rng
            if logging:
                ds.log = &log_draws[g, 0]
                ds.max_log = log_draws.shape[1]
            if deal:
                for i in range(players):
                    refill(&st, i, &ds)
            if logging:
                i = play_game(&st, &policies[0], &epsilons[0], &ds, &log_moves[g, 0],
                              &log_counts[g, 0], log_moves.shape[1], fseat, fact, n_forced)
                log_n[g] = i
                log_n_draws[g] = ds.n_log
            else:
                play_game(&st, &policies[0], &epsilons[0], &ds, NULL, NULL, 0,
                          fseat, fact, n_forced)
            ranks(&st, rk)
            nfirst = 0
            first = -1
            for i in range(players):
                for c in range(NCOL):
                    scores[g, i, c] = st.score[st.counter_of[i]][c]
                ranks_out[g, i] = rk[i]
                bonus[g, i] = st.n_bonus[i]
                swaps[g, i] = st.n_swaps[i]
                opening[g, i] = st.opening[i]
                if rk[i] == 0 and i < st.n_sets:   # seat i < n_sets stands for counter set i
                    nfirst += 1
                    first = i
            winner[g] = first if nfirst == 1 else -1
            placements[g] = st.placements
            turns[g] = st.turn
