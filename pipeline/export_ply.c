/* export_ply.c — particles as binary little-endian PLY, and a strict reader; see
 * export.h for the layout and the definition of each property. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "pw_file.h"
#include "pw_kernel.h"
#include "material.h"
#include "pw_math.h"

/* ---- constants ------------------------------------------------------------- */

const char *const pw_ply_cache_attrs[PW_PLY_N_CACHE_ATTRS] = {"x", "v", "m", "V0", "Fe", "Jp"};

/* The properties we write, in file order; the reader requires them by name. */
enum { P_X, P_Y, P_Z, P_VX, P_VY, P_VZ, P_DENSITY, P_JP, N_PROPS };
static const char *const prop_names[N_PROPS] = {"x",  "y",  "z",       "vx",
                                                "vy", "vz", "density", "jp"};
_Static_assert(N_PROPS * 4 == PW_PLY_VERTEX_BYTES, "a vertex is 8 float32");
/* The optional property, last, written only when the particles carry it. */
#define DURABILITY "durability"

/* A PLY property list longer than this is not one of ours nor a sane particle file. */
#define PLY_MAX_PROPS 64
/* Vertices per write() call. */
#define WRITE_BATCH 4096
/* Whole-file limit of the reader [B]. */
#define PLY_MAX_FILE ((size_t)1 << 36)

/* ---- helpers --------------------------------------------------------------- */

static void put_f32_le(uint8_t *out, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    out[0] = (uint8_t)u, out[1] = (uint8_t)(u >> 8), out[2] = (uint8_t)(u >> 16);
    out[3] = (uint8_t)(u >> 24);
}

static float get_f32_le(const uint8_t *in)
{
    uint32_t u = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 |
                 (uint32_t)in[3] << 24;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* with_durability: the optional property's array too */
static pw_status alloc_particles(pw_ply_particles *p, size_t n, int with_durability,
                                 const char *name, pw_error *err)
{
    memset(p, 0, sizeof *p);
    size_t k = n ? n : 1;
    p->x = malloc(3 * k * sizeof(float));
    p->v = malloc(3 * k * sizeof(float));
    p->density = malloc(k * sizeof(float));
    p->jp = malloc(k * sizeof(float));
    if (with_durability) p->durability = malloc(k * sizeof(float));
    if (!p->x || !p->v || !p->density || !p->jp || (with_durability && !p->durability)) {
        pw_ply_particles_free(p);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu particles)", name, n);
    }
    p->count = n;
    return PW_OK;
}

/* A double that must land in a finite float32. */
static int fits_f32(double v) { return isfinite(v) && fabs(v) <= FLT_MAX; }

/* ---- from a cache ----------------------------------------------------------- */

/* rho_p^0 = sum_i m_i w_ip / h^3 = sum_i rho_i w_ip (step 2 of the method), with rho_i
 * rasterized on the nodes i h: the density the solver will give particles whose V0 it
 * has not assigned yet (V0 = 0 until their first step). */
static pw_status initial_density(const char *name, const pw_cache_frame *cf, const double *x,
                                 const double *m, const double *V0, double *rho0,
                                 pw_error *err)
{
    size_t n = (size_t)cf->count;
    pw_density *d = pw_density_rasterize(x, m, n, cf->h, 1, err);
    if (!d) {
        pw_error_prefix(err, "%s: initial density", name);
        return err ? err->code : PW_ENOMEM;
    }
    double inv_h = 1.0 / cf->h;
#pragma omp parallel for schedule(static)
    for (size_t p = 0; p < n; p++) {
        if (V0[p] != 0) continue;
        double w[3][4];
        int base[3];
        for (int k = 0; k < 3; k++)
            base[k] = pw_bspline_weights(x[3 * p + k] * inv_h, inv_h, w[k], NULL);
        double rho = 0;
        for (int c = 0; c < 4; c++)
            for (int b = 0; b < 4; b++)
                for (int a = 0; a < 4; a++)
                    rho += pw_density_node(d, base[0] + a, base[1] + b, base[2] + c) *
                           w[0][a] * w[1][b] * w[2][c];
        rho0[p] = rho;
    }
    pw_density_destroy(d);
    return PW_OK;
}

static pw_status cache_attr(const char *name, const pw_cache_frame *cf, const char *attr,
                            uint32_t comps, const double **out, pw_error *err)
{
    const pw_cache_attr *a = pw_cache_find(cf, attr);
    if (!a)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' missing (PLY export needs it)",
                       name, attr);
    if (a->type != PW_F64 || a->components != comps)
        return pw_fail(err, PW_EFORMAT, "%s: attribute '%s' must be float64 x %u (type %d x %u)",
                       name, attr, comps, (int)a->type, a->components);
    *out = a->data;
    return PW_OK;
}

pw_status pw_ply_particles_from_cache(const char *name, const pw_cache_frame *cf,
                                      pw_ply_particles *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    const double *x = NULL, *v = NULL, *m = NULL, *V0 = NULL, *Fe = NULL, *Jp = NULL;
    const double *density = NULL, *dur = NULL;
    pw_status rc;
    if ((rc = cache_attr(name, cf, "x", 3, &x, err)) != PW_OK ||
        (rc = cache_attr(name, cf, "v", 3, &v, err)) != PW_OK ||
        (rc = cache_attr(name, cf, "m", 1, &m, err)) != PW_OK ||
        (rc = cache_attr(name, cf, "Jp", 1, &Jp, err)) != PW_OK)
        return rc;
    /* the optional laws' durability, where the cache holds it (else no such property) */
    if (pw_cache_find(cf, "durability") &&
        (rc = cache_attr(name, cf, "durability", 1, &dur, err)) != PW_OK)
        return rc;
    size_t n = (size_t)cf->count;
    if (pw_cache_find(cf, "density")) { /* a slim render cache: the density is stored */
        if ((rc = cache_attr(name, cf, "density", 1, &density, err)) != PW_OK) return rc;
        if ((rc = alloc_particles(out, n, dur != NULL, name, err)) != PW_OK) return rc;
        for (size_t p = 0; p < n; p++) {
            for (int k = 0; k < 3; k++) {
                out->x[3 * p + k] = (float)x[3 * p + k];
                out->v[3 * p + k] = (float)v[3 * p + k];
            }
            out->density[p] = (float)density[p];
            out->jp[p] = (float)Jp[p];
            if (dur) out->durability[p] = (float)dur[p];
        }
        return PW_OK;
    }
    if ((rc = cache_attr(name, cf, "V0", 1, &V0, err)) != PW_OK ||
        (rc = cache_attr(name, cf, "Fe", 9, &Fe, err)) != PW_OK)
        return rc;
    /* the optional laws' bits and measured rest density, where the cache holds them */
    const pw_cache_attr *law_attr = pw_cache_find(cf, "law");
    const uint32_t *law = law_attr && law_attr->type == PW_U32 && law_attr->components == 1
                              ? law_attr->data
                              : NULL;
    const double *rho_rest = NULL;
    if (law && pw_cache_find(cf, "rho_rest") &&
        (rc = cache_attr(name, cf, "rho_rest", 1, &rho_rest, err)) != PW_OK)
        return rc;
    double *rho0 = NULL;
    for (size_t p = 0; p < n && !rho0; p++)
        if (V0[p] == 0 && !(rho0 = malloc(n * sizeof *rho0)))
            return pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu particles)", name, n);
    if (rho0 && (rc = initial_density(name, cf, x, m, V0, rho0, err)) != PW_OK) {
        free(rho0);
        return rc;
    }
    if ((rc = alloc_particles(out, n, dur != NULL, name, err)) != PW_OK) {
        free(rho0);
        return rc;
    }
    for (size_t p = 0; p < n; p++) {
        /* rho_p = m_p / V_p with V_p = J V0_p, J = det F = det(Fe) det(Fp) */
        const double *F = Fe + 9 * p;
        mat3 Fe_p = {{{F[0], F[1], F[2]}, {F[3], F[4], F[5]}, {F[6], F[7], F[8]}}};
        double J = m3_det(Fe_p) * Jp[p], V = V0[p] * J;
        double rho = V0[p] == 0 ? rho0[p] : m[p] / V;
        if (V0[p] != 0 && law && rho_rest) /* under density hardening, as measured */
            rho = pw_law_density(law[p], m[p], V0[p], m3_det(Fe_p), Jp[p], rho_rest[p]);
        if (V0[p] != 0 && (!(V > 0) || !isfinite(V))) {
            pw_ply_particles_free(out);
            free(rho0);
            return pw_fail(err, PW_ENUMERIC, "%s: particle %zu: volume V0 det(Fe) Jp is not "
                           "positive (%g)", name, p, V);
        }
        double vals[N_PROPS] = {x[3 * p],     x[3 * p + 1], x[3 * p + 2], v[3 * p],
                                v[3 * p + 1], v[3 * p + 2], rho,          Jp[p]};
        for (int k = 0; k < N_PROPS; k++)
            if (!fits_f32(vals[k])) {
                pw_ply_particles_free(out);
                free(rho0);
                return pw_fail(err, PW_ENUMERIC, "%s: particle %zu: %s does not fit a float32 "
                               "(%g)", name, p, prop_names[k], vals[k]);
            }
        for (int k = 0; k < 3; k++) {
            out->x[3 * p + k] = (float)vals[P_X + k];
            out->v[3 * p + k] = (float)vals[P_VX + k];
        }
        out->density[p] = (float)vals[P_DENSITY];
        out->jp[p] = (float)vals[P_JP];
        if (dur) out->durability[p] = (float)dur[p]; /* (in [0, 1]: the solver keeps it) */
    }
    free(rho0);
    return PW_OK;
}

/* ---- writing ----------------------------------------------------------------- */

static int format_header(char *out, size_t n, const pw_ply_particles *p,
                         const pw_export_meta *meta)
{
    int len = snprintf(out, n, "ply\nformat binary_little_endian 1.0\n"
                               "comment Powder %s particles\n", POWDER_VERSION);
    if (meta && len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "comment scene %s frame %d time %.9g s\n",
                        meta->scene ? meta->scene : "-", meta->frame, meta->time);
    if (len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len,
                        "comment world space, Y up; x y z [m], vx vy vz [m/s]\n"
                        "comment density = m / (V0 det(Fe) Jp) [kg/m^3] (before the first "
                        "step, when V0 = 0: sum_i rho_i w_ip; under density hardening the "
                        "density measured on the grid, rho_rest / |det(Fe)|), jp = det(Fp) [-]\n");
    if (p->durability && len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len,
                        "comment durability [-]: 1 intact, falls toward 0 as plastic stretch "
                        "breaks the snow's bonds (its cohesion scales with it)\n");
    if (len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "element vertex %zu\n", p->count);
    for (int k = 0; k < N_PROPS && len >= 0 && (size_t)len < n; k++)
        len += snprintf(out + len, n - (size_t)len, "property float %s\n", prop_names[k]);
    if (p->durability && len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, "property float %s\n", DURABILITY);
    if (len >= 0 && (size_t)len < n) len += snprintf(out + len, n - (size_t)len, "end_header\n");
    return len >= 0 && (size_t)len < n ? len : -1;
}

pw_status pw_ply_write(const char *path, const pw_ply_particles *p, const pw_export_meta *meta,
                       pw_error *err)
{
    if (p->count > 0 && (!p->x || !p->v || !p->density || !p->jp))
        return pw_fail(err, PW_EINVAL, "%s: NULL particle arrays (%zu particles)", path, p->count);
    for (size_t i = 0; i < p->count; i++) {
        const float vals[N_PROPS] = {p->x[3 * i], p->x[3 * i + 1], p->x[3 * i + 2],
                                     p->v[3 * i], p->v[3 * i + 1], p->v[3 * i + 2],
                                     p->density[i], p->jp[i]};
        for (int k = 0; k < N_PROPS; k++)
            if (!isfinite(vals[k]))
                return pw_fail(err, PW_ENUMERIC, "%s: particle %zu: %s is not finite (%g)", path,
                               i, prop_names[k], (double)vals[k]);
        if (p->durability && !isfinite(p->durability[i]))
            return pw_fail(err, PW_ENUMERIC, "%s: particle %zu: %s is not finite (%g)", path, i,
                           DURABILITY, (double)p->durability[i]);
    }
    size_t stride = PW_PLY_VERTEX_BYTES + (p->durability ? 4 : 0);
    char header[2048];
    int hlen = format_header(header, sizeof header, p, meta);
    if (hlen < 0)
        return pw_fail(err, PW_EINVAL, "%s: PLY header does not fit %zu bytes (scene name?)",
                       path, sizeof header);
    uint8_t *buf = malloc((size_t)WRITE_BATCH * stride);
    if (!buf) return pw_fail(err, PW_ENOMEM, "%s: out of memory (write buffer)", path);
    pw_atomic_file f;
    pw_status rc = pw_atomic_begin(&f, path, err);
    if (rc == PW_OK) rc = pw_atomic_write(&f, header, (size_t)hlen, err);
    for (size_t i0 = 0; i0 < p->count && rc == PW_OK; i0 += WRITE_BATCH) {
        size_t nb = p->count - i0 < WRITE_BATCH ? p->count - i0 : WRITE_BATCH;
        for (size_t j = 0; j < nb; j++) {
            size_t i = i0 + j;
            const float vals[N_PROPS] = {p->x[3 * i], p->x[3 * i + 1], p->x[3 * i + 2],
                                         p->v[3 * i], p->v[3 * i + 1], p->v[3 * i + 2],
                                         p->density[i], p->jp[i]};
            for (int k = 0; k < N_PROPS; k++) put_f32_le(buf + j * stride + 4 * k, vals[k]);
            if (p->durability) put_f32_le(buf + j * stride + 4 * N_PROPS, p->durability[i]);
        }
        rc = pw_atomic_write(&f, buf, nb * stride, err);
    }
    free(buf);
    if (rc == PW_OK) return pw_atomic_commit(&f, err);
    if (f.fp) pw_atomic_abort(&f);
    return rc;
}

/* ---- reading ------------------------------------------------------------------ */

/* Splits line (modified in place) into at most max space-separated words. */
static int split_words(char *line, char **w, int max)
{
    int n = 0;
    for (char *s = line; *s;) {
        while (*s == ' ') s++;
        if (!*s) break;
        if (n == max) return max + 1;
        w[n++] = s;
        while (*s && *s != ' ') s++;
        if (*s) *s++ = '\0';
    }
    return n;
}

static int parse_count(const char *s, size_t *out)
{
    if (!*s || strlen(s) > 19) return 0;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 0;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v > SIZE_MAX) return 0;
    *out = (size_t)v;
    return 1;
}

typedef struct {
    size_t count;          /* vertices */
    int nprops;
    int offset[N_PROPS];   /* [B] of each wanted property in a vertex, -1 = absent */
    int offset_durability; /* [B] of the optional durability, -1 = absent */
    size_t header_bytes;
} ply_layout;

/* Checks one header line (NUL-terminated, without '\n') and records what it says. */
static pw_status header_line(const char *name, int lineno, char *line, ply_layout *L,
                             int *seen_element, pw_error *err)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", line);
    char *w[8];
    int nw = split_words(line, w, 7);
    if (nw == 0) return pw_fail(err, PW_EFORMAT, "%s: header line %d: empty line", name, lineno);
    if (!strcmp(w[0], "comment") || !strcmp(w[0], "obj_info")) return PW_OK;
    if (!strcmp(w[0], "format")) {
        if (lineno != 2 || nw != 3)
            return pw_fail(err, PW_EFORMAT, "%s: header line %d: misplaced format line (%s)",
                           name, lineno, copy);
        if (strcmp(w[1], "binary_little_endian"))
            return pw_fail(err, PW_EUNSUPPORTED, "%s: header line %d: only binary_little_endian "
                           "is read (%s)", name, lineno, w[1]);
        if (strcmp(w[2], "1.0"))
            return pw_fail(err, PW_EUNSUPPORTED, "%s: header line %d: PLY version %s (1.0 only)",
                           name, lineno, w[2]);
        return PW_OK;
    }
    if (lineno == 2)
        return pw_fail(err, PW_EFORMAT, "%s: header line 2: expected the format line (%s)", name,
                       copy);
    if (!strcmp(w[0], "element")) {
        if (*seen_element)
            return pw_fail(err, PW_EUNSUPPORTED, "%s: header line %d: a second element (%s); "
                           "only one 'vertex' element is read", name, lineno, copy);
        if (nw != 3 || strcmp(w[1], "vertex") || !parse_count(w[2], &L->count))
            return pw_fail(err, PW_EFORMAT, "%s: header line %d: expected 'element vertex "
                           "<count>' (%s)", name, lineno, copy);
        *seen_element = 1;
        return PW_OK;
    }
    if (!strcmp(w[0], "property")) {
        if (!*seen_element)
            return pw_fail(err, PW_EFORMAT, "%s: header line %d: property before any element",
                           name, lineno);
        if (nw >= 2 && !strcmp(w[1], "list"))
            return pw_fail(err, PW_EUNSUPPORTED, "%s: header line %d: list properties are not "
                           "read (%s)", name, lineno, copy);
        if (nw != 3 || (strcmp(w[1], "float") && strcmp(w[1], "float32")))
            return pw_fail(err, PW_EFORMAT, "%s: header line %d: expected 'property float "
                           "<name>' (%s)", name, lineno, copy);
        if (L->nprops == PLY_MAX_PROPS)
            return pw_fail(err, PW_EFORMAT, "%s: header line %d: more than %d properties", name,
                           lineno, PLY_MAX_PROPS);
        for (int k = 0; k < N_PROPS; k++)
            if (!strcmp(w[2], prop_names[k])) {
                if (L->offset[k] >= 0)
                    return pw_fail(err, PW_EFORMAT, "%s: header line %d: property '%s' twice",
                                   name, lineno, w[2]);
                L->offset[k] = 4 * L->nprops;
            }
        if (!strcmp(w[2], DURABILITY)) {
            if (L->offset_durability >= 0)
                return pw_fail(err, PW_EFORMAT, "%s: header line %d: property '%s' twice",
                               name, lineno, w[2]);
            L->offset_durability = 4 * L->nprops;
        }
        L->nprops++;
        return PW_OK;
    }
    return pw_fail(err, PW_EFORMAT, "%s: header line %d: unknown keyword '%s'", name, lineno,
                   w[0]);
}

static pw_status parse_header(const char *name, const uint8_t *data, size_t size, ply_layout *L,
                              pw_error *err)
{
    memset(L, 0, sizeof *L);
    for (int k = 0; k < N_PROPS; k++) L->offset[k] = -1;
    L->offset_durability = -1;
    if (size < 4 || memcmp(data, "ply\n", 4))
        return pw_fail(err, PW_EFORMAT, "%s: byte 0: not a PLY file (no 'ply' line)", name);
    size_t pos = 4;
    int lineno = 1, seen_element = 0;
    char line[256];
    for (;;) {
        size_t end = pos;
        while (end < size && end < PW_PLY_MAX_HEADER && data[end] != '\n') end++;
        if (end >= size || end >= PW_PLY_MAX_HEADER)
            return pw_fail(err, PW_EFORMAT, "%s: no end_header within the first %zu bytes", name,
                           size < PW_PLY_MAX_HEADER ? size : (size_t)PW_PLY_MAX_HEADER);
        lineno++;
        if (end - pos >= sizeof line)
            return pw_fail(err, PW_EFORMAT, "%s: header line %d: longer than %zu bytes", name,
                           lineno, sizeof line - 1);
        for (size_t i = pos; i < end; i++)
            if (data[i] < 0x20 || data[i] > 0x7e)
                return pw_fail(err, PW_EFORMAT, "%s: header line %d: byte %zu is not printable "
                               "ASCII (0x%02x)", name, lineno, i, data[i]);
        memcpy(line, data + pos, end - pos);
        line[end - pos] = '\0';
        pos = end + 1;
        if (!strcmp(line, "end_header")) break;
        pw_status rc = header_line(name, lineno, line, L, &seen_element, err);
        if (rc != PW_OK) return rc;
    }
    if (lineno < 3 || !seen_element)
        return pw_fail(err, PW_EFORMAT, "%s: header has no format or vertex element", name);
    for (int k = 0; k < N_PROPS; k++)
        if (L->offset[k] < 0)
            return pw_fail(err, PW_EFORMAT, "%s: header has no property '%s'", name,
                           prop_names[k]);
    L->header_bytes = pos;
    size_t stride = 4 * (size_t)L->nprops, body = size - pos;
    if (L->count > body / stride || L->count * stride != body)
        return pw_fail(err, PW_EFORMAT, "%s: %zu vertices of %zu bytes need %s%zu data bytes, the "
                       "file has %zu", name, L->count, stride,
                       L->count > body / stride ? "more than " : "",
                       L->count > body / stride ? body : L->count * stride, body);
    return PW_OK;
}

pw_status pw_ply_read_memory(const char *name, const void *data, size_t size,
                             pw_ply_particles *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    const uint8_t *b = data;
    ply_layout L;
    pw_status rc = parse_header(name, b, size, &L, err);
    if (rc != PW_OK) return rc;
    if ((rc = alloc_particles(out, L.count, L.offset_durability >= 0, name, err)) != PW_OK)
        return rc;
    size_t stride = 4 * (size_t)L.nprops;
    for (size_t i = 0; i < L.count; i++) {
        const uint8_t *vtx = b + L.header_bytes + i * stride;
        float vals[N_PROPS];
        for (int k = 0; k < N_PROPS; k++) {
            vals[k] = get_f32_le(vtx + L.offset[k]);
            if (!isfinite(vals[k])) {
                pw_ply_particles_free(out);
                return pw_fail(err, PW_EFORMAT, "%s: vertex %zu: %s is not finite (%g)", name, i,
                               prop_names[k], (double)vals[k]);
            }
        }
        for (int k = 0; k < 3; k++) {
            out->x[3 * i + k] = vals[P_X + k];
            out->v[3 * i + k] = vals[P_VX + k];
        }
        out->density[i] = vals[P_DENSITY];
        out->jp[i] = vals[P_JP];
        if (L.offset_durability >= 0) {
            float d = get_f32_le(vtx + L.offset_durability);
            if (!isfinite(d)) {
                pw_ply_particles_free(out);
                return pw_fail(err, PW_EFORMAT, "%s: vertex %zu: %s is not finite (%g)", name,
                               i, DURABILITY, (double)d);
            }
            out->durability[i] = d;
        }
    }
    return PW_OK;
}

pw_status pw_ply_read(const char *path, pw_ply_particles *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    char *data = NULL;
    size_t size = 0;
    pw_status rc = pw_read_file(path, PLY_MAX_FILE, &data, &size, err);
    if (rc != PW_OK) return rc;
    rc = pw_ply_read_memory(path, data, size, out, err);
    free(data);
    return rc;
}

void pw_ply_particles_free(pw_ply_particles *p)
{
    if (!p) return;
    free(p->x);
    free(p->v);
    free(p->density);
    free(p->jp);
    free(p->durability);
    memset(p, 0, sizeof *p);
}

/* ---- one frame ------------------------------------------------------------------ */

pw_status pw_export_ply_frame(const char *cache_path, const char *ply_path,
                              const pw_export_meta *meta, size_t *count, pw_error *err)
{
    /* a slim render cache carries the density itself (float32, widened here) */
    static const char *const slim_attrs[] = {"x", "v", "m", "Jp", "density"};
    pw_cache_info info;
    pw_status rc = pw_cache_table(cache_path, &info, err);
    if (rc != PW_OK) return rc;
    int slim = pw_cache_info_global(&info, PW_CACHE_SLIM, 0) != 0;
    const char *names[PW_PLY_N_CACHE_ATTRS + 3];
    int n_names = slim ? 5 : PW_PLY_N_CACHE_ATTRS;
    memcpy(names, slim ? slim_attrs : pw_ply_cache_attrs, (size_t)n_names * sizeof *names);
    if (pw_cache_info_attr(&info, DURABILITY)) names[n_names++] = DURABILITY;
    if (!slim && pw_cache_info_attr(&info, "law") && pw_cache_info_attr(&info, "rho_rest"))
        names[n_names++] = "law", names[n_names++] = "rho_rest";
    pw_cache_frame cf;
    rc = pw_cache_read_f64(cache_path, names, n_names, &cf, err);
    if (rc != PW_OK) return rc;
    pw_ply_particles p;
    rc = pw_ply_particles_from_cache(cache_path, &cf, &p, err);
    pw_cache_frame_free(&cf);
    if (rc == PW_OK) rc = pw_mkdir_parent(ply_path, err);
    if (rc == PW_OK) rc = pw_ply_write(ply_path, &p, meta, err);
    if (rc == PW_OK && count) *count = p.count;
    pw_ply_particles_free(&p);
    return rc;
}
