/* board.c: a hand-written C reference for the Ingenious board game (docs/rules.md §1-3).
 *
 * Written from the rule book, without reading genial's source. 2, 3 or 4 players, the base game
 * only (no variants). Policies "random" and "greedy" as genial's README defines them.
 *
 *   cc -O3 -march=native -Wall -o board board.c
 *   ./board --players 3 --policy random --games 100000 --seed 1
 *
 * prints one line of JSON (see README.md next to this file).
 *
 * The board is a 19 x 19 grid of axial cells (q, r in -9..9), so every neighbour of an area cell
 * is inside the array; cells outside the area hold OFF. Each empty cell keeps, per colour, the sum
 * of its six rays (RULES §3.3: a half's score is exactly that sum on the board before the
 * placement), updated along the three lines through every filled cell. The free adjacent pairs
 * live in a dense array with a position index, so a pair is removed in O(1) and a uniformly random
 * free pair is one array read.
 */
#include "common.h"

/* ---------------------------------------------------------------- geometry and material */

enum { W = 19, CELLS = W * W, EMPTY = 6, OFF = 7, CAP = 18, RACK = 6, NTYPES = 21, NTILES = 120 };
#define IDX(q, r) (((r) + 9) * W + ((q) + 9))

/* RULES §1.2: E, NE, NW, W, SW, SE. */
static const int DIR[6] = {1, 1 - W, -W, -1, -1 + W, W};
/* Each unordered pair is (cell, k) with the other cell at cell + FWD[k]: E, SW, SE. */
static const int FWD[3] = {1, -1 + W, W};

static const int SYM_Q[6] = {0, 5, 5, 0, -5, -5}; /* RULES §1.4, colours 0..5 */
static const int SYM_R[6] = {-5, -5, 0, 5, 5, 0};

static uint8_t TC1[NTYPES], TC2[NTYPES]; /* a tile type's two colours, TC1 <= TC2 */
static uint8_t TMASK[NTYPES];            /* and their bit mask */

enum { MAXPAIRS = 512 }; /* 426 pairs at most (RULES §1.5) */

typedef struct {
    int npairs;
    uint8_t cell[CELLS];       /* colour 0..5, EMPTY or OFF */
    int16_t pairs[MAXPAIRS];   /* free pair ids (cell * 3 + k), dense */
    int16_t pos[CELLS * 3];    /* a pair id's index in pairs, or -1 */
    int16_t pot[6][CELLS];     /* per colour, an empty cell's sum of its six rays; last, so that
                                  the random policy, which never reads it, copies none */
} Board;

static Board START;            /* the empty area of the chosen player count */
static int16_t PA[CELLS * 3], PB[CELLS * 3]; /* a pair id's two cells */
static int8_t ADJSYM[CELLS];   /* the printed symbol an empty cell touches, or -1 */
static int16_t SYMPAIRS[6][64]; /* the pairs touching each printed symbol (RULES §3.2) */
static int NSYMPAIRS[6];
static int XLO, XHI;           /* the area's cells lie in [XLO, XHI) */

static int dist(int q, int r) {
    int s = -q - r;
    int a = q < 0 ? -q : q, b = r < 0 ? -r : r, c = s < 0 ? -s : s;
    int m = a > b ? a : b;
    return m > c ? m : c;
}

static inline void remove_pair(Board *b, int id) {
    int i = b->pos[id];
    if (i < 0) return;
    int last = b->pairs[--b->npairs];
    b->pairs[i] = (int16_t)last;
    b->pos[last] = (int16_t)i;
    b->pos[id] = -1;
}

/* Fill empty cell x with colour c and drop x's pairs; with pots, extend the cached rays of colour
 * c that reach x (the random policy scores by walking the rays instead: it needs no cache). */
static inline void fill(Board *b, int x, int c, int pots) {
    b->cell[x] = (uint8_t)c;
    for (int k = 0; pots && k < 3; k++) {
        int d = DIR[k];
        int e1 = x + d, n1 = 0;
        while (b->cell[e1] == c) { e1 += d; n1++; }
        int e2 = x - d, n2 = 0;
        while (b->cell[e2] == c) { e2 -= d; n2++; }
        if (b->cell[e1] == EMPTY) b->pot[c][e1] = (int16_t)(b->pot[c][e1] + 1 + n2);
        if (b->cell[e2] == EMPTY) b->pot[c][e2] = (int16_t)(b->pot[c][e2] + 1 + n1);
    }
    for (int k = 0; k < 3; k++) {
        remove_pair(b, x * 3 + k);
        remove_pair(b, (x - FWD[k]) * 3 + k);
    }
}

static void setup(int players) {
    int radius = players == 2 ? 5 : players == 3 ? 6 : 7; /* RULES §1.3 */
    int t = 0;
    for (int c1 = 0; c1 < 6; c1++)
        for (int c2 = c1; c2 < 6; c2++) {
            TC1[t] = (uint8_t)c1; TC2[t] = (uint8_t)c2; TMASK[t] = (uint8_t)((1 << c1) | (1 << c2)); t++;
        }
    Board *b = &START;
    memset(b, 0, sizeof *b);
    for (int r = -9; r <= 9; r++)
        for (int q = -9; q <= 9; q++) b->cell[IDX(q, r)] = dist(q, r) <= radius ? EMPTY : OFF;
    for (int i = 0; i < CELLS * 3; i++) b->pos[i] = -1;
    b->npairs = 0;
    for (int x = 0; x < CELLS; x++) {
        ADJSYM[x] = -1;
        for (int k = 0; k < 3; k++) {
            int id = x * 3 + k;
            PA[id] = (int16_t)x;
            PB[id] = (int16_t)(x + FWD[k] >= 0 && x + FWD[k] < CELLS ? x + FWD[k] : x);
        }
    }
    XLO = CELLS;
    XHI = 0;
    for (int x = 0; x < CELLS; x++) {
        if (b->cell[x] != EMPTY) continue;
        XLO = x < XLO ? x : XLO;
        XHI = x + 1 > XHI ? x + 1 : XHI;
        for (int k = 0; k < 3; k++) {
            int y = x + FWD[k];
            if (y >= 0 && y < CELLS && b->cell[y] == EMPTY && b->npairs < MAXPAIRS) {
                b->pos[x * 3 + k] = (int16_t)b->npairs;
                b->pairs[b->npairs++] = (int16_t)(x * 3 + k);
            }
        }
    }
    /* The printed symbols (RULES §1.4) are filled cells of their colour. */
    for (int c = 0; c < 6; c++) fill(b, IDX(SYM_Q[c], SYM_R[c]), c, 1);
    for (int c = 0; c < 6; c++) {
        int s = IDX(SYM_Q[c], SYM_R[c]);
        for (int d = 0; d < 6; d++)
            if (b->cell[s + DIR[d]] == EMPTY) ADJSYM[s + DIR[d]] = (int8_t)c;
    }
    for (int c = 0; c < 6; c++) NSYMPAIRS[c] = 0;
    for (int i = 0; i < b->npairs; i++) {
        int id = b->pairs[i], sa = ADJSYM[PA[id]], sb = ADJSYM[PB[id]];
        int s = sa >= 0 ? sa : sb;
        if (s >= 0 && NSYMPAIRS[s] < 64) SYMPAIRS[s][NSYMPAIRS[s]++] = (int16_t)id;
    }
}

/* ---------------------------------------------------------------- the game */

typedef struct {
    Board b;
    uint8_t bag[NTILES];
    int nbag;
    uint8_t rack[4][RACK];
    int nrack[4];
    int score[4][6];
    int players;
    int touched;      /* symbols touched by first placements so far (bit mask) */
    int first_done;   /* players who made their first placement (bit mask) */
} Game;

static uint8_t BAG0[NTILES];

static inline int draw(Game *g) {
    int i = (int)below((uint32_t)g->nbag);
    int t = g->bag[i];
    g->bag[i] = g->bag[--g->nbag];
    return t;
}

static inline void refill(Game *g, int p) {
    while (g->nrack[p] < RACK && g->nbag > 0) g->rack[p][g->nrack[p]++] = (uint8_t)draw(g);
}

/* Greedy's gain in the objective sum_c -(CAP - s_c)^2 from g points on a colour with r = CAP - s
 * still to go: r^2 - (r - min(g, r))^2. */
static inline int gain(int r, int g) {
    int m = g < r ? g : r;
    return m * (2 * r - m);
}

/* A placement: pair index in the list, cell of colour TC1, cell of colour TC2, rack slot. */
typedef struct { int a, b, slot; } Place;

static int16_t FIRST[MAXPAIRS]; /* first-round candidate pairs */
static int32_t TIES[MAXPAIRS * 12];
static int16_t VAL[MAXPAIRS];

static Place choose_random(Game *g, int p, const int16_t *list, int n) {
    Place m;
    int id = list[below((uint32_t)n)];
    m.slot = (int)below((uint32_t)g->nrack[p]);
    int a = PA[id], b = PB[id];
    if (coin()) { int s = a; a = b; b = s; }
    m.a = a; m.b = b;
    return m;
}

/* The placement maximising sum_c -(18 - s_c)^2 after it, ties uniformly at random over distinct
 * placements (tile type, cells, way round; a double's two ways are one placement). Each area
 * cell's gain is computed once per colour (branch-free, 8 lanes), with its best gain in a rack
 * colour; a pair whose cells' best gains add up to less than the best value found so far (or to 0)
 * cannot reach the best and is skipped (a double's gain is at most the two cells' gains added:
 * gain is concave); the first pass keeps each remaining pair's best value, the second enumerates
 * the placements worth the best on the pairs that reach it. */
static int16_t G[6][CELLS];
static int16_t MAXG[CELLS]; /* a cell's best gain in a rack colour: bounds a pair's value */
static Place choose_greedy(Game *g, int p, const int16_t *list, int n) {
    const Board *b = &g->b;
    int types[RACK], slot_of[RACK], nt = 0, ways = 0, rackmask = 0;
    int s1[RACK], s2[RACK], ns = 0; /* two-colour types */
    int dc[RACK], nd = 0;           /* doubles */
    for (int i = 0; i < g->nrack[p]; i++) {
        int t = g->rack[p][i], seen = 0;
        for (int j = 0; j < nt; j++) seen |= types[j] == t;
        if (seen) continue;
        types[nt] = t; slot_of[nt] = i; nt++;
        ways += TC1[t] == TC2[t] ? 1 : 2;
        rackmask |= TMASK[t];
        if (TC1[t] == TC2[t]) dc[nd++] = TC1[t];
        else { s1[ns] = TC1[t]; s2[ns] = TC2[t]; ns++; }
    }
    int r[6];
    for (int c = 0; c < 6; c++) r[c] = CAP - g->score[p][c];
    /* per rack colour, every area cell's gain (a vectorised loop over the area's rows) */
    for (int x = XLO; x < XHI; x++) MAXG[x] = 0;
    for (int c = 0; c < 6; c++) {
        if (!(rackmask >> c & 1)) continue;
        const int16_t *pc = b->pot[c];
        int16_t *gc = G[c], rc = (int16_t)r[c];
        for (int x = XLO; x < XHI; x++) {
            int16_t m = pc[x] < rc ? pc[x] : rc;
            gc[x] = (int16_t)(m * (2 * rc - m));
            MAXG[x] = gc[x] > MAXG[x] ? gc[x] : MAXG[x];
        }
    }
    int best = 0;
    for (int i = 0; i < n; i++) {
        int id = list[i], a = PA[id], bb = PB[id];
        int bound = MAXG[a] + MAXG[bb];
        if (bound < best || bound == 0) { VAL[i] = -1; continue; } /* cannot reach the best */
        int v = 0;
        for (int j = 0; j < ns; j++) {
            int w1 = G[s1[j]][a] + G[s2[j]][bb], w2 = G[s1[j]][bb] + G[s2[j]][a];
            w1 = w1 > w2 ? w1 : w2;
            v = v > w1 ? v : w1;
        }
        for (int j = 0; j < nd; j++) {
            int w = gain(r[dc[j]], b->pot[dc[j]][a] + b->pot[dc[j]][bb]);
            v = v > w ? v : w;
        }
        VAL[i] = (int16_t)v;
        best = best > v ? best : v;
    }
    int code;
    if (best == 0) { /* every placement is worth 0 */
        uint32_t k = below((uint32_t)(n * ways));
        int i = (int)(k / (uint32_t)ways), w = (int)(k % (uint32_t)ways), j = 0;
        for (;; j++) {
            int nw = TC1[types[j]] == TC2[types[j]] ? 1 : 2;
            if (w < nw) break;
            w -= nw;
        }
        code = (i << 4) | (j << 1) | w;
    } else {
        int nties = 0;
        for (int i = 0; i < n; i++) {
            if (VAL[i] != best) continue;
            int id = list[i], a = PA[id], bb = PB[id];
            for (int j = 0; j < nt; j++) {
                int c1 = TC1[types[j]], c2 = TC2[types[j]];
                if (c1 == c2) {
                    if (gain(r[c1], b->pot[c1][a] + b->pot[c1][bb]) == best)
                        TIES[nties++] = (i << 4) | (j << 1);
                } else {
                    if (G[c1][a] + G[c2][bb] == best) TIES[nties++] = (i << 4) | (j << 1);
                    if (G[c1][bb] + G[c2][a] == best) TIES[nties++] = (i << 4) | (j << 1) | 1;
                }
            }
        }
        code = TIES[below((uint32_t)nties)];
    }
    Place m;
    int id = list[code >> 4];
    m.slot = slot_of[(code >> 1) & 7];
    m.a = PA[id]; m.b = PB[id];
    if (code & 1) { int s = m.a; m.a = m.b; m.b = s; }
    return m;
}

typedef struct {
    long turns, placements, swaps, bonus;
    int winner;
} Result;

/* Plays one placement; returns the number of bonus plays it earns, or -1 if the game ends. */
/* The sum of the six rays of colour c from empty cell x (RULES §3.3). */
static inline int rays(const Board *b, int x, int c) {
    int n = 0;
    for (int d = 0; d < 6; d++)
        for (int y = x + DIR[d]; b->cell[y] == c; y += DIR[d]) n++;
    return n;
}

static inline int place(Game *g, int p, Place m, int *winner, int greedy) {
    int t = g->rack[p][m.slot];
    g->rack[p][m.slot] = g->rack[p][--g->nrack[p]];
    int c1 = TC1[t], c2 = TC2[t];
    int g1, g2;
    if (greedy) {
        g1 = g->b.pot[c1][m.a];
        g2 = g->b.pot[c2][m.b];
    } else {
        g1 = rays(&g->b, m.a, c1);
        g2 = rays(&g->b, m.b, c2);
    }
    fill(&g->b, m.a, c1, greedy);
    fill(&g->b, m.b, c2, greedy);
    int *s = g->score[p], earned = 0;
    if (c1 == c2) {
        int before = s[c1];
        s[c1] = before + g1 + g2 > CAP ? CAP : before + g1 + g2;
        earned += before < CAP && s[c1] == CAP;
    } else {
        int b1 = s[c1], b2 = s[c2];
        s[c1] = b1 + g1 > CAP ? CAP : b1 + g1;
        s[c2] = b2 + g2 > CAP ? CAP : b2 + g2;
        earned += (b1 < CAP && s[c1] == CAP) + (b2 < CAP && s[c2] == CAP);
    }
    if (earned && s[0] == CAP && s[1] == CAP && s[2] == CAP && s[3] == CAP && s[4] == CAP
        && s[5] == CAP) {
        *winner = p;
        return -1;
    }
    if (g->b.npairs == 0) return -1;
    return earned;
}

static Game g;

static inline Result play_game(int players, int greedy) {
    memcpy(&g.b, &START, greedy ? sizeof START : offsetof(Board, pot));
    memcpy(g.bag, BAG0, sizeof BAG0);
    g.nbag = NTILES;
    g.players = players;
    g.touched = 0;
    g.first_done = 0;
    memset(g.score, 0, sizeof g.score);
    for (int p = 0; p < players; p++) { g.nrack[p] = 0; refill(&g, p); }
    Result res = {0, 0, 0, 0, -2};
    int p = 0, ended = 0, winner = -2;
    while (!ended) {
        if (g.nrack[p] == 0) { /* RULES §3.6 decision: only with a short bag */
            int empty_racks = 0;
            for (int q = 0; q < players; q++) empty_racks += g.nrack[q] == 0;
            if (empty_racks == players) break;
            p = (p + 1) % players;
            continue;
        }
        res.turns++;
        const int16_t *list = g.b.pairs;
        int n = g.b.npairs;
        int first = !(g.first_done & (1 << p));
        int16_t picked = -1;
        if (first && !greedy) { /* a uniformly random legal first pair, by rejection */
            int total = 0;
            for (int c = 0; c < 6; c++) total += g.touched >> c & 1 ? 0 : NSYMPAIRS[c];
            for (int tries = 0; tries < 64 && picked < 0; tries++) {
                int k = (int)below((uint32_t)total), c = 0;
                for (;; c++) {
                    if (g.touched >> c & 1) continue;
                    if (k < NSYMPAIRS[c]) break;
                    k -= NSYMPAIRS[c];
                }
                if (g.b.pos[SYMPAIRS[c][k]] >= 0) picked = SYMPAIRS[c][k];
            }
        }
        if (first) { /* RULES §3.2 first round */
            g.first_done |= 1 << p;
            int nf = 0;
            if (picked >= 0) FIRST[nf++] = picked;
            for (int c = 0; picked < 0 && c < 6; c++) {
                if (g.touched >> c & 1) continue;
                for (int i = 0; i < NSYMPAIRS[c]; i++)
                    if (g.b.pos[SYMPAIRS[c][i]] >= 0) FIRST[nf++] = SYMPAIRS[c][i];
            }
            if (nf > 0) { list = FIRST; n = nf; } else first = 0; /* the rule lapses */
        }
        Place m = greedy ? choose_greedy(&g, p, list, n) : choose_random(&g, p, list, n);
        if (first) {
            int sa = ADJSYM[m.a], sb = ADJSYM[m.b];
            g.touched |= 1 << (sa >= 0 && !(g.touched >> sa & 1) ? sa : sb);
        }
        res.placements++;
        int bonus = place(&g, p, m, &winner, greedy);
        if (bonus < 0) break;
        while (bonus > 0 && g.nrack[p] > 0) { /* RULES §3.4 */
            bonus--;
            m = greedy ? choose_greedy(&g, p, g.b.pairs, g.b.npairs)
                       : choose_random(&g, p, g.b.pairs, g.b.npairs);
            res.placements++;
            res.bonus++;
            int more = place(&g, p, m, &winner, greedy);
            if (more < 0) { ended = 1; break; }
            bonus += more;
        }
        if (ended) break;
        /* RULES §3.5: the swap, on the rack left after the placements. */
        const int *sc = g.score[p];
        int lowmask = 63, rackmask = 0;
        for (int i = 0; i < g.nrack[p]; i++) rackmask |= TMASK[g.rack[p][i]];
        if (rackmask != 63) { /* a rack showing every colour shows the lowest */
            int low = sc[0];
            for (int c = 1; c < 6; c++) low = sc[c] < low ? sc[c] : low;
            lowmask = 0;
            for (int c = 0; c < 6; c++) lowmask |= (sc[c] == low) << c;
        }
        int shows = rackmask & lowmask;
        if (!shows && g.nrack[p] > 0 && g.nbag > 0 && (greedy || coin())) {
            uint8_t old[RACK];
            int nold = g.nrack[p];
            memcpy(old, g.rack[p], (size_t)nold);
            g.nrack[p] = 0;
            refill(&g, p);
            for (int i = 0; i < nold; i++) g.bag[g.nbag++] = old[i];
            res.swaps++;
        } else {
            refill(&g, p);
        }
        if (++p == players) p = 0;
    }
    if (winner == -2) { /* RULES §3.7: the highest ascending vector of counters, if unique */
        int key[4];
        for (int q = 0; q < players; q++) {
            int v[6];
            memcpy(v, g.score[q], sizeof v);
            for (int i = 1; i < 6; i++)
                for (int j = i; j > 0 && v[j - 1] > v[j]; j--) { int s = v[j]; v[j] = v[j - 1]; v[j - 1] = s; }
            key[q] = 0;
            for (int i = 0; i < 6; i++) key[q] = key[q] * 19 + v[i];
        }
        int best = -1;
        winner = -1;
        for (int q = 0; q < players; q++) {
            if (key[q] > best) { best = key[q]; winner = q; }
            else if (key[q] == best) winner = -1;
        }
    }
    res.winner = winner;
    return res;
}

int main(int argc, char **argv) {
    Options o = parse_options(argc, argv, "board", 2);
    int players = o.players, greedy = o.greedy;
    long games = o.games;
    setup(players);
    int n = 0;
    for (int t = 0; t < NTYPES; t++) /* RULES §2.1: 6 of each pair, 5 of each double */
        for (int k = 0; k < (TC1[t] == TC2[t] ? 5 : 6); k++) BAG0[n++] = (uint8_t)t;
    Tally tally = {0};
    double t0 = seconds_now();
    for (long i = 0; i < games; i++) {
        Result r = greedy ? play_game(players, 1) : play_game(players, 0);
        tally_game(&tally, r.turns, r.placements + r.swaps, r.swaps, r.bonus, r.winner);
        for (int p = 0; p < players; p++) tally_seat(&tally, g.score[p], CAP);
    }
    print_tally("board", &o, &tally, seconds_now() - t0, -1);
    return 0;
}
