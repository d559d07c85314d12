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
from libc.string cimport memcpy, memset
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
    State,
    apply_action,
    deal,
    illegal_reason,
    legal_actions,
    ranks,
)

import numpy as np

from genial import _core

# PCG64 and SeedSequence, bit for bit as numpy computes them (genial/_pcg.pxd, shared with the
# card game's vector environment)
from genial._pcg cimport (
    PCG_MAX_POOL,
    bitgen_init,
    genial_pcg,
    int_words,
    pcg_seed,
    pcg_step,
    pcg_step_portable,
    seed_child,
    seed_pool,
)


cdef enum:
    MAX_POOL = PCG_MAX_POOL     # SeedSequence pool sizes supported (numpy's default is 4)
    MASK_BYTES = 1918           # (ACT_SIZE + 7) // 8: bit a of the mask is bit a % 8 of byte a // 8
    PAIRS = 213                 # NEDGE // 2: two edges' 72 action bits fill exactly 9 bytes
    MODE_NONE = 0
    MODE_PACKED = 1
    MODE_BOOL = 2

cdef uint64_t POLICY_WORD = 4294967296ULL   # genial.seeds.POLICY_STREAM: the samplers' first key
POLICY_KEY = POLICY_WORD
MASK_SIZE = MASK_BYTES

# ---------------------------------------------------------------------------------------------
# tables, built once at import from the board kernel's

cdef int16_t POS_A[8][NEDGE]    # observation column of an edge's first cell (area of radius r)
cdef int16_t POS_B[8][NEDGE]    # ... of its second cell; -1 outside the area
cdef int16_t SYM_POS[8][NCOL]   # column of each printed symbol
cdef int N_CELLS[8]
cdef uint64_t TILE_BITS[NTYPE]  # bits c0 * 6 + c1 of the (colour, colour) placements of a tile


def area_cells(int radius):
    """The cells at distance <= ``radius`` in row-major order: the columns of the board planes
    (the same order as ``genial.geometry.area``)."""
    return [(q, r) for r in range(-radius, radius + 1)
            for q in range(max(-radius, -radius - r), min(radius, radius - r) + 1)]


cdef void _build_tables():
    cdef int radius, e, c, t
    for radius in range(8):
        for e in range(NEDGE):
            POS_A[radius][e] = -1
            POS_B[radius][e] = -1
        N_CELLS[radius] = 0
    for radius in range(1, 8):
        column = {cell: k for k, cell in enumerate(area_cells(radius))}
        N_CELLS[radius] = len(column)
        for e, (a, b) in enumerate(_core.EDGES):
            if a in column and b in column:
                POS_A[radius][e] = column[a]
                POS_B[radius][e] = column[b]
        for c, cell in enumerate(_core.SYMBOLS):
            SYM_POS[radius][c] = column.get(cell, -1)
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
    uint8_t dirty               # the bag may be out of canonical order (draws or returns since)
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
    """The edges the current seat's placement may use, from the board kernel's ``legal_actions``
    (into ``edges``, zeroed by the caller); returns the number of legal actions. The edges do not
    depend on the rack (the first-round rule looks at the board and the symbols touched)."""
    cdef int n = legal_actions(st, buf)
    cdef int j = 0, edge
    cdef int c = popcount64(rack_bits(st))
    while j < n:
        edge = buf[j] // 36
        edges[edge >> 6] |= (<uint64_t>1) << (edge & 63)
        j += c
    return n


cdef inline bint allowed(Env *e, int a) noexcept nogil:
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
    changed, else those whose edges changed."""
    cdef uint8_t pat[4][9]
    cdef uint64_t p = e.pattern, lo, hi, sel, pairs
    cdef int v, b, w, bit, k
    for v in range(4):
        lo = (p if v & 1 else 0) | ((p << 36) if v & 2 else 0)
        hi = (p >> 28) if v & 2 else 0
        for b in range(8):
            pat[v][b] = (lo >> (8 * b)) & 0xFF
        pat[v][8] = hi & 0xFF
    for w in range(NWORDS):
        if p == e.m_pattern:
            sel = e.edges[w] ^ e.m_edges[w]
        else:
            sel = e.edges[w] | e.m_edges[w]
        pairs = (sel | (sel >> 1)) & 0x5555555555555555ULL
        while pairs:
            bit = ctz64(pairs)
            pairs &= pairs - 1
            k = (w * 64 + bit) >> 1
            v = (e.edges[w] >> bit) & 3
            memcpy(dst + 9 * k, pat[v], 9)
        e.m_edges[w] = e.edges[w]
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


# ---------------------------------------------------------------------------------------------
# the batch


cdef class Kernel:
    """``n`` games under the rules of ``base`` (a fresh ``Core``: empty board, full bag), their
    outputs in the numpy arrays of ``arrays`` (made here, written in place by every call).

    ``mode``: 0 no masks, 1 bit-packed masks, 2 bool masks. ``max_turns``: a game still running
    when its turn counter passes it is truncated (0: never). Call ``seed`` then ``start`` first.
    """

    cdef Env *envs
    cdef Py_ssize_t n
    cdef State base
    cdef int players, radius, ncells, mode, max_turns
    cdef int pool_size, nprefix
    cdef uint32_t *prefix
    cdef int32_t *buf
    cdef uint64_t opening[NWORDS]   # the edges of a game's first placement (every game's)
    cdef readonly dict arrays
    cdef uint8_t *o_board
    cdef uint8_t *o_rack
    cdef uint8_t *o_scores
    cdef uint8_t *o_phase
    cdef uint8_t *o_bonus
    cdef uint8_t *o_bag
    cdef uint8_t *o_rack_sizes
    cdef int8_t *o_current
    cdef uint8_t *o_mask
    cdef int32_t *o_counts
    cdef float *o_rewards
    cdef uint8_t *o_terminated
    cdef uint8_t *o_truncated
    cdef uint8_t *o_final_scores
    cdef int8_t *o_final_ranks
    cdef uint64_t *o_episode
    cdef uint8_t *template
    cdef Py_ssize_t fault

    def __cinit__(self, Core base not None, Py_ssize_t n, int mode, int max_turns):
        cdef Py_ssize_t i
        cdef State first
        if n < 1:
            raise ValueError("at least one environment")
        if mode not in (MODE_NONE, MODE_PACKED, MODE_BOOL):
            raise ValueError(f"bad mask mode {mode}")
        memcpy(&self.base, &base.st, sizeof(State))
        if self.base.phase != PH_PLACE or self.base.placements != 0:
            raise ValueError("the base state must be a fresh game")
        self.n = n
        self.players = self.base.rules.players
        self.radius = self.base.rules.radius
        self.ncells = N_CELLS[self.radius]
        self.mode = mode
        self.max_turns = max_turns if max_turns > 0 else 0
        self.fault = -1
        self.envs = <Env *>calloc(n, sizeof(Env))
        self.buf = <int32_t *>calloc(ACT_SIZE, sizeof(int32_t))
        self.prefix = NULL
        self.nprefix = 0
        self.pool_size = 0
        if self.envs == NULL or self.buf == NULL:
            raise MemoryError()
        for i in range(n):
            bitgen_init(&self.envs[i].chance_bg, &self.envs[i].chance)
            bitgen_init(&self.envs[i].policy_bg, &self.envs[i].policy)
        memcpy(&first, &self.base, sizeof(State))   # seat 0 holding one tile (any will do)
        first.rack[0][0] = 0
        first.rack_n[0] = 1
        memset(self.opening, 0, sizeof(self.opening))
        first_edges(&first, self.buf, self.opening)
        players = self.players
        a = {
            "board": np.zeros((n, NCOL, self.ncells), dtype=np.uint8),
            "rack": np.zeros((n, NTYPE), dtype=np.uint8),
            "scores": np.zeros((n, players, NCOL), dtype=np.uint8),
            "phase": np.zeros(n, dtype=np.uint8),
            "bonus": np.zeros(n, dtype=np.uint8),
            "bag": np.zeros(n, dtype=np.uint8),
            "rack_sizes": np.zeros((n, players), dtype=np.uint8),
            "current_player": np.zeros(n, dtype=np.int8),
            "legal_counts": np.zeros(n, dtype=np.int32),
            "rewards": np.zeros((n, players), dtype=np.float32),
            "terminated": np.zeros(n, dtype=np.bool_),
            "truncated": np.zeros(n, dtype=np.bool_),
            "final_scores": np.zeros((n, players, NCOL), dtype=np.uint8),
            "final_ranks": np.zeros((n, players), dtype=np.int8),
            "episode": np.zeros(n, dtype=np.uint64),
            "_template": np.zeros((NCOL, self.ncells), dtype=np.uint8),
        }
        if mode == MODE_PACKED:
            a["masks"] = np.zeros((n, MASK_BYTES), dtype=np.uint8)
        elif mode == MODE_BOOL:
            a["masks"] = np.zeros((n, ACT_SIZE), dtype=np.bool_)
        self.arrays = a
        self.o_board = _ptr8(a["board"])
        self.o_rack = _ptr8(a["rack"])
        self.o_scores = _ptr8(a["scores"])
        self.o_phase = _ptr8(a["phase"])
        self.o_bonus = _ptr8(a["bonus"])
        self.o_bag = _ptr8(a["bag"])
        self.o_rack_sizes = _ptr8(a["rack_sizes"])
        self.o_current = <int8_t *>_ptr8(a["current_player"])
        self.o_counts = <int32_t *>_ptr8(a["legal_counts"])
        self.o_rewards = <float *>_ptr8(a["rewards"])
        self.o_terminated = _ptr8(a["terminated"])
        self.o_truncated = _ptr8(a["truncated"])
        self.o_final_scores = _ptr8(a["final_scores"])
        self.o_final_ranks = <int8_t *>_ptr8(a["final_ranks"])
        self.o_episode = <uint64_t *>_ptr8(a["episode"])
        self.template = _ptr8(a["_template"])
        self.o_mask = _ptr8(a["masks"]) if mode != MODE_NONE else NULL
        for c in range(NCOL):
            self.template[c * self.ncells + SYM_POS[self.radius][c]] = 1

    def __dealloc__(self):
        free(self.envs)
        free(self.buf)
        free(self.prefix)

    # -- seeding ---------------------------------------------------------------------------------
    def seed(self, const uint32_t[::1] prefix not None, int pool_size):
        """Root the streams at the SeedSequence whose assembled entropy, before the stream's own
        key words, is ``prefix`` (run entropy padded to ``pool_size``, then the root's spawn key
        words); reseeds every sampler. The episodes restart at 0 with the next ``start``."""
        cdef Py_ssize_t i
        cdef uint32_t *words
        if not 4 <= pool_size <= MAX_POOL:
            raise ValueError(f"pool_size must be in 4..{MAX_POOL}")
        words = <uint32_t *>calloc(prefix.shape[0] + 1, sizeof(uint32_t))
        if words == NULL:
            raise MemoryError()
        for i in range(prefix.shape[0]):
            words[i] = prefix[i]
        free(self.prefix)
        self.prefix = words
        self.nprefix = prefix.shape[0]
        self.pool_size = pool_size
        with nogil:
            for i in range(self.n):
                self.seed_stream(&self.envs[i].policy, POLICY_WORD, i)

    cdef void seed_stream(self, genial_pcg *g, uint64_t x, uint64_t y) noexcept nogil:
        """Seed ``g`` as ``PCG64(child_seed(root, x, y))``."""
        seed_child(g, self.prefix, self.nprefix, self.pool_size, x, y)

    def pool(self, uint64_t x, uint64_t y):
        """The SeedSequence pool of ``child_seed(root, x, y)`` (to check against numpy's)."""
        cdef uint32_t key[4]
        cdef uint32_t pool[MAX_POOL]
        cdef int nk
        self._check_seeded()
        nk = int_words(x, key)
        nk += int_words(y, key + nk)
        seed_pool(self.prefix, self.nprefix, key, nk, pool, self.pool_size)
        return [pool[i] for i in range(self.pool_size)]

    cdef int _check_seeded(self) except -1:
        if self.prefix == NULL:
            raise ValueError("the kernel is not seeded")
        return 0

    # -- episodes --------------------------------------------------------------------------------
    def start(self, bint fresh):
        """Start a new game in every env: episode 0 if ``fresh`` (after ``seed``), else each
        env's next episode. Clears rewards and flags, writes every observation."""
        cdef Py_ssize_t i
        self._check_seeded()
        with nogil:
            for i in range(self.n):
                self.new_game(i, 0 if fresh else self.envs[i].episode + 1)
                self.clear_step(i)
                self.write_obs(i)

    cdef void new_game(self, Py_ssize_t i, uint64_t episode) noexcept nogil:
        cdef Env *e = &self.envs[i]
        cdef Draws ds
        cdef int j
        e.episode = episode
        self.o_episode[i] = episode
        self.seed_stream(&e.chance, i, episode)
        memcpy(&e.st, &self.base, sizeof(State))
        bag_sort(&e.st.bag)
        memset(&ds, 0, sizeof(Draws))
        ds.rng = &e.chance_bg
        deal(&e.st, &ds)
        memset(e.bag_counts, 0, NTYPE)
        for j in range(e.st.bag.n):
            e.bag_counts[e.st.bag.item[j]] += 1
        e.dirty = 1
        memcpy(self.o_board + i * NCOL * self.ncells, self.template, NCOL * self.ncells)

    cdef inline void clear_step(self, Py_ssize_t i) noexcept nogil:
        cdef int p
        for p in range(self.players):
            self.o_rewards[i * self.players + p] = 0
        self.o_terminated[i] = 0
        self.o_truncated[i] = 0

    cdef void finish(self, Py_ssize_t i, bint truncated) noexcept nogil:
        """Write the final scores, ranks and (unless truncated) rewards of env ``i``'s game."""
        cdef State *st = &self.envs[i].st
        cdef int16_t rk[MAXP]
        cdef int p, q, c, low, opponents, balance
        cdef int players = self.players
        cdef uint8_t *fs = self.o_final_scores + i * players * NCOL
        cdef float *rw = self.o_rewards + i * players
        ranks(st, rk)
        for p in range(players):
            for c in range(NCOL):
                fs[p * NCOL + c] = st.score[st.rules.counter_of[p]][c]
            self.o_final_ranks[i * players + p] = rk[p]
        if truncated:
            self.o_truncated[i] = 1
            return
        self.o_terminated[i] = 1
        if players == 1:                   # solo: the lowest counter over the cap (RULES §4.1)
            low = st.score[0][0]
            for c in range(1, NCOL):
                low = st.score[0][c] if st.score[0][c] < low else low
            rw[0] = <float>low / <float>st.rules.cap
            return
        for p in range(players):           # the mean of +1 / 0 / -1 against each opponent
            opponents = 0
            balance = 0
            for q in range(players):
                if st.rules.counter_of[q] != st.rules.counter_of[p]:
                    opponents += 1
                    balance += (rk[q] > rk[p]) - (rk[q] < rk[p])
            rw[p] = <float>balance / <float>opponents

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

    # -- stepping --------------------------------------------------------------------------------
    def check(self, const int32_t[::1] actions not None):
        """The first env whose action is not legal, or -1 (nothing is changed)."""
        cdef Py_ssize_t i, bad = -1
        if actions.shape[0] != self.n:
            raise ValueError("one action per env")
        with nogil:
            for i in range(self.n):
                if not allowed(&self.envs[i], actions[i]):
                    bad = i
                    break
        return bad

    def reason(self, Py_ssize_t i, int action):
        """The board kernel's reason code why ``action`` is not legal in env ``i`` (0: legal)."""
        self._check_env(i)
        return illegal_reason(&self.envs[i].st, action)

    def step(self, const int32_t[::1] actions not None):
        """Apply one action per env, all legal (``check`` first): finished games are scored and
        restarted, then every observation is written."""
        cdef Py_ssize_t i
        if actions.shape[0] != self.n:
            raise ValueError("one action per env")
        self._check_seeded()
        self.fault = -1
        with nogil:
            for i in range(self.n):
                self.step_one(i, actions[i])
        if self.fault >= 0:
            raise RuntimeError(f"env {self.fault}: drawing from the bag failed")

    cdef void step_one(self, Py_ssize_t i, int a) noexcept nogil:
        cdef Env *e = &self.envs[i]
        cdef State *st = &e.st
        cdef Draws ds
        cdef int edge, c0, c1, cur, nr, j
        cdef uint8_t *board
        cdef uint8_t drawn[BAG_CAP]
        cdef uint8_t old[MAXRACK]
        if e.dirty:
            fill_bag(&st.bag, e.bag_counts)  # canonical order before any draw, as Core.apply
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
        e.dirty = ds.n_log > 0             # every change of the bag draws (a swap draws the new
                                           # rack before the old one goes back)
        if a < ACT_SWAP:
            edge = a // 36
            c0 = (a // 6) % 6
            c1 = a % 6
            board = self.o_board + i * NCOL * self.ncells
            board[c0 * self.ncells + POS_A[self.radius][edge]] = 1
            board[c1 * self.ncells + POS_B[self.radius][edge]] = 1
        self.clear_step(i)
        if st.phase == PH_OVER:
            self.finish(i, False)
            self.new_game(i, e.episode + 1)
        elif self.max_turns and st.turn > self.max_turns:
            self.finish(i, True)
            self.new_game(i, e.episode + 1)
        self.write_obs(i)
        if e.count == 0:                   # nothing playable: only in hand-made positions,
            self.finish(i, True)           # never after a deal; truncated, as in run_chunk
            self.new_game(i, e.episode + 1)
            self.write_obs(i)

    def sample(self, int32_t[::1] out not None):
        """A uniformly random legal action per env, from each env's sampler stream."""
        cdef Py_ssize_t i
        cdef Env *e
        cdef bitgen_t *rng
        cdef int c, k
        if out.shape[0] != self.n:
            raise ValueError("one action per env")
        self._check_seeded()
        with nogil:
            for i in range(self.n):
                e = &self.envs[i]
                rng = &e.policy_bg
                if e.swap:
                    out[i] = ACT_SWAP if rand_below(rng, 2) else ACT_KEEP
                elif e.count > 0:
                    c = popcount64(e.pattern)
                    k = rand_below(rng, e.count)
                    out[i] = nth_edge(e.edges, k // c) * 36 + select64(e.pattern, k % c)
                else:
                    out[i] = -1

    # -- reading ---------------------------------------------------------------------------------
    cdef int _check_env(self, Py_ssize_t i) except -1:
        if not 0 <= i < self.n:
            raise IndexError(f"no env {i}")
        return 0

    def snapshot(self):
        """Everything the kernel holds, as ``(envs, prefix, pool_size, arrays)`` (for pickling):
        the envs' bytes, the seed words and copies of the output arrays."""
        envs = (<char *>self.envs)[:self.n * sizeof(Env)]
        prefix = np.array([self.prefix[i] for i in range(self.nprefix)], dtype=np.uint32)
        return envs, prefix, self.pool_size, {k: v.copy() for k, v in self.arrays.items()}

    def restore(self, bytes envs not None, const uint32_t[::1] prefix not None, int pool_size,
                dict arrays not None):
        """Set everything from ``snapshot``'s parts (the same rules, size and mode)."""
        cdef Py_ssize_t i
        if len(envs) != <Py_ssize_t>(self.n * sizeof(Env)) or set(arrays) != set(self.arrays):
            raise ValueError("a snapshot of another kernel")
        for name, array in arrays.items():
            if array.shape != self.arrays[name].shape or array.dtype != self.arrays[name].dtype:
                raise ValueError(f"a snapshot of another kernel ({name})")
        self.seed(prefix, pool_size)
        memcpy(self.envs, <char *>envs, self.n * sizeof(Env))
        for i in range(self.n):            # the streams' pointers are this kernel's
            bitgen_init(&self.envs[i].chance_bg, &self.envs[i].chance)
            bitgen_init(&self.envs[i].policy_bg, &self.envs[i].policy)
        for name, array in arrays.items():
            self.arrays[name][...] = array

    def core(self, Py_ssize_t i):
        """A copy of env ``i``'s kernel state."""
        cdef Core out = Core.__new__(Core)
        self._check_env(i)
        memcpy(&out.st, &self.envs[i].st, sizeof(State))
        return out

    def stream_state(self, Py_ssize_t i, bint policy=False):
        """Env ``i``'s chance (or sampler) stream as ``numpy.random.PCG64().state`` writes it."""
        cdef genial_pcg *g
        self._check_env(i)
        g = &self.envs[i].policy if policy else &self.envs[i].chance
        return {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(g.state_hi) << 64) | int(g.state_lo),
                "inc": (int(g.inc_hi) << 64) | int(g.inc_lo),
            },
            "has_uint32": int(g.has_uint32),
            "uinteger": int(g.uinteger),
        }


cdef uint8_t *_ptr8(object array):
    cdef uint8_t[::1] flat = array.reshape(-1).view(np.uint8)
    return &flat[0]


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
