# cython: language_level=3
"""The kernel of ``genial.cards.vector.CardVectorEnv``: ``n`` card games stepped together without
the GIL (docs/rules.md §5, docs/vector.md "Card game").

Each environment is one :c:type:`Env`: the card kernel's ``CState`` (``genial.cards._kernel``,
whose rules functions it calls: ``is_legal``, ``apply_action``, ``deal``, ``ranks``,
``choose_random``) and two PCG64 streams of its own, seeded in C exactly as numpy seeds
``PCG64(SeedSequence(entropy, spawn_key=key))`` (``genial._pcg``), so that a finished game
restarts inside the loop, without the GIL and without making a Python object:

- the chance stream of env ``i``'s episode ``k`` has the key ``(*root.spawn_key, i, k)``: it is
  the chance stream of ``CardGame(rules, seed=child_seed(root, i, k))``, and the deck is put in
  canonical order before every step as ``Cards.apply`` does, so the same actions deal and draw
  the same cards as that ``CardGame``;
- the sampler of env ``i`` (``sample``) draws from the key ``(*root.spawn_key, 2**32, i)``.

Outputs are written into numpy arrays made once (``arrays``). A decision's legal actions are the
hand's card types, each either way round (bits ``2 t`` and ``2 t + 1``), or swap and keep: one
32-bit word per env (``mask_bits``), written as is (``mode`` 1) or as 32 bools (``mode`` 2).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from numpy.random cimport bitgen_t

from genial._checks cimport claim, copy_actions, owned_array, read_step_outputs, release
from genial._common cimport BAG_CAP, DRAW_OK, Bag, Draws, bag_sort, common_init, popcount64
from genial._pcg cimport (
    PCG_MAX_POOL,
    bitgen_init,
    genial_pcg,
    int_words,
    seed_child,
    seed_pool,
)
from genial.cards._kernel cimport (
    A_SIZE,
    A_SWAP,
    COPIES,
    MAXP,
    NCARD,
    NCOL,
    PH_OVER,
    PH_PLAY,
    PH_SWAP,
    Cards,
    CState,
    apply_action,
    check_cstate,
    choose_random,
    deal,
    is_legal,
    ranks,
)

import numpy as np

cdef enum:
    MODE_NONE = 0
    MODE_PACKED = 1
    MODE_BOOL = 2
    MAX_PREFIX = 4096           # seed words a root may have before a child's key
    NO_CARD = 255               # an empty display slot (never at a decision after a deal)

cdef uint64_t POLICY_WORD = 4294967296ULL   # genial.seeds.POLICY_STREAM: the samplers' first key
POLICY_KEY = POLICY_WORD
EMPTY_SLOT = NO_CARD

cdef uint8_t EXPAND[256][8]     # byte j of EXPAND[b] is bit j of b (a mask byte as 8 bools)


cdef void _build_tables() noexcept:
    cdef int b, j
    for b in range(256):
        for j in range(8):
            EXPAND[b][j] = (b >> j) & 1


common_init()
_build_tables()

# ---------------------------------------------------------------------------------------------
# one environment


cdef struct Env:
    CState st
    genial_pcg chance           # the episode's deal and draws
    genial_pcg policy           # the sampler's draws
    bitgen_t chance_bg
    bitgen_t policy_bg
    uint64_t episode
    uint8_t dirty               # the deck may be out of canonical order (draws since)
    uint8_t deck_counts[NCARD]  # the deck's contents by card type (kept through every step)

ENV_BYTES = sizeof(Env)
cdef Env _env_dummy
ENV_FIELDS = {      # byte offsets in an env of a snapshot (its CState first: STATE_DTYPE)
    "st": 0,
    "deck_counts": <Py_ssize_t>(<char *>&_env_dummy.deck_counts - <char *>&_env_dummy),
    "chance": <Py_ssize_t>(<char *>&_env_dummy.chance - <char *>&_env_dummy),
}


cdef inline void fill_deck(Bag *deck, const uint8_t *counts) noexcept nogil:
    """Put the deck in canonical order, as ``bag_sort`` does (card types in increasing order),
    from its known contents: a run of ``counts[t]`` cards ``t`` per type (at most ``COPIES``,
    so one eight-byte store a type)."""
    cdef uint8_t buf[NCARD * COPIES + 8]
    cdef uint64_t word
    cdef int t, pos = 0
    for t in range(NCARD):
        word = (<uint64_t>t) * 0x0101010101010101ULL
        memcpy(buf + pos, &word, 8)
        pos += counts[t]
    memcpy(deck.item, buf, deck.n)


cdef inline void count_deck(Env *e) noexcept nogil:
    cdef int j
    memset(e.deck_counts, 0, NCARD)
    for j in range(e.st.deck.n):
        e.deck_counts[e.st.deck.item[j]] += 1


cdef inline uint32_t mask_bits(CState *st) noexcept nogil:
    """The legal actions as bits: each card type ``t`` of the hand gives actions ``2 t`` and
    ``2 t + 1`` (its colours either way round, RULES §5.3); the swap decision swap and keep."""
    cdef uint32_t x
    if st.phase == PH_SWAP:
        return (<uint32_t>3) << A_SWAP
    if st.phase != PH_PLAY:
        return 0
    x = st.hand_mask[st.current]                 # 15 bits: spread bit t to bit 2 t
    x = (x | (x << 8)) & 0x00FF00FFU
    x = (x | (x << 4)) & 0x0F0F0F0FU
    x = (x | (x << 2)) & 0x33333333U
    x = (x | (x << 1)) & 0x55555555U
    return x | (x << 1)


# ---------------------------------------------------------------------------------------------
# the batch


cdef class Kernel:
    """``n`` card games under the rules of ``base`` (a fresh ``Cards``: every card in the deck,
    nobody dealt), their outputs in the numpy arrays of ``arrays`` (made here, written in place
    by every call; their memory is the kernel's, so no Python code can free or resize it under
    the kernel).

    ``mode``: 0 no masks, 1 one ``uint32`` per env (bit ``a`` for action ``a``), 2 bool masks.
    ``max_turns``: a game still running when its turn counter passes it is truncated (0: never;
    the rules' turn cap truncates as in ``CardGame``). Call ``seed`` then ``start`` first. One
    thread at a time may call the kernel (another gets ``RuntimeError``); ``step`` checks and
    applies its own copy of the actions, whatever the caller's array does meanwhile.
    """

    cdef Env *envs
    cdef Py_ssize_t n
    cdef CState base
    cdef int players, display_size, mode, max_turns
    cdef int pool_size, nprefix
    cdef uint32_t *prefix
    cdef int32_t *acts              # the last step's actions: the kernel's copy
    cdef bint busy                  # a thread is in a method (``claim``)
    cdef bint started               # ``start`` (or ``restore``) has made every env a game
    cdef dict _arrays
    cdef list _keep                 # the memory of the arrays
    cdef uint8_t *o_hand
    cdef uint8_t *o_hand_sizes
    cdef uint8_t *o_displays
    cdef uint8_t *o_colours
    cdef uint8_t *o_markers
    cdef uint8_t *o_deck
    cdef uint8_t *o_discard
    cdef uint8_t *o_phase
    cdef uint8_t *o_bonus
    cdef uint16_t *o_turn
    cdef int8_t *o_current
    cdef int32_t *o_counts
    cdef uint8_t *o_mask
    cdef float *o_rewards
    cdef uint8_t *o_terminated
    cdef uint8_t *o_truncated
    cdef uint8_t *o_final_scores
    cdef int8_t *o_final_ranks
    cdef uint64_t *o_episode
    cdef Py_ssize_t fault

    def __cinit__(self, Cards base not None, Py_ssize_t n, int mode, int max_turns):
        cdef Py_ssize_t i
        cdef int p, c
        cdef uint8_t *ptr
        if n < 1:
            raise ValueError("at least one environment")
        if mode not in (MODE_NONE, MODE_PACKED, MODE_BOOL):
            raise ValueError(f"bad mask mode {mode}")
        memcpy(&self.base, &base.st, sizeof(CState))
        check_cstate(&self.base)
        if (self.base.phase != PH_PLAY or self.base.turns != 1 or self.base.current != 0
                or self.base.bonus != 0 or self.base.deck.n != NCARD * COPIES):
            raise ValueError("the base state must be a fresh game (nobody dealt)")
        for p in range(self.base.players):
            for c in range(NCOL):
                if self.base.marker[p][c]:
                    raise ValueError("the base state must be a fresh game (nobody dealt)")
        bag_sort(&self.base.deck)
        self.n = n
        self.players = self.base.players
        self.display_size = self.base.display_size
        self.mode = mode
        self.max_turns = max_turns if max_turns > 0 else 0
        self.fault = -1
        self.envs = <Env *>calloc(n, sizeof(Env))
        self.acts = <int32_t *>calloc(n, sizeof(int32_t))
        self.prefix = NULL
        self.nprefix = 0
        self.pool_size = 0
        if self.envs == NULL or self.acts == NULL:
            raise MemoryError()
        for i in range(n):
            bitgen_init(&self.envs[i].chance_bg, &self.envs[i].chance)
            bitgen_init(&self.envs[i].policy_bg, &self.envs[i].policy)
        players = self.players
        shapes = {
            "hand": ((n, NCARD), np.uint8),
            "hand_sizes": ((n, players), np.uint8),
            "displays": ((n, players, self.display_size), np.uint8),
            "display_colours": ((n, NCOL), np.uint8),
            "markers": ((n, players, NCOL), np.uint8),
            "deck_size": ((n,), np.uint8),
            "discard_size": ((n,), np.uint8),
            "phase": ((n,), np.uint8),
            "bonus": ((n,), np.uint8),
            "turn": ((n,), np.uint16),
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
            shapes["masks"] = ((n,), np.uint32)
        elif mode == MODE_BOOL:
            shapes["masks"] = ((n, A_SIZE), np.bool_)
        self._keep = []
        self._arrays = {}
        pointers = {}
        for name, (shape, dtype) in shapes.items():
            self._arrays[name] = owned_array(self._keep, shape, dtype, &ptr)
            pointers[name] = <Py_ssize_t>ptr
        self.o_hand = <uint8_t *><Py_ssize_t>pointers["hand"]
        self.o_hand_sizes = <uint8_t *><Py_ssize_t>pointers["hand_sizes"]
        self.o_displays = <uint8_t *><Py_ssize_t>pointers["displays"]
        self.o_colours = <uint8_t *><Py_ssize_t>pointers["display_colours"]
        self.o_markers = <uint8_t *><Py_ssize_t>pointers["markers"]
        self.o_deck = <uint8_t *><Py_ssize_t>pointers["deck_size"]
        self.o_discard = <uint8_t *><Py_ssize_t>pointers["discard_size"]
        self.o_phase = <uint8_t *><Py_ssize_t>pointers["phase"]
        self.o_bonus = <uint8_t *><Py_ssize_t>pointers["bonus"]
        self.o_turn = <uint16_t *><Py_ssize_t>pointers["turn"]
        self.o_current = <int8_t *><Py_ssize_t>pointers["current_player"]
        self.o_counts = <int32_t *><Py_ssize_t>pointers["legal_counts"]
        self.o_rewards = <float *><Py_ssize_t>pointers["rewards"]
        self.o_terminated = <uint8_t *><Py_ssize_t>pointers["terminated"]
        self.o_truncated = <uint8_t *><Py_ssize_t>pointers["truncated"]
        self.o_final_scores = <uint8_t *><Py_ssize_t>pointers["final_scores"]
        self.o_final_ranks = <int8_t *><Py_ssize_t>pointers["final_ranks"]
        self.o_episode = <uint64_t *><Py_ssize_t>pointers["episode"]
        self.o_mask = <uint8_t *><Py_ssize_t>pointers["masks"] if mode != MODE_NONE else NULL

    def __dealloc__(self):
        free(self.envs)
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
                    seed_child(&self.envs[i].policy, self.prefix, self.nprefix, self.pool_size,
                               POLICY_WORD, i)
        finally:
            release(&self.busy)

    cdef int _set_prefix(self, const uint32_t[::1] prefix, int pool_size) except -1:
        cdef Py_ssize_t i
        cdef uint32_t *words
        if not 4 <= pool_size <= PCG_MAX_POOL:
            raise ValueError(f"pool_size must be in 4..{PCG_MAX_POOL}")
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

    def pool(self, uint64_t x, uint64_t y):
        """The SeedSequence pool of ``child_seed(root, x, y)`` (to check against numpy's)."""
        cdef uint32_t key[4]
        cdef uint32_t pool[PCG_MAX_POOL]
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
        """Deal env ``i``'s game ``episode`` as ``CardGame(rules, seed=child_seed(root, i,
        episode))`` deals it (the base deck is in canonical order)."""
        cdef Env *e = &self.envs[i]
        cdef Draws ds
        e.episode = episode
        self.o_episode[i] = episode
        seed_child(&e.chance, self.prefix, self.nprefix, self.pool_size, i, episode)
        memcpy(&e.st, &self.base, sizeof(CState))
        memset(&ds, 0, sizeof(Draws))
        ds.rng = &e.chance_bg
        deal(&e.st, &ds)
        count_deck(e)
        e.dirty = 1

    cdef inline void clear_step(self, Py_ssize_t i) noexcept nogil:
        cdef int p
        for p in range(self.players):
            self.o_rewards[i * self.players + p] = 0
        self.o_terminated[i] = 0
        self.o_truncated[i] = 0

    cdef void finish(self, Py_ssize_t i, bint truncated) noexcept nogil:
        """Write the final markers, ranks and (unless truncated) rewards of env ``i``'s game:
        the mean over the opponents of +1 ranked better, 0 tied, -1 ranked worse."""
        cdef CState *st = &self.envs[i].st
        cdef int16_t rk[MAXP]
        cdef int p, q, balance
        cdef int players = self.players
        cdef float *rw = self.o_rewards + i * players
        ranks(st, rk)
        for p in range(players):
            memcpy(self.o_final_scores + (i * players + p) * NCOL, st.marker[p], NCOL)
            self.o_final_ranks[i * players + p] = rk[p]
        if truncated:
            self.o_truncated[i] = 1
            return
        self.o_terminated[i] = 1
        for p in range(players):
            balance = 0
            for q in range(players):
                balance += (rk[q] > rk[p]) - (rk[q] < rk[p])
            rw[p] = <float>balance / <float>(players - 1)

    cdef void write_obs(self, Py_ssize_t i) noexcept nogil:
        """Write env ``i``'s observations (from the mover's side), its legal count and mask."""
        cdef CState *st = &self.envs[i].st
        cdef int cur = st.current
        cdef int players = self.players
        cdef int size = self.display_size
        cdef int j, k, seat, row
        cdef uint32_t bits
        cdef uint8_t *dst
        self.o_current[i] = cur
        self.o_phase[i] = st.phase
        self.o_bonus[i] = st.bonus
        self.o_turn[i] = st.turns
        self.o_deck[i] = st.deck.n
        self.o_discard[i] = st.discard.n
        memcpy(self.o_hand + i * NCARD, st.hand[cur], NCARD)
        memcpy(self.o_colours + i * NCOL, st.on_display, NCOL)
        for j in range(players):
            seat = cur + j
            if seat >= players:
                seat -= players
            row = i * players + j
            memcpy(self.o_markers + row * NCOL, st.marker[seat], NCOL)
            self.o_hand_sizes[row] = st.hand_n[seat]
            for k in range(size):
                self.o_displays[row * size + k] = st.disp[seat][k] if k < st.disp_n[seat] else NO_CARD
        bits = mask_bits(st)
        self.o_counts[i] = popcount64(bits)
        if self.mode == MODE_PACKED:
            (<uint32_t *>self.o_mask)[i] = bits
        elif self.mode == MODE_BOOL:
            dst = self.o_mask + i * A_SIZE
            memcpy(dst, EXPAND[bits & 0xFF], 8)
            memcpy(dst + 8, EXPAND[(bits >> 8) & 0xFF], 8)
            memcpy(dst + 16, EXPAND[(bits >> 16) & 0xFF], 8)
            memcpy(dst + 24, EXPAND[bits >> 24], 8)

    # -- stepping --------------------------------------------------------------------------------
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
                    if not is_legal(&self.envs[i].st, self.acts[i]):
                        bad = i
                        break
                if bad < 0:
                    for i in range(self.n):
                        self.step_one(i, self.acts[i])
        finally:
            release(&self.busy)
        if self.fault >= 0:
            raise RuntimeError(f"env {self.fault}: drawing from the deck failed")
        return bad

    def last_actions(self):
        """A copy of the actions the last ``step`` read (applied, or refused whole)."""
        out = np.empty(self.n, dtype=np.int32)
        cdef int32_t[::1] view = out
        memcpy(&view[0], self.acts, self.n * sizeof(int32_t))
        return out

    cdef void step_one(self, Py_ssize_t i, int a) noexcept nogil:
        cdef Env *e = &self.envs[i]
        cdef CState *st = &e.st
        cdef Draws ds
        cdef uint8_t drawn[BAG_CAP]
        cdef int reshuffles = st.reshuffles, j
        if e.dirty:
            fill_deck(&st.deck, e.deck_counts)  # canonical order before any draw, as Cards.apply
        memset(&ds, 0, sizeof(Draws))
        ds.rng = &e.chance_bg
        ds.log = drawn
        ds.max_log = BAG_CAP
        if apply_action(st, a, &ds) < 0 or ds.error != DRAW_OK:
            self.fault = i
        # only draws change the deck and its order; a reshuffle makes a new deck (sorted), then
        # draws from it
        if st.reshuffles != reshuffles:
            count_deck(e)
        else:
            for j in range(ds.n_log):
                e.deck_counts[drawn[j]] -= 1
        e.dirty = ds.n_log > 0
        self.clear_step(i)
        if st.phase == PH_OVER:            # an instant win, or the rules' turn cap (truncated)
            self.finish(i, st.truncated)
            self.new_game(i, e.episode + 1)
        elif self.max_turns and st.turns > self.max_turns:
            self.finish(i, True)
            self.new_game(i, e.episode + 1)
        self.write_obs(i)
        if mask_bits(st) == 0:             # nothing playable: impossible after a deal (60 cards
            self.finish(i, True)           # always refill a hand); truncated, never stuck
            self.new_game(i, e.episode + 1)
            self.write_obs(i)

    def sample(self, int32_t[::1] out not None):
        """A uniformly random legal action per env (over the legal action ids; the swap decision
        on a fair coin: the kernel's ``choose_random``), from each env's sampler stream."""
        cdef Py_ssize_t i
        if out.shape[0] != self.n:
            raise ValueError("one action per env")
        claim(&self.busy)
        try:
            self._check_started()
            with nogil:
                for i in range(self.n):
                    out[i] = choose_random(&self.envs[i].st, &self.envs[i].policy_bg)
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
        (``check_cstate``) with streams numpy could have made; ``ValueError`` naming the env
        otherwise, and nothing changes. What the envs determine (their deck counts,
        observations and masks) is computed again, not read; only the last step's outputs
        (rewards, flags, final scores and ranks) are taken from ``arrays``."""
        cdef Py_ssize_t i
        cdef Env *work = NULL
        claim(&self.busy)
        try:
            outputs = read_step_outputs(arrays, self._arrays)
            if len(envs) != <Py_ssize_t>(self.n * sizeof(Env)):
                raise ValueError("a snapshot of another kernel (its size)")
            if not 4 <= pool_size <= PCG_MAX_POOL or prefix.shape[0] > MAX_PREFIX:
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
        state ``check_cstate`` accepts, under the base's rules, dealt, at a decision; its
        streams PCG64's."""
        try:
            check_cstate(&e.st)
        except ValueError as exc:
            raise ValueError(f"env {i}: {exc}") from None
        if (e.st.players != self.base.players or e.st.display_size != self.base.display_size
                or e.st.turn_cap != self.base.turn_cap):
            raise ValueError(f"env {i}: a game under other rules")
        if e.st.phase == PH_OVER or mask_bits(&e.st) == 0:
            raise ValueError(f"env {i}: no decision is due")
        if (not e.chance.inc_lo & 1 or not e.policy.inc_lo & 1 or e.chance.has_uint32 > 1
                or e.policy.has_uint32 > 1):
            raise ValueError(f"env {i}: not a PCG64 stream")
        return 0

    cdef void _rebuild(self, Py_ssize_t i) noexcept:
        """Compute what env ``i``'s state determines: its stream pointers, deck counts,
        observations and mask."""
        cdef Env *e = &self.envs[i]
        bitgen_init(&e.chance_bg, &e.chance)
        bitgen_init(&e.policy_bg, &e.policy)
        count_deck(e)
        e.dirty = 1
        self.o_episode[i] = e.episode
        self.write_obs(i)

    def core(self, Py_ssize_t i):
        """A copy of env ``i``'s kernel state, as a ``Cards``."""
        cdef Cards out = Cards.__new__(Cards)
        claim(&self.busy)
        try:
            self._check_env(i)
            memcpy(&out.st, &self.envs[i].st, sizeof(CState))
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
