# cython: language_level=3
"""The card game's kernel, declared (docs/rules.md §5): constants, state, result rows.

Cards are the 15 pairs of different colours, type ``t`` = ``(CARD_A[t], CARD_B[t])`` with
``CARD_A[t] < CARD_B[t]`` in lexicographic order; 4 of each (60 cards). An action plays a card
type scoring one of its colours first (``2 t`` scores ``CARD_A`` first, ``2 t + 1`` ``CARD_B``),
or answers the swap decision (``A_SWAP``, ``A_KEEP``).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t

from numpy.random cimport bitgen_t

from genial._common cimport Bag, Draws

cdef enum:
    NCOL = 6            # colours
    NCARD = 15          # card types
    COPIES = 4          # cards of each type (§5.1)
    MAXP = 4            # seats
    HAND = 6            # cards in a hand
    CAP = 10            # a marker's last column
    MAXDISP = 3         # display cards a seat can hold (2 players: 2, plus the winning card)
    A_SWAP = 30
    A_KEEP = 31
    A_SIZE = 32
    LOG_MOVES = 1024    # moves a game log holds
    LOG_DRAWS = 2048    # draws a game log holds

cdef enum:
    PH_PLAY = 0
    PH_SWAP = 1
    PH_OVER = 2

cdef enum:
    NOBODY = 255

cdef struct CState:
    # rules (from genial.cards.CardRules)
    uint8_t players
    uint8_t display_size        # display cards per seat: 1, or 2 with two players (§5.8)
    int16_t turn_cap            # turns after which a game stops, truncated (§5.7 Decision)
    # whose turn, and where in it
    uint8_t current
    uint8_t phase               # PH_*
    uint8_t bonus               # bonus turns still owed this turn (§5.6)
    uint8_t winner              # the instant winner (§5.7), NOBODY if none
    uint8_t truncated           # 1 if the game stopped at the turn cap
    int16_t turns               # turns started, 1 at the start
    # statistics
    int16_t plays[MAXP]         # cards played per seat
    int16_t bonus_turns[MAXP]   # bonus turns taken per seat
    int16_t swaps[MAXP]         # hand swaps per seat
    int16_t reshuffles          # discard piles turned into a new deck
    # material
    uint8_t marker[MAXP][NCOL]  # columns 0..10
    uint8_t hand[MAXP][NCARD]   # cards of each type in each hand
    uint16_t hand_mask[MAXP]    # bit t set when the hand holds a card of type t
    uint8_t hand_n[MAXP]        # cards in the hand
    uint8_t disp[MAXP][MAXDISP] # display cards, oldest first
    uint8_t disp_n[MAXP]
    uint8_t on_display[NCOL]    # occurrences of each colour on all displays
    Bag deck
    Bag discard

cdef struct CardRow:
    uint8_t scores[MAXP][NCOL]  # final markers (columns 0..10)
    int8_t ranks[MAXP]          # competition ranks, 0 best (§3.7, §5.7)
    int8_t winner               # the seat first alone, -1 if first place is shared
    uint8_t instant             # 1 if the winner had six markers >= 7 (§5.7)
    uint8_t truncated           # 1 if stopped at the turn cap
    int16_t turns               # turns started
    int16_t plays[MAXP]         # cards played per seat
    int16_t bonus[MAXP]         # bonus turns per seat
    int16_t swaps[MAXP]         # hand swaps per seat
    int16_t reshuffles          # new decks made from the discard pile

cdef struct CardLog:
    uint8_t moves[LOG_MOVES]    # action ids
    uint8_t counts[LOG_MOVES]   # cards drawn right after each move
    uint8_t draws[LOG_DRAWS]    # every card drawn, the deal first
    int16_t n_moves
    int16_t n_draws
    uint8_t overflow            # 1 if the game did not fit (its record is incomplete)

cdef class _State:              # snapshots, pickling (genial/_state.pxi)
    cdef CState st

cdef class Cards(_State):
    pass

cdef int check_state(const CState *st) except -1   # ValueError unless the kernel can act on st

# the rules, for other kernels (genial.cards._vector): the same functions every entry point uses
cdef bint is_legal(CState *st, int action) noexcept nogil
cdef int legal_actions(CState *st, int32_t *out) noexcept nogil
cdef int apply_action(CState *st, int action, Draws *ds) noexcept nogil  # legal, unchecked
cdef void deal(CState *st, Draws *ds) noexcept nogil    # six cards a hand, then the displays
cdef void ranks(CState *st, int16_t *out) noexcept nogil
cdef int choose_random(CState *st, bitgen_t *rng) noexcept nogil  # uniform over legal ids
