/* What both reference programs share: xoshiro256** seeded by splitmix64, unbiased bounded draws,
 * the command line and a monotonic clock. Included by board.c and cards.c (one copy, not two).
 */
#ifndef GENIAL_REFERENCE_COMMON_H
#define GENIAL_REFERENCE_COMMON_H

#define _POSIX_C_SOURCE 199309L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- random numbers */

static uint64_t rng_s[4];

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t next64(void) { /* xoshiro256** */
    uint64_t result = rotl(rng_s[1] * 5, 7) * 9;
    uint64_t t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return result;
}

/* Uniform integer in [0, n), 0 < n < 2^32, unbiased (Lemire's multiply and reject). */
static inline uint32_t below(uint32_t n) {
    uint64_t m = (next64() >> 32) * (uint64_t)n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        uint32_t threshold = (uint32_t)(-n) % n;
        while (low < threshold) {
            m = (next64() >> 32) * (uint64_t)n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

static inline int coin(void) { return (int)(next64() >> 63); }

/* ---------------------------------------------------------------- command line and clock */

typedef struct {
    int players, greedy;
    long games;
    uint64_t seed;
} Options;

static void usage(const char *program) {
    fprintf(stderr, "usage: %s --players 2|3|4 --policy random|greedy --games N --seed S\n",
            program);
    exit(2);
}

/* --players, --policy, --games, --seed; the random numbers seeded from --seed */
static Options parse_options(int argc, char **argv, const char *program, int players) {
    Options o = {players, 0, 10000, 1};
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) usage(program);
        if (!strcmp(argv[i], "--players")) o.players = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--policy")) {
            i++;
            if (!strcmp(argv[i], "greedy")) o.greedy = 1;
            else if (!strcmp(argv[i], "random")) o.greedy = 0;
            else usage(program);
        } else if (!strcmp(argv[i], "--games")) o.games = atol(argv[++i]);
        else if (!strcmp(argv[i], "--seed")) o.seed = strtoull(argv[++i], NULL, 10);
        else usage(program);
    }
    if (o.players < 2 || o.players > 4 || o.games <= 0) usage(program);
    uint64_t x = o.seed;
    for (int i = 0; i < 4; i++) rng_s[i] = splitmix64(&x);
    return o;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---------------------------------------------------------------- statistics of a run */

typedef struct {
    long turns, moves, swaps, bonus, first_wins, truncated;
    double score, min_score; /* summed over games and seats */
} Tally;

/* a game's numbers: moves are placements or plays (bonus ones included) plus swaps */
static void tally_game(Tally *t, long turns, long moves, long swaps, long bonus, int winner) {
    t->turns += turns;
    t->moves += moves;
    t->swaps += swaps;
    t->bonus += bonus;
    t->first_wins += winner == 0;
}

/* a seat's six counters or markers at the end (cap: their highest value) */
static void tally_seat(Tally *t, const int *six, int cap) {
    int sum = 0, low = cap;
    for (int c = 0; c < 6; c++) {
        sum += six[c];
        if (six[c] < low) low = six[c];
    }
    t->score += sum;
    t->min_score += low;
}

/* the run's one line of JSON (with "truncated" if truncated >= 0) */
static void print_tally(const char *program, const Options *o, const Tally *t, double sec,
                        long truncated) {
    double games = (double)o->games, seats = games * o->players;
    printf("{\"program\": \"%s\", \"players\": %d, \"policy\": \"%s\", \"seed\": %llu, "
           "\"games\": %ld, \"seconds\": %.6f, \"games_per_s\": %.1f, \"moves_per_s\": %.1f, "
           "\"mean_turns\": %.6f, \"mean_moves\": %.6f, \"mean_swaps\": %.6f, "
           "\"mean_bonus\": %.6f, \"mean_score\": %.6f, \"mean_min_score\": %.6f, "
           "\"first_seat_wins\": %.6f",
           program, o->players, o->greedy ? "greedy" : "random", (unsigned long long)o->seed,
           o->games, sec, games / sec, (double)t->moves / sec, (double)t->turns / games,
           (double)t->moves / games, (double)t->swaps / games, (double)t->bonus / games,
           t->score / seats, t->min_score / seats, (double)t->first_wins / games);
    if (truncated >= 0) printf(", \"truncated\": %ld", truncated);
    printf("}\n");
}

#endif
