/* obj.c — a careful Wavefront OBJ reader; see pw_obj.h.
 *
 * Only `v` and `f` records build the mesh. `vt` and `vn` records are counted so that
 * the texture and normal parts of a face corner can be range-checked too (a face
 * that points past them is damaged even if we never use them). Every other record
 * with a well-formed keyword (o, g, s, usemtl, mtllib, l, p, vp, ...) is ignored.
 *
 * Hostile input: the text is never assumed NUL-terminated, numbers are copied into a
 * bounded buffer before strtod, integers are parsed by hand with overflow checks, and
 * control bytes (binary data) are refused, so the parser runs in one linear pass and
 * fails with "<name>:<line>: <problem> (<value>)". Positive indices must refer to
 * vertices already read, negative ones count back from the last vertex read. */
#include "pw_obj.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pw_file.h"

/* ---- limits ---------------------------------------------------------------- */

/* Larger files are refused rather than parsed: a 1 GiB OBJ is ~40 M triangles, far
 * beyond what a collider or prop in this pipeline needs. */
#define OBJ_MAX_BYTES ((size_t)1 << 30)
/* A number token longer than this is not a coordinate any exporter writes. */
#define OBJ_MAX_NUMBER_CHARS 63
/* Keeps the shown part of a bad token short enough for one message line. */
#define OBJ_SHOW_CHARS 24

/* ---- types ----------------------------------------------------------------- */

typedef struct {
    const char *name; /* for messages */
    size_t line;      /* 1-based number of the line being parsed */
    /* the current line, without its newline, carriage return or comment */
    const char *cur, *end;
    size_t n_vt, n_vn; /* texture and normal records seen so far */
    size_t cap_v, cap_t;
    pw_mesh *m;
    pw_error *err;
} parser;

/* ---- static helpers -------------------------------------------------------- */

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

static int is_keyword_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Next whitespace-separated token of the current line; returns 0 at the line end. */
static int next_token(parser *ps, const char **tok, size_t *len)
{
    while (ps->cur < ps->end && is_space(*ps->cur)) ps->cur++;
    if (ps->cur == ps->end) return 0;
    *tok = ps->cur;
    while (ps->cur < ps->end && !is_space(*ps->cur)) ps->cur++;
    *len = (size_t)(ps->cur - *tok);
    return 1;
}

/* A printable excerpt of a token for messages: at most OBJ_SHOW_CHARS bytes. */
static void show(const char *tok, size_t len, char out[OBJ_SHOW_CHARS + 4])
{
    size_t n = len < OBJ_SHOW_CHARS ? len : OBJ_SHOW_CHARS;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)tok[k];
        out[k] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (n < len) memcpy(out + n, "...", 3), n += 3;
    out[n] = '\0';
}

static pw_status bad_token(parser *ps, const char *what, const char *tok, size_t len)
{
    char s[OBJ_SHOW_CHARS + 4];
    show(tok, len, s);
    return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: %s ('%s')", ps->name, ps->line, what, s);
}

static pw_status parse_double(parser *ps, const char *tok, size_t len, double *x)
{
    char buf[OBJ_MAX_NUMBER_CHARS + 1];
    if (len > OBJ_MAX_NUMBER_CHARS) return bad_token(ps, "number too long", tok, len);
    memcpy(buf, tok, len);
    buf[len] = '\0';
    /* strtod also takes hex floats and "nan(...)"; both are caught below or are
     * harmless exact values. A leading space cannot occur (tokens have none). */
    char *stop = NULL;
    errno = 0;
    double v = strtod(buf, &stop);
    if (stop == buf || *stop != '\0') return bad_token(ps, "bad number", tok, len);
    if (!isfinite(v)) return bad_token(ps, "non-finite coordinate", tok, len);
    /* Overflow to +-HUGE_VAL is caught above; underflow to a denormal or 0 is a fine
     * coordinate, so ERANGE alone is not an error. */
    if (fabs(v) > FLT_MAX) return bad_token(ps, "coordinate beyond float range", tok, len);
    *x = v;
    return PW_OK;
}

/* Parses a signed decimal integer that fills [tok, tok+len) exactly. */
static int parse_long(const char *tok, size_t len, long long *out)
{
    size_t k = 0;
    int neg = 0;
    if (k < len && (tok[k] == '-' || tok[k] == '+')) neg = tok[k++] == '-';
    if (k == len) return 0;
    long long v = 0;
    for (; k < len; k++) {
        if (tok[k] < '0' || tok[k] > '9') return 0;
        if (v > (LLONG_MAX - 9) / 10) return 0; /* far beyond any index we accept */
        v = v * 10 + (tok[k] - '0');
    }
    *out = neg ? -v : v;
    return 1;
}

/* Resolves one OBJ index (1-based, or negative = relative to the n items read so
 * far) to a 0-based index; `what`/`whats` name the kind of item for the message. */
static pw_status resolve_index(parser *ps, const char *tok, size_t len, size_t n,
                               const char *what, const char *whats, size_t *idx)
{
    long long k;
    if (!parse_long(tok, len, &k)) return bad_token(ps, "bad face index", tok, len);
    if (k == 0)
        return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: %s index 0 (OBJ indices start at 1)",
                       ps->name, ps->line, what);
    if (k > 0 && (unsigned long long)k <= n) {
        *idx = (size_t)(k - 1);
        return PW_OK;
    }
    if (k < 0 && (unsigned long long)(-k) <= n) {
        *idx = n - (size_t)(-k);
        return PW_OK;
    }
    return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: %s index %lld out of range (%zu %s)",
                   ps->name, ps->line, what, k, n, whats);
}

/* One face corner: v, v/vt, v//vn or v/vt/vn. */
static pw_status parse_corner(parser *ps, const char *tok, size_t len, uint32_t *vi)
{
    const char *part[3] = {tok, NULL, NULL};
    size_t plen[3] = {0, 0, 0};
    int np = 1;
    const char *start = tok;
    for (size_t k = 0; k <= len; k++) {
        if (k < len && tok[k] != '/') continue;
        plen[np - 1] = (size_t)(tok + k - start);
        if (k == len) break;
        if (np == 3) return bad_token(ps, "face corner has more than three parts", tok, len);
        start = tok + k + 1;
        part[np++] = start;
    }
    size_t idx;
    pw_status rc =
        resolve_index(ps, part[0], plen[0], ps->m->n_vertices, "vertex", "vertices", &idx);
    if (rc != PW_OK) return rc;
    *vi = (uint32_t)idx;
    /* "v/" and "v/vt/" are truncated corners; only the middle part may be empty. */
    if (np == 2 && plen[1] == 0)
        return bad_token(ps, "truncated face corner", tok, len);
    if (np >= 2 && plen[1] > 0) {
        rc = resolve_index(ps, part[1], plen[1], ps->n_vt, "texture", "texture coordinates", &idx);
        if (rc != PW_OK) return rc;
    }
    if (np == 3) {
        if (plen[2] == 0) return bad_token(ps, "truncated face corner", tok, len);
        rc = resolve_index(ps, part[2], plen[2], ps->n_vn, "normal", "normals", &idx);
        if (rc != PW_OK) return rc;
    }
    return PW_OK;
}

/* Grows an array of `elem`-byte items so that it holds at least need items. */
static int grow(void **a, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 1;
    size_t ncap = *cap ? *cap : 256;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem) return 0;
        ncap *= 2;
    }
    void *na = realloc(*a, ncap * elem);
    if (!na) return 0;
    *a = na;
    *cap = ncap;
    return 1;
}

static pw_status parse_vertex(parser *ps)
{
    double x[3];
    int n = 0;
    const char *tok;
    size_t len;
    /* x y z, then optionally w or r g b (a common vertex-colour extension): all
     * extra values must still be numbers, but only x y z are kept. */
    while (next_token(ps, &tok, &len)) {
        double v = 0;
        pw_status rc = parse_double(ps, tok, len, &v);
        if (rc != PW_OK) return rc;
        if (n < 3) x[n] = v;
        if (++n > 7)
            return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: vertex has too many values (>7)",
                           ps->name, ps->line);
    }
    if (n < 3)
        return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: vertex has %d coordinates, needs 3",
                       ps->name, ps->line, n);
    pw_mesh *m = ps->m;
    if (m->n_vertices >= UINT32_MAX)
        return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: too many vertices (%zu)", ps->name,
                       ps->line, m->n_vertices);
    if (!grow((void **)&m->vertices, &ps->cap_v, m->n_vertices + 1, 3 * sizeof(float)))
        return pw_fail(ps->err, PW_ENOMEM, "%s:%zu: out of memory (%zu vertices)", ps->name,
                       ps->line, m->n_vertices + 1);
    float *dst = m->vertices + 3 * m->n_vertices;
    for (int k = 0; k < 3; k++) dst[k] = (float)x[k];
    m->n_vertices++;
    return PW_OK;
}

static pw_status parse_face(parser *ps)
{
    pw_mesh *m = ps->m;
    uint32_t first = 0, prev = 0;
    size_t n = 0;
    const char *tok;
    size_t len;
    while (next_token(ps, &tok, &len)) {
        uint32_t vi = 0;
        pw_status rc = parse_corner(ps, tok, len, &vi);
        if (rc != PW_OK) return rc;
        /* fan triangulation: (first, prev, vi) for every corner after the second */
        if (n >= 2) {
            if (vi == first || vi == prev || first == prev)
                return pw_fail(ps->err, PW_EFORMAT,
                               "%s:%zu: degenerate face repeats vertex %u (corner %zu)",
                               ps->name, ps->line, vi + 1, n + 1);
            if (!grow((void **)&m->triangles, &ps->cap_t, m->n_triangles + 1,
                      3 * sizeof(uint32_t)))
                return pw_fail(ps->err, PW_ENOMEM, "%s:%zu: out of memory (%zu triangles)",
                               ps->name, ps->line, m->n_triangles + 1);
            uint32_t *t = m->triangles + 3 * m->n_triangles;
            t[0] = first, t[1] = prev, t[2] = vi;
            m->n_triangles++;
        }
        if (n == 0) first = vi;
        prev = vi;
        n++;
    }
    if (n < 3)
        return pw_fail(ps->err, PW_EFORMAT, "%s:%zu: face has %zu vertices, needs at least 3",
                       ps->name, ps->line, n);
    return PW_OK;
}

/* Dispatches one line (already cut at its end and comment) on its keyword. */
static pw_status parse_line(parser *ps)
{
    const char *kw;
    size_t klen;
    if (!next_token(ps, &kw, &klen)) return PW_OK; /* blank or comment-only */
    for (size_t k = 0; k < klen; k++)
        if (!is_keyword_char(kw[k])) return bad_token(ps, "not an OBJ record", kw, klen);
    if (klen == 1 && kw[0] == 'v') return parse_vertex(ps);
    if (klen == 1 && kw[0] == 'f') return parse_face(ps);
    if (klen == 2 && kw[0] == 'v' && kw[1] == 't') ps->n_vt++;
    if (klen == 2 && kw[0] == 'v' && kw[1] == 'n') ps->n_vn++;
    return PW_OK; /* other records carry nothing a triangle mesh needs */
}

/* ---- public functions ------------------------------------------------------ */

pw_status pw_obj_parse(const char *name, const char *text, size_t len, pw_mesh *out,
                       pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (!name) name = "<obj>";
    if (len > OBJ_MAX_BYTES)
        return pw_fail(err, PW_EFORMAT, "%s:1: file too large (%zu bytes, limit %zu)", name,
                       len, OBJ_MAX_BYTES);
    if (!text && len) return pw_fail(err, PW_EINVAL, "%s: no text", name);
    parser ps = {.name = name, .m = out, .err = err};
    size_t pos = 0;
    pw_status rc = PW_OK;
    while (pos < len && rc == PW_OK) {
        ps.line++;
        const char *ls = text + pos;
        const char *nl = memchr(ls, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - ls) : len - pos; /* line length without '\n' */
        const char *le = ls + ll;
        pos += ll + (nl ? 1 : 0);
        /* binary data: any control byte except tab, CR, VT, FF (NUL included) */
        for (const char *c = ls; c < le; c++) {
            unsigned char b = (unsigned char)*c;
            if ((b < 0x20 && b != '\t' && b != '\r' && b != '\v' && b != '\f') || b == 0x7f) {
                rc = pw_fail(err, PW_EFORMAT, "%s:%zu: binary data (byte 0x%02x at column %zu)",
                             name, ps.line, b, (size_t)(c - ls) + 1);
                break;
            }
        }
        if (rc != PW_OK) break;
        const char *hash = memchr(ls, '#', ll);
        if (hash) le = hash;
        while (le > ls && le[-1] == '\r') le--;
        ps.cur = ls;
        ps.end = le;
        rc = parse_line(&ps);
    }
    if (rc == PW_OK && out->n_triangles == 0)
        rc = pw_fail(err, PW_EFORMAT, "%s:%zu: empty mesh (no faces, %zu vertices)", name,
                     ps.line ? ps.line : 1, out->n_vertices);
    if (rc != PW_OK) {
        pw_mesh_free(out);
        return rc;
    }
    /* trim the growth slack */
    float *v = realloc(out->vertices, out->n_vertices * 3 * sizeof(float));
    if (v) out->vertices = v;
    uint32_t *t = realloc(out->triangles, out->n_triangles * 3 * sizeof(uint32_t));
    if (t) out->triangles = t;
    return PW_OK;
}

pw_status pw_obj_read(const char *path, pw_mesh *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t size = 0;
    pw_status rc = pw_read_file(path, OBJ_MAX_BYTES, &text, &size, err);
    if (rc != PW_OK) return rc;
    rc = pw_obj_parse(path, text, size, out, err);
    free(text);
    return rc;
}

void pw_mesh_free(pw_mesh *m)
{
    if (!m) return;
    free(m->vertices);
    free(m->triangles);
    memset(m, 0, sizeof *m);
}
