/* cards.c: a hand-written C reference for Einfach Genial: Das Kartenspiel (docs/rules.md §5).
 *
 * Written from the rule book, without reading genial's source. 2, 3 or 4 players; policies
 * "random" and "greedy" as genial's README defines them for the card game.
 *
 *   cc -O3 -march=native -Wall -o cards cards.c
 *   ./cards --players 3 --policy random --games 100000 --seed 1
 *
 * prints one line of JSON (see README.md next to this file).
 *
 * A hand is a count per card type plus a bit mask of the types held; the displays are small FIFOs
 * with a running count of each colour shown; a draw takes a uniformly random card of the deck (no
 * shuffle), and the discard pile becomes the deck only when a card must be drawn from an empty one.
 */
#include "common.h"

/* ---------------------------------------------------------------- material */

enum { NTYPES = 15, NCARDS = 60, HAND = 6, TOP = 10, WIN = 7, TURN_CAP = 1000 };

/* Small arrays are int16_t, not uint8_t: stores through a char type may alias anything and would
 * make the compiler reload the game state after each of them. */
static int16_t C1[NTYPES], C2[NTYPES]; /* a card type's two colours, C1 < C2 (RULES §5.1) */
static int16_t COLOURS[1 << NTYPES];  /* the colours shown by a set of card types */

typedef struct {
    int16_t deck[NCARDS], discard[NCARDS];
    int ndeck, ndiscard;
    int16_t hand[4][NTYPES]; /* count per type */
    int hmask[4];            /* types held */
    int hsize[4];
    int16_t disp[4][2];      /* display, oldest first */
    int ndisp;               /* cards per display: 2 with two players (RULES §5.8), else 1 */
    int shown[6];            /* how many display cards show each colour */
    int m[4][6];             /* markers */
    int players;
} Game;

static Game g;

static inline int draw(void) { /* -1 when deck and discard pile are both empty */
    if (g.ndeck == 0) {
        if (g.ndiscard == 0) return -1;
        memcpy(g.deck, g.discard, sizeof g.deck[0] * (size_t)g.ndiscard);
        g.ndeck = g.ndiscard;
        g.ndiscard = 0;
    }
    int i = (int)below((uint32_t)g.ndeck);
    int t = g.deck[i];
    g.deck[i] = g.deck[--g.ndeck];
    return t;
}

static inline void take(int p, int t) {
    g.hand[p][t]++;
    g.hmask[p] |= 1 << t;
    g.hsize[p]++;
}

static inline void refill(int p) {
    while (g.hsize[p] < HAND) {
        int t = draw();
        if (t < 0) return;
        take(p, t);
    }
}

static inline int lowest(const int *m) {
    int low = m[0];
    for (int c = 1; c < 6; c++) low = m[c] < low ? m[c] : low;
    return low;
}

/* A marker at column x advanced by k, with the lowest marker at column low: RULES §5.4 stops it at
 * column 3, 6 or 10 by the lowest marker's area (A0, A1, A2 on); markers never move back. */
static inline int advance(int x, int k, int low) {
    int lim = low == 0 ? 3 : low <= 3 ? 6 : TOP, v = x + k;
    v = v < lim ? v : lim;
    return v > x ? v : x;
}

/* Greedy's objective change, sum_c (10 - m_c)^2 before minus after, for card t in order o: the
 * lowest marker after the first colour is the old lowest unless that colour was the only marker
 * at it, and then the lower of its new column and the second lowest (low2). */
static inline int value(const int *m, int low, int nlow, int low2, int t, int o) {
    int a = o ? C2[t] : C1[t], b = o ? C1[t] : C2[t];
    int na = advance(m[a], g.shown[a], low);
    int l2 = na < low2 ? na : low2;
    int low1 = m[a] == low && nlow == 1 ? l2 : low;
    int nb = advance(m[b], g.shown[b], low1);
    return (TOP - m[a]) * (TOP - m[a]) - (TOP - na) * (TOP - na) + (TOP - m[b]) * (TOP - m[b])
           - (TOP - nb) * (TOP - nb);
}

/* Portable bit counting (C99 has no builtins; compilers turn these into popcnt/tzcnt). */
static inline int popcount(unsigned x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
}

static inline int ctz(unsigned x) { return popcount((x & -x) - 1); } /* x != 0 */

static inline int nth_bit(int mask, int k) {
    for (; k > 0; k--) mask &= mask - 1;
    return ctz((unsigned)mask);
}

/* Chooses an action: (type << 1) | order. */
static inline int choose(int p, int greedy) {
    int mask = g.hmask[p];
    if (!greedy) {
        int k = (int)below((uint32_t)(2 * popcount((unsigned)mask)));
        return (nth_bit(mask, k >> 1) << 1) | (k & 1);
    }
    const int *m = g.m[p];
    int low = lowest(m), nlow = 0, low2 = TOP + 1;
    for (int c = 0; c < 6; c++) {
        nlow += m[c] == low;
        low2 = m[c] > low && m[c] < low2 ? m[c] : low2;
    }
    int best = -1000, ties[2 * NTYPES], n = 0;
    for (int mm = mask; mm; mm &= mm - 1) {
        int t = ctz((unsigned)mm);
        for (int o = 0; o < 2; o++) {
            int v = value(m, low, nlow, low2, t, o);
            if (v > best) { best = v; n = 0; }
            if (v == best) ties[n++] = (t << 1) | o;
        }
    }
    return ties[n == 1 ? 0 : below((uint32_t)n)];
}

/* Plays action a for player p: returns the bonus turns earned, or -1 if p wins (RULES §5.3-5.7). */
static inline int play(int p, int a) {
    int t = a >> 1, o = a & 1;
    if (--g.hand[p][t] == 0) g.hmask[p] &= ~(1 << t);
    g.hsize[p]--;
    int *m = g.m[p], earned = 0;
    int c = o ? C2[t] : C1[t], d = o ? C1[t] : C2[t];
    int low = lowest(m);
    int before = m[c];
    m[c] = advance(m[c], g.shown[c], low);
    earned += before < TOP && m[c] == TOP;
    if (before == low) low = lowest(m); /* only then can the lowest marker have moved */
    before = m[d];
    m[d] = advance(m[d], g.shown[d], low);
    earned += before < TOP && m[d] == TOP;
    if (m[0] >= WIN && m[1] >= WIN && m[2] >= WIN && m[3] >= WIN && m[4] >= WIN && m[5] >= WIN)
        return -1;
    /* rotation: the oldest display card to the discard pile, the played card to the display */
    int old = g.disp[p][0];
    if (g.ndisp == 2) g.disp[p][0] = g.disp[p][1];
    g.disp[p][g.ndisp - 1] = (int16_t)t;
    g.discard[g.ndiscard++] = (int16_t)old;
    g.shown[C1[old]]--;
    g.shown[C2[old]]--;
    g.shown[C1[t]]++;
    g.shown[C2[t]]++;
    return earned;
}

typedef struct { long turns, plays, swaps, bonus; int winner; } Result;

static Result play_game(int players, int greedy) {
    g.players = players;
    g.ndisp = players == 2 ? 2 : 1;
    int n = 0;
    for (int t = 0; t < NTYPES; t++)
        for (int k = 0; k < 4; k++) g.deck[n++] = (int16_t)t;
    g.ndeck = NCARDS;
    g.ndiscard = 0;
    memset(g.hand, 0, sizeof g.hand);
    memset(g.m, 0, sizeof g.m);
    memset(g.shown, 0, sizeof g.shown);
    for (int p = 0; p < players; p++) { g.hmask[p] = 0; g.hsize[p] = 0; refill(p); }
    for (int p = 0; p < players; p++)
        for (int k = 0; k < g.ndisp; k++) {
            int t = draw();
            g.disp[p][k] = (int16_t)t;
            g.shown[C1[t]]++;
            g.shown[C2[t]]++;
        }
    Result r = {0, 0, 0, 0, -2};
    int p = 0;
    for (;;) {
        r.turns++;
        int bonus = 1, won = 0; /* the turn's card, then its bonus turns (RULES §5.6) */
        while (bonus > 0 && g.hsize[p] > 0) {
            bonus--;
            r.plays++;
            int e = play(p, choose(p, greedy));
            if (e < 0) { won = 1; break; }
            bonus += e;
            r.bonus += e;
        }
        if (won) { r.winner = p; break; }
        /* RULES §5.5: the swap, on the hand as it is after the plays */
        const int *m = g.m[p];
        int shown = COLOURS[g.hmask[p]], lowmask = 63;
        if (shown != 63) { /* a hand showing every colour shows the lowest */
            int low = lowest(m);
            lowmask = 0;
            for (int c = 0; c < 6; c++) lowmask |= (m[c] == low) << c;
        }
        if (!(shown & lowmask) && (greedy || coin())) {
            for (int mm = g.hmask[p]; mm; mm &= mm - 1) {
                int t = ctz((unsigned)mm);
                for (int k = 0; k < g.hand[p][t]; k++) g.discard[g.ndiscard++] = (int16_t)t;
                g.hand[p][t] = 0;
            }
            g.hmask[p] = 0;
            g.hsize[p] = 0;
            r.swaps++;
        }
        refill(p);
        if (r.turns >= TURN_CAP) break; /* RULES §5.7 decision: truncated */
        if (++p == players) p = 0;
    }
    if (r.winner == -2) { /* truncated: the unique best ascending vector of markers, if any */
        int best = -1;
        r.winner = -1;
        for (int q = 0; q < players; q++) {
            int v[6], key = 0;
            memcpy(v, g.m[q], sizeof v);
            for (int i = 1; i < 6; i++)
                for (int j = i; j > 0 && v[j - 1] > v[j]; j--) { int s = v[j]; v[j] = v[j - 1]; v[j - 1] = s; }
            for (int i = 0; i < 6; i++) key = key * 11 + v[i];
            if (key > best) { best = key; r.winner = q; }
            else if (key == best) r.winner = -1;
        }
    }
    return r;
}

int main(int argc, char **argv) {
    Options o = parse_options(argc, argv, "cards", 3);
    int players = o.players, greedy = o.greedy;
    long games = o.games;
    int t = 0;
    for (int a = 0; a < 6; a++)
        for (int b = a + 1; b < 6; b++) { C1[t] = (int16_t)a; C2[t] = (int16_t)b; t++; }
    for (int mask = 0; mask < 1 << NTYPES; mask++) {
        int cm = 0;
        for (int k = 0; k < NTYPES; k++)
            if (mask >> k & 1) cm |= (1 << C1[k]) | (1 << C2[k]);
        COLOURS[mask] = (int16_t)cm;
    }
    Tally tally = {0};
    long truncated = 0;
    double t0 = seconds_now();
    for (long i = 0; i < games; i++) {
        Result r = play_game(players, greedy);
        tally_game(&tally, r.turns, r.plays + r.swaps, r.swaps, r.bonus, r.winner);
        truncated += r.turns >= TURN_CAP;
        for (int p = 0; p < players; p++) tally_seat(&tally, g.m[p], TOP);
    }
    print_tally("cards", &o, &tally, seconds_now() - t0, truncated);
    return 0;
}
