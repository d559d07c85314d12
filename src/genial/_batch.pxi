# Whole games, the batch engine both game kernels share (``genial._core`` for the board game,
# ``genial.cards._kernel`` for the card game): ``play_game`` and ``run_chunk``, included at
# module level by each kernel after the names they use, so that a fix here lands in both
# (issue 18).
#
# The including kernel defines, before ``include "genial/_batch.pxi"``:
#
# - ``GState``, ``GRow``, ``GLog``: its state, result row and game log (``ctypedef``);
#   ``Policy``: what a seat plays by (a struct with at least ``uint8_t kind``); ``Pool``: the
#   unseen material of a start (``pool_of``, ``determinise``);
# - the constants ``SWAP_ACTION`` (the first action of the swap decision: swap, keep are
#   ``>= SWAP_ACTION``), ``N_ACTIONS``, ``PH_SWAP``, ``PH_OVER``, ``LOG_MOVES``, ``LOG_DRAWS``;
# - the rules, ``noexcept nogil``: ``is_legal``, ``apply_action``, ``deal``,
#   ``redeal(GState *, int seat, Draws *)``, ``pool_of(const GState *, int seat, Pool *)``,
#   ``determinise(GState *, const Pool *, Draws *)``, ``choose_seat(GState *, const Policy *,
#   bitgen_t *)`` (the action the seat's policy picks, -1 if none is legal) and
#   ``write_row(GState *, GRow *, int stop)`` (a finished game's row; ``stop`` is
#   ``play_game``'s code); its draws add their luck to ``Draws.luck`` when it is set;
# - ``luck_ready()`` (with the GIL): 0 when the game can measure its draws' luck (``luck=``),
#   else raise ``ValueError`` saying why;
# - the argument readers (with the GIL): ``read_start(object start, GState *out, bint deal)``
#   (copy the start, checked, its piles in canonical order; return its seats) and
#   ``read_seats(policies, epsilons, search, int players, Policy *out)`` (one policy per seat).

from libc.stdint cimport int16_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from numpy.random cimport bitgen_t

from numpy.random import PCG64 as _NumpyPCG64

from genial._checks cimport Forced, free_forced, read_forced, refuse_forced
from genial._common cimport DRAW_LOG_FULL, Draws, bitgen_of
from genial._pcg cimport PCG_MAX_POOL, bitgen_init, genial_pcg, seed_child

include "genial/_cpu.pxi"   # the kernel's _cpu_features, _use_portable (CPU dispatch)


# A chunk's streams on genial's own PCG64 (genial._pcg): an exact numpy.random.PCG64 (not a
# subclass, which may change how it draws) is copied into a genial_pcg through its public state
# before the games and copied back after them, so that its draws run inline (genial._common's
# draw32) and the numpy object continues exactly as if numpy had drawn them; any other bit
# generator is drawn from through its bitgen_t.

cdef uint64_t _MASK64 = 0xFFFFFFFFFFFFFFFFULL


cdef bint pcg_take(object bit_generator, genial_pcg *g) except -1:
    """Copy an exact ``numpy.random.PCG64``'s state into ``g`` (True); False for any other bit
    generator (``g`` untouched). With the generator's lock held."""
    if type(bit_generator) is not _NumpyPCG64:
        return False
    full = bit_generator.state
    state = full["state"]["state"]
    inc = full["state"]["inc"]
    g.state_hi = <uint64_t>(state >> 64)
    g.state_lo = <uint64_t>(state & _MASK64)
    g.inc_hi = <uint64_t>(inc >> 64)
    g.inc_lo = <uint64_t>(inc & _MASK64)
    g.has_uint32 = 1 if full["has_uint32"] else 0
    g.uinteger = <uint32_t>full["uinteger"]
    return True


cdef int pcg_give(object bit_generator, const genial_pcg *g) except -1:
    """Set the ``numpy.random.PCG64`` ``pcg_take`` read to ``g``'s state (with its lock held)."""
    bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {
            "state": (<object>g.state_hi << 64) | g.state_lo,
            "inc": (<object>g.inc_hi << 64) | g.inc_lo,
        },
        "has_uint32": g.has_uint32,
        "uinteger": g.uinteger,
    }
    return 0


cdef int play_game(GState *st, const Policy *pols, bitgen_t *policy_rng,
                   Draws *ds, GLog *log, const int16_t *forced_seat,
                   const int16_t *forced_action, int n_forced) noexcept nogil:
    """Play the game in ``st`` to its end with the seats' policies; log the moves if ``log``
    (written, never read: the caller's memory).

    The ``n_forced`` forced actions are made, in order, at the next decision of their seat of
    their kind: one below ``SWAP_ACTION`` at a move (a placement, a play; bonus ones included),
    swap or keep at a swap decision; each is checked there, on the value applied. Returns 1 if
    the game stopped with no legal move (possible only from hand-made positions), 2 if a forced
    action was not legal at its decision (the game is then stopped there, nothing illegal
    applied), else 0."""
    cdef int a, before, f = 0, moves = 0
    while st.phase != PH_OVER:
        if (f < n_forced and st.current == forced_seat[f]
                and (forced_action[f] >= SWAP_ACTION) == (st.phase == PH_SWAP)):
            a = forced_action[f]
            f += 1
            if not is_legal(st, a):
                st.phase = PH_OVER
                return 2
        else:
            a = choose_seat(st, &pols[st.current], policy_rng)
        if a < 0:                       # nothing playable (only in hand-made positions)
            st.phase = PH_OVER
            return 1
        before = ds.n_log
        apply_action(st, a, ds)
        if log != NULL:
            if moves < LOG_MOVES:
                log.moves[moves] = a
                log.counts[moves] = ds.n_log - before
                moves += 1
                log.n_moves = moves
            else:
                log.overflow = 1
    return 0


cdef inline void deal_game(GState *st, Draws *ds) noexcept nogil:
    deal(st, ds)                        # (run_chunk's argument ``deal`` hides the function)


def run_chunk(object start, object chance, object policy, bint deal,
              const uint8_t[::1] policies, const double[::1] epsilons, GRow[::1] rows,
              GLog[::1] logs=None, const int16_t[::1] forced_seats=None,
              const int16_t[::1] forced_actions=None, int view_seat=-1, object search=None,
              const int16_t[::1] forced_each=None, const uint32_t[::1] game_prefix=None,
              int pool_size=4, uint64_t first_game=0, double[:, ::1] luck=None):
    """Play ``len(rows)`` games from ``start`` (the kernel's state class; dealt first if
    ``deal``), the draws coming from the ``chance`` bit generator and the policies' choices
    from ``policy`` (so the same chance stream deals the same material whatever the policies),
    writing one row per game (``ROW_DTYPE``; and its log, ``LOG_DTYPE``, if ``logs`` is given).
    Runs without the GIL, on copies of every argument it reads (``genial._checks``); ``start``
    is never changed.

    ``policies``, ``epsilons``: one policy code (``POLICIES``) and one epsilon per seat.
    ``forced_seats``/``forced_actions``: actions every game makes (``play_game``: each at the
    next decision of its seat of its kind; one that is not legal then stops that game, and the
    call raises ``ValueError`` when the chunk is done). ``view_seat >= 0``: each game is first
    determinised for that seat (``redeal``, after the deal if any, from the chance stream), so
    the games use only what that seat can see; forced actions may then only be that seat's, and
    there are no logs (a record would not start from ``start``). ``search``: the board game's
    ``SEARCH_DTYPE`` entries, one per seat, the parameters of the seats whose policy is a search
    (needed if one is; the card game has none). ``forced_each``: with one forced seat, game
    ``g`` forces ``forced_each[g]`` instead of ``forced_actions[0]`` (many forced actions'
    games in one call, as if one call per run of equal actions on the same streams: the same
    games).

    ``game_prefix`` (paired games: common random numbers): game ``g`` of the call then draws
    from streams of its own, ``PCG64(child_seed(root, first_game + g, 0))`` for chance and
    ``(first_game + g, 1)`` for the policies, ``root`` the SeedSequence whose words before a
    child's key are ``game_prefix`` (``genial.seeds.seed_prefix``; ``pool_size`` its pool), so
    that game ``j`` of two calls with the same root starts from the same draws whatever the
    games before it consumed; ``chance`` and ``policy`` are then left untouched.

    ``luck`` (shape ``(len(rows), seats)``): game ``g``'s draws' luck per seat, the sum over
    its draws (the deal's included) of each drawing seat's evaluation after the draw minus its
    expectation over the pile (the game's ``luck_ready`` says whether it has one), written
    into ``luck[g]``; the games are the same with or without it.
    """
    cdef Py_ssize_t n = rows.shape[0], g, bad = -1
    cdef int players, rc
    cdef GState st
    cdef GState base
    cdef Draws ds
    cdef GLog *log = NULL
    cdef bitgen_t *rng = bitgen_of(chance)
    cdef bitgen_t *prng = bitgen_of(policy)
    cdef genial_pcg chance_pcg, policy_pcg     # the streams, if numpy PCG64s (above)
    cdef bitgen_t chance_bg, policy_bg
    cdef const int16_t *fact = NULL
    cdef Policy pols[MAXP]
    cdef Pool pool
    cdef Forced forced
    cdef uint32_t *prefix = NULL                # game_prefix, copied (paired games)
    cdef int nprefix = 0
    cdef bint paired = game_prefix is not None
    cdef Py_ssize_t w
    cdef double seat_luck[MAXP]
    cdef bint want_luck = luck is not None
    cdef int i
    if chance is policy:
        raise ValueError("the chance and policy streams must be two bit generators")
    if paired:
        if not 4 <= pool_size <= PCG_MAX_POOL:
            raise ValueError(f"pool_size must be in 4..{PCG_MAX_POOL}, got {pool_size}")
        if not pool_size <= game_prefix.shape[0] <= 4096:
            raise ValueError(f"game_prefix: {pool_size}..4096 words, got {game_prefix.shape[0]}")
        if first_game > (<uint64_t>1 << 62) or <uint64_t>n > (<uint64_t>1 << 62) - first_game:
            raise ValueError("first_game: out of range")
    players = read_start(start, &base, deal)
    if want_luck:
        if luck.shape[0] != n or luck.shape[1] != players:
            raise ValueError(f"luck: shape ({n}, {players}) wanted, got "
                             f"({luck.shape[0]}, {luck.shape[1]})")
        luck_ready()
    memset(pols, 0, sizeof(pols))
    read_seats(policies, epsilons, search, players, pols)
    if logs is not None and logs.shape[0] != n:
        raise ValueError("one log per row")
    read_forced(&forced, forced_seats, forced_actions, forced_each, n, players, N_ACTIONS,
                view_seat, logs is not None)
    try:
        if paired:                              # (a copy: the caller's array may change)
            nprefix = <int>game_prefix.shape[0]
            prefix = <uint32_t *>malloc(nprefix * sizeof(uint32_t))
            if prefix == NULL:
                raise MemoryError()
            for w in range(nprefix):
                prefix[w] = game_prefix[w]
        fact = forced.action
        if view_seat >= 0 and not deal:
            pool_of(&base, view_seat, &pool)
        with chance.lock, policy.lock:
            if paired:
                bitgen_init(&chance_bg, &chance_pcg)
                rng = &chance_bg
                bitgen_init(&policy_bg, &policy_pcg)
                prng = &policy_bg
            else:
                if pcg_take(chance, &chance_pcg):
                    bitgen_init(&chance_bg, &chance_pcg)
                    rng = &chance_bg
                if pcg_take(policy, &policy_pcg):
                    bitgen_init(&policy_bg, &policy_pcg)
                    prng = &policy_bg
            try:
                with nogil:
                    for g in range(n):
                        if paired:
                            seed_child(&chance_pcg, prefix, nprefix, pool_size,
                                       first_game + <uint64_t>g, 0)
                            seed_child(&policy_pcg, prefix, nprefix, pool_size,
                                       first_game + <uint64_t>g, 1)
                        memset(&ds, 0, sizeof(Draws))
                        ds.rng = rng
                        if want_luck:
                            for i in range(MAXP):
                                seat_luck[i] = 0.0
                            ds.luck = &seat_luck[0]
                        if view_seat >= 0 and not deal:
                            determinise(&st, &pool, &ds)   # the start, redealt from its unseen pool
                        else:
                            memcpy(&st, &base, sizeof(GState))
                        if logs is not None:           # (never with view_seat: read_forced)
                            log = &logs[g]
                            log.n_moves = 0     # the arrays are written as far as used
                            log.n_draws = 0
                            log.overflow = 0
                            ds.log = &log.draws[0]
                            ds.max_log = LOG_DRAWS
                        if deal:
                            deal_game(&st, &ds)
                            if view_seat >= 0:
                                redeal(&st, view_seat, &ds)
                        if forced.each != NULL:
                            fact = forced.each + g
                        rc = play_game(&st, pols, prng, &ds, log, forced.seat, fact, forced.n)
                        if rc == 2 and bad < 0:
                            bad = g
                        write_row(&st, &rows[g], rc)
                        if want_luck:
                            for i in range(players):
                                luck[g, i] = seat_luck[i]
                        if log != NULL:
                            log.n_draws = ds.n_log
                            if ds.error == DRAW_LOG_FULL:
                                log.overflow = 1
            finally:
                if rng == &chance_bg and not paired:
                    pcg_give(chance, &chance_pcg)
                if prng == &policy_bg and not paired:
                    pcg_give(policy, &policy_pcg)
    finally:
        free(prefix)
        free_forced(&forced)
    refuse_forced(bad)
