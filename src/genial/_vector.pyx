# cython: language_level=3
"""The kernel of ``genial.vector.VectorEnv``: ``n`` board games stepped together without the GIL.

Each environment is one :c:type:`Env`: the board kernel's ``State`` (``genial._core``, whose rules
functions it calls: ``is_legal``, ``apply_action``, ``legal_actions``, ``deal``, ``ranks``) and two
random streams of its own. The streams are PCG64 generators seeded exactly as numpy seeds
``PCG64(SeedSequence(entropy, spawn_key=key))``, recomputed here in C so that a finished game
restarts inside the loop, without the GIL and without making a Python object:

- the chance stream of env ``i``'s episode ``k`` has the key ``(*root.spawn_key, i, k)``: it is
  the chance stream of ``genial.Game(rules, seed=child_seed(root, i, k))``, and the bag is put in
  canonical order before every step as ``Core.apply`` does, so the same actions draw the same
  tiles as that ``Game``;
- the sampler of env ``i`` (``sample``) draws from the key ``(*root.spawn_key, 2**32, i)``.

Outputs are written into numpy arrays made once (``arrays``). The board planes are updated
incrementally (two cells per placement), and so are the masks: a placement decision factors into
the allowed edges times the (colour, colour) placements of the rack (``decide``), and only the
edges whose part of the mask may have changed are rewritten (``update_packed``).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcmp, memcpy, memmove, memset
from numpy.random cimport bitgen_t

from genial._common cimport (
    BAG_CAP,
    DRAW_OK,
    Bag,
    Draws,
    bag_sort,
    common_init,
    ctz64,
    popcount64,
    rand_below,
    select64,
)
from genial._core cimport (
    ACT_SIZE,
    ACT_SWAP,
    ACT_KEEP,
    FIRST_NEW_SYMBOL,
    FIRST_NONE,
    MAXP,
    MAXRACK,
    NCOL,
    NEDGE,
    NOSYM,
    NTYPE,
    NWORDS,
    PH_OVER,
    PH_PLACE,
    PH_SWAP,
    Core,
    Params,
    State,
    apply_action,
    check_state,
    deal,
    illegal_reason,
    is_fresh_board,
    legal_actions,
    ranks,
)

import numpy as np

from genial import _core

# PCG64 and SeedSequence, bit for bit as numpy computes them (genial/_pcg.pxd, shared with the
# card game's vector environment)
from genial._pcg cimport genial_pcg, pcg_step, pcg_step_portable


cdef enum:
    MASK_BYTES = 1918           # (ACT_SIZE + 7) // 8: bit a of the mask is bit a % 8 of byte a // 8
    PAIRS = 213                 # NEDGE // 2: two edges' 72 action bits fill exactly 9 bytes
    MAX_PREFIX = 4096           # seed words a root may have before a child's key (a spawn key
                                # of thousands of levels)
    MAX_CELLS = 169             # cells of the largest area (radius 7)
    FACTORED_WORDS = NWORDS + 1 # a factored mask: the edge set's NWORDS words, then the rack's
                                # 36 (colour, colour) bits c0 * 6 + c1, swap (bit 36), keep (37)

MASK_SIZE = MASK_BYTES
FACTORED_SIZE = FACTORED_WORDS
# the pairs of edges (bit 2k of a word of edges) in the last word: edges below NEDGE
cdef uint64_t LAST_PAIRS = ((<uint64_t>1) << (NEDGE - 64 * (NWORDS - 1))) - 1

# ---------------------------------------------------------------------------------------------
# tables, built once at import from the board kernel's

cdef int16_t POS_A[8][NEDGE]    # observation column of an edge's first cell (area of radius r)
cdef int16_t POS_B[8][NEDGE]    # ... of its second cell; -1 outside the area
cdef int16_t SYM_POS[8][NCOL]   # column of each printed symbol
cdef int N_CELLS[8]
cdef int16_t COLUMN_CELL[8][MAX_CELLS]  # the padded-grid index of each observation column
cdef uint64_t TILE_BITS[NTYPE]  # bits c0 * 6 + c1 of the (colour, colour) placements of a tile
cdef uint64_t SYMBOL_EDGES[NCOL][NWORDS]    # the edges touching printed symbol k (a cell of
                                            # the edge next to it; checked in Kernel())


def area_cells(int radius):
    """The cells at distance <= ``radius`` in row-major order: the columns of the board planes
    (the same order as ``genial.geometry.area``)."""
    return [(q, r) for r in range(-radius, radius + 1)
            for q in range(max(-radius, -radius - r), min(radius, radius - r) + 1)]


cdef void _build_tables():
    cdef int radius, e, c, t, k
    for radius in range(8):
        for e in range(NEDGE):
            POS_A[radius][e] = -1
            POS_B[radius][e] = -1
        N_CELLS[radius] = 0
    for radius in range(1, 8):
        column = {cell: k for k, cell in enumerate(area_cells(radius))}
        N_CELLS[radius] = len(column)
        for cell, k in column.items():
            COLUMN_CELL[radius][k] = _core.index_of(*cell)
        for e, (a, b) in enumerate(_core.EDGES):
            if a in column and b in column:
                POS_A[radius][e] = column[a]
                POS_B[radius][e] = column[b]
        for c, cell in enumerate(_core.SYMBOLS):
            SYM_POS[radius][c] = column.get(cell, -1)
    touches = {}                # cell: the symbol next to it
    for k, (sq, sr) in enumerate(_core.SYMBOLS):
        for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
            touches[(sq + dq, sr + dr)] = k
    memset(SYMBOL_EDGES, 0, sizeof(SYMBOL_EDGES))
    for e, (a, b) in enumerate(_core.EDGES):
        k = touches.get(a, touches.get(b, -1))
        if k >= 0:
            SYMBOL_EDGES[k][e >> 6] |= (<uint64_t>1) << (e & 63)
    for t, (lo, hi) in enumerate(_core.TILES):
        TILE_BITS[t] = ((<uint64_t>1) << (lo * 6 + hi)) | ((<uint64_t>1) << (hi * 6 + lo))


common_init()
_build_tables()

# ---------------------------------------------------------------------------------------------
# one environment


cdef struct Env:
    State st
    genial_pcg chance           # the episode's draws
    genial_pcg policy           # the sampler's draws
    bitgen_t chance_bg
    bitgen_t policy_bg
    uint64_t episode
    uint8_t dirty               # the bag may be out of canonical order (draws or returns since):
                                # 1 any change, 2 one draw of ``last_draw`` from canonical order
    uint8_t last_draw
    uint8_t bag_counts[NTYPE]   # the bag's contents by tile type (kept through every step)
    # the decision due, factored (written by write_obs): in the placement phase the legal
    # actions are exactly edges x pattern (edge e, bit c0 * 6 + c1); in the swap phase swap, keep
    uint64_t edges[NWORDS]      # the edges a placement may use (0 in the swap phase)
    uint64_t pattern            # the (colour, colour) placements of the rack (0 in the swap phase)
    int32_t count               # legal actions
    uint8_t swap                # the swap decision is due
    # what the env's row of the mask buffer holds now (for incremental updates)
    uint64_t m_edges[NWORDS]
    uint64_t m_pattern
    uint8_t m_swap


cdef Env _env_dummy
ENV_BYTES = sizeof(Env)
ENV_FIELDS = {      # byte offsets in an env of a snapshot (its State first: STATE_DTYPE)
    "st": 0,
    "bag_counts": <Py_ssize_t>(<char *>&_env_dummy.bag_counts - <char *>&_env_dummy),
    "edges": <Py_ssize_t>(<char *>&_env_dummy.edges - <char *>&_env_dummy),
    "count": <Py_ssize_t>(<char *>&_env_dummy.count - <char *>&_env_dummy),
    "m_edges": <Py_ssize_t>(<char *>&_env_dummy.m_edges - <char *>&_env_dummy),
    "chance": <Py_ssize_t>(<char *>&_env_dummy.chance - <char *>&_env_dummy),
}


cdef inline void fill_bag(Bag *bag, const uint8_t *counts) noexcept nogil:
    """Put the bag in canonical order, as ``bag_sort`` does (items in increasing order), from
    its known contents: a run of ``counts[t]`` items ``t`` per type, eight bytes a store."""
    cdef uint8_t buf[BAG_CAP + 8]
    cdef uint64_t word
    cdef int t, c, pos = 0, j
    for t in range(NTYPE):
        c = counts[t]
        word = (<uint64_t>t) * 0x0101010101010101ULL
        if c <= 8:
            memcpy(buf + pos, &word, 8)
        else:
            for j in range(c):
                buf[pos + j] = t
        pos += c
    memcpy(bag.item, buf, bag.n)


cdef inline void resort_one(Bag *bag, const uint8_t *counts, int t) noexcept nogil:
    """``fill_bag`` after one draw of a ``t`` from a bag in canonical order (``counts`` are the
    contents after it), without rewriting the bag: the draw moved the last item, the largest,
    into the slot of the ``t`` drawn (``bag_remove_at``), which lies in the run of ``t``
    (``lo .. lo + counts[t]``, one longer before the draw). That largest item goes back to the
    end and the items after its slot move down one: the bag sorted, as ``bag_sort`` leaves it
    (the byte past the last item is the same stale one). If the contents do not fit the bag
    (never, by the counts' upkeep), the bag is filled from them."""
    cdef int u, lo = 0, k, end, x
    for u in range(t):
        lo += counts[u]
    end = lo + counts[t] + 1
    if end > bag.n + 1 or bag.n + 1 > BAG_CAP:
        fill_bag(bag, counts)
        return
    k = lo
    while k < end and bag.item[k] == t:
        k += 1
    if k == end:                        # the largest item was a t: nothing moved out of order
        return
    if k >= bag.n:                      # (not a draw from a canonical bag: never)
        fill_bag(bag, counts)
        return
    x = bag.item[k]
    memmove(bag.item + k, bag.item + k + 1, bag.n - 1 - k)
    bag.item[bag.n - 1] = x


cdef inline uint64_t rack_bits(State *st) noexcept nogil:
    """The 36-bit set of (colour, colour) placements the current seat's rack allows."""
    cdef uint64_t b = 0
    cdef int j, p = st.current
    for j in range(st.rack_n[p]):
        b |= TILE_BITS[st.rack[p][j]]
    return b


cdef inline int nth_edge(const uint64_t *edges, int k) noexcept nogil:
    """The k-th edge (0-based) of an edge set, in edge order (the board kernel's branch-free
    select of ``nth_free``)."""
    cdef int i, c, t, word = 0, before = 0, total = 0
    for i in range(NWORDS):
        c = popcount64(edges[i])
        total += c
        t = total <= k
        word += t
        before += c if t else 0
    return word * 64 + select64(edges[word], k - before)


cdef void decide(Env *e, int32_t *buf, const uint64_t *opening) noexcept nogil:
    """Factor the decision due in ``e.st`` into ``e.edges``, ``e.pattern``, ``e.count``. Outside
    a seat's first placement the edges are the free ones; at a first placement, where the
    first-round rule may bind (RULES §3.2, §4.3), they are read off the board kernel's
    ``legal_actions`` (sorted, ``popcount(pattern)`` actions per edge); at a game's very first
    placement they are ``opening``, the same for every game (see ``first_edges``)."""
    cdef State *st = &e.st
    cdef int c
    memset(e.edges, 0, sizeof(e.edges))
    e.pattern = 0
    e.swap = st.phase == PH_SWAP
    if st.phase == PH_SWAP:
        e.count = 2
        return
    if st.phase != PH_PLACE:
        e.count = 0
        return
    e.pattern = rack_bits(st)
    c = popcount64(e.pattern)
    if st.rules.first_rule == FIRST_NONE or st.first_symbol[st.current] != NOSYM:
        memcpy(e.edges, st.free_bits, sizeof(e.edges))
        e.count = st.n_free * c
    elif st.placements == 0:
        memcpy(e.edges, opening, sizeof(e.edges))
        e.count = c * (popcount64(e.edges[0]) + popcount64(e.edges[1]) + popcount64(e.edges[2])
                       + popcount64(e.edges[3]) + popcount64(e.edges[4]) + popcount64(e.edges[5])
                       + popcount64(e.edges[6]))
    else:
        e.count = first_edges(st, buf, e.edges)


cdef int first_edges(State *st, int32_t *buf, uint64_t *edges) noexcept nogil:
    """The edges the current seat's placement may use (into ``edges``, zeroed by the caller);
    returns the number of legal actions. The edges do not depend on the rack (the first-round
    rule looks at the board and the symbols touched). Under the symbol rule (RULES §3.2) they
    are the free edges touching a symbol no seat's first placement touched (``SYMBOL_EDGES``),
    or every free edge when there is none (the rule lapses, as the board kernel's
    ``is_first_placement`` says); under the other rules, the board kernel's ``legal_actions``."""
    cdef int c, k, w, n = 0
    cdef uint8_t used = 0
    cdef uint64_t x
    if st.rules.first_rule != FIRST_NEW_SYMBOL:
        return listed_edges(st, buf, edges)
    c = popcount64(rack_bits(st))
    if c == 0:                          # (no rack: no legal action, no edge, as listed_edges)
        return 0
    for k in range(st.rules.players):
        if st.first_symbol[k] < NCOL:
            used |= (<uint8_t>1) << st.first_symbol[k]
    for w in range(NWORDS):
        x = 0
        for k in range(NCOL):
            if not (used >> k) & 1:
                x |= SYMBOL_EDGES[k][w]
        edges[w] = st.free_bits[w] & x
        n += popcount64(edges[w])
    if n == 0:                          # no free edge satisfies the rule: it lapses
        for w in range(NWORDS):
            edges[w] = st.free_bits[w]
            n += popcount64(edges[w])
    return n * c


cdef int listed_edges(State *st, int32_t *buf, uint64_t *edges) noexcept nogil:
    """``first_edges`` read off the board kernel's ``legal_actions`` (sorted, ``popcount(rack
    placements)`` actions per edge)."""
    cdef int n = legal_actions(st, buf)
    cdef int j = 0, edge
    cdef int c = popcount64(rack_bits(st))
    while j < n:
        edge = buf[j] // 36
        edges[edge >> 6] |= (<uint64_t>1) << (edge & 63)
        j += c
    return n


cdef inline bint env_allows(Env *e, int a) noexcept nogil:
    """Whether action ``a`` is legal (by the factored decision ``decide`` wrote)."""
    cdef int edge
    if e.swap:
        return a == ACT_SWAP or a == ACT_KEEP
    if a < 0 or a >= ACT_SWAP:
        return False
    edge = a // 36
    return ((e.edges[edge >> 6] >> (edge & 63)) & 1) and ((e.pattern >> (a % 36)) & 1)


cdef void update_packed(uint8_t *dst, Env *e) noexcept nogil:
    """Bring the env's bit-packed mask (little bit order) from what it holds (``m_*``) to the
    decision due. Edge ``e``'s 36 bits are ``pattern`` where the edge is allowed, else 0; edges
    2k and 2k+1 fill bytes 9k .. 9k+8 (edge 2k from bit 0, edge 2k+1 from bit 4 of byte 9k+4).
    Only pairs of edges that may differ are written: those allowed now or before if the pattern
    changed, else those whose edges changed. A pair is one 8-byte store and one byte store of
    its 4 possible values (made byte by byte, so in any byte order)."""
    cdef uint8_t pat[9]
    cdef uint64_t lo8[4]
    cdef uint8_t hi8[4]
    cdef uint64_t p = e.pattern, lo, hi, sel, pairs, cur, v, bit
    cdef int b, w
    cdef Py_ssize_t at
    cdef uint8_t *q
    cdef bint same = p == e.m_pattern
    for v in range(4):
        lo = (p if v & 1 else 0) | ((p << 36) if v & 2 else 0)
        hi = (p >> 28) if v & 2 else 0
        for b in range(8):
            pat[b] = (lo >> (8 * b)) & 0xFF
        memcpy(&lo8[v], pat, 8)
        hi8[v] = hi & 0xFF
    for w in range(NWORDS):
        cur = e.edges[w]
        if same:
            sel = cur ^ e.m_edges[w]
        else:
            sel = cur | e.m_edges[w]
        pairs = (sel | (sel >> 1)) & 0x5555555555555555ULL
        if w == NWORDS - 1:
            pairs &= LAST_PAIRS          # (no pair past the last edge: the mask's end)
        q = dst + 9 * 32 * w             # pair k = 32 w + bit / 2 starts at byte 9 k
        while pairs:
            bit = <uint64_t>ctz64(pairs)
            pairs &= pairs - 1
            v = (cur >> bit) & 3
            at = <Py_ssize_t>(bit >> 1) * 9
            memcpy(q + at, &lo8[v], 8)
            q[at + 8] = hi8[v]
        e.m_edges[w] = cur
    e.m_pattern = p
    if e.swap != e.m_swap:
        dst[MASK_BYTES - 1] = 3 if e.swap else 0      # bits of ACT_SWAP, ACT_KEEP
        e.m_swap = e.swap


cdef void update_bool(uint8_t *dst, Env *e) noexcept nogil:
    """The same for a bool mask (one byte per action)."""
    cdef uint8_t pat[36]
    cdef uint64_t p = e.pattern, sel
    cdef int j, w, bit, edge
    for j in range(36):
        pat[j] = (p >> j) & 1
    for w in range(NWORDS):
        if p == e.m_pattern:
            sel = e.edges[w] ^ e.m_edges[w]
        else:
            sel = e.edges[w] | e.m_edges[w]
        while sel:
            bit = ctz64(sel)
            sel &= sel - 1
            edge = w * 64 + bit
            if (e.edges[w] >> bit) & 1:
                memcpy(dst + 36 * edge, pat, 36)
            else:
                memset(dst + 36 * edge, 0, 36)
        e.m_edges[w] = e.edges[w]
    e.m_pattern = p
    if e.swap != e.m_swap:
        dst[ACT_SWAP] = e.swap
        dst[ACT_KEEP] = e.swap
        e.m_swap = e.swap

cdef void update_factored(uint64_t *dst, Env *e) noexcept nogil:
    """The same for a factored mask (``FACTORED_WORDS`` words): the allowed edges (bit ``k %
    64`` of word ``k // 64`` for edge ``k``), then the pattern with swap and keep above it. Only
    the words that changed are written."""
    cdef uint64_t cur
    cdef int w
    for w in range(NWORDS):
        cur = e.edges[w]
        if w == NWORDS - 1:
            cur &= LAST_PAIRS            # (no edge past the last: NEDGE's bits of the word)
        if cur != e.m_edges[w]:
            dst[w] = cur
            e.m_edges[w] = cur
    if e.pattern != e.m_pattern or e.swap != e.m_swap:
        dst[NWORDS] = e.pattern | ((<uint64_t>(e.swap * 3)) << 36)
        e.m_pattern = e.pattern
        e.m_swap = e.swap


# ---------------------------------------------------------------------------------------------
# what the shared batch (genial/_envs.pxi) asks of the game

ctypedef State GState
PILE = "bag"


cdef int read_base(object base, State *out) except -1:
    """Copy ``base`` (a fresh ``Core``: empty board, full bag, nobody dealt), its bag in
    canonical order."""
    cdef Core core
    cdef int i
    if not isinstance(base, Core):
        raise TypeError(f"base: a Core, got {type(base).__name__}")
    core = base
    memcpy(out, &core.st, sizeof(State))
    check_state(out)
    if (out.phase != PH_PLACE or out.placements != 0 or out.current != 0 or out.turn != 1
            or out.bonus != 0 or not is_fresh_board(out)):
        raise ValueError("the base state must be a fresh game")
    for i in range(MAXP):
        if out.rack_n[i] or out.first_symbol[i] != NOSYM:
            raise ValueError("the base state must be a fresh game")
    bag_sort(&out.bag)
    return 0


cdef inline int players_of(const State *st) noexcept nogil:
    return st.rules.players


cdef inline int turns_of(const State *st) noexcept nogil:
    return st.turn


cdef inline bint over_truncated(const State *st) noexcept nogil:
    return False                        # a board game ends only when it is over


cdef inline void count_pile(Env *e) noexcept nogil:
    cdef int j
    memset(e.bag_counts, 0, NTYPE)
    for j in range(e.st.bag.n):
        e.bag_counts[e.st.bag.item[j]] += 1


cdef inline void deal_env(Env *e, const State *base) noexcept nogil:
    cdef Draws ds
    memcpy(&e.st, base, sizeof(State))
    memset(&ds, 0, sizeof(Draws))
    ds.rng = &e.chance_bg
    deal(&e.st, &ds)


cdef inline bint env_stuck(Env *e) noexcept nogil:
    return e.count == 0


cdef inline int env_sample(Env *e) noexcept nogil:
    cdef bitgen_t *rng = &e.policy_bg
    cdef int c, k
    if e.swap:
        return ACT_SWAP if rand_below(rng, 2) else ACT_KEEP
    if e.count > 0:
        c = popcount64(e.pattern)
        k = rand_below(rng, e.count)
        return nth_edge(e.edges, k // c) * 36 + select64(e.pattern, k % c)
    return -1


cdef inline void write_finals(const State *st, uint8_t *fs) noexcept nogil:
    cdef int p, c
    for p in range(st.rules.players):
        for c in range(NCOL):
            fs[p * NCOL + c] = st.score[st.rules.counter_of[p]][c]


cdef void write_rewards(const State *st, const int16_t *rk, float *rw) noexcept nogil:
    """Solo: the lowest counter over the cap (RULES §4.1); else the mean of +1 / 0 / -1 against
    each opponent (partners are none)."""
    cdef int p, q, c, low, opponents, balance
    cdef int players = st.rules.players
    if players == 1:
        low = st.score[0][0]
        for c in range(1, NCOL):
            low = st.score[0][c] if st.score[0][c] < low else low
        rw[0] = <float>low / <float>st.rules.cap
        return
    for p in range(players):
        opponents = 0
        balance = 0
        for q in range(players):
            if st.rules.counter_of[q] != st.rules.counter_of[p]:
                opponents += 1
                balance += (rk[q] > rk[p]) - (rk[q] < rk[p])
        rw[p] = <float>balance / <float>opponents


cdef inline bint same_rules(const State *a, const State *b):
    return memcmp(&a.rules, &b.rules, sizeof(Params)) == 0


cdef object state_object(const State *st):
    cdef Core out = Core.__new__(Core)
    memcpy(&out.st, st, sizeof(State))
    return out


include "genial/_envs.pxi"

# ---------------------------------------------------------------------------------------------
# the batch


cdef class Kernel(_EnvBatch):
    """``n`` games under the rules of ``base`` (a fresh ``Core``: empty board, full bag), their
    outputs in the numpy arrays of ``arrays`` (made here, written in place by every call; their
    memory is the kernel's, so no Python code can free or resize it under the kernel).

    ``mode``: 0 no masks, 1 bit-packed masks, 2 bool masks, 3 factored masks. ``max_turns``: a
    game still running when its turn counter passes it is truncated (0: never). Call ``seed``
    then ``start`` first.
    One thread at a time may call the kernel (another gets ``RuntimeError``); ``step`` checks
    and applies its own copy of the actions, whatever the caller's array does meanwhile. The
    loops are the shared batch's (``genial/_envs.pxi``); this class writes the board's outputs.
    """

    cdef int radius, ncells
    cdef int32_t *buf
    cdef uint64_t opening[NWORDS]   # the edges of a game's first placement (every game's)
    cdef uint8_t *o_board
    cdef uint8_t *o_rack
    cdef uint8_t *o_scores
    cdef uint8_t *o_phase
    cdef uint8_t *o_bonus
    cdef uint8_t *o_bag
    cdef uint8_t *o_rack_sizes
    cdef int8_t *o_current
    cdef uint8_t template[NCOL * MAX_CELLS]   # the board planes of a fresh game

    def __cinit__(self, Core base not None, Py_ssize_t n, int mode, int max_turns):
        cdef State first
        cdef int c
        self.radius = self.base.rules.radius
        self.ncells = N_CELLS[self.radius]
        self.buf = <int32_t *>calloc(ACT_SIZE, sizeof(int32_t))
        if self.buf == NULL:
            raise MemoryError()
        memcpy(&first, &self.base, sizeof(State))   # seat 0 holding one tile (any will do)
        first.rack[0][0] = 0
        first.rack_n[0] = 1
        memset(self.opening, 0, sizeof(self.opening))
        listed_edges(&first, self.buf, self.opening)
        if not self._symbol_edges_agree(&first):
            raise RuntimeError("the vector kernel's symbol edges disagree with the board kernel")
        players = self.players
        pointers = self._make_arrays({
            "board": ((n, NCOL, self.ncells), np.uint8),
            "rack": ((n, NTYPE), np.uint8),
            "scores": ((n, players, NCOL), np.uint8),
            "phase": ((n,), np.uint8),
            "bonus": ((n,), np.uint8),
            "bag": ((n,), np.uint8),
            "rack_sizes": ((n, players), np.uint8),
            "current_player": ((n,), np.int8),
        }, ((n, MASK_BYTES), np.uint8) if mode == MODE_PACKED
           else ((n, FACTORED_WORDS), np.uint64) if mode == MODE_FACTORED
           else ((n, ACT_SIZE), np.bool_))
        self.o_board = <uint8_t *><Py_ssize_t>pointers["board"]
        self.o_rack = <uint8_t *><Py_ssize_t>pointers["rack"]
        self.o_scores = <uint8_t *><Py_ssize_t>pointers["scores"]
        self.o_phase = <uint8_t *><Py_ssize_t>pointers["phase"]
        self.o_bonus = <uint8_t *><Py_ssize_t>pointers["bonus"]
        self.o_bag = <uint8_t *><Py_ssize_t>pointers["bag"]
        self.o_rack_sizes = <uint8_t *><Py_ssize_t>pointers["rack_sizes"]
        self.o_current = <int8_t *><Py_ssize_t>pointers["current_player"]
        memset(self.template, 0, sizeof(self.template))
        for c in range(NCOL):
            if SYM_POS[self.radius][c] >= 0:      # (areas of radius < 5 hold no symbol)
                self.template[c * self.ncells + SYM_POS[self.radius][c]] = 1

    def __dealloc__(self):
        free(self.buf)

    cdef bint _symbol_edges_agree(self, State *first):
        """Whether ``first_edges`` gives the board kernel's first-placement edges (``opening``
        from ``legal_actions``) for the first placement of ``first`` (seat 0 holding one tile),
        and with each symbol taken by seat 0's first placement (seat 1 to move)."""
        cdef uint64_t fast[NWORDS]
        cdef uint64_t slow[NWORDS]
        cdef State st
        cdef int k
        if first.rules.first_rule != FIRST_NEW_SYMBOL:
            return True
        memset(fast, 0, sizeof(fast))
        first_edges(first, self.buf, fast)
        if memcmp(fast, self.opening, sizeof(fast)) != 0:
            return False
        if first.rules.players < 2:
            return True
        for k in range(NCOL):           # seat 1 to move, seat 0's first placement on k
            memcpy(&st, first, sizeof(State))
            st.current = 1
            st.rack[1][0] = 0
            st.rack_n[1] = 1
            st.first_symbol[0] = k
            memset(fast, 0, sizeof(fast))
            memset(slow, 0, sizeof(slow))
            if first_edges(&st, self.buf, fast) != listed_edges(&st, self.buf, slow):
                return False
            if memcmp(fast, slow, sizeof(fast)) != 0:
                return False
        return True

    cdef void new_obs(self, Py_ssize_t i) noexcept nogil:
        memcpy(self.o_board + i * NCOL * self.ncells, self.template, NCOL * self.ncells)

    cdef void write_obs(self, Py_ssize_t i) noexcept nogil:
        """Write env ``i``'s observations, its decision (``decide``) and its mask."""
        cdef Env *e = &self.envs[i]
        cdef State *st = &e.st
        cdef int cur = st.current
        cdef int players = self.players
        cdef int j, seat
        cdef uint8_t *rack = self.o_rack + i * NTYPE
        cdef uint8_t *sc = self.o_scores + i * players * NCOL
        self.o_current[i] = cur
        self.o_phase[i] = st.phase
        self.o_bonus[i] = st.bonus
        self.o_bag[i] = st.bag.n
        memset(rack, 0, NTYPE)
        for j in range(st.rack_n[cur]):
            rack[st.rack[cur][j]] += 1
        for j in range(players):
            seat = cur + j
            if seat >= players:
                seat -= players
            memcpy(sc + j * NCOL, st.score[st.rules.counter_of[seat]], NCOL)
            self.o_rack_sizes[i * players + j] = st.rack_n[seat]
        decide(e, self.buf, self.opening)
        self.o_counts[i] = e.count
        if self.mode == MODE_PACKED:
            update_packed(self.o_mask + i * MASK_BYTES, e)
        elif self.mode == MODE_BOOL:
            update_bool(self.o_mask + i * ACT_SIZE, e)
        elif self.mode == MODE_FACTORED:
            update_factored(<uint64_t *>self.o_mask + i * FACTORED_WORDS, e)

    # -- stepping --------------------------------------------------------------------------------
    def reason(self, Py_ssize_t i, int action):
        """The board kernel's reason code why ``action`` is not legal in env ``i`` (0: legal)."""
        claim(&self.busy)
        try:
            self._check_env(i)
            return illegal_reason(&self.envs[i].st, action)
        finally:
            release(&self.busy)

    cdef void apply_one(self, Py_ssize_t i, int a) noexcept nogil:
        cdef Env *e = &self.envs[i]
        cdef State *st = &e.st
        cdef Draws ds
        cdef int edge, c0, c1, cur, nr, j
        cdef uint8_t *board
        cdef uint8_t drawn[BAG_CAP]
        cdef uint8_t old[MAXRACK]
        if e.dirty == 1:                   # canonical order before any draw, as Core.apply
            fill_bag(&st.bag, e.bag_counts)
        elif e.dirty == 2:
            resort_one(&st.bag, e.bag_counts, e.last_draw)
        cur = st.current
        nr = st.rack_n[cur]
        if a == ACT_SWAP:                  # the rack goes back to the bag (RULES §3.5)
            memcpy(old, st.rack[cur], MAXRACK)
        memset(&ds, 0, sizeof(Draws))
        ds.rng = &e.chance_bg
        ds.log = drawn
        ds.max_log = BAG_CAP
        if apply_action(st, a, &ds) < 0 or ds.error != DRAW_OK:
            self.fault = i
        for j in range(ds.n_log):
            e.bag_counts[drawn[j]] -= 1
        if a == ACT_SWAP:
            for j in range(nr):
                e.bag_counts[old[j]] += 1
        # every change of the bag draws (a swap draws the new rack before the old one goes back):
        # none, the bag is still canonical; one tile drawn for a placement, ``resort_one`` puts it
        # back in order; else ``fill_bag`` does
        if ds.n_log == 0:
            e.dirty = 0
        elif ds.n_log == 1 and a != ACT_SWAP:
            e.dirty = 2
            e.last_draw = drawn[0]
        else:
            e.dirty = 1
        if a < ACT_SWAP:
            edge = a // 36
            c0 = (a // 6) % 6
            c1 = a % 6
            board = self.o_board + i * NCOL * self.ncells
            board[c0 * self.ncells + POS_A[self.radius][edge]] = 1
            board[c1 * self.ncells + POS_B[self.radius][edge]] = 1

    # -- restoring -------------------------------------------------------------------------------
    cdef int _check_decision(self, Env *e, Py_ssize_t i) except -1:
        """The game goes on, and the factored form of its decision (``decide``) is exactly the
        rules' legal actions."""
        cdef int j, n
        if e.st.phase == PH_OVER:
            raise ValueError(f"env {i}: the game is over")
        decide(e, self.buf, self.opening)
        n = legal_actions(&e.st, self.buf)
        if n == 0 or n != e.count:
            raise ValueError(f"env {i}: {n} legal actions, the env's decision has {e.count}")
        for j in range(n):
            if not env_allows(e, self.buf[j]):
                raise ValueError(f"env {i}: action {self.buf[j]} is legal, not in its decision")
        return 0

    cdef void _rebuild_obs(self, Py_ssize_t i) noexcept:
        """The board planes, and an empty row of the mask (``write_obs`` writes it whole)."""
        cdef Env *e = &self.envs[i]
        cdef uint8_t *board = self.o_board + i * NCOL * self.ncells
        cdef int k, b
        memset(board, 0, NCOL * self.ncells)
        for k in range(self.ncells):
            b = e.st.board[COLUMN_CELL[self.radius][k]]
            if b < NCOL:
                board[b * self.ncells + k] = 1
        memset(e.m_edges, 0, sizeof(e.m_edges))
        e.m_pattern = 0
        e.m_swap = 0
        if self.mode == MODE_PACKED:
            memset(self.o_mask + i * MASK_BYTES, 0, MASK_BYTES)
        elif self.mode == MODE_BOOL:
            memset(self.o_mask + i * ACT_SIZE, 0, ACT_SIZE)
        elif self.mode == MODE_FACTORED:
            memset(self.o_mask + i * FACTORED_WORDS * 8, 0, FACTORED_WORDS * 8)


def pcg_step_agrees(uint64_t state_hi, uint64_t state_lo, uint64_t inc_hi, uint64_t inc_lo,
                    int steps):
    """Whether the portable 128-bit step (compilers without ``__int128``) gives the same states
    as the one compiled here over ``steps`` steps (a test hook)."""
    cdef genial_pcg a, b
    cdef int k
    a.state_hi = b.state_hi = state_hi
    a.state_lo = b.state_lo = state_lo
    a.inc_hi = b.inc_hi = inc_hi
    a.inc_lo = b.inc_lo = inc_lo | 1
    for k in range(steps):
        pcg_step(&a)
        pcg_step_portable(&b)
        if a.state_hi != b.state_hi or a.state_lo != b.state_lo:
            return False
    return True
