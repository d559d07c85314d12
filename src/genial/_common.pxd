# cython: language_level=3
"""Game-agnostic pieces of genial's kernels, inline and ``noexcept nogil``: cimport, do not copy.

- randomness: a ``bitgen_t`` from a numpy ``BitGenerator`` (capsule checked), bounded draws
  (inline for genial's own PCG64, ``genial._pcg``; through numpy's function pointers otherwise);
- bit tricks: popcount, count of trailing zeros, select (the k-th set bit of a word; ``pdep``
  where the CPU has a fast one, chosen at run time: below);
- a bag (or deck) of small items with random or scripted draws and a draw log. Inside a run the
  bag is unordered (a draw swaps the last item into the hole); ``bag_sort`` puts it in canonical
  order, which every entry point from Python does before it draws, so that what is drawn depends
  only on the bag's contents and the random stream, never on the history that filled it.

Every kernel that cimports this file calls :c:func:`common_init` once at import (it builds the
select table of this translation unit and reads the CPU's features).
"""

from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from numpy.random cimport bitgen_t

from genial._pcg cimport draw32, draw_double

# ---------------------------------------------------------------------------------------------
# randomness


cdef inline bitgen_t *bitgen_of(object bit_generator) except NULL:
    """The ``bitgen_t`` of a numpy ``BitGenerator``; ``TypeError`` for anything else.

    The caller holds ``bit_generator.lock`` while it draws (``with bit_generator.lock, nogil:``).
    """
    capsule = getattr(bit_generator, "capsule", None)
    if capsule is None or not PyCapsule_IsValid(capsule, "BitGenerator"):
        raise TypeError(f"expected a numpy BitGenerator, got {type(bit_generator).__name__}")
    return <bitgen_t *>PyCapsule_GetPointer(capsule, "BitGenerator")


cdef inline uint32_t rand_below(bitgen_t *rng, uint32_t n) noexcept nogil:
    """A uniform integer in [0, n), n >= 1 (Lemire's multiply-shift with rejection)."""
    cdef uint64_t m = <uint64_t>draw32(rng) * n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t threshold
    if low < n:
        threshold = (<uint32_t>0 - n) % n
        while low < threshold:
            m = <uint64_t>draw32(rng) * n
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef inline double rand_unit(bitgen_t *rng) noexcept nogil:
    """A uniform double in [0, 1)."""
    return draw_double(rng)


# ---------------------------------------------------------------------------------------------
# bit tricks
#
# select64 has two implementations, chosen at run time (wheels are built for a baseline x86-64,
# ``-mpopcnt``, never ``-march=native``): the portable broadword one, and one ``pdep`` + ``tzcnt``
# (BMI2) in a function compiled for BMI1 and BMI2 (``__attribute__((target))``), used only where
# ``common_init`` finds that the CPU has BMI1 and BMI2 (cpuid leaf 7) *and* a fast ``pdep``:
# Intel (every Intel core with BMI2 runs it in 3 cycles), AMD from family 0x19 (Zen 3) on.
# AMD before Zen 3 (families 0x15 to 0x17, and Hygon's 0x18) microcodes ``pdep`` (tens to
# hundreds of cycles, by the mask), other vendors are unknown: they keep the portable path. The
# features are read with ``cpuid`` itself rather than ``__builtin_cpu_supports``: the vendor
# and family need it anyway, and it needs no run-time library symbol (``__cpu_model``) on any
# platform. MSVC and non-x86 machines compile the portable path only. Both give the same result
# for every ``k < popcount(w)`` (tests/test_cpu_dispatch.py plays the same games on both).

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__GNUC__) || defined(__clang__)
    #define genial_popcount64(x) __builtin_popcountll(x)
    #define genial_ctz64(x) __builtin_ctzll(x)
    #elif defined(_MSC_VER) && defined(_M_X64)
    #include <intrin.h>
    #define genial_popcount64(x) ((int)__popcnt64(x))
    static int genial_ctz64(unsigned long long x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    #else
    static int genial_popcount64(unsigned long long x) {
        int n = 0; while (x) { x &= x - 1; n++; } return n; }
    static int genial_ctz64(unsigned long long x) {
        int n = 0; while (!(x & 1)) { x >>= 1; n++; } return n; }
    #endif

    /* run-time CPU dispatch (the rule above); genial_cpu is filled by genial_common_init() */
    typedef struct {
        int x86;            /* compiled with the dispatch (GCC or clang on x86) */
        int bmi2;           /* the CPU has BMI1 and BMI2 */
        int fast_pdep;      /* ... and its pdep is fast: select64 uses it unless told not to */
        int family;         /* x86 family (base + extended), 0 if unknown */
        char vendor[13];    /* cpuid's vendor string, "" if unknown */
    } genial_cpu_t;
    static genial_cpu_t genial_cpu;

    #if (defined(__GNUC__) || defined(__clang__)) && !defined(_MSC_VER) \
        && (defined(__x86_64__) || defined(__i386__))
    #define GENIAL_X86_DISPATCH 1
    #include <cpuid.h>
    #include <immintrin.h>
    static int genial_use_bmi2 = 0;     /* select64 takes the BMI2 path */
    __attribute__((target("bmi,bmi2")))
    static int genial_select64_bmi2(uint64_t w, int k) {
        /* deposit 1 << k on w's set bits: the k-th set bit is the only one left */
        return (int)_tzcnt_u64(_pdep_u64((uint64_t)1 << k, w));
    }
    static void genial_cpu_detect(void) {
        unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0, max_leaf, base;
        genial_cpu.x86 = 1;
        if (!__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx)) return;
        memcpy(genial_cpu.vendor, &ebx, 4);
        memcpy(genial_cpu.vendor + 4, &edx, 4);
        memcpy(genial_cpu.vendor + 8, &ecx, 4);
        genial_cpu.vendor[12] = 0;
        if (__get_cpuid(1, &eax, &ebx, &ecx, &edx)) {
            base = (eax >> 8) & 0xF;
            genial_cpu.family = (int)(base == 0xF ? base + ((eax >> 20) & 0xFF) : base);
        }
        if (max_leaf >= 7) {
            __cpuid_count(7, 0, eax, ebx, ecx, edx);
            genial_cpu.bmi2 = (ebx >> 3) & 1 && (ebx >> 8) & 1;    /* BMI1 (tzcnt), BMI2 */
        }
        genial_cpu.fast_pdep = genial_cpu.bmi2
            && (strcmp(genial_cpu.vendor, "GenuineIntel") == 0
                || (strcmp(genial_cpu.vendor, "AuthenticAMD") == 0 && genial_cpu.family >= 0x19));
        genial_use_bmi2 = genial_cpu.fast_pdep;
    }
    #else
    #define GENIAL_X86_DISPATCH 0
    #define genial_use_bmi2 0
    static inline int genial_select64_bmi2(uint64_t w, int k) { (void)w; (void)k; return -1; }
    static void genial_cpu_detect(void) { genial_cpu.x86 = 0; }
    #endif

    /* portable (nonzero) or not: the BMI2 path wherever the CPU has BMI2, fast pdep or not
       (for tests); returns whether the portable path was in use. Not while games run. */
    static inline int genial_set_portable(int portable) {
        int was = !genial_use_bmi2;
    #if GENIAL_X86_DISPATCH
        genial_use_bmi2 = !portable && genial_cpu.bmi2;
    #else
        (void)portable;
    #endif
        return was;
    }

    /* position of the j-th set bit of a byte; built by genial_common_init() */
    static uint8_t genial_select_in_byte[256][8];
    static void genial_common_init(void) {
        int a, b, k;
        for (a = 0; a < 256; a++) {
            k = 0;
            for (b = 0; b < 8; b++) genial_select_in_byte[a][b] = 0;
            for (b = 0; b < 8; b++) if ((a >> b) & 1) genial_select_in_byte[a][k++] = (uint8_t)b;
        }
        memset(&genial_cpu, 0, sizeof(genial_cpu));
        genial_cpu_detect();
    }
    """
    ctypedef struct genial_cpu_t:
        int x86
        int bmi2
        int fast_pdep
        int family
        char vendor[13]
    genial_cpu_t CPU "genial_cpu"
    int popcount64 "genial_popcount64"(uint64_t x) noexcept nogil
    int ctz64 "genial_ctz64"(uint64_t x) noexcept nogil
    uint8_t SELECT_IN_BYTE "genial_select_in_byte"[256][8]
    void common_init "genial_common_init"() noexcept nogil
    const int USE_BMI2 "genial_use_bmi2"
    int select64_bmi2 "genial_select64_bmi2"(uint64_t w, int k) noexcept nogil
    int set_portable "genial_set_portable"(int portable) noexcept nogil


cdef inline int select64_portable(uint64_t w, int k) noexcept nogil:
    """Position of the k-th set bit (0-based) of w, k < popcount(w): broadword select (byte
    counts summed by one multiplication, the byte found by a parallel compare, then a table)."""
    cdef uint64_t L8 = 0x0101010101010101ULL
    cdef uint64_t H8 = 0x8080808080808080ULL
    cdef uint64_t s = w - ((w >> 1) & 0x5555555555555555ULL)
    cdef int b, before
    s = (s & 0x3333333333333333ULL) + ((s >> 2) & 0x3333333333333333ULL)
    s = ((s + (s >> 4)) & 0x0F0F0F0F0F0F0F0FULL) * L8   # byte i: set bits in bytes 0..i
    b = popcount64((((<uint64_t>k) * L8 | H8) - s) & H8)    # bytes whose running count <= k
    before = ((s << 8) >> (b * 8)) & 0xFF
    return b * 8 + SELECT_IN_BYTE[(w >> (b * 8)) & 0xFF][k - before]


cdef inline int select64(uint64_t w, int k) noexcept nogil:
    """Position of the k-th set bit (0-based) of w, k < popcount(w) (BMI2 or portable: above)."""
    if USE_BMI2:
        return select64_bmi2(w, k)
    return select64_portable(w, k)


# ---------------------------------------------------------------------------------------------
# a bag of items (tiles, cards) with random or scripted draws

cdef enum:
    BAG_CAP = 120       # items a bag holds at most (the board game's 120 tiles)
    BAG_TYPES = 32      # item types are 0 .. BAG_TYPES - 1

cdef enum:
    DRAW_OK = 0
    DRAW_SCRIPT_SHORT = 1   # a scripted draw was due but the script had run out
    DRAW_NOT_IN_BAG = 2     # the scripted item is not in the bag
    DRAW_LOG_FULL = 3       # the draw log was full (the draw itself succeeded)


cdef struct Bag:
    uint8_t item[BAG_CAP]       # item types, unordered
    uint8_t n                   # items in the bag


cdef struct Draws:
    # where drawn items come from and where they are logged
    bitgen_t *rng               # random draws, when script is NULL
    const uint8_t *script       # scripted draws (replaying a record)
    int n_script
    int pos                     # scripted draws consumed
    uint8_t *log                # every drawn item is appended here, if not NULL
    int n_log
    int max_log
    int error                   # DRAW_*: the first fault met
    Bag *short_pile             # if not NULL: the pile a draw found the script run out at
    double *luck                # if not NULL: each seat's draw luck is added here (one per
                                # seat: the board game's luck adjustment, ``draw_values``)


cdef inline void bag_fill(Bag *bag, const uint8_t *counts, int n_types) noexcept nogil:
    """Put ``counts[t]`` items of each type ``t`` in the bag (emptied first)."""
    cdef int t, i
    bag.n = 0
    for t in range(n_types):
        for i in range(counts[t]):
            bag.item[bag.n] = t
            bag.n += 1


cdef inline void bag_sort(Bag *bag) noexcept nogil:
    """Put the items in increasing order (a counting sort: items are small ints < BAG_TYPES)."""
    cdef uint8_t counts[BAG_TYPES]
    cdef int i
    for i in range(BAG_TYPES):
        counts[i] = 0
    for i in range(bag.n):
        counts[bag.item[i]] += 1
    bag_fill(bag, counts, BAG_TYPES)


cdef inline void bag_put(Bag *bag, int t) noexcept nogil:
    bag.item[bag.n] = t
    bag.n += 1


cdef inline bint bag_take(Bag *bag, int t) noexcept nogil:
    """Remove one item of type ``t``; False if there is none."""
    cdef int i
    for i in range(bag.n):
        if bag.item[i] == t:
            bag.n -= 1
            bag.item[i] = bag.item[bag.n]
            return True
    return False


cdef inline int bag_remove_at(Bag *bag, int i, Draws *ds) noexcept nogil:
    """Take out item ``i`` (``0 <= i < bag.n``: the caller's draw) and log it; return it."""
    cdef int t = bag.item[i]
    bag.n -= 1
    bag.item[i] = bag.item[bag.n]
    if ds.log != NULL:
        if ds.n_log < ds.max_log:
            ds.log[ds.n_log] = t
            ds.n_log += 1
        elif ds.error == DRAW_OK:
            ds.error = DRAW_LOG_FULL
    return t


cdef inline int bag_draw_random(Bag *bag, Draws *ds) noexcept nogil:
    """``bag_draw`` of a random item from a non-empty bag (the caller knows ``bag.n > 0`` and
    ``ds.script == NULL``): the kernels' common draw, without the tests."""
    return bag_remove_at(bag, rand_below(ds.rng, bag.n), ds)


cdef inline int bag_draw(Bag *bag, Draws *ds) noexcept nogil:
    """Take one item (uniformly random, or the next scripted one) and log it; -1 if impossible
    (an empty bag, or a script fault recorded in ``ds.error``)."""
    cdef int i, t
    if bag.n == 0:
        return -1
    if ds.script != NULL:
        if ds.pos >= ds.n_script:
            if ds.error == DRAW_OK:     # the first fault stays the one reported
                if ds.short_pile != NULL:
                    memcpy(ds.short_pile, bag, sizeof(Bag))     # what the next draw comes from
                ds.error = DRAW_SCRIPT_SHORT
            return -1
        t = ds.script[ds.pos]
        ds.pos += 1
        i = 0
        while i < bag.n and bag.item[i] != t:
            i += 1
        if i == bag.n:
            ds.error = DRAW_NOT_IN_BAG
            return -1
    else:
        i = rand_below(ds.rng, bag.n)
        t = bag.item[i]
    return bag_remove_at(bag, i, ds)
