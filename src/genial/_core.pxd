# cython: language_level=3
"""The board game's kernel, declared: its constants, its state, its result rows and the functions
another kernel module may cimport. The definitions are in ``_core.pyx``.

Geometry (docs/rules.md §1.2): axial ``(q, r)``, pointy-top cells, stored in a padded 17 x 17 grid,
``index = (r + 8) * 17 + (q + 8)``; the diagram of directions is in ``_core.pyx``.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint64_t

from numpy.random cimport bitgen_t

from genial._common cimport Bag, Draws

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
    NOSYM = 255         # first_symbol: this seat has not placed yet
    ANYSYM = 254        # first_symbol: placed, touching no symbol (rules without the symbol rule)
    ACT_SWAP = 15336    # NEDGE * 36
    ACT_KEEP = 15337
    ACT_SIZE = 15338
    MAXCAND = 5120      # placements with distinct values: <= 6 tiles x 2 ways x 426 edges
    NWORDS = 7          # 64-bit words of the free-edge bit set (edge NEDGE is a dummy)
    LOG_MOVES = 256     # moves a game log holds (a game has at most 81 placements + 81 decisions)
    LOG_DRAWS = 1024    # draws a game log holds (deal, refills and swaps)

cdef enum:
    PH_PLACE = 0
    PH_SWAP = 1
    PH_OVER = 2

cdef enum:
    BONUS_NONE = 0      # no bonus plays (solo)
    BONUS_EACH = 1      # one per counter reaching a threshold (§3.4)
    BONUS_ONE = 2       # at most one per placement (tournament rules, §4.3)

cdef enum:
    FIRST_NONE = 0              # no first-round rule
    FIRST_NEW_SYMBOL = 1        # touch a symbol no earlier first placement touched (§3.2)
    FIRST_SYMBOL_OR_TILE = 2    # touch a symbol or a tile (§4.3)

cdef enum:
    POL_RANDOM = 0
    POL_GREEDY = 1
    POL_EPSILON = 2
    POL_MC = 3          # flat Monte Carlo over determinisations (docs/search.md)
    POL_MCTS = 4        # single-observer information-set MCTS (docs/search.md)
    POL_VALUE = 5       # one ply scored by the learned evaluation (docs/value.md)

cdef enum:
    NFEAT = 40          # the learned evaluation's features (genial/_value.pxi), bias included

cdef enum:
    MAX_ITERATIONS = 100000     # playouts or iterations of a search per decision, at most
    MAX_DEPTH_TURNS = 40        # turns a value rollout plays before its cut, at most

cdef enum:
    # why an action is not legal (is_legal is ILLEGAL_NONE == 0); the Python layer words them
    ILLEGAL_NONE = 0
    ILLEGAL_OVER = 1            # the game is over
    ILLEGAL_DECIDE_SWAP = 2     # the swap decision is due: swap or keep
    ILLEGAL_NOT_DECISION = 3    # swap or keep while a placement is due
    ILLEGAL_RANGE = 4           # not an action id
    ILLEGAL_OUTSIDE = 5         # a cell outside the area
    ILLEGAL_COVERED = 6         # a cell already covered
    ILLEGAL_NO_TILE = 7         # the tile is not on the rack
    ILLEGAL_FIRST_ROUND = 8     # breaks the first-round rule

# ---------------------------------------------------------------------------------------------
# the state of one game: a fixed-size struct, so copying a game is a memcpy

cdef struct Params:
    # the rules (docs/rules.md §1.3, §2, §3, §4), set from genial.Rules: no defaults here
    uint8_t players             # seats
    uint8_t radius              # area: cells at distance <= radius
    uint8_t rack_size           # tiles a rack is refilled to (1 in solo: the tile just drawn)
    uint8_t cap                 # a counter's maximum
    uint8_t cross               # crossing point: points beyond it are lost when it is reached
    uint8_t bonus_rule          # BONUS_*
    uint8_t first_rule          # FIRST_*
    uint8_t swap_rule           # 1: the rack swap of §3.5 is offered; 0: never (solo)
    uint8_t n_sets              # counter sets: one per seat, or one per team
    uint8_t counter_of[MAXP]    # the counter set each seat scores on (teams share one)

cdef struct State:
    Params rules
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
    Bag bag                     # the undrawn tiles
    # board
    uint8_t board[NCELL]        # colour 0..5, EMPTY or WALL
    uint8_t pot[NCELL][NCOL]    # potentials of empty cells (see _core.pyx)
    uint8_t live[NCELL]         # bit c set when pot[cell][c] > 0
    uint64_t free_bits[NWORDS + 1]  # bit e set when both cells of edge e are empty area cells
    int16_t n_free              # pairs of adjacent empty cells (free edges) in the area

# ---------------------------------------------------------------------------------------------
# one row per finished game (batches): the numpy dtype ROW_DTYPE is derived from this struct

cdef struct GameRow:
    uint8_t scores[MAXP][NCOL]  # final counters per seat (partners repeat their team's)
    int8_t ranks[MAXP]          # competition ranks, 0 best (§3.7)
    int8_t winner               # the seat (team) first alone, -1 if first place is shared
    uint8_t truncated           # 1 if the game stopped without ending (no legal move left)
    int16_t placements          # tiles placed
    int16_t turns               # turns started
    int16_t bonus[MAXP]         # bonus placements per seat
    int16_t swaps[MAXP]         # rack swaps per seat
    int16_t opening[MAXP]       # each seat's first placement (action id), -1 if none

cdef struct GameLog:
    # a whole game's moves and draws, for records (LOG_DTYPE)
    int16_t moves[LOG_MOVES]    # action ids
    uint8_t counts[LOG_MOVES]   # tiles drawn right after each move
    uint8_t draws[LOG_DRAWS]    # every tile drawn, the deal first
    int16_t n_moves
    int16_t n_draws
    uint8_t overflow            # 1 if the game did not fit (its record is incomplete)

# ---------------------------------------------------------------------------------------------
# policies: what a seat plays by (genial.policies builds them from policy names)

cdef struct Search:
    # the parameters of a search policy (SEARCH_DTYPE)
    int32_t iterations          # playouts (mc) or iterations (mcts) per decision, >= 1
    uint16_t top_k              # candidates: greedy's best top_k placements; 0: every one
    uint8_t rollout             # the playout policy: POL_RANDOM, POL_GREEDY or POL_VALUE
    uint8_t depth               # POL_VALUE rollouts: turns played (greedy) before the cut
    double explore              # mcts: the UCB exploration constant

cdef struct Policy:
    uint8_t kind                # POL_*
    double epsilon              # POL_EPSILON: the chance of a random move
    Search search               # POL_MC, POL_MCTS; POL_VALUE: its top_k (iterations 1)

# ---------------------------------------------------------------------------------------------
# the kernel's face (checked entry points are the methods of Core)

cdef class _State:              # snapshots, pickling (genial/_state.pxi)
    cdef State st

cdef class Core(_State):
    pass

cdef int check_state(const State *st) except -1   # ValueError unless the kernel can act on st
cdef bint is_fresh_board(const State *st) noexcept nogil   # no tile placed

cdef bint is_legal(State *st, int action) noexcept nogil
cdef int illegal_reason(State *st, int action) noexcept nogil
cdef int legal_actions(State *st, int32_t *out) noexcept nogil
cdef int apply_action(State *st, int action, Draws *ds) noexcept nogil
cdef int choose(State *st, int policy, double epsilon, bitgen_t *rng) noexcept nogil
cdef void deal(State *st, Draws *ds) noexcept nogil   # fill every rack from the bag (a game's start)
cdef void redeal(State *st, int view_seat, Draws *ds) noexcept nogil  # determinise for a seat
cdef void ranks(State *st, int16_t *out) noexcept nogil
cdef int choose_policy(State *st, const Policy *pol, bitgen_t *rng) noexcept nogil
# (whole games, play_game and run_chunk, are genial/_batch.pxi: the card kernel's too)
