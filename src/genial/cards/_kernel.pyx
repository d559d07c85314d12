# cython: language_level=3
"""The compiled kernel of the card game (docs/rules.md §5): state, rules, policies, playouts.

A game is one fixed-size struct (:c:type:`CState`): copying is a ``memcpy``, and whole games run
without the GIL. Randomness, bit tricks and the deck come from ``genial._common``.

Marker limits (§5.4): areas A0 = {0}, A1 = {1, 2, 3}, A2 = {4, 5, 6}, A3 = {7 .. 10}; a marker may
not enter an area that is not adjacent to the area of the lowest marker, so with the lowest marker
in A0 no marker passes column 3, in A1 column 6, and from A2 on the cap 10 is the only limit. The
limit is recomputed before each colour of a card.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy, memset
from numpy.random cimport bitgen_t

import numpy as np

from genial._common cimport (
    DRAW_LOG_FULL,
    DRAW_OK,
    Bag,
    Draws,
    bag_draw,
    bag_draw_random,
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

# ---------------------------------------------------------------------------------------------
# tables

cdef uint8_t CARD_A[NCARD]
cdef uint8_t CARD_B[NCARD]
cdef uint8_t CARD_MASK[NCARD]
cdef uint8_t LIMIT[CAP + 1]          # the last column any marker may reach, by the lowest marker
cdef uint16_t LOW_TYPES[1 << NCOL]  # the card types showing any colour of a colour mask
cdef uint8_t SQ[CAP + 1]             # (10 - c)^2, the greedy objective's term of a marker
cdef uint8_t OTHER[NCARD][4]         # the four colours a card does not show
cdef uint8_t FIRST[A_SWAP]           # the colour an action scores first
cdef uint8_t SECOND[A_SWAP]          # ... and second

cdef void _build_tables() noexcept:
    cdef int a, b, c, t = 0, m
    for a in range(NCOL):
        for b in range(a + 1, NCOL):
            CARD_A[t] = a
            CARD_B[t] = b
            CARD_MASK[t] = (1 << a) | (1 << b)
            m = 0
            for c in range(NCOL):
                if c != a and c != b:
                    OTHER[t][m] = c
                    m += 1
            t += 1
    for m in range(CAP + 1):
        LIMIT[m] = 3 if m == 0 else (6 if m <= 3 else CAP)
    for t in range(NCARD):
        FIRST[2 * t] = CARD_A[t]
        SECOND[2 * t] = CARD_B[t]
        FIRST[2 * t + 1] = CARD_B[t]
        SECOND[2 * t + 1] = CARD_A[t]
    for m in range(1 << NCOL):
        LOW_TYPES[m] = 0
        for t in range(NCARD):
            if CARD_MASK[t] & m:
                LOW_TYPES[m] |= 1 << t
    for m in range(CAP + 1):
        SQ[m] = (CAP - m) * (CAP - m)


common_init()
_build_tables()
CARDS = tuple((CARD_A[t], CARD_B[t]) for t in range(NCARD))
_CARD_TEXT = tuple("RGBOYP"[a] + "RGBOYP"[b] for a, b in CARDS)   # for messages
ACTION_SIZE = A_SIZE
ACTION_SWAP = A_SWAP
ACTION_KEEP = A_KEEP
PHASES = ("play", "swap", "over")
POLICIES = {"random": 0, "greedy": 1, "epsilon-greedy": 2}
MAX_PLAYERS = MAXP

cdef CardRow _row_dummy
cdef CardLog _log_dummy
ROW_DTYPE = np.asarray(<CardRow[:1]>(&_row_dummy)).dtype
LOG_DTYPE = np.asarray(<CardLog[:1]>(&_log_dummy)).dtype
cdef CState _state_dummy
STATE_DTYPE = np.asarray(<CState[:1]>(&_state_dummy)).dtype   # a snapshot's fields, by name

# ---------------------------------------------------------------------------------------------
# rules

cdef extern from *:
    """
    /* the lowest of six markers, branch-free (compiles to conditional moves) */
    static inline int genial_min6(const unsigned char *m) {
        int a = m[0] < m[1] ? m[0] : m[1];
        int b = m[2] < m[3] ? m[2] : m[3];
        int c = m[4] < m[5] ? m[4] : m[5];
        a = a < b ? a : b;
        return a < c ? a : c;
    }
    """
    int lowest "genial_min6"(const uint8_t *m) noexcept nogil

cdef extern from *:
    """
    #define GENIAL_MIN(x, y) ((x) < (y) ? (x) : (y))
    /* bit c set when marker c is at column `low` (0 <= low <= 255): the six markers as one
       word, its bytes equal to `low` flagged by an exact zero-byte test (no borrow between
       bytes), the flags gathered into the top byte by one multiplication */
    static inline int genial_low_mask(const unsigned char *m, int low) {
        const uint64_t L7 = 0x7F7F7F7F7F7F7F7FULL;
        uint64_t w = (uint64_t)m[0] | (uint64_t)m[1] << 8 | (uint64_t)m[2] << 16
                   | (uint64_t)m[3] << 24 | (uint64_t)m[4] << 32 | (uint64_t)m[5] << 40;
        uint64_t x = w ^ (0x010101010101ULL * (uint64_t)low);
        uint64_t y = ~(((x & L7) + L7) | x | L7);      /* 0x80 in each byte of x that is 0 */
        return (int)(((y >> 7) * 0x0102040810204080ULL) >> 56) & 0x3F;
    }
    /* Score a card on markers m: colour f first, then s, each limited by the area of the lowest
       marker as it is before that colour (rules 5.3, 5.4), capped at 10; `o` is the lowest of the
       four other markers. Register arithmetic only: no store-to-load chain. */
    static inline void genial_score(const unsigned char *m, int f, int s, int cf, int cs, int o,
                                    const unsigned char *limit, int *f1, int *s1, int *low) {
        int f0 = m[f], s0 = m[s];
        int low0 = GENIAL_MIN(o, GENIAL_MIN(f0, s0));
        int a = GENIAL_MIN(f0 + cf, limit[low0]);
        int low1 = GENIAL_MIN(o, GENIAL_MIN(a, s0));
        int b = GENIAL_MIN(s0 + cs, limit[low1]);
        *f1 = a;
        *s1 = b;
        *low = GENIAL_MIN(o, GENIAL_MIN(a, b));
    }
    """
    int low_mask "genial_low_mask"(const uint8_t *m, int low) noexcept nogil
    void score_card "genial_score"(const uint8_t *m, int f, int s, int cf, int cs, int o,
                                   const uint8_t *limit, int *f1, int *s1, int *low) noexcept nogil


cdef inline int min2(int a, int b) noexcept nogil:
    return a if a < b else b


cdef inline int min3(int a, int b, int c) noexcept nogil:
    return min2(a, min2(b, c))


cdef inline int others_low(const uint8_t *m, int t) noexcept nogil:
    """The lowest of the four markers whose colours card type ``t`` does not show."""
    cdef int a = m[OTHER[t][0]], b = m[OTHER[t][1]], c = m[OTHER[t][2]], d = m[OTHER[t][3]]
    a = a if a < b else b
    c = c if c < d else d
    return a if a < c else c


cdef inline void display_add(CState *st, int p, int t) noexcept nogil:
    st.disp[p][st.disp_n[p]] = t
    st.disp_n[p] += 1
    st.on_display[CARD_A[t]] += 1
    st.on_display[CARD_B[t]] += 1


cdef inline void display_rotate(CState *st, int p, int t) noexcept nogil:
    """The oldest display card goes to the discard pile, the card just played joins (§5.3, §5.8)."""
    cdef int old = st.disp[p][0]
    cdef int n = st.disp_n[p]           # a dealt game's displays are full (check_state)
    if n == 0 or n > MAXDISP:           # (never in a state the kernel acts on: nothing moves)
        return
    st.on_display[CARD_A[old]] -= 1
    st.on_display[CARD_B[old]] -= 1
    bag_put(&st.discard, old)
    if n == 2:
        st.disp[p][0] = st.disp[p][1]
    elif n == 3:
        st.disp[p][0] = st.disp[p][1]
        st.disp[p][1] = st.disp[p][2]
    st.disp[p][n - 1] = t
    st.on_display[CARD_A[t]] += 1
    st.on_display[CARD_B[t]] += 1


cdef int draw_card(CState *st, Draws *ds) noexcept nogil:
    """A card from the deck; an empty deck is first replaced by the discard pile (§5.3)."""
    cdef int i
    if st.deck.n == 0:
        if st.discard.n == 0:
            return -1
        memcpy(&st.deck, &st.discard, sizeof(Bag))
        bag_sort(&st.deck)
        st.discard.n = 0
        st.reshuffles += 1
    return bag_draw(&st.deck, ds)


cdef inline void hand_add(CState *st, int p, int t) noexcept nogil:
    st.hand[p][t] += 1
    st.hand_mask[p] |= 1 << t
    st.hand_n[p] += 1


cdef inline void hand_remove(CState *st, int p, int t) noexcept nogil:
    st.hand[p][t] -= 1
    st.hand_mask[p] &= ~((st.hand[p][t] == 0) << t)      # branch-free
    st.hand_n[p] -= 1


cdef inline int refill(CState *st, int p, Draws *ds) noexcept nogil:
    """Draw until the hand holds six cards (or nothing is left). The common draw, at random
    from a non-empty deck, is ``bag_draw_random`` (no tests); scripts and an empty deck take
    ``draw_card``."""
    cdef int t
    while st.hand_n[p] < HAND:
        if st.deck.n == 0 or ds.script != NULL:
            t = draw_card(st, ds)
            if t < 0:
                return -1 if ds.error != DRAW_OK else 0
        else:
            t = bag_draw_random(&st.deck, ds)
        hand_add(st, p, t)
    return 0


cdef inline bint swap_allowed_at(CState *st, int low) noexcept nogil:
    """§5.5: no card in the hand shows any of the lowest colours (ties included); ``low`` is
    the current player's lowest marker."""
    cdef int p = st.current
    return not (st.hand_mask[p] & LOW_TYPES[low_mask(st.marker[p], low)])


cdef bint swap_allowed(CState *st) noexcept nogil:
    return swap_allowed_at(st, lowest(st.marker[st.current]))


cdef int next_turn(CState *st) noexcept nogil:
    if st.turns >= st.turn_cap:
        st.phase = PH_OVER
        st.truncated = 1
        return 0
    st.current += 1
    if st.current == st.players:
        st.current = 0
    st.turns += 1
    st.phase = PH_PLAY
    st.bonus = 0
    return 0


cdef inline int play(CState *st, int action, Draws *ds) noexcept nogil:
    """Play a card (legal, unchecked): score it, rotate the display, then a bonus turn, the
    swap decision, or the refill and the next turn."""
    cdef int p = st.current
    cdef int t = action >> 1
    cdef int first = FIRST[action]
    cdef int second = SECOND[action]
    cdef int earned, full, f1, s1, low
    cdef uint8_t *m = st.marker[p]
    hand_remove(st, p, t)
    st.plays[p] += 1
    if st.bonus > 0:
        st.bonus -= 1
        st.bonus_turns[p] += 1
    score_card(m, first, second, st.on_display[first], st.on_display[second], others_low(m, t),
               LIMIT, &f1, &s1, &low)
    earned = ((m[first] < CAP) & (f1 == CAP)) + ((m[second] < CAP) & (s1 == CAP))
    m[first] = f1
    m[second] = s1
    full = low >= 7
    if full:                               # §5.7: the game ends at once
        display_add(st, p, t)
        st.winner = p
        st.phase = PH_OVER
        st.bonus = 0
        return 0
    display_rotate(st, p, t)
    st.bonus += earned
    if st.bonus > 0 and st.hand_n[p] > 0:
        return 0                           # a bonus turn follows (§5.6)
    st.bonus = 0                           # with an empty hand the rest lapse
    if swap_allowed_at(st, low):
        st.phase = PH_SWAP
        return 0
    if st.hand_n[p] == HAND - 1 and st.deck.n > 0 and ds.script == NULL and ds.log == NULL:
        hand_add(st, p, bag_draw_random(&st.deck, ds))   # the common refill: one draw, no log
    elif refill(st, p, ds) < 0:
        return -1
    return next_turn(st)


cdef int apply_action(CState *st, int action, Draws *ds) noexcept nogil:
    cdef int p = st.current, t, i
    cdef uint32_t bits
    if action < A_SWAP:
        return play(st, action, ds)
    if action == A_SWAP:
        bits = st.hand_mask[p]
        while bits:                          # the held types in increasing order
            t = ctz64(bits)
            bits &= bits - 1
            for i in range(st.hand[p][t]):
                bag_put(&st.discard, t)
            st.hand[p][t] = 0
        st.hand_mask[p] = 0
        st.hand_n[p] = 0
        st.swaps[p] += 1
        if refill(st, p, ds) < 0:
            return -1
        return next_turn(st)
    if action != A_KEEP:
        return -1                            # not an action (callers apply legal ones only)
    if refill(st, p, ds) < 0:
        return -1
    return next_turn(st)


cdef inline bint in_hand(CState *st, int t) noexcept nogil:
    return (st.hand_mask[st.current] >> t) & 1


cdef bint is_legal(CState *st, int action) noexcept nogil:
    if st.phase == PH_SWAP:
        return action == A_SWAP or action == A_KEEP
    if st.phase != PH_PLAY or action < 0 or action >= A_SWAP:
        return False
    return in_hand(st, action >> 1)


cdef int legal_actions(CState *st, int32_t *out) noexcept nogil:
    cdef int n = 0, t
    cdef uint64_t bits
    if st.phase == PH_SWAP:
        out[0] = A_SWAP
        out[1] = A_KEEP
        return 2
    if st.phase != PH_PLAY:
        return 0
    bits = st.hand_mask[st.current]
    while bits:
        t = ctz64(bits)
        bits &= bits - 1
        out[n] = 2 * t
        out[n + 1] = 2 * t + 1
        n += 2
    return n


cdef void ranks(CState *st, int16_t *out) noexcept nogil:
    """§3.7 on the markers; an instant winner (§5.7) first, the others below it."""
    cdef uint64_t key[MAXP]
    cdef int i, j
    for i in range(st.players):
        key[i] = rank_key(st.marker[i])
    for i in range(st.players):
        if i == st.winner:
            out[i] = 0
            continue
        out[i] = 1 if st.winner != NOBODY else 0
        for j in range(st.players):
            if j != st.winner and key[j] > key[i]:
                out[i] += 1


# ---------------------------------------------------------------------------------------------
# policies

cdef inline int random_action(CState *st, bitgen_t *rng) noexcept nogil:
    """A uniformly random legal action: a card type of the hand and an order; the swap on a
    fair coin."""
    cdef uint64_t bits = st.hand_mask[st.current]
    cdef int k
    if st.phase == PH_SWAP:
        return A_SWAP if rand_below(rng, 2) else A_KEEP
    if bits == 0:
        return -1
    k = rand_below(rng, 2 * popcount64(bits))    # one draw: the card type and the order
    return 2 * select64(bits, k >> 1) + (k & 1)


cdef int choose_random(CState *st, bitgen_t *rng) noexcept nogil:
    return random_action(st, rng)


cdef extern from *:
    """
    /* The greedy's scan (choose_greedy): every legal play of the hand mask `bits`, in
       legal_actions order (card types ascending, CARD_A first then CARD_B first), valued as
       score_card scores it, the two orders of a card sharing their loads and the limit before
       the first colour; writes the best plays, in that order, to `best` (30 ints) and returns how many.
       Plain C on locals (the markers and display counts copied into ints first) so that no
       byte store is assumed to alias them. */
    static inline int genial_greedy_scan(const unsigned char *m, const unsigned char *disp,
                                         unsigned bits, const unsigned char *card_a,
                                         const unsigned char *card_b,
                                         const unsigned char (*other)[4],
                                         const unsigned char *limit, const unsigned char *sq,
                                         int *best) {
        int mm[6], reach[6];
        int c, nb = 0, top = -1;
        for (c = 0; c < 6; c++) {
            mm[c] = m[c];
            reach[c] = m[c] + disp[c];
        }
        while (bits) {
            int t = (int)genial_ctz64(bits), a, b, fa, fb, o, o2, lim0, x, y, base, v0, v1;
            bits &= bits - 1;
            a = card_a[t];
            b = card_b[t];
            fa = mm[a];
            fb = mm[b];
            o = GENIAL_MIN(mm[other[t][0]], mm[other[t][1]]);
            o2 = GENIAL_MIN(mm[other[t][2]], mm[other[t][3]]);
            o = GENIAL_MIN(o, o2);
            lim0 = limit[GENIAL_MIN(o, GENIAL_MIN(fa, fb))];
            base = sq[fa] + sq[fb];
            x = GENIAL_MIN(reach[a], lim0);                     /* 2 t: CARD_A first */
            y = GENIAL_MIN(reach[b], limit[GENIAL_MIN(o, GENIAL_MIN(x, fb))]);
            v0 = base - sq[x] - sq[y];
            y = GENIAL_MIN(reach[b], lim0);                     /* 2 t + 1: CARD_B first */
            x = GENIAL_MIN(reach[a], limit[GENIAL_MIN(o, GENIAL_MIN(fa, y))]);
            v1 = base - sq[x] - sq[y];
            /* the best so far, in order, branch-free: a better value restarts the list */
            nb = v0 > top ? 0 : nb;
            top = v0 > top ? v0 : top;
            best[nb] = 2 * t;
            nb += v0 == top;
            nb = v1 > top ? 0 : nb;
            top = v1 > top ? v1 : top;
            best[nb] = 2 * t + 1;
            nb += v1 == top;
        }
        return nb;
    }
    """
    int greedy_scan "genial_greedy_scan"(const uint8_t *m, const uint8_t *disp, uint32_t bits,
                                         const uint8_t *card_a, const uint8_t *card_b,
                                         const uint8_t (*other)[4], const uint8_t *limit,
                                         const uint8_t *sq, int *best) noexcept nogil


cdef int choose_greedy(CState *st, bitgen_t *rng) noexcept nogil:
    """The play maximising sum_c -(10 - m_c)^2 after it, ties at random; always swap
    (``greedy_scan`` values the plays)."""
    cdef int best_acts[A_SIZE]
    cdef int nb
    if st.phase == PH_SWAP:
        return A_SWAP
    if st.phase != PH_PLAY or st.hand_mask[st.current] == 0:
        return -1
    nb = greedy_scan(st.marker[st.current], st.on_display, st.hand_mask[st.current], CARD_A,
                     CARD_B, OTHER, LIMIT, SQ, best_acts)
    return best_acts[rand_below(rng, nb) if nb > 1 else 0]


cdef inline int choose(CState *st, int policy, double epsilon, bitgen_t *rng) noexcept nogil:
    if policy == 0:
        return random_action(st, rng)
    if policy == 2 and rand_unit(rng) < epsilon:
        return random_action(st, rng)
    return choose_greedy(st, rng)


cdef void deal(CState *st, Draws *ds) noexcept nogil:
    """Six cards to each hand, then the display cards (§5.2, §5.8)."""
    cdef int p, k, t
    for p in range(st.players):
        refill(st, p, ds)
    for k in range(st.display_size):
        for p in range(st.players):
            t = draw_card(st, ds)
            if t >= 0:
                display_add(st, p, t)


# ---------------------------------------------------------------------------------------------
# determinisation: what a seat cannot see, dealt again

cdef struct Pool:
    # a state with what its observer cannot see gathered in the deck (canonical order): every
    # other hand emptied, the discard pile emptied
    CState st
    uint8_t held[MAXP]          # the cards each of those hands held
    uint8_t discard_n           # the cards the discard pile held
    int seat                    # the observer
    int bound                   # another seat at its swap decision, whose hand is known to show
                                # none of its lowest colours (RULES §5.5), or -1
    uint16_t allowed            # the card types that hand may hold


cdef void pool_of(const CState *root, int seat, Pool *pool) noexcept nogil:
    """The unseen pool of ``seat`` at ``root``: the other hands, the deck and the discard pile
    (face down, RULES §5.3; ``CardView`` shows only its size) in one sorted deck. When another
    seat is at its swap decision, everyone knows that its hand shows none of its lowest
    colours (RULES §5.5): that hand is then dealt from the cards that do not (``bound``)."""
    cdef int p, t, i
    cdef const uint8_t *m = root.marker[root.current]
    cdef int low = low_mask(m, lowest(m))
    memcpy(&pool.st, root, sizeof(CState))
    pool.seat = seat
    pool.bound = root.current if root.phase == PH_SWAP and root.current != seat else -1
    pool.allowed = 0
    for t in range(NCARD):
        if not (CARD_MASK[t] & low):
            pool.allowed |= 1 << t
    for p in range(MAXP):
        pool.held[p] = 0
    for p in range(root.players):
        if p == seat:
            continue
        pool.held[p] = root.hand_n[p]
        for t in range(NCARD):
            for i in range(root.hand[p][t]):
                bag_put(&pool.st.deck, t)
            pool.st.hand[p][t] = 0
        pool.st.hand_mask[p] = 0
        pool.st.hand_n[p] = 0
    pool.discard_n = root.discard.n
    for i in range(root.discard.n):
        bag_put(&pool.st.deck, root.discard.item[i])
    pool.st.discard.n = 0
    bag_sort(&pool.st.deck)


cdef void determinise(CState *st, const Pool *pool, Draws *ds) noexcept nogil:
    """``st`` := the pool's state dealt again at random: each other hand, in seat order, draws
    as many cards as it held, then the discard pile as many as it held; the rest is the deck.
    A ``bound`` hand is dealt first, uniformly from the pool's cards it may hold (the uniform
    deal given what it is known to hold). The deck ends in canonical order, as every entry
    point puts it (the discard pile's order never matters: it is sorted when it becomes the
    deck), so a game played on from here is the game ``Cards.redeal`` then ``run_chunk``
    plays."""
    cdef int p, i, t
    cdef Bag sub
    memcpy(st, &pool.st, sizeof(CState))
    if pool.bound >= 0:
        sub.n = 0
        for i in range(st.deck.n):
            if (pool.allowed >> st.deck.item[i]) & 1:
                bag_put(&sub, st.deck.item[i])
        for i in range(pool.held[pool.bound]):
            t = bag_draw(&sub, ds)
            if t < 0:
                return
            bag_take(&st.deck, t)
            hand_add(st, pool.bound, t)
    for p in range(st.players):
        if p == pool.bound:
            continue
        for i in range(pool.held[p]):
            t = bag_draw(&st.deck, ds)
            if t < 0:
                return
            hand_add(st, p, t)
    for i in range(pool.discard_n):
        t = bag_draw(&st.deck, ds)
        if t < 0:
            return
        bag_put(&st.discard, t)
    bag_sort(&st.deck)


cdef void redeal(CState *st, int seat, Draws *ds) noexcept nogil:
    """Determinise ``st`` for ``seat`` in place (``pool_of`` then ``determinise``): only what
    that seat cannot see changes (the other hands, the deck, the discard pile); every hand,
    the deck and the discard pile keep their sizes."""
    cdef Pool pool
    pool_of(st, seat, &pool)
    determinise(st, &pool, ds)


# ---------------------------------------------------------------------------------------------
# the Python face

cdef int check_state(const CState *st) except -1:
    """``ValueError`` naming the part, unless ``st`` is a state the kernel can act on: rules as
    ``Cards()`` makes them; the seats, phase, turn, bonus and winner in range; markers within
    the area of their lowest (RULES §5.4); hands and displays (their counts, masks and colours)
    that agree, the displays either not dealt (a fresh game: nothing dealt at all) or of the
    rules' size (the instant winner's one more); exactly ``COPIES`` cards of each type over
    hands, displays, deck and discard pile (RULES §5.1). Every state the kernel makes passes;
    ``Cards.restore`` and ``set_position`` (and the vector kernel) check with it what they are
    given. (A ``Cards.__new__`` holds zeros, which fail here: it has no rules.)"""
    cdef int seen[NCARD]           # (ints: 240 cards of a type must not wrap around to 4)
    cdef uint8_t colours[NCOL]
    cdef int p, t, c, i, n, low, top
    cdef uint16_t mask
    cdef bint dealt = False
    if not 2 <= st.players <= MAXP or not 1 <= st.display_size <= 2:
        raise ValueError(f"rules: {st.players} players, display size {st.display_size}")
    if not 1 <= st.turn_cap <= 32000 or not 1 <= st.turns <= st.turn_cap:
        raise ValueError(f"turn {st.turns} of turn cap {st.turn_cap} out of range")
    if st.current >= st.players or st.phase > PH_OVER or st.bonus > NCOL:
        raise ValueError(f"seat {st.current}, phase {st.phase} or bonus {st.bonus} out of range")
    if st.truncated > 1 or (st.truncated or st.winner != NOBODY) and st.phase != PH_OVER:
        raise ValueError("a winner or a truncation while the game goes on")
    if st.winner != NOBODY and st.winner >= st.players:
        raise ValueError(f"winner: no seat {st.winner}")
    memset(seen, 0, sizeof(seen))
    memset(colours, 0, sizeof(colours))
    for p in range(MAXP):
        top = 0
        for c in range(NCOL):
            top = st.marker[p][c] if st.marker[p][c] > top else top
        low = lowest(st.marker[p])         # <= top: LIMIT[low] once top <= CAP
        if top > (CAP if p < st.players else 0) or top > LIMIT[low]:
            raise ValueError(f"markers of seat {p}: {top} beyond the limit of its lowest")
        n = 0
        mask = 0
        for t in range(NCARD):
            if st.hand[p][t] > COPIES:
                raise ValueError(f"hand of seat {p}: {st.hand[p][t]} cards of type {t}")
            n += st.hand[p][t]
            seen[t] += st.hand[p][t]
            mask |= (st.hand[p][t] > 0) << t
        if n != st.hand_n[p] or mask != st.hand_mask[p] or n > (HAND if p < st.players else 0):
            raise ValueError(f"hand of seat {p}: its count or mask disagrees, or too many cards")
        if st.disp_n[p] > (MAXDISP if p < st.players else 0):
            raise ValueError(f"display of seat {p}: {st.disp_n[p]} cards")
        for i in range(st.disp_n[p]):
            t = st.disp[p][i]
            if t >= NCARD:
                raise ValueError(f"display of seat {p}: card type {t}")
            seen[t] += 1
            colours[CARD_A[t]] += 1
            colours[CARD_B[t]] += 1
        dealt = dealt or n > 0 or st.disp_n[p] > 0
    if memcmp(colours, st.on_display, NCOL):
        raise ValueError("the colours on display disagree with the displays")
    for p in range(st.players):
        n = st.display_size + (p == st.winner)
        if dealt and st.disp_n[p] != n:
            raise ValueError(f"display of seat {p}: {st.disp_n[p]} cards, not {n}")
    check_bag(&st.deck, NCARD, "deck")
    check_bag(&st.discard, NCARD, "discard pile")
    for i in range(st.deck.n):
        seen[st.deck.item[i]] += 1
    for i in range(st.discard.n):
        seen[st.discard.item[i]] += 1
    for t in range(NCARD):
        if seen[t] != COPIES:
            raise ValueError(f"{seen[t]} cards of type {t}, the game has {COPIES} (RULES §5.1)")
    return 0


# the bodies the Python face shares with the board kernel's are genial/_state.pxi; what they ask
# of the card game:

ctypedef CState GState
ITEM = "card"
PILE = "deck"
N_ITEMS = NCARD
ITEM_TEXT = _CARD_TEXT

cdef enum:
    MAX_DRAWS = LOG_DRAWS       # one call draws at most this many (a deal, a play's refill)
    SWAP_ACTION = A_SWAP        # (and the batch engine's: swap, keep and the actions' count)
    N_ACTIONS = A_SIZE


cdef inline void sort_pile(CState *st) noexcept nogil:
    bag_sort(&st.deck)


cdef int no_source(CState *st, Draws *ds, uint8_t *buf) except -1:
    ds.script = buf                     # no source: any draw is an error
    ds.n_script = 0
    return 0


cdef int _check_undealt(const CState *st) except -1:
    """``ValueError`` unless nothing is dealt (the deal fills the displays: a second one would
    overfill them)."""
    cdef int p
    for p in range(MAXP):
        if st.hand_n[p] or st.disp_n[p]:
            raise ValueError("the cards are already dealt")
    return 0


include "genial/_state.pxi"


cdef class Cards(_State):
    """A card-game state with checked entry points (``genial.cards.CardGame`` is its face).

    Made with every card in the deck and nobody dealt: ``deal`` next. Pickles as its bytes.
    """

    def __init__(self, *, int players, int display_size, int turn_cap):
        if not 2 <= players <= MAXP or not 1 <= display_size <= 2 or not 1 <= turn_cap <= 32000:
            raise ValueError("bad players, display size or turn cap")
        cdef uint8_t counts[NCARD]
        cdef int t
        memset(&self.st, 0, sizeof(CState))
        self.st.players = players
        self.st.display_size = display_size
        self.st.turn_cap = turn_cap
        self.st.turns = 1
        self.st.winner = NOBODY
        for t in range(NCARD):
            counts[t] = COPIES
        bag_fill(&self.st.deck, counts, NCARD)
        bag_fill(&self.st.discard, counts, 0)

    # -- copies -----------------------------------------------------------------------------
    def copy(self):
        cdef Cards other = Cards.__new__(Cards)
        memcpy(&other.st, &self.st, sizeof(CState))
        return other

    # -- reading ------------------------------------------------------------------------------
    @property
    def players(self):
        return self.st.players

    @property
    def turns(self):
        return self.st.turns

    @property
    def turn_cap(self):
        return self.st.turn_cap

    @property
    def truncated(self):
        return bool(self.st.truncated)

    @property
    def winner(self):
        return None if self.st.winner == NOBODY else self.st.winner

    @property
    def deck_n(self):
        return self.st.deck.n

    @property
    def discard_n(self):
        return self.st.discard.n

    def markers(self):
        out = np.zeros((self.st.players, NCOL), dtype=np.int64)
        cdef int p, c
        for p in range(self.st.players):
            for c in range(NCOL):
                out[p, c] = self.st.marker[p][c]
        return out

    def hand(self, int p):
        if not 0 <= p < self.st.players:
            raise ValueError(f"no seat {p}")
        return [t for t in range(NCARD) for _ in range(self.st.hand[p][t])]

    def display(self, int p):
        if not 0 <= p < self.st.players:
            raise ValueError(f"no seat {p}")
        return [self.st.disp[p][i] for i in range(self.st.disp_n[p])]

    def deck_counts(self):
        out = [0] * NCARD
        cdef int i
        for i in range(self.st.deck.n):
            out[self.st.deck.item[i]] += 1
        return out

    def discard_counts(self):
        out = [0] * NCARD
        cdef int i
        for i in range(self.st.discard.n):
            out[self.st.discard.item[i]] += 1
        return out

    def stats(self):
        return {
            "plays": [self.st.plays[p] for p in range(self.st.players)],
            "bonus": [self.st.bonus_turns[p] for p in range(self.st.players)],
            "swaps": [self.st.swaps[p] for p in range(self.st.players)],
            "reshuffles": self.st.reshuffles,
        }

    def ranks(self):
        cdef int16_t out[MAXP]
        ranks(&self.st, out)
        return np.array([out[i] for i in range(self.st.players)], dtype=np.int64)

    # -- moves --------------------------------------------------------------------------------
    def gains(self, int action):
        """How far play ``action`` (``0 <= action < ACTION_SWAP``) would advance the current
        player's two markers, in scoring order, by the same ``score_card`` the play uses (the
        card need not be in the hand)."""
        if not 0 <= action < A_SWAP:
            raise ValueError(f"action {action} is not a play")
        cdef int p = self.st.current
        cdef int first = FIRST[action], second = SECOND[action], f1, s1, low
        cdef uint8_t *m = self.st.marker[p]
        score_card(m, first, second, self.st.on_display[first], self.st.on_display[second],
                   others_low(m, action >> 1), LIMIT, &f1, &s1, &low)
        return (f1 - m[first], s1 - m[second])

    def deal(self, bit_generator=None, script=None):
        """Deal six cards to each hand, then the displays (RULES §5.2); ``ValueError`` if
        anything is dealt already. Returns the card types drawn."""
        _check_undealt(&self.st)
        return run_step(&self.st, -1, bit_generator, script)

    def choose(self, str policy, object bit_generator, double epsilon=0.1):
        if policy not in POLICIES:
            raise ValueError(f"policy: one of {', '.join(POLICIES)}, got {policy[:40]!r}")
        cdef int pol = POLICIES[policy]
        cdef bitgen_t *rng = bitgen_of(bit_generator)
        cdef CState work
        cdef int a
        if self.st.phase == PH_OVER:
            raise ValueError("the game is over")
        memcpy(&work, &self.st, sizeof(CState))    # no other thread sees a state half changed
        with bit_generator.lock, nogil:
            a = choose(&work, pol, epsilon, rng)
        return a

    def redeal(self, int view_seat, object bit_generator):
        """Determinise in place for ``view_seat``: the cards it cannot see (every other hand,
        the deck and the discard pile) are gathered, put in canonical order and dealt again
        from ``bit_generator`` (a numpy BitGenerator): each other hand in seat order as many
        cards as it held, then the discard pile as many, the rest staying in the deck (another
        seat at its swap decision first, from the cards showing none of its lowest colours,
        RULES §5.5). Markers, displays, turn, phase and bonus stay, and so does ``view_seat``'s
        hand."""
        cdef Draws ds
        cdef CState work
        cdef bitgen_t *rng = bitgen_of(bit_generator)
        if not 0 <= view_seat < self.st.players:
            raise ValueError(f"no seat {view_seat}")
        memset(&ds, 0, sizeof(Draws))
        ds.rng = rng
        memcpy(&work, &self.st, sizeof(CState))    # changed without the GIL: a copy, kept
        with bit_generator.lock, nogil:
            redeal(&work, view_seat, &ds)
        memcpy(&self.st, &work, sizeof(CState))

    def set_position(self, markers, hands, displays, deck, discard, int current, int phase,
                     int bonus, int turns, winner, bint truncated, stats=None):
        """Replace the whole state under the same rules: six markers, a hand (card type ids)
        and a display (oldest first) per seat, the deck's and the discard pile's counts per
        card type. ``genial.cards.notation`` checks what a position means by the rules; this
        checks every value the kernel relies on (``ValueError`` naming it, ``check_state``)
        and leaves the state unchanged on error. ``stats`` is not read (they restart at 0)."""
        cdef CState work
        cdef CState *st = &work
        cdef uint8_t counts[NCARD]
        cdef int p, c, i, t
        cdef list row
        memcpy(&work, &self.st, sizeof(CState))
        if not 2 <= st.players <= MAXP:
            raise ValueError("this Cards has no rules (made with Cards.__new__)")
        memset(st.on_display, 0, sizeof(st.on_display))
        for p in range(st.players):
            row = list(markers[p])
            if len(row) != NCOL:
                raise ValueError(f"markers of seat {p}: {NCOL} expected")
            for c in range(NCOL):
                st.marker[p][c] = small_int(row[c], 0, CAP, f"markers of seat {p}")
            st.hand_n[p] = 0
            st.hand_mask[p] = 0
            for i in range(NCARD):
                st.hand[p][i] = 0
            row = list(hands[p])
            if len(row) > HAND:
                raise ValueError(f"hand of seat {p}: {len(row)} cards, at most {HAND}")
            for i in range(len(row)):
                hand_add(st, p, small_int(row[i], 0, NCARD - 1, f"hand of seat {p}: a card"))
            st.disp_n[p] = 0
            row = list(displays[p])
            if len(row) > MAXDISP:
                raise ValueError(f"display of seat {p}: {len(row)} cards, at most {MAXDISP}")
            for i in range(len(row)):
                display_add(st, p, small_int(row[i], 0, NCARD - 1,
                                             f"display of seat {p}: a card"))
            st.plays[p] = 0
            st.bonus_turns[p] = 0
            st.swaps[p] = 0
        for what, source, bag in (("deck", deck, 0), ("discard pile", discard, 1)):
            row = list(source)
            if len(row) != NCARD:
                raise ValueError(f"{what}: {NCARD} counts expected")
            for i in range(NCARD):
                counts[i] = small_int(row[i], 0, COPIES, f"{what}: a count")
            bag_fill(&st.discard if bag else &st.deck, counts, NCARD)
        st.current = small_int(current, 0, st.players - 1, "current: a seat")
        st.phase = small_int(phase, 0, PH_OVER, "phase")
        st.bonus = small_int(bonus, 0, NCOL, "bonus")
        st.turns = small_int(turns, 1, st.turn_cap, "turns")
        st.winner = NOBODY if winner is None else small_int(winner, 0, st.players - 1, "winner")
        st.truncated = truncated
        st.reshuffles = 0
        check_state(&work)
        memcpy(&self.st, &work, sizeof(CState))




# ---------------------------------------------------------------------------------------------
# whole games

# the batch engine (play_game, run_chunk) is genial/_batch.pxi, shared with the board game's
# kernel; what it asks of the card game:

ctypedef CardRow GRow
ctypedef CardLog GLog

cdef struct Policy:
    uint8_t kind                # POLICIES
    double epsilon              # epsilon-greedy: the chance of a random move


cdef inline int choose_seat(CState *st, const Policy *pol, bitgen_t *rng) noexcept nogil:
    return choose(st, pol.kind, pol.epsilon, rng)


cdef void write_row(CState *st, CardRow *row, int stop) noexcept nogil:
    """The result row of a finished game (``stop``, ``play_game``'s code, is not needed: a
    card game always has a legal move, and is truncated only at the turn cap)."""
    cdef int16_t rk[MAXP]
    cdef int i, c, first = -1, nfirst = 0
    ranks(st, rk)
    memset(row, 0, sizeof(CardRow))
    for i in range(st.players):
        for c in range(NCOL):
            row.scores[i][c] = st.marker[i][c]
        row.ranks[i] = rk[i]
        row.plays[i] = st.plays[i]
        row.bonus[i] = st.bonus_turns[i]
        row.swaps[i] = st.swaps[i]
        if rk[i] == 0:
            nfirst += 1
            first = i
    row.winner = first if nfirst == 1 else -1
    row.instant = st.winner != NOBODY
    row.truncated = st.truncated
    row.turns = st.turns
    row.reshuffles = st.reshuffles


cdef int read_start(object start, CState *out, bint deal) except -1:
    """Copy ``start`` (a ``Cards``; nothing dealt if ``deal``), its deck and discard pile in
    canonical order. Returns its seats."""
    cdef Cards cards
    if not isinstance(start, Cards):
        raise TypeError(f"start: a Cards, got {type(start).__name__}")
    cards = start
    if not 2 <= cards.st.players <= MAXP:
        raise ValueError("start: this Cards has no rules (made with Cards.__new__)")
    if deal:
        _check_undealt(&cards.st)
    memcpy(out, &cards.st, sizeof(CState))
    bag_sort(&out.deck)
    bag_sort(&out.discard)
    return out.players


cdef int read_seats(const uint8_t[::1] policies, const double[::1] epsilons, object search,
                    int players, Policy *pols) except -1:
    cdef uint8_t codes[MAXP]
    cdef double eps[MAXP]
    cdef int i
    if search is not None:
        raise ValueError("search: the card game has no search policies")
    read_policies(policies, epsilons, players, 2, codes, eps)
    for i in range(players):
        pols[i].kind = codes[i]
        pols[i].epsilon = eps[i]
    return 0


cdef int luck_ready() except -1:
    raise ValueError("the card game has no evaluation to measure the luck of its draws by")


include "genial/_batch.pxi"
