/* mesh_seq.c — OBJ sequences of one topology, moved on Catmull-Rom cubics (pw_mesh_seq.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pw_file.h"
#include "pw_mesh_seq.h"

/* Farther than this from the origin a float vertex has under 0.01 mm of precision, and a
 * number so large is a unit or export mistake, not a character. */
#define MESH_SEQ_MAX_COORD 1e5

int pw_mesh_seq_files(const pw_shape *s)
{
    if (!pw_shape_is_sequence(s) || s->seq_last < s->seq_first) return 0;
    return (s->seq_last - s->seq_first) / s->seq_step + 1;
}

pw_status pw_mesh_seq_path(const pw_shape *s, int k, char *out, size_t cap, pw_error *err)
{
    return pw_frame_path(s->path, s->seq_first + k * s->seq_step, out, cap, err);
}

/* the time step between files [s] */
static double file_spacing(const pw_shape *s) { return s->seq_step / s->seq_fps; }

/* t as a position along the files: file k sits at k; clamped to the sequence */
static double file_position(const pw_shape *s, int n_total, double t)
{
    double u = (t - s->seq_start) / file_spacing(s);
    if (!(u > 0)) return 0; /* (also NaN) */
    return u < n_total - 1 ? u : n_total - 1;
}

static pw_status read_file(const pw_shape *s, int k, int n_total, pw_mesh *m, pw_error *err)
{
    char path[sizeof s->path + 32];
    pw_status rc = pw_mesh_seq_path(s, k, path, sizeof path, err);
    if (rc != PW_OK) return rc;
    rc = pw_obj_read(path, m, err);
    if (rc != PW_OK) pw_error_prefix(err, "mesh sequence %s, file %d of %d", s->path, k + 1, n_total);
    return rc;
}

pw_status pw_mesh_seq_read(const pw_shape *s, double t0, double t1, pw_mesh_seq *out,
                           pw_error *err)
{
    memset(out, 0, sizeof *out);
    int n_total = pw_mesh_seq_files(s);
    if (n_total < 1)
        return pw_fail(err, PW_EINVAL, "%s: not a mesh sequence (first %d, last %d, step %d)",
                       s->path, s->seq_first, s->seq_last, s->seq_step);
    if (!(s->seq_fps > 0) || !isfinite(s->seq_fps) || !isfinite(s->seq_start) ||
        !(s->scale > 0) || !isfinite(s->scale))
        return pw_fail(err, PW_EINVAL, "%s: bad sequence rate %g fps, start %g s or scale %g",
                       s->path, s->seq_fps, s->seq_start, s->scale);
    /* the cubic on [k, k + 1] reads files k - 1 .. k + 2 */
    int k0 = (int)floor(file_position(s, n_total, t0)) - 1;
    int k1 = (int)floor(file_position(s, n_total, t1)) + 2;
    if (t0 == -INFINITY) k0 = 0;
    if (t1 == INFINITY) k1 = n_total - 1;
    k0 = k0 < 0 ? 0 : k0;
    k1 = k1 > n_total - 1 ? n_total - 1 : k1;

    pw_mesh first = {0};
    pw_status rc = read_file(s, k0, n_total, &first, err);
    if (rc != PW_OK) return rc;
    out->n_vertices = first.n_vertices;
    out->n_triangles = first.n_triangles;
    out->k0 = k0;
    out->n_files = k1 - k0 + 1;
    out->n_total = n_total;
    size_t frame_bytes = 3 * first.n_vertices * sizeof(float);
    if (first.n_vertices > PW_MESH_SEQ_MAX_BYTES / sizeof(float) / 3 / (size_t)n_total) {
        pw_mesh_free(&first);
        return pw_fail(err, PW_ENOMEM, "mesh sequence %s: %d files of %zu vertices need %.2f "
                       "GB, more than the %.2f GB a mesh sequence may hold", s->path, n_total,
                       out->n_vertices, (double)frame_bytes * n_total / 1e9,
                       (double)PW_MESH_SEQ_MAX_BYTES / 1e9);
    }
    out->triangles = first.triangles;
    first.triangles = NULL;
    out->positions = malloc(frame_bytes * (size_t)out->n_files);
    if (!out->positions) {
        pw_mesh_free(&first);
        pw_mesh_seq_free(out);
        return pw_fail(err, PW_ENOMEM, "mesh sequence %s: out of memory for %d files of %zu "
                       "vertices", s->path, n_total, out->n_vertices);
    }
    memcpy(out->positions, first.vertices, frame_bytes);
    pw_mesh_free(&first);

    for (int k = k0; k <= k1 && rc == PW_OK; k++) {
        pw_mesh m = {0};
        if (k > k0) {
            if ((rc = read_file(s, k, n_total, &m, err)) != PW_OK) break;
            char path[sizeof s->path + 32];
            pw_mesh_seq_path(s, k, path, sizeof path, NULL);
            if (m.n_vertices != out->n_vertices || m.n_triangles != out->n_triangles)
                rc = pw_fail(err, PW_EFORMAT, "%s (file %d of mesh sequence %s): %zu vertices "
                             "and %zu triangles, the first file has %zu and %zu: every file "
                             "must hold the same mesh", path, k + 1, s->path, m.n_vertices,
                             m.n_triangles, out->n_vertices, out->n_triangles);
            for (size_t f = 0; rc == PW_OK && f < 3 * m.n_triangles; f++)
                if (m.triangles[f] != out->triangles[f])
                    rc = pw_fail(err, PW_EFORMAT, "%s (file %d of mesh sequence %s): triangle "
                                 "%zu has other vertices than in the first file: every file "
                                 "must hold the same faces", path, k + 1, s->path, f / 3 + 1);
            if (rc == PW_OK)
                memcpy(out->positions + (size_t)(k - k0) * 3 * out->n_vertices, m.vertices,
                       frame_bytes);
            pw_mesh_free(&m);
        }
        const float *p = out->positions + (size_t)(k - k0) * 3 * out->n_vertices;
        for (size_t i = 0; rc == PW_OK && i < 3 * out->n_vertices; i++)
            if (!(fabs(p[i] * s->scale) <= MESH_SEQ_MAX_COORD)) {
                char path[sizeof s->path + 32];
                pw_mesh_seq_path(s, k, path, sizeof path, NULL);
                rc = pw_fail(err, PW_EFORMAT, "%s (file %d of mesh sequence %s): vertex %zu has "
                             "coordinate %g m, beyond %g m", path, k + 1, s->path, i / 3 + 1,
                             p[i] * s->scale, MESH_SEQ_MAX_COORD);
            }
    }
    if (rc != PW_OK) pw_mesh_seq_free(out);
    return rc;
}

void pw_mesh_seq_free(pw_mesh_seq *q)
{
    if (!q) return;
    free(q->triangles);
    free(q->positions);
    memset(q, 0, sizeof *q);
}

void pw_mesh_seq_eval(const pw_mesh_seq *q, const pw_shape *s, double t, vec3 *pos, vec3 *vel)
{
    double u = file_position(s, q->n_total, t);
    int k = (int)floor(u);
    if (k > q->n_total - 2) k = q->n_total - 2; /* the last file is u = 1 of the last span */
    if (k < 0) k = 0;                           /* (a sequence of one file) */
    double w = q->n_total > 1 ? u - k : 0;
    /* the four files around the span, repeated at the ends; clamped to what was read */
    const float *P[4];
    for (int j = 0; j < 4; j++) {
        int kj = k - 1 + j;
        kj = kj < 0 ? 0 : kj > q->n_total - 1 ? q->n_total - 1 : kj;
        kj -= q->k0;
        kj = kj < 0 ? 0 : kj > q->n_files - 1 ? q->n_files - 1 : kj;
        P[j] = q->positions + (size_t)kj * 3 * q->n_vertices;
    }
    /* Catmull-Rom basis and its derivative in w */
    double w2 = w * w, w3 = w2 * w;
    double b[4] = {0.5 * (-w3 + 2 * w2 - w), 0.5 * (3 * w3 - 5 * w2 + 2),
                   0.5 * (-3 * w3 + 4 * w2 + w), 0.5 * (w3 - w2)};
    double db[4] = {0.5 * (-3 * w2 + 4 * w - 1), 0.5 * (9 * w2 - 10 * w),
                    0.5 * (-9 * w2 + 8 * w + 1), 0.5 * (3 * w2 - 2 * w)};
    /* outside the sequence the mesh holds still */
    double u_raw = (t - s->seq_start) / file_spacing(s);
    double rate = u_raw > 0 && u_raw < q->n_total - 1 ? s->scale / file_spacing(s) : 0;
    for (size_t i = 0; i < q->n_vertices; i++) {
        double p[3], v[3];
        for (int c = 0; c < 3; c++) {
            size_t o = 3 * i + (size_t)c;
            p[c] = s->scale * (b[0] * P[0][o] + b[1] * P[1][o] + b[2] * P[2][o] + b[3] * P[3][o]);
            v[c] = rate * (db[0] * P[0][o] + db[1] * P[1][o] + db[2] * P[2][o] + db[3] * P[3][o]);
        }
        pos[i] = v3(p[0], p[1], p[2]);
        if (vel) vel[i] = v3(v[0], v[1], v[2]);
    }
}
