# cython: language_level=3
"""The ranking both games share (docs/rules.md §3.7, §5.7): a seat ranks above another when
its lowest counter (marker) is higher, ties broken by the next lowest, and so on. cimport, do
not copy (``genial._core``, ``genial.cards._kernel``)."""

from libc.stdint cimport uint8_t, uint64_t


cdef inline uint64_t rank_key(const uint8_t *m) noexcept nogil:
    """The six counters ``m`` sorted ascending, packed so that a larger key ranks higher."""
    cdef uint8_t v[6]
    cdef int i, j
    cdef uint8_t x
    cdef uint64_t key = 0
    for i in range(6):
        x = m[i]
        j = i
        while j > 0 and v[j - 1] > x:
            v[j] = v[j - 1]
            j -= 1
        v[j] = x
    for i in range(6):
        key = (key << 8) | v[i]
    return key
