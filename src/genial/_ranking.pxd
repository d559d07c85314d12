# cython: language_level=3
"""The ranking both games share (docs/rules.md §3.7, §5.7): a seat ranks above another when
its lowest counter (marker) is higher, ties broken by the next lowest, and so on. cimport, do
not copy (``genial._core``, ``genial.cards._kernel``)."""

from libc.stdint cimport uint8_t, uint64_t


cdef extern from *:
    """
    /* The six counters sorted ascending by an optimal network (12 compare-exchanges,
       conditional moves, no branch), packed with the lowest in the top byte: a larger key
       ranks higher. Checked against a plain sort on all 4^6 inputs of 0..3 and on random
       ones (tests/rules/test_ranking_key.py). */
    #define GENIAL_CX(a, b) do { int lo_ = a < b ? a : b; b = a < b ? b : a; a = lo_; } while (0)
    static inline uint64_t genial_rank_key(const unsigned char *m) {
        int a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5];
        GENIAL_CX(a, f); GENIAL_CX(b, d); GENIAL_CX(c, e);
        GENIAL_CX(b, c); GENIAL_CX(d, e);
        GENIAL_CX(a, d); GENIAL_CX(c, f);
        GENIAL_CX(a, b); GENIAL_CX(c, d); GENIAL_CX(e, f);
        GENIAL_CX(b, c); GENIAL_CX(d, e);
        return (uint64_t)a << 40 | (uint64_t)b << 32 | (uint64_t)c << 24 | (uint64_t)d << 16
             | (uint64_t)e << 8 | (uint64_t)f;
    }
    #undef GENIAL_CX
    """
    uint64_t rank_key "genial_rank_key"(const uint8_t *m) noexcept nogil
