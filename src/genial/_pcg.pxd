# cython: language_level=3
"""PCG64 and numpy's SeedSequence in C, bit for bit as numpy computes them
(numpy/random/src/pcg64, numpy/random/bit_generator.pyx), behind numpy's ``bitgen_t`` interface:
cimport, do not copy. A batched kernel uses them to seed a stream as
``PCG64(SeedSequence(entropy, spawn_key=(*root.spawn_key, x, y)))`` inside a loop without the
GIL (a finished game restarts there, without making a Python object).

``seed_child`` seeds a stream from a root's *prefix*: the root's run entropy as uint32 words,
padded with zeros to ``pool_size``, then its spawn key's words (what a child's assembled entropy
holds before the child's own key words). The extension's tests check the streams against numpy's.

``draw32``/``draw_double`` draw from any ``bitgen_t``: when it is a ``genial_pcg`` (its
``next_uint32``/``next_double`` are this translation unit's, set by ``bitgen_init``) the PCG step
runs inline, with no call; any other generator (numpy's, the search's SplitMix) through its
function pointer. ``genial._common``'s bounded draws use them: this is the one PCG step of every
kernel.
"""

from libc.stdint cimport uint32_t, uint64_t
from numpy.random cimport bitgen_t

cdef extern from *:
    """
    #include <stdint.h>
    #include "numpy/random/bitgen.h"

    typedef struct {
        uint64_t state_hi, state_lo, inc_hi, inc_lo;
        int has_uint32;
        uint32_t uinteger;
    } genial_pcg;

    #define GENIAL_PCG_MUL_HI 2549297995355413924ULL
    #define GENIAL_PCG_MUL_LO 4865540595714422341ULL

    /* 64 x 64 -> 128 bits from 32-bit halves (any compiler) */
    static inline void genial_mul64(uint64_t x, uint64_t y, uint64_t *hi, uint64_t *lo) {
        uint64_t x0 = x & 0xFFFFFFFFULL, x1 = x >> 32, y0 = y & 0xFFFFFFFFULL, y1 = y >> 32;
        uint64_t w0 = x0 * y0;
        uint64_t t = x1 * y0 + (w0 >> 32);
        uint64_t w1 = (t & 0xFFFFFFFFULL) + x0 * y1;
        *hi = x1 * y1 + (t >> 32) + (w1 >> 32);
        *lo = x * y;
    }

    /* one step of the 128-bit LCG, state = state * MUL + inc, from 64-bit words */
    static inline void genial_pcg_step_portable(genial_pcg *g) {
        uint64_t hi, lo;
        genial_mul64(g->state_lo, GENIAL_PCG_MUL_LO, &hi, &lo);
        hi += g->state_hi * GENIAL_PCG_MUL_LO + g->state_lo * GENIAL_PCG_MUL_HI;
        g->state_lo = lo + g->inc_lo;
        g->state_hi = hi + g->inc_hi + (g->state_lo < lo);
    }

    #if defined(__SIZEOF_INT128__)
    static inline void genial_pcg_step(genial_pcg *g) {
        __uint128_t mul = ((__uint128_t)GENIAL_PCG_MUL_HI << 64) | GENIAL_PCG_MUL_LO;
        __uint128_t s = ((__uint128_t)g->state_hi << 64) | g->state_lo;
        __uint128_t inc = ((__uint128_t)g->inc_hi << 64) | g->inc_lo;
        s = s * mul + inc;
        g->state_hi = (uint64_t)(s >> 64);
        g->state_lo = (uint64_t)s;
    }
    #else
    #define genial_pcg_step genial_pcg_step_portable
    #endif

    static inline uint64_t genial_pcg_next64(void *st) {
        genial_pcg *g = (genial_pcg *)st;
        uint64_t v;
        unsigned int rot;
        genial_pcg_step(g);
        v = g->state_hi ^ g->state_lo;        /* XSL-RR output */
        rot = (unsigned int)(g->state_hi >> 58);
        return (v >> rot) | (v << ((0u - rot) & 63u));
    }

    static inline uint32_t genial_pcg_next32(void *st) {
        genial_pcg *g = (genial_pcg *)st;
        uint64_t next;
        if (g->has_uint32) {
            g->has_uint32 = 0;
            return g->uinteger;
        }
        next = genial_pcg_next64(st);
        g->has_uint32 = 1;
        g->uinteger = (uint32_t)(next >> 32);
        return (uint32_t)(next & 0xFFFFFFFFULL);
    }

    static inline double genial_pcg_next_double(void *st) {
        return (double)(genial_pcg_next64(st) >> 11) * (1.0 / 9007199254740992.0);
    }

    static inline void genial_bitgen_init(bitgen_t *bg, genial_pcg *g) {
        bg->state = g;
        bg->next_uint64 = genial_pcg_next64;
        bg->next_uint32 = genial_pcg_next32;
        bg->next_double = genial_pcg_next_double;
        bg->next_raw = genial_pcg_next64;
    }

    /* a draw from any bitgen_t: inline for a genial_pcg, else through the function pointer */
    static inline uint32_t genial_draw32(bitgen_t *bg) {
        if (bg->next_uint32 == genial_pcg_next32) return genial_pcg_next32(bg->state);
        return bg->next_uint32(bg->state);
    }

    static inline double genial_draw_double(bitgen_t *bg) {
        if (bg->next_double == genial_pcg_next_double) return genial_pcg_next_double(bg->state);
        return bg->next_double(bg->state);
    }

    /* SeedSequence's hash constants */
    #define GENIAL_INIT_A 0x43b0d7e5U
    #define GENIAL_MULT_A 0x931e8875U
    #define GENIAL_INIT_B 0x8b51f9ddU
    #define GENIAL_MULT_B 0x58f38dedU
    #define GENIAL_MIX_L 0xca01f9ddU
    #define GENIAL_MIX_R 0x4973f715U

    static inline uint32_t genial_hashmix(uint32_t value, uint32_t *h) {
        value ^= *h;
        *h *= GENIAL_MULT_A;
        value *= *h;
        value ^= value >> 16;
        return value;
    }

    static inline uint32_t genial_mix(uint32_t x, uint32_t y) {
        uint32_t r = GENIAL_MIX_L * x - GENIAL_MIX_R * y;
        r ^= r >> 16;
        return r;
    }

    /* the pool of a SeedSequence whose assembled entropy is a[0..na) then b[0..nb) */
    static inline void genial_seed_pool(const uint32_t *a, int na, const uint32_t *b, int nb,
                                 uint32_t *pool, int size) {
        uint32_t h = GENIAL_INIT_A, w;
        int i, s, d, n = na + nb;
        for (i = 0; i < size; i++) {
            w = i < na ? a[i] : (i < n ? b[i - na] : 0u);
            pool[i] = genial_hashmix(w, &h);
        }
        for (s = 0; s < size; s++)
            for (d = 0; d < size; d++)
                if (s != d) pool[d] = genial_mix(pool[d], genial_hashmix(pool[s], &h));
        for (s = size; s < n; s++) {
            w = s < na ? a[s] : b[s - na];
            for (d = 0; d < size; d++) pool[d] = genial_mix(pool[d], genial_hashmix(w, &h));
        }
    }

    /* PCG64(seed_sequence): generate_state(4, uint64) from the pool, then pcg64_set_seed */
    static inline void genial_pcg_seed(genial_pcg *g, const uint32_t *pool, int size) {
        uint32_t h = GENIAL_INIT_B, v, w[8];
        uint64_t s[4], lo;
        int i;
        for (i = 0; i < 8; i++) {
            v = pool[i % size];
            v ^= h;
            h *= GENIAL_MULT_B;
            v *= h;
            v ^= v >> 16;
            w[i] = v;
        }
        for (i = 0; i < 4; i++) s[i] = (uint64_t)w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
        g->inc_hi = (s[2] << 1) | (s[3] >> 63);   /* inc = (initseq << 1) | 1 */
        g->inc_lo = (s[3] << 1) | 1u;
        g->state_hi = 0;
        g->state_lo = 0;
        genial_pcg_step(g);
        lo = g->state_lo + s[1];                  /* state += initstate */
        g->state_hi += s[0] + (lo < s[1]);
        g->state_lo = lo;
        genial_pcg_step(g);
        g->has_uint32 = 0;
        g->uinteger = 0;
    }

    /* SeedSequence's words of a non-negative int: 32 bits at a time, lowest first; 0 is [0] */
    static inline int genial_int_words(uint64_t v, uint32_t *out) {
        out[0] = (uint32_t)(v & 0xFFFFFFFFULL);
        if (v >> 32) {
            out[1] = (uint32_t)(v >> 32);
            return 2;
        }
        return 1;
    }
    """
    ctypedef struct genial_pcg:
        uint64_t state_hi
        uint64_t state_lo
        uint64_t inc_hi
        uint64_t inc_lo
        int has_uint32
        uint32_t uinteger
    void pcg_step_portable "genial_pcg_step_portable"(genial_pcg *g) noexcept nogil
    void pcg_step "genial_pcg_step"(genial_pcg *g) noexcept nogil
    uint64_t pcg_next64 "genial_pcg_next64"(void *st) noexcept nogil
    void bitgen_init "genial_bitgen_init"(bitgen_t *bg, genial_pcg *g) noexcept nogil
    uint32_t draw32 "genial_draw32"(bitgen_t *bg) noexcept nogil
    double draw_double "genial_draw_double"(bitgen_t *bg) noexcept nogil
    void seed_pool "genial_seed_pool"(const uint32_t *a, int na, const uint32_t *b, int nb,
                                      uint32_t *pool, int size) noexcept nogil
    void pcg_seed "genial_pcg_seed"(genial_pcg *g, const uint32_t *pool, int size) noexcept nogil
    int int_words "genial_int_words"(uint64_t v, uint32_t *out) noexcept nogil


cdef enum:
    PCG_MAX_POOL = 64          # SeedSequence pool sizes supported (numpy's default is 4)


cdef inline void seed_child(genial_pcg *g, const uint32_t *prefix, int nprefix, int pool_size,
                            uint64_t x, uint64_t y) noexcept nogil:
    """Seed ``g`` as ``PCG64(child_seed(root, x, y))``, ``prefix`` the root's words (above);
    ``4 <= pool_size <= PCG_MAX_POOL``."""
    cdef uint32_t key[4]
    cdef uint32_t pool[PCG_MAX_POOL]
    cdef int nk = int_words(x, key)
    nk += int_words(y, key + nk)
    seed_pool(prefix, nprefix, key, nk, pool, pool_size)
    pcg_seed(g, pool, pool_size)
