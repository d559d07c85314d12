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
from libc.string cimport memcpy, memset
from numpy.random cimport bitgen_t

from genial._common cimport BAG_CAP, DRAW_OK, Bag, Draws, bag_sort, common_init, popcount64
from genial._pcg cimport genial_pcg
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
    check_state,
    choose_random,
    deal,
    is_legal,
    ranks,
)

import numpy as np

cdef enum:
    MAX_PREFIX = 4096           # seed words a root may have before a child's key
    NO_CARD = 255               # an empty display slot (never at a decision after a deal)

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


cdef inline void count_pile(Env *e) noexcept nogil:
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
# what the shared batch (genial/_envs.pxi) asks of the game

ctypedef CState GState
PILE = "deck"


cdef int read_base(object base, CState *out) except -1:
    """Copy ``base`` (a fresh ``Cards``: every card in the deck, nobody dealt), its deck in
    canonical order."""
    cdef Cards cards
    cdef int p, c
    if not isinstance(base, Cards):
        raise TypeError(f"base: a Cards, got {type(base).__name__}")
    cards = base
    memcpy(out, &cards.st, sizeof(CState))
    check_state(out)
    if (out.phase != PH_PLAY or out.turns != 1 or out.current != 0 or out.bonus != 0
            or out.deck.n != NCARD * COPIES):
        raise ValueError("the base state must be a fresh game (nobody dealt)")
    for p in range(out.players):
        for c in range(NCOL):
            if out.marker[p][c]:
                raise ValueError("the base state must be a fresh game (nobody dealt)")
    bag_sort(&out.deck)
    return 0


cdef inline int players_of(const CState *st) noexcept nogil:
    return st.players


cdef inline int turns_of(const CState *st) noexcept nogil:
    return st.turns


cdef inline bint over_truncated(const CState *st) noexcept nogil:
    return st.truncated                 # the rules' turn cap ends a game truncated (§5.7)


cdef inline void deal_env(Env *e, const CState *base) noexcept nogil:
    cdef Draws ds
    memcpy(&e.st, base, sizeof(CState))
    memset(&ds, 0, sizeof(Draws))
    ds.rng = &e.chance_bg
    deal(&e.st, &ds)


cdef inline bint env_allows(Env *e, int a) noexcept nogil:
    return is_legal(&e.st, a)


cdef inline bint env_stuck(Env *e) noexcept nogil:
    return mask_bits(&e.st) == 0        # impossible after a deal (60 cards always refill a hand)


cdef inline int env_sample(Env *e) noexcept nogil:
    """Uniform over the legal action ids; the swap decision on a fair coin (the kernel's
    ``choose_random``)."""
    return choose_random(&e.st, &e.policy_bg)


cdef inline void write_finals(const CState *st, uint8_t *fs) noexcept nogil:
    memcpy(fs, st.marker, st.players * NCOL)


cdef void write_rewards(const CState *st, const int16_t *rk, float *rw) noexcept nogil:
    """The mean over the opponents of +1 ranked better, 0 tied, -1 ranked worse."""
    cdef int p, q, balance
    cdef int players = st.players
    for p in range(players):
        balance = 0
        for q in range(players):
            balance += (rk[q] > rk[p]) - (rk[q] < rk[p])
        rw[p] = <float>balance / <float>(players - 1)


cdef inline bint same_rules(const CState *a, const CState *b):
    return (a.players == b.players and a.display_size == b.display_size
            and a.turn_cap == b.turn_cap)


cdef object state_object(const CState *st):
    cdef Cards out = Cards.__new__(Cards)
    memcpy(&out.st, st, sizeof(CState))
    return out


include "genial/_envs.pxi"

# ---------------------------------------------------------------------------------------------
# the batch


cdef class Kernel(_EnvBatch):
    """``n`` card games under the rules of ``base`` (a fresh ``Cards``: every card in the deck,
    nobody dealt), their outputs in the numpy arrays of ``arrays`` (made here, written in place
    by every call; their memory is the kernel's, so no Python code can free or resize it under
    the kernel).

    ``mode``: 0 no masks, 1 one ``uint32`` per env (bit ``a`` for action ``a``), 2 bool masks.
    ``max_turns``: a game still running when its turn counter passes it is truncated (0: never;
    the rules' turn cap truncates as in ``CardGame``). Call ``seed`` then ``start`` first. One
    thread at a time may call the kernel (another gets ``RuntimeError``); ``step`` checks and
    applies its own copy of the actions, whatever the caller's array does meanwhile. The loops
    are the shared batch's (``genial/_envs.pxi``); this class writes the card game's outputs.
    """

    cdef int display_size
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

    def __cinit__(self, Cards base not None, Py_ssize_t n, int mode, int max_turns):
        if mode == MODE_FACTORED:       # (32 actions: nothing to factor)
            raise ValueError("the card game has no factored masks")
        self.display_size = self.base.display_size
        players = self.players
        pointers = self._make_arrays({
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
        }, ((n,), np.uint32) if mode == MODE_PACKED else ((n, A_SIZE), np.bool_))
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
    cdef void apply_one(self, Py_ssize_t i, int a) noexcept nogil:
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
            count_pile(e)
        else:
            for j in range(ds.n_log):
                e.deck_counts[drawn[j]] -= 1
        e.dirty = ds.n_log > 0

    # -- restoring -------------------------------------------------------------------------------
    cdef int _check_decision(self, Env *e, Py_ssize_t i) except -1:
        """Dealt, and a decision is due."""
        if e.st.phase == PH_OVER or mask_bits(&e.st) == 0:
            raise ValueError(f"env {i}: no decision is due")
        return 0
