/* text_union.c — overlapping glyph contours merged by the non-zero winding rule
 * (text_internal.h).
 *
 * 1. every edge of the merged contours is split at each point where another edge
 *    crosses it, ends on it, or overlaps it collinearly (the split point is computed
 *    once and given to both edges, so the pieces meet exactly);
 * 2. equal pieces are merged into one with a signed multiplicity k (+1 for each piece
 *    running from its lower to its higher end point, -1 the other way), so that two
 *    coincident edges are one piece across which the winding number jumps by their sum;
 * 3. the winding number W on one side of each piece comes from a ray from its midpoint
 *    (along +x, or +y for horizontal pieces) against all other pieces; on the other
 *    side it is W +- k;
 * 4. pieces with a filled side (winding != 0) and an empty one are the boundary; they
 *    are linked into closed contours, at a vertex with several ways on taking the first
 *    one clockwise from where the contour came, which keeps the filled side left; a
 *    contour that comes back to a vertex (two parts touching at a point) is cut there
 *    into two. */
#include "text_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define UNION_PI 3.14159265358979323846

/* ---- types ------------------------------------------------------------------- */

typedef struct {
    double x, y;
} pt;

typedef struct {
    double t; /* position along the edge, (0, 1) */
    pt p;
} split;

typedef struct {
    pt a, b;  /* the edge as drawn */
    int character;
    split *s; /* split points */
    int ns, cap;
} edge;

typedef struct {
    pt a, b;  /* a < b (lexicographic) */
    int k;    /* signed multiplicity, + for a -> b */
    int character;
} piece;

typedef struct {
    pt a, b;  /* directed, filled side on the left */
    int character;
    int used;
} bound;

/* ---- helpers ----------------------------------------------------------------- */

static int pt_less(pt p, pt q) { return p.x < q.x || (p.x == q.x && p.y < q.y); }
static int pt_eq(pt p, pt q) { return p.x == q.x && p.y == q.y; }

static double orient(pt o, pt a, pt b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/* position of p along the edge ab, for points on it */
static double param(pt a, pt b, pt p)
{
    double dx = b.x - a.x, dy = b.y - a.y;
    return fabs(dx) >= fabs(dy) ? (p.x - a.x) / dx : (p.y - a.y) / dy;
}

static int add_split(edge *e, double t, pt p)
{
    if (!(t > 0 && t < 1)) return 1;
    if (e->ns == e->cap) {
        int cap = e->cap ? 2 * e->cap : 4;
        split *s = realloc(e->s, (size_t)cap * sizeof *s);
        if (!s) return 0;
        e->s = s;
        e->cap = cap;
    }
    e->s[e->ns].t = t;
    e->s[e->ns].p = p;
    e->ns++;
    return 1;
}

/* p strictly between the ends of segment ab, p known to be on its line */
static int strictly_on(pt a, pt b, pt p)
{
    double t = param(a, b, p);
    return t > 0 && t < 1;
}

/* Step 1 for one pair of edges; 0 when out of memory. */
static int split_pair(edge *e, edge *f)
{
    double o1 = orient(e->a, e->b, f->a), o2 = orient(e->a, e->b, f->b);
    double o3 = orient(f->a, f->b, e->a), o4 = orient(f->a, f->b, e->b);
    int ok = 1;
    if (o1 == 0 && o2 == 0) { /* collinear: each one's ends that lie inside the other */
        if (strictly_on(e->a, e->b, f->a)) ok &= add_split(e, param(e->a, e->b, f->a), f->a);
        if (strictly_on(e->a, e->b, f->b)) ok &= add_split(e, param(e->a, e->b, f->b), f->b);
        if (strictly_on(f->a, f->b, e->a)) ok &= add_split(f, param(f->a, f->b, e->a), e->a);
        if (strictly_on(f->a, f->b, e->b)) ok &= add_split(f, param(f->a, f->b, e->b), e->b);
        return ok;
    }
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) {
        double t = o3 / (o3 - o4), s = o1 / (o1 - o2);
        pt p = {e->a.x + t * (e->b.x - e->a.x), e->a.y + t * (e->b.y - e->a.y)};
        return add_split(e, t, p) && add_split(f, s, p);
    }
    /* an end of one on the other (a T) */
    if (o1 == 0 && strictly_on(e->a, e->b, f->a)) ok &= add_split(e, param(e->a, e->b, f->a), f->a);
    if (o2 == 0 && strictly_on(e->a, e->b, f->b)) ok &= add_split(e, param(e->a, e->b, f->b), f->b);
    if (o3 == 0 && strictly_on(f->a, f->b, e->a)) ok &= add_split(f, param(f->a, f->b, e->a), e->a);
    if (o4 == 0 && strictly_on(f->a, f->b, e->b)) ok &= add_split(f, param(f->a, f->b, e->b), e->b);
    return ok;
}

static int split_cmp(const void *pa, const void *pb)
{
    const split *a = pa, *b = pb;
    return a->t < b->t ? -1 : (a->t > b->t);
}

static int piece_cmp(const void *pa, const void *pb)
{
    const piece *a = pa, *b = pb;
    if (!pt_eq(a->a, b->a)) return pt_less(a->a, b->a) ? -1 : 1;
    if (!pt_eq(a->b, b->b)) return pt_less(a->b, b->b) ? -1 : 1;
    return 0;
}

static int bound_cmp(const void *pa, const void *pb)
{
    const bound *a = pa, *b = pb;
    if (pt_eq(a->a, b->a)) return 0;
    return pt_less(a->a, b->a) ? -1 : 1;
}

/* Step 3: winding numbers left and right of piece i. */
static void sides(const piece *u, size_t n, size_t i, int *left, int *right)
{
    pt a = u[i].a, b = u[i].b, m = {0.5 * (a.x + b.x), 0.5 * (a.y + b.y)};
    int W = 0, horizontal = a.y == b.y;
    for (size_t j = 0; j < n; j++) {
        if (j == i || u[j].k == 0) continue;
        pt p = u[j].a, q = u[j].b;
        if (!horizontal) { /* ray along +x; a piece running up counts + */
            if ((p.y > m.y) != (q.y > m.y) && p.x + (m.y - p.y) * (q.x - p.x) / (q.y - p.y) > m.x)
                W += q.y > p.y ? u[j].k : -u[j].k;
        } else { /* ray along +y; a piece running towards -x counts + */
            if ((p.x > m.x) != (q.x > m.x) && p.y + (m.x - p.x) * (q.y - p.y) / (q.x - p.x) > m.y)
                W += q.x < p.x ? u[j].k : -u[j].k;
        }
    }
    int k = u[i].k;
    if (horizontal) { /* a -> b runs +x: left is north (no crossing), right south */
        *left = W;
        *right = W - k;
    } else if (b.y > a.y) { /* runs up: left is west, where the ray crosses it */
        *left = W + k;
        *right = W;
    } else { /* runs down: left is east */
        *left = W;
        *right = W - k;
    }
}

/* Step 4: the outgoing boundary piece at p that turns least clockwise from the way
 * back along `in`; -1 if none is left. */
static long next_bound(bound *bd, size_t n, pt p, pt in_dir)
{
    bound key = {.a = p};
    bound *hit = bsearch(&key, bd, n, sizeof *bd, bound_cmp);
    if (!hit) return -1;
    size_t lo = (size_t)(hit - bd), hi = lo;
    while (lo > 0 && pt_eq(bd[lo - 1].a, p)) lo--;
    while (hi + 1 < n && pt_eq(bd[hi + 1].a, p)) hi++;
    double back = atan2(-in_dir.y, -in_dir.x);
    long best = -1;
    double best_turn = INFINITY;
    for (size_t k = lo; k <= hi; k++) {
        if (bd[k].used) continue;
        double turn = back - atan2(bd[k].b.y - p.y, bd[k].b.x - p.x); /* clockwise angle */
        while (turn <= 0) turn += 2 * UNION_PI;
        while (turn > 2 * UNION_PI) turn -= 2 * UNION_PI;
        if (turn < best_turn) {
            best_turn = turn;
            best = (long)k;
        }
    }
    return best;
}

/* Step 4's cut: contours c0 .. *nc - 1 that visit a point twice become two contours,
 * the loop between the visits and the rest; first and character have room for one
 * entry per point. */
static pw_status split_pinches(double *xy, size_t *first, int *character, size_t c0, size_t *nc)
{
    for (size_t c = c0; c < *nc; c++) {
    again:;
        size_t f = first[c], m = first[c + 1] - f;
        for (size_t i = 0; i < m; i++)
            for (size_t j = i + 1; j < m; j++) {
                const double *p = &xy[2 * (f + i)], *q = &xy[2 * (f + j)];
                if (p[0] != q[0] || p[1] != q[1]) continue;
                /* points i .. j-1 first, then 0 .. i-1 and j .. m-1 */
                double *tmp = malloc(2 * m * sizeof *tmp);
                if (!tmp) return PW_ENOMEM;
                memcpy(tmp, &xy[2 * (f + i)], 2 * (j - i) * sizeof *tmp);
                memcpy(&tmp[2 * (j - i)], &xy[2 * f], 2 * i * sizeof *tmp);
                memcpy(&tmp[2 * (j - i + i)], &xy[2 * (f + j)], 2 * (m - j) * sizeof *tmp);
                memcpy(&xy[2 * f], tmp, 2 * m * sizeof *tmp);
                free(tmp);
                memmove(&first[c + 2], &first[c + 1], (*nc - c) * sizeof *first);
                memmove(&character[c + 2], &character[c + 1], (*nc - c - 1) * sizeof *character);
                first[c + 1] = f + (j - i);
                character[c + 1] = character[c];
                (*nc)++;
                goto again;
            }
    }
    return PW_OK;
}

/* ---- public ------------------------------------------------------------------ */

pw_status pw_text_union(pw_text_outline *o, const unsigned char *merge, const char *font,
                        pw_error *err)
{
    /* the merged contours' edges, and their drawn direction (sum of signed areas) */
    size_t ne = 0;
    double drawn = 0;
    for (size_t c = 0; c < o->n_contours; c++)
        if (merge[o->character[c]]) ne += o->first[c + 1] - o->first[c];
    edge *e = calloc(ne ? ne : 1, sizeof *e);
    piece *u = NULL;
    bound *bd = NULL;
    double *xy = NULL;
    size_t *first = NULL;
    int *character = NULL;
    pw_status rc = PW_OK;
    if (!e) return pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu edges", font, ne);
    size_t k = 0;
    for (size_t c = 0; c < o->n_contours; c++) {
        if (!merge[o->character[c]]) continue;
        size_t f = o->first[c], m = o->first[c + 1] - f;
        for (size_t i = 0; i < m; i++, k++) {
            const double *p = &o->xy[2 * (f + i)], *q = &o->xy[2 * (f + (i + 1) % m)];
            e[k].a = (pt){p[0], p[1]};
            e[k].b = (pt){q[0], q[1]};
            e[k].character = o->character[c];
            drawn += p[0] * q[1] - q[0] * p[1];
        }
    }
    /* 1. split every pair whose boxes meet */
    for (size_t i = 0; i < ne && rc == PW_OK; i++)
        for (size_t j = i + 1; j < ne && rc == PW_OK; j++) {
            if (fmax(e[i].a.x, e[i].b.x) < fmin(e[j].a.x, e[j].b.x) ||
                fmax(e[j].a.x, e[j].b.x) < fmin(e[i].a.x, e[i].b.x) ||
                fmax(e[i].a.y, e[i].b.y) < fmin(e[j].a.y, e[j].b.y) ||
                fmax(e[j].a.y, e[j].b.y) < fmin(e[i].a.y, e[i].b.y))
                continue;
            if (!split_pair(&e[i], &e[j])) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", font);
        }
    /* 2. pieces, merged where equal */
    size_t np = 0;
    for (size_t i = 0; i < ne; i++) np += (size_t)e[i].ns + 1;
    if (rc == PW_OK && !(u = malloc((np ? np : 1) * sizeof *u)))
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory for %zu edge pieces", font, np);
    np = 0;
    for (size_t i = 0; i < ne && rc == PW_OK; i++) {
        if (e[i].ns > 1) qsort(e[i].s, (size_t)e[i].ns, sizeof *e[i].s, split_cmp);
        pt from = e[i].a;
        for (int s = 0; s <= e[i].ns; s++) {
            pt to = s < e[i].ns ? e[i].s[s].p : e[i].b;
            if (pt_eq(from, to)) continue;
            int fwd = pt_less(from, to);
            piece pc = {fwd ? from : to, fwd ? to : from, fwd ? 1 : -1, e[i].character};
            u[np++] = pc;
            from = to;
        }
    }
    size_t nu = 0;
    if (rc == PW_OK) {
        qsort(u, np, sizeof *u, piece_cmp);
        for (size_t i = 0; i < np; i++) {
            if (nu > 0 && piece_cmp(&u[nu - 1], &u[i]) == 0)
                u[nu - 1].k += u[i].k;
            else
                u[nu++] = u[i];
        }
    }
    /* 3.-4. the boundary pieces, filled side left */
    size_t nb = 0;
    if (rc == PW_OK && !(bd = malloc((nu ? nu : 1) * sizeof *bd)))
        rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", font);
    for (size_t i = 0; i < nu && rc == PW_OK; i++) {
        if (u[i].k == 0) continue;
        int left, right;
        sides(u, nu, i, &left, &right);
        if ((left != 0) == (right != 0)) continue;
        bound b = {left != 0 ? u[i].a : u[i].b, left != 0 ? u[i].b : u[i].a, u[i].character, 0};
        bd[nb++] = b;
    }
    if (rc == PW_OK) qsort(bd, nb, sizeof *bd, bound_cmp);
    /* the new contour arrays: the untouched contours, then the merged ones */
    size_t keep_pts = 0, keep_c = 0;
    for (size_t c = 0; c < o->n_contours; c++)
        if (!merge[o->character[c]]) keep_pts += o->first[c + 1] - o->first[c], keep_c++;
    if (rc == PW_OK) {
        xy = malloc(2 * (keep_pts + nb + 1) * sizeof *xy);
        first = malloc((keep_pts + nb + 2) * sizeof *first);
        character = malloc((keep_pts + nb + 1) * sizeof *character);
        if (!xy || !first || !character) rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", font);
    }
    size_t n = 0, nc = 0;
    for (size_t c = 0; c < o->n_contours && rc == PW_OK; c++) {
        if (merge[o->character[c]]) continue;
        size_t f = o->first[c], m = o->first[c + 1] - f;
        memcpy(&xy[2 * n], &o->xy[2 * f], 2 * m * sizeof *xy);
        first[nc] = n;
        character[nc++] = o->character[c];
        n += m;
    }
    for (size_t s = 0; s < nb && rc == PW_OK; s++) {
        if (bd[s].used) continue;
        /* follow one closed contour from piece s */
        size_t start = n;
        long cur = (long)s;
        first[nc] = n;
        character[nc] = bd[s].character;
        while (cur >= 0) {
            bd[cur].used = 1;
            xy[2 * n] = bd[cur].a.x;
            xy[2 * n + 1] = bd[cur].a.y;
            n++;
            if (pt_eq(bd[cur].b, bd[s].a)) break;
            pt dir = {bd[cur].b.x - bd[cur].a.x, bd[cur].b.y - bd[cur].a.y};
            cur = next_bound(bd, nb, bd[cur].b, dir);
        }
        if (cur < 0)
            rc = pw_fail(err, PW_ENUMERIC, "%s: the merged outline of character %d does not "
                         "close", font, bd[s].character + 1);
        /* reversed when the font draws its outer contours clockwise (TrueType) */
        if (drawn < 0)
            for (size_t i = start, j = n - 1; i < j; i++, j--)
                for (int a = 0; a < 2; a++) {
                    double t = xy[2 * i + a];
                    xy[2 * i + a] = xy[2 * j + a];
                    xy[2 * j + a] = t;
                }
        nc++;
    }
    if (rc == PW_OK) {
        first[nc] = n;
        if (split_pinches(xy, first, character, keep_c, &nc) != PW_OK)
            rc = pw_fail(err, PW_ENOMEM, "%s: out of memory", font);
    }
    if (rc == PW_OK) {
        free(o->xy);
        free(o->first);
        free(o->character);
        o->xy = xy;
        o->first = first;
        o->character = character;
        o->n_points = n;
        o->n_contours = nc;
        xy = NULL;
        first = NULL;
        character = NULL;
    }
    for (size_t i = 0; i < ne; i++) free(e[i].s);
    free(e);
    free(u);
    free(bd);
    free(xy);
    free(first);
    free(character);
    return rc;
}
