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
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset
from numpy.random cimport bitgen_t

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
    by every call).

    ``mode``: 0 no masks, 1 one ``uint32`` per env (bit ``a`` for action ``a``), 2 bool masks.
    ``max_turns``: a game still running when its turn counter passes it is truncated (0: never;
    the rules' turn cap truncates as in ``CardGame``). Call ``seed`` then ``start`` first.
    """

    cdef Env *envs
    cdef Py_ssize_t n
    cdef CState base
    cdef int players, display_size, mode, max_turns
    cdef int pool_size, nprefix
    cdef uint32_t *prefix
    cdef readonly dict arrays
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
        cdef int p
        if n < 1:
            raise ValueError("at least one environment")
        if mode not in (MODE_NONE, MODE_PACKED, MODE_BOOL):
            raise ValueError(f"bad mask mode {mode}")
        memcpy(&self.base, &base.st, sizeof(CState))
        if (self.base.phase != PH_PLAY or self.base.turns != 1
                or self.base.deck.n != NCARD * COPIES or self.base.discard.n != 0):
            raise ValueError("the base state must be a fresh game (nobody dealt)")
        for p in range(self.base.players):
            if self.base.hand_n[p] or self.base.disp_n[p]:
                raise ValueError("the base state must be a fresh game (nobody dealt)")
        bag_sort(&self.base.deck)
        self.n = n
        self.players = self.base.players
        self.display_size = self.base.display_size
        self.mode = mode
        self.max_turns = max_turns if max_turns > 0 else 0
        self.fault = -1
        self.envs = <Env *>calloc(n, sizeof(Env))
        self.prefix = NULL
        self.nprefix = 0
        self.pool_size = 0
        if self.envs == NULL:
            raise MemoryError()
        for i in range(n):
            bitgen_init(&self.envs[i].chance_bg, &self.envs[i].chance)
            bitgen_init(&self.envs[i].policy_bg, &self.envs[i].policy)
        players = self.players
        a = {
            "hand": np.zeros((n, NCARD), dtype=np.uint8),
            "hand_sizes": np.zeros((n, players), dtype=np.uint8),
            "displays": np.zeros((n, players, self.display_size), dtype=np.uint8),
            "display_colours": np.zeros((n, NCOL), dtype=np.uint8),
            "markers": np.zeros((n, players, NCOL), dtype=np.uint8),
            "deck_size": np.zeros(n, dtype=np.uint8),
            "discard_size": np.zeros(n, dtype=np.uint8),
            "phase": np.zeros(n, dtype=np.uint8),
            "bonus": np.zeros(n, dtype=np.uint8),
            "turn": np.zeros(n, dtype=np.uint16),
            "current_player": np.zeros(n, dtype=np.int8),
            "legal_counts": np.zeros(n, dtype=np.int32),
            "rewards": np.zeros((n, players), dtype=np.float32),
            "terminated": np.zeros(n, dtype=np.bool_),
            "truncated": np.zeros(n, dtype=np.bool_),
            "final_scores": np.zeros((n, players, NCOL), dtype=np.uint8),
            "final_ranks": np.zeros((n, players), dtype=np.int8),
            "episode": np.zeros(n, dtype=np.uint64),
        }
        if mode == MODE_PACKED:
            a["masks"] = np.zeros(n, dtype=np.uint32)
        elif mode == MODE_BOOL:
            a["masks"] = np.zeros((n, A_SIZE), dtype=np.bool_)
        self.arrays = a
        self.o_hand = _ptr8(a["hand"])
        self.o_hand_sizes = _ptr8(a["hand_sizes"])
        self.o_displays = _ptr8(a["displays"])
        self.o_colours = _ptr8(a["display_colours"])
        self.o_markers = _ptr8(a["markers"])
        self.o_deck = _ptr8(a["deck_size"])
        self.o_discard = _ptr8(a["discard_size"])
        self.o_phase = _ptr8(a["phase"])
        self.o_bonus = _ptr8(a["bonus"])
        self.o_turn = <uint16_t *>_ptr8(a["turn"])
        self.o_current = <int8_t *>_ptr8(a["current_player"])
        self.o_counts = <int32_t *>_ptr8(a["legal_counts"])
        self.o_rewards = <float *>_ptr8(a["rewards"])
        self.o_terminated = _ptr8(a["terminated"])
        self.o_truncated = _ptr8(a["truncated"])
        self.o_final_scores = _ptr8(a["final_scores"])
        self.o_final_ranks = <int8_t *>_ptr8(a["final_ranks"])
        self.o_episode = <uint64_t *>_ptr8(a["episode"])
        self.o_mask = _ptr8(a["masks"]) if mode != MODE_NONE else NULL

    def __dealloc__(self):
        free(self.envs)
        free(self.prefix)

    # -- seeding ---------------------------------------------------------------------------------
    def seed(self, const uint32_t[::1] prefix not None, int pool_size):
        """Root the streams at the SeedSequence whose assembled entropy, before the stream's own
        key words, is ``prefix`` (run entropy padded to ``pool_size``, then the root's spawn key
        words); reseeds every sampler. The episodes restart at 0 with the next ``start``."""
        cdef Py_ssize_t i
        cdef uint32_t *words
        if not 4 <= pool_size <= PCG_MAX_POOL:
            raise ValueError(f"pool_size must be in 4..{PCG_MAX_POOL}")
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
                seed_child(&self.envs[i].policy, self.prefix, self.nprefix, self.pool_size,
                           POLICY_WORD, i)

    def pool(self, uint64_t x, uint64_t y):
        """The SeedSequence pool of ``child_seed(root, x, y)`` (to check against numpy's)."""
        cdef uint32_t key[4]
        cdef uint32_t pool[PCG_MAX_POOL]
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
    def check(self, const int32_t[::1] actions not None):
        """The first env whose action is not legal, or -1 (nothing is changed)."""
        cdef Py_ssize_t i, bad = -1
        if actions.shape[0] != self.n:
            raise ValueError("one action per env")
        with nogil:
            for i in range(self.n):
                if not is_legal(&self.envs[i].st, actions[i]):
                    bad = i
                    break
        return bad

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
            raise RuntimeError(f"env {self.fault}: drawing from the deck failed")

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
        if self.o_counts[i] == 0:          # nothing playable: impossible after a deal (60 cards
            self.finish(i, True)           # always refill a hand); truncated, never stuck
            self.new_game(i, e.episode + 1)
            self.write_obs(i)

    def sample(self, int32_t[::1] out not None):
        """A uniformly random legal action per env (over the legal action ids; the swap decision
        on a fair coin: the kernel's ``choose_random``), from each env's sampler stream."""
        cdef Py_ssize_t i
        if out.shape[0] != self.n:
            raise ValueError("one action per env")
        self._check_seeded()
        with nogil:
            for i in range(self.n):
                out[i] = choose_random(&self.envs[i].st, &self.envs[i].policy_bg)

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
        """A copy of env ``i``'s kernel state, as a ``Cards``."""
        cdef Cards out = Cards.__new__(Cards)
        self._check_env(i)
        memcpy(&out.st, &self.envs[i].st, sizeof(CState))
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
