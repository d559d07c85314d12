# The learned evaluation of a position and the ``value`` policy (docs/value.md). Included by
# genial/_core.pyx after the search's ``candidates``.
#
# ``value_features`` describes a position from one seat's view, with only what that seat can
# see (its rack, every counter, the board, the number of tiles the others hold, and the tiles
# it has not seen as one pool): NFEAT numbers, the first 1 (the bias). The evaluation is a
# logistic model of them, one weight vector per number of counter sets (1 to 4): the estimated
# share of first place the seat ends with (solo: its lowest counter over the cap). The weights
# are package data (genial/value_weights.json, written by ``genial learn``), read and checked
# once, when a value policy first needs them (not at import: a damaged weights file costs the
# value policies only); ``value_error`` says why the value policy cannot run, or is None.

cdef double VALUE_W[MAXP + 1][NFEAT]   # row n: the weights for n counter sets (row 0 unused)
cdef bint VALUE_READY = False
cdef bint VALUE_TRIED = False
value_error = "the learned evaluation's weights are read when a value policy first needs them"
MAX_WEIGHTS_BYTES = 1 << 20   # a weights file is about 20 KB


cdef inline void colour_order(const uint8_t *s, uint8_t *order) noexcept nogil:
    """The six colours by counter, lowest first, ties by colour (an insertion sort)."""
    cdef int i, j
    for i in range(NCOL):
        j = i
        while j > 0 and s[order[j - 1]] > s[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


cdef inline void count_shows(uint8_t t, double *shows) noexcept nogil:
    shows[TILE_LO[t]] += 1.0
    if TILE_HI[t] != TILE_LO[t]:
        shows[TILE_HI[t]] += 1.0


cdef void unseen_shares(const State *st, int p, double *share) noexcept nogil:
    """For each colour, the share of the tiles seat ``p`` has not seen (the bag and the other
    racks, as one pool: what ``p`` can work out) that show it."""
    cdef int i, q, c, n = st.bag.n
    for c in range(NCOL):
        share[c] = 0.0
    for i in range(st.bag.n):
        count_shows(st.bag.item[i], share)
    for q in range(st.rules.players):
        if q != p:
            n += st.rack_n[q]
            for i in range(st.rack_n[q]):
                count_shows(st.rack[q][i], share)
    for c in range(NCOL):
        share[c] = share[c] / n if n > 0 else 0.0


cdef void value_features(const State *st, int p, const double *share, bint fresh,
                         double *f) noexcept nogil:
    """The NFEAT features of ``st`` for seat ``p`` (``share``: ``unseen_shares``); ``fresh``:
    as if ``p``'s rack were swapped for a new one. ``s`` is ``p``'s counters lowest first,
    ``o`` those of the leading other counter set (by RULES §3.7), ``m`` the best potential per
    colour on the empty cells, ``r`` the tiles of ``p``'s rack showing a colour once it is
    refilled (the draws to come counted at their expected shares):

    0 bias; 1-6 s/cap; 7-12 o/cap; 13-15 ((cap - s)/cap)^2 of the three lowest; 16-18 the same
    of o; 19-21 m/8 in p's three lowest colours; 22-24 m/8 in the leader's three lowest;
    25-27 r/rack size in p's three lowest; 28 bonus placements owed to p now; 29 the progress
    (placements over half the area's cells); 30 progress x (s_0 - o_0)/cap; 31 the lowest
    counter of the second other set over the cap (3 or 4 sets); 32-34 m/8 x min(1, r) in p's
    three lowest (the lines p can use); 35-37 m/8 x the chance that a rack of the leader's
    size drawn from the unseen tiles shows the colour, in the leader's three lowest (the lines
    it may use); 38 ((s_0 - o_0)/cap)^2; 39 progress^2. ``m`` counts only empty cells with an
    empty neighbour (where a tile can go). With one counter set the leader's features are 0."""
    cdef int k = st.rules.counter_of[p], radius = st.rules.radius
    cdef int j, i, c, q, cell, best = -1, second = -1
    cdef const uint8_t *s = st.score[k]
    cdef const uint8_t *o = st.score[k]
    cdef const uint8_t *pt
    cdef uint8_t oc[NCOL]
    cdef uint8_t xc[NCOL]
    cdef uint8_t m[NCOL]
    cdef double r[NCOL]
    cdef uint64_t key, bk = 0, sk = 0
    cdef double cap = st.rules.cap, rs = st.rules.rack_size, left, low2 = 0.0, miss
    cdef int w, held = 0
    for j in range(st.rules.n_sets):
        if j == k:
            continue
        key = rank_key(st.score[j])
        if best < 0 or key > bk:
            second = best
            sk = bk
            best = j
            bk = key
        elif second < 0 or key > sk:
            second = j
            sk = key
    colour_order(s, oc)
    if best >= 0:
        o = st.score[best]
        colour_order(o, xc)
    f[0] = 1.0
    for i in range(NCOL):
        f[1 + i] = s[oc[i]] / cap
        f[7 + i] = o[xc[i]] / cap if best >= 0 else 0.0
    for i in range(3):
        f[13 + i] = ((cap - s[oc[i]]) / cap) ** 2
        f[16 + i] = ((cap - o[xc[i]]) / cap) ** 2 if best >= 0 else 0.0
    for c in range(NCOL):
        m[c] = 0
    for i in range(N_AREA_CELLS[radius]):
        cell = AREA_CELLS[radius][i]
        w = CELL_WORD[cell]
        if st.board[cell] == EMPTY and st.live[cell] and (
                (st.free_bits[w] & CELL_MASK[cell][0]) | (st.free_bits[w + 1] & CELL_MASK[cell][1])):
            pt = st.pot[cell]
            for c in range(NCOL):
                m[c] = pt[c] if pt[c] > m[c] else m[c]
    left = rs if fresh else rs - st.rack_n[p]
    left = left if left > 0.0 else 0.0
    for c in range(NCOL):
        r[c] = left * share[c]
    if not fresh:
        for i in range(st.rack_n[p]):
            count_shows(st.rack[p][i], r)
    for i in range(3):
        f[19 + i] = m[oc[i]] / 8.0
        f[22 + i] = m[xc[i]] / 8.0 if best >= 0 else 0.0
        f[25 + i] = r[oc[i]] / rs
    f[28] = 0.0
    if st.current == p and st.phase == PH_PLACE:
        f[28] = st.bonus if st.bonus < 2 else 2
    f[29] = st.placements / (N_AREA_CELLS[radius] / 2.0)
    f[30] = f[29] * (f[1] - f[7])
    if second >= 0:
        c = st.score[second][0]
        for i in range(1, NCOL):
            c = st.score[second][i] if st.score[second][i] < c else c
        low2 = c / cap
    f[31] = low2
    if best >= 0:
        for q in range(st.rules.players):
            if st.rules.counter_of[q] == best and st.rack_n[q] > held:
                held = st.rack_n[q]
    for i in range(3):
        f[32 + i] = f[19 + i] * (r[oc[i]] if r[oc[i]] < 1.0 else 1.0)
        miss = 1.0 - share[xc[i]]
        f[35 + i] = f[22 + i] * (1.0 - miss ** held) if best >= 0 else 0.0
    f[38] = (f[1] - f[7]) ** 2
    f[39] = f[29] * f[29]


cdef inline double value_of(const double *f, int n_sets) noexcept nogil:
    """The evaluation of the features ``f``: a probability, the logistic of the weights' sum."""
    cdef double z = 0.0
    cdef int i
    for i in range(NFEAT):
        z += VALUE_W[n_sets][i] * f[i]
    if z < -40.0:
        z = -40.0
    elif z > 40.0:
        z = 40.0
    return 1.0 / (1.0 + exp(-z))


cdef inline double rate(const State *st, int p, const double *share, bint fresh) noexcept nogil:
    """The evaluation of ``st`` for ``p`` (``value_features`` then ``value_of``)."""
    cdef double f[NFEAT]
    value_features(st, p, share, fresh, f)
    return value_of(f, st.rules.n_sets)


cdef inline double best_option(const State *st, int p, const double *share,
                               bint swap) noexcept nogil:
    """The evaluation for ``p`` keeping its rack, or, if ``swap`` (the offer is ``p``'s to
    take), the better of keeping and a fresh rack."""
    cdef double v = rate(st, p, share, False), w
    if swap:
        w = rate(st, p, share, True)
        v = w if w > v else v
    return v


cdef double draw_values(State *st, int p, double *values) noexcept nogil:
    """The luck adjustment's terms for seat ``p``'s next draw (one tile, uniform over the
    bag: ``refill``): ``values[t]``, for each tile type ``t`` in the bag, the evaluation
    (``rate``, from ``p``'s view) just after ``p`` draws a tile of that type, the unseen
    shares less that tile; returns their expectation over the bag. ``values[drawn] - expected``
    has expectation 0 whatever came before (the draw is uniform over the bag), so the sum of
    these terms over a game is a control variate a result can be adjusted by without bias.
    ``st`` is left as it was (a rack slot past the rack is written, then restored); the bag,
    whose order the draws depend on, is only read."""
    cdef int counts[NTYPE]
    cdef double shows[NCOL]
    cdef double after[NCOL]
    cdef int i, t, c, q, n = st.bag.n, pool = st.bag.n, slot = st.rack_n[p]
    cdef uint8_t kept = st.rack[p][slot]       # (refill: slot < rack_size <= MAXRACK)
    cdef double total = 0.0
    for t in range(NTYPE):
        counts[t] = 0
    for i in range(n):
        counts[st.bag.item[i]] += 1
    for c in range(NCOL):
        shows[c] = 0.0
    for i in range(n):
        count_shows(st.bag.item[i], shows)
    for q in range(st.rules.players):      # the pool p has not seen (``unseen_shares``)
        if q != p:
            pool += st.rack_n[q]
            for i in range(st.rack_n[q]):
                count_shows(st.rack[q][i], shows)
    st.rack_n[p] = slot + 1
    for t in range(NTYPE):
        if counts[t] == 0:
            continue
        for c in range(NCOL):
            after[c] = shows[c]
        after[TILE_LO[t]] -= 1.0
        if TILE_HI[t] != TILE_LO[t]:
            after[TILE_HI[t]] -= 1.0
        for c in range(NCOL):
            after[c] = after[c] / (pool - 1) if pool > 1 else 0.0
        st.rack[p][slot] = t
        values[t] = rate(st, p, after, False)
        total += counts[t] * values[t]
    st.rack_n[p] = slot
    st.rack[p][slot] = kept
    return total / n


cdef double final_value(const State *st, int p) noexcept nogil:
    """What the evaluation estimates, once the game is over: ``p``'s share of first place (solo:
    its lowest counter over the cap)."""
    cdef int16_t rk[MAXP]
    cdef int q, c, k = st.rules.counter_of[p], low, nfirst = 0
    if st.rules.n_sets == 1:
        low = st.score[k][0]
        for c in range(1, NCOL):
            low = st.score[k][c] if st.score[k][c] < low else low
        return <double>low / st.rules.cap
    ranks(<State *>st, rk)
    if rk[p] != 0:
        return 0.0
    for q in range(st.rules.n_sets):      # seat q < n_sets stands for counter set q
        nfirst += rk[q] == 0
    return 1.0 / nfirst


cdef double after_value(State *work, int p, int more, const double *share) noexcept nogil:
    """The evaluation, for ``p``, of ``work`` just after ``p``'s placement (``place_tile``,
    which returned ``more``): exact if the game is over; with the swap offer to come, the
    better of keeping and swapping."""
    if work.phase == PH_OVER:
        return final_value(work, p)
    if more:
        work.bonus = 0                      # the turn's placements are over
    return best_option(work, p, share, more and swap_allowed(work))


cdef int choose_value(State *st, int top_k, bitgen_t *rng) noexcept nogil:
    """The ``value`` policy: of greedy's ``top_k`` best placements (``candidates``: bonus plays
    first, then greedy value, ties in a random order), the one whose position just after it
    the evaluation rates best for the mover (the first of equals); at the swap decision, swap
    if a fresh rack rates better than the kept one refilled. Reads only what the mover sees."""
    cdef int32_t cand[MAXCAND]
    cdef double share[NCOL]
    cdef double v, best_v = -1.0
    cdef int p = st.current, n, i, more, best = -1
    cdef uint64_t seed = rng.next_uint64(rng.state)
    cdef State work
    unseen_shares(st, p, share)
    if st.phase == PH_SWAP:
        return ACT_SWAP if rate(st, p, share, True) > rate(st, p, share, False) else ACT_KEEP
    n = candidates(st, top_k, seed, cand)
    if n <= 1:
        return cand[0] if n == 1 else -1
    for i in range(n):
        memcpy(&work, st, sizeof(State))
        more = place_tile(&work, cand[i])
        v = after_value(&work, p, more, share)
        if v > best_v:
            best_v = v
            best = cand[i]
    return best


def _finite_number(x):
    import math

    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return False
    try:
        return math.isfinite(float(x))
    except OverflowError:   # (an int too large for a double)
        return False


def _parse_value_weights(str text):
    """The weights of a weights file's text (``genial learn`` writes it), checked: its format,
    one list of NFEAT finite numbers per number of counter sets 1 to 4, and the SHA-256 of
    those lists; a list of the four lists, or ``ValueError`` saying what is wrong (deep nesting
    and huge numbers included)."""
    import hashlib
    import json

    if len(text) > MAX_WEIGHTS_BYTES:
        raise ValueError(f"more than {MAX_WEIGHTS_BYTES:,} characters: not a weights file")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ValueError("not JSON (or nested too deep)") from None
    if not isinstance(data, dict) or data.get("format") != "genial-value-1":
        raise ValueError("not a genial-value-1 weights file")
    features = data.get("features")
    if not _finite_number(features) or features != NFEAT:
        raise ValueError(f"weights for {str(features)[:20]} features, the kernel has {NFEAT}")
    models = data.get("models")
    if not isinstance(models, dict) or sorted(models) != [str(n) for n in range(1, MAXP + 1)]:
        raise ValueError("models: one list of weights for each of 1, 2, 3 and 4 counter sets")
    rows = []
    for n in range(1, MAXP + 1):
        row = models[str(n)]
        if not isinstance(row, list) or len(row) != NFEAT or not all(
                _finite_number(x) for x in row):
            raise ValueError(f"model {n}: {NFEAT} finite numbers expected")
        rows.append([float(x) for x in row])
    body = json.dumps(models, sort_keys=True, separators=(",", ":"))
    if hashlib.sha256(body.encode()).hexdigest() != data.get("sha256"):
        raise ValueError("its checksum does not match its weights")
    return rows


def _read_weights_text():
    """genial/value_weights.json's text: a regular file only (opened without blocking, so a
    FIFO is refused), at most MAX_WEIGHTS_BYTES."""
    import os
    import stat
    from importlib import resources

    where = resources.files("genial").joinpath("value_weights.json")
    try:
        path = os.fspath(where)
    except TypeError:   # (a package in a zip: its reader bounds nothing, but it is no FIFO)
        return where.read_bytes()[: MAX_WEIGHTS_BYTES + 1].decode("utf-8")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        raw = os.read(fd, MAX_WEIGHTS_BYTES + 1)
    finally:
        os.close(fd)
    return raw.decode("utf-8")


def _load_value_weights():
    """Read genial/value_weights.json into the kernel (``_parse_value_weights``), once, when a
    value policy first needs it; if it is missing or damaged, leave the value policy off and
    say why in ``value_error`` (the other policies never read it)."""
    global VALUE_READY, VALUE_TRIED, value_error
    cdef int n, i

    VALUE_TRIED = True
    try:
        rows = _parse_value_weights(_read_weights_text())
    except Exception as err:   # (whatever the file holds, only the value policies are off)
        value_error = f"genial/value_weights.json is missing or damaged: {err}"
        return
    for n in range(1, MAXP + 1):
        for i in range(NFEAT):
            VALUE_W[n][i] = rows[n - 1][i]
    VALUE_READY = True
    value_error = None


def value_weights_error():
    """Why the value policies cannot run (the weights file read first if it has not been), or
    None when they can."""
    if not VALUE_TRIED:
        _load_value_weights()
    return None if VALUE_READY else value_error


cdef int check_value_ready() except -1:
    if not VALUE_TRIED:
        _load_value_weights()
    if not VALUE_READY:
        raise ValueError(value_error)
    return 0
