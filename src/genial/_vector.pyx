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
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcmp, memcpy, memset
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
from genial._checks cimport claim, copy_actions, owned_array, read_step_outputs, release

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
    MAX_PREFIX = 4096           # seed words a root may have before a child's key (a spawn key
                                # of thousands of levels)
    MAX_CELLS = 169             # cells of the largest area (radius 7)

cdef uint64_t POLICY_WORD = 4294967296ULL   # genial.seeds.POLICY_STREAM: the samplers' first key
POLICY_KEY = POLICY_WORD
MASK_SIZE = MASK_BYTES

# ---------------------------------------------------------------------------------------------
# tables, built once at import from the board kernel's

cdef int16_t POS_A[8][NEDGE]    # observation column of an edge's first cell (area of radius r)
cdef int16_t POS_B[8][NEDGE]    # ... of its second cell; -1 outside the area
cdef int16_t SYM_POS[8][NCOL]   # column of each printed symbol
cdef int N_CELLS[8]
cdef int16_t COLUMN_CELL[8][MAX_CELLS]  # the padded-grid index of each observation column
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
        for cell, k in column.items():
            COLUMN_CELL[radius][k] = _core.index_of(*cell)
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
    outputs in the numpy arrays of ``arrays`` (made here, written in place by every call; their
    memory is the kernel's, so no Python code can free or resize it under the kernel).

    ``mode``: 0 no masks, 1 bit-packed masks, 2 bool masks. ``max_turns``: a game still running
    when its turn counter passes it is truncated (0: never). Call ``seed`` then ``start`` first.
    One thread at a time may call the kernel (another gets ``RuntimeError``); ``step`` checks
    and applies its own copy of the actions, whatever the caller's array does meanwhile.
    """

    cdef Env *envs
    cdef Py_ssize_t n
    cdef State base
    cdef int players, radius, ncells, mode, max_turns
    cdef int pool_size, nprefix
    cdef uint32_t *prefix
    cdef int32_t *buf
    cdef int32_t *acts              # the last step's actions: the kernel's copy
    cdef bint busy                  # a thread is in a method (``claim``)
    cdef bint started               # ``start`` (or ``restore``) has made every env a game
    cdef uint64_t opening[NWORDS]   # the edges of a game's first placement (every game's)
    cdef dict _arrays
    cdef list _keep                 # the memory of the arrays
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
    cdef uint8_t template[NCOL * MAX_CELLS]   # the board planes of a fresh game
    cdef Py_ssize_t fault

    def __cinit__(self, Core base not None, Py_ssize_t n, int mode, int max_turns):
        cdef Py_ssize_t i
        cdef State first
        cdef uint8_t *ptr
        if n < 1:
            raise ValueError("at least one environment")
        if mode not in (MODE_NONE, MODE_PACKED, MODE_BOOL):
            raise ValueError(f"bad mask mode {mode}")
        memcpy(&self.base, &base.st, sizeof(State))
        check_state(&self.base)
        if (self.base.phase != PH_PLACE or self.base.placements != 0 or self.base.current != 0
                or self.base.turn != 1 or self.base.bonus != 0
                or not is_fresh_board(&self.base)):
            raise ValueError("the base state must be a fresh game")
        for i in range(MAXP):
            if self.base.rack_n[i] or self.base.first_symbol[i] != NOSYM:
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
        self.acts = <int32_t *>calloc(n, sizeof(int32_t))
        self.prefix = NULL
        self.nprefix = 0
        self.pool_size = 0
        if self.envs == NULL or self.buf == NULL or self.acts == NULL:
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
        shapes = {
            "board": ((n, NCOL, self.ncells), np.uint8),
            "rack": ((n, NTYPE), np.uint8),
            "scores": ((n, players, NCOL), np.uint8),
            "phase": ((n,), np.uint8),
            "bonus": ((n,), np.uint8),
            "bag": ((n,), np.uint8),
            "rack_sizes": ((n, players), np.uint8),
            "current_player": ((n,), np.int8),
            "legal_counts": ((n,), np.int32),
            "rewards": ((n, players), np.float32),
            "terminated": ((n,), np.bool_),
            "truncated": ((n,), np.bool_),
            "final_scores": ((n, players, NCOL), np.uint8),
            "final_ranks": ((n, players), np.int8),
            "episode": ((n,), np.uint64),
        }
        if mode == MODE_PACKED:
            shapes["masks"] = ((n, MASK_BYTES), np.uint8)
        elif mode == MODE_BOOL:
            shapes["masks"] = ((n, ACT_SIZE), np.bool_)
        self._keep = []
        self._arrays = {}
        pointers = {}
        for name, (shape, dtype) in shapes.items():
            self._arrays[name] = owned_array(self._keep, shape, dtype, &ptr)
            pointers[name] = <Py_ssize_t>ptr
        self.o_board = <uint8_t *><Py_ssize_t>pointers["board"]
        self.o_rack = <uint8_t *><Py_ssize_t>pointers["rack"]
        self.o_scores = <uint8_t *><Py_ssize_t>pointers["scores"]
        self.o_phase = <uint8_t *><Py_ssize_t>pointers["phase"]
        self.o_bonus = <uint8_t *><Py_ssize_t>pointers["bonus"]
        self.o_bag = <uint8_t *><Py_ssize_t>pointers["bag"]
        self.o_rack_sizes = <uint8_t *><Py_ssize_t>pointers["rack_sizes"]
        self.o_current = <int8_t *><Py_ssize_t>pointers["current_player"]
        self.o_counts = <int32_t *><Py_ssize_t>pointers["legal_counts"]
        self.o_rewards = <float *><Py_ssize_t>pointers["rewards"]
        self.o_terminated = <uint8_t *><Py_ssize_t>pointers["terminated"]
        self.o_truncated = <uint8_t *><Py_ssize_t>pointers["truncated"]
        self.o_final_scores = <uint8_t *><Py_ssize_t>pointers["final_scores"]
        self.o_final_ranks = <int8_t *><Py_ssize_t>pointers["final_ranks"]
        self.o_episode = <uint64_t *><Py_ssize_t>pointers["episode"]
        self.o_mask = <uint8_t *><Py_ssize_t>pointers["masks"] if mode != MODE_NONE else NULL
        memset(self.template, 0, sizeof(self.template))
        for c in range(NCOL):
            if SYM_POS[self.radius][c] >= 0:      # (areas of radius < 5 hold no symbol)
                self.template[c * self.ncells + SYM_POS[self.radius][c]] = 1

    def __dealloc__(self):
        free(self.envs)
        free(self.buf)
        free(self.acts)
        free(self.prefix)

    @property
    def arrays(self):
        """The output arrays by name (a new dict of the kernel's arrays)."""
        return dict(self._arrays)

    # -- seeding ---------------------------------------------------------------------------------
    def seed(self, const uint32_t[::1] prefix not None, int pool_size):
        """Root the streams at the SeedSequence whose assembled entropy, before the stream's own
        key words, is ``prefix`` (run entropy padded to ``pool_size``, then the root's spawn key
        words); reseeds every sampler. The episodes restart at 0 with the next ``start``."""
        cdef Py_ssize_t i
        claim(&self.busy)
        try:
            self._set_prefix(prefix, pool_size)
            with nogil:
                for i in range(self.n):
                    self.seed_stream(&self.envs[i].policy, POLICY_WORD, i)
        finally:
            release(&self.busy)

    cdef int _set_prefix(self, const uint32_t[::1] prefix, int pool_size) except -1:
        cdef Py_ssize_t i
        cdef uint32_t *words
        if not 4 <= pool_size <= MAX_POOL:
            raise ValueError(f"pool_size must be in 4..{MAX_POOL}")
        if prefix.shape[0] > MAX_PREFIX:
            raise ValueError(f"prefix: at most {MAX_PREFIX} words, got {prefix.shape[0]}")
        words = <uint32_t *>calloc(prefix.shape[0] + 1, sizeof(uint32_t))
        if words == NULL:
            raise MemoryError()
        for i in range(prefix.shape[0]):
            words[i] = prefix[i]
        free(self.prefix)
        self.prefix = words
        self.nprefix = <int>prefix.shape[0]
        self.pool_size = pool_size
        return 0

    cdef void seed_stream(self, genial_pcg *g, uint64_t x, uint64_t y) noexcept nogil:
        """Seed ``g`` as ``PCG64(child_seed(root, x, y))``."""
        seed_child(g, self.prefix, self.nprefix, self.pool_size, x, y)

    def pool(self, uint64_t x, uint64_t y):
        """The SeedSequence pool of ``child_seed(root, x, y)`` (to check against numpy's)."""
        cdef uint32_t key[4]
        cdef uint32_t pool[MAX_POOL]
        cdef int nk
        claim(&self.busy)
        try:
            self._check_seeded()
            nk = int_words(x, key)
            nk += int_words(y, key + nk)
            seed_pool(self.prefix, self.nprefix, key, nk, pool, self.pool_size)
            return [pool[i] for i in range(self.pool_size)]
        finally:
            release(&self.busy)

    cdef int _check_seeded(self) except -1:
        if self.prefix == NULL:
            raise ValueError("the kernel is not seeded")
        return 0

    cdef int _check_started(self) except -1:
        if not self.started:
            raise ValueError("the kernel's games are not started (start first)")
        return 0

    # -- episodes --------------------------------------------------------------------------------
    def start(self, bint fresh):
        """Start a new game in every env: episode 0 if ``fresh`` (after ``seed``), else each
        env's next episode. Clears rewards and flags, writes every observation."""
        cdef Py_ssize_t i
        claim(&self.busy)
        try:
            self._check_seeded()
            with nogil:
                for i in range(self.n):
                    self.new_game(i, 0 if fresh else self.envs[i].episode + 1)
                    self.clear_step(i)
                    self.write_obs(i)
            self.started = True
        finally:
            release(&self.busy)
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
    def reason(self, Py_ssize_t i, int action):
        """The board kernel's reason code why ``action`` is not legal in env ``i`` (0: legal)."""
        claim(&self.busy)
        try:
            self._check_env(i)
            return illegal_reason(&self.envs[i].st, action)
        finally:
            release(&self.busy)

    def step(self, const int32_t[::1] actions not None):
        """Copy the actions (one per env) into the kernel, check the copy: if every action is
        legal, apply them (finished games are scored and restarted, then every observation is
        written) and return -1; else return the first env whose action is not legal, with
        nothing changed. Only the copy is read after the check (``last_actions``)."""
        cdef Py_ssize_t i, bad = -1
        claim(&self.busy)
        try:
            self._check_started()
            copy_actions(self.acts, actions, self.n)
            self.fault = -1
            with nogil:
                for i in range(self.n):
                    if not allowed(&self.envs[i], self.acts[i]):
                        bad = i
                        break
                if bad < 0:
                    for i in range(self.n):
                        self.step_one(i, self.acts[i])
        finally:
            release(&self.busy)
        if self.fault >= 0:
            raise RuntimeError(f"env {self.fault}: drawing from the bag failed")
        return bad

    def last_actions(self):
        """A copy of the actions the last ``step`` read (applied, or refused whole)."""
        out = np.empty(self.n, dtype=np.int32)
        cdef int32_t[::1] view = out
        memcpy(&view[0], self.acts, self.n * sizeof(int32_t))
        return out

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
        claim(&self.busy)
        try:
            self._check_started()
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
        finally:
            release(&self.busy)

    # -- reading ---------------------------------------------------------------------------------
    cdef int _check_env(self, Py_ssize_t i) except -1:
        self._check_started()
        if not 0 <= i < self.n:
            raise IndexError(f"no env {i}")
        return 0

    def snapshot(self):
        """Everything the kernel holds, as ``(envs, prefix, pool_size, arrays)`` (for pickling):
        the envs' bytes, the seed words and copies of the output arrays."""
        claim(&self.busy)
        try:
            self._check_started()
            envs = (<char *>self.envs)[:self.n * sizeof(Env)]
            prefix = np.array([self.prefix[i] for i in range(self.nprefix)], dtype=np.uint32)
            return envs, prefix, self.pool_size, {k: v.copy() for k, v in self._arrays.items()}
        finally:
            release(&self.busy)

    def restore(self, bytes envs not None, const uint32_t[::1] prefix not None, int pool_size,
                dict arrays not None):
        """Set everything from ``snapshot``'s parts (the same rules, size and mode), checked
        as if typed by hand: every env must hold a game of these rules at a decision
        (``check_state``) with streams numpy could have made; ``ValueError`` naming the env
        otherwise, and nothing changes. What the envs determine (their bag counts, decisions,
        observations and masks) is computed again, not read; only the last step's outputs
        (rewards, flags, final scores and ranks) are taken from ``arrays``."""
        cdef Py_ssize_t i
        cdef Env *work = NULL
        claim(&self.busy)
        try:
            outputs = read_step_outputs(arrays, self._arrays)
            if len(envs) != <Py_ssize_t>(self.n * sizeof(Env)):
                raise ValueError("a snapshot of another kernel (its size)")
            if not 4 <= pool_size <= MAX_POOL or prefix.shape[0] > MAX_PREFIX:
                raise ValueError("a snapshot of another kernel (its seed)")
            work = <Env *>malloc(self.n * sizeof(Env))
            if work == NULL:
                raise MemoryError()
            memcpy(work, <char *>envs, self.n * sizeof(Env))
            for i in range(self.n):
                self._check_restored(&work[i], i)
            self._set_prefix(prefix, pool_size)
            memcpy(self.envs, work, self.n * sizeof(Env))
            for i in range(self.n):
                self._rebuild(i)
            for name, value in outputs.items():
                self._arrays[name][...] = value
            self.started = True
        finally:
            free(work)
            release(&self.busy)

    cdef int _check_restored(self, Env *e, Py_ssize_t i) except -1:
        """``ValueError`` unless ``e`` (a copy) holds a game this kernel could be playing: a
        state ``check_state`` accepts, under the base's rules, at a decision whose factored
        form (``decide``) is exactly the rules' legal actions; its streams PCG64's."""
        cdef int j, n
        try:
            check_state(&e.st)
        except ValueError as exc:
            raise ValueError(f"env {i}: {exc}") from None
        if memcmp(&e.st.rules, &self.base.rules, sizeof(Params)):
            raise ValueError(f"env {i}: a game under other rules")
        if e.st.phase == PH_OVER:
            raise ValueError(f"env {i}: the game is over")
        if (not e.chance.inc_lo & 1 or not e.policy.inc_lo & 1 or e.chance.has_uint32 > 1
                or e.policy.has_uint32 > 1):
            raise ValueError(f"env {i}: not a PCG64 stream")
        decide(e, self.buf, self.opening)
        n = legal_actions(&e.st, self.buf)
        if n == 0 or n != e.count:
            raise ValueError(f"env {i}: {n} legal actions, the env's decision has {e.count}")
        for j in range(n):
            if not allowed(e, self.buf[j]):
                raise ValueError(f"env {i}: action {self.buf[j]} is legal, not in its decision")
        return 0

    cdef void _rebuild(self, Py_ssize_t i) noexcept:
        """Compute what env ``i``'s state determines: its stream pointers, bag counts, board
        planes, observations, decision and (from an empty row) its mask."""
        cdef Env *e = &self.envs[i]
        cdef uint8_t *board = self.o_board + i * NCOL * self.ncells
        cdef int j, k, b
        bitgen_init(&e.chance_bg, &e.chance)
        bitgen_init(&e.policy_bg, &e.policy)
        memset(e.bag_counts, 0, NTYPE)
        for j in range(e.st.bag.n):
            e.bag_counts[e.st.bag.item[j]] += 1
        e.dirty = 1
        self.o_episode[i] = e.episode
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
        self.write_obs(i)

    def core(self, Py_ssize_t i):
        """A copy of env ``i``'s kernel state."""
        cdef Core out = Core.__new__(Core)
        claim(&self.busy)
        try:
            self._check_env(i)
            memcpy(&out.st, &self.envs[i].st, sizeof(State))
            return out
        finally:
            release(&self.busy)

    def stream_state(self, Py_ssize_t i, bint policy=False):
        """Env ``i``'s chance (or sampler) stream as ``numpy.random.PCG64().state`` writes it."""
        cdef genial_pcg g
        claim(&self.busy)
        try:
            self._check_env(i)
            if policy:
                g = self.envs[i].policy
            else:
                g = self.envs[i].chance
        finally:
            release(&self.busy)
        return {
            "bit_generator": "PCG64",
            "state": {
                "state": (int(g.state_hi) << 64) | int(g.state_lo),
                "inc": (int(g.inc_hi) << 64) | int(g.inc_lo),
            },
            "has_uint32": int(g.has_uint32),
            "uinteger": int(g.uinteger),
        }


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
