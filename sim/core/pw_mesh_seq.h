/* pw_mesh_seq.h — a mesh animated by a sequence of OBJ files, as Blender, Maya and
 * Houdini write a deforming character: one file per frame, the same vertices and faces
 * in each, only the positions change (pw_shape.h: seq_first, seq_last, seq_step,
 * seq_fps, seq_start).
 *
 * Between files every vertex moves on the Catmull-Rom cubic through its positions in
 * the four files around t (uniform in time), so a solver substep sees the mesh at its
 * own time and the vertex velocity is continuous across files. Before the first file
 * and after the last the mesh holds still. */
#ifndef PW_MESH_SEQ_H
#define PW_MESH_SEQ_H

#include "pw_shape.h"

/* The vertex data of a whole sequence may not exceed this (one float per coordinate per
 * file): 2 GiB, a 10^6-vertex character over 170 files. */
#define PW_MESH_SEQ_MAX_BYTES ((size_t)2 << 30)

typedef struct {
    size_t n_vertices, n_triangles;
    uint32_t *triangles; /* 3 per triangle, as in every file */
    int k0, n_files;     /* files k0 .. k0 + n_files - 1 of the sequence are held */
    int n_total;         /* files in the whole sequence */
    float *positions;    /* n_files x 3 n_vertices, [OBJ units] */
} pw_mesh_seq;

/* Files in the sequence of s (pw_shape_is_sequence), and the path of file k (0-based:
 * number seq_first + k seq_step). */
int pw_mesh_seq_files(const pw_shape *s);
pw_status pw_mesh_seq_path(const pw_shape *s, int k, char *out, size_t cap, pw_error *err);

/* Reads the files that shape the mesh for times in [t0, t1] (every file for -INFINITY,
 * INFINITY) and checks each against the first: the same vertex count and the same
 * faces, coordinates finite and within 10^5 m once scaled. Errors name the file and its
 * place in the sequence ("walk.0007.obj (file 7 of walk.####.obj): 1203 vertices, the
 * first file has 1200"). *out is the caller's (pw_mesh_seq_free). */
pw_status pw_mesh_seq_read(const pw_shape *s, double t0, double t1, pw_mesh_seq *out,
                           pw_error *err);
void pw_mesh_seq_free(pw_mesh_seq *q); /* zeroes *q; NULL is a no-op */

/* Vertex positions [m] (scaled by s->scale, in the shape's body frame before its
 * placement) at time t, and their velocities [m/s] (vel may be NULL). t must lie where
 * pw_mesh_seq_read was asked for. */
void pw_mesh_seq_eval(const pw_mesh_seq *q, const pw_shape *s, double t, vec3 *pos, vec3 *vel);

#endif
