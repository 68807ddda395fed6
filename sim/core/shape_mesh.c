/* shape_mesh.c — the triangles of a mesh or text shape (pw_shape_mesh, pw_shape_mesh_at in
 * pw_shape.h). Apart from shape.c because a text's triangles come from its font through
 * FreeType: this file goes with the text (pw_text.h) into the library that links FreeType,
 * and the analytic shapes, their motion and everything that only asks a distance stay
 * in the core without it. */
#include <stdlib.h>
#include <string.h>

#include "pw_mesh_seq.h"
#include "pw_shape.h"

pw_status pw_shape_mesh(const pw_shape *s, pw_mesh *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    if (pw_shape_is_sequence(s)) {
        char path[sizeof s->path + 32];
        pw_status rc = pw_mesh_seq_path(s, 0, path, sizeof path, err);
        return rc != PW_OK ? rc : pw_obj_read(path, out, err);
    }
    if (s->kind == PW_SHAPE_MESH) return pw_obj_read(s->path, out, err);
    if (s->kind != PW_SHAPE_TEXT)
        return pw_fail(err, PW_EINVAL, "shape of kind %d has no triangles", (int)s->kind);
    pw_text_outline o;
    pw_status rc = pw_text_outline_create(s->path, s->text, s->text_height,
                                          PW_TEXT_TOLERANCE * s->text_height, &o, err);
    if (rc != PW_OK) return rc;
    rc = pw_text_extrude(&o, s->text_depth, out, err);
    pw_text_outline_free(&o);
    return rc;
}

pw_status pw_shape_mesh_at(const pw_shape *s, double t, pw_mesh *out, pw_error *err)
{
    if (!pw_shape_is_sequence(s)) return pw_shape_mesh(s, out, err);
    memset(out, 0, sizeof *out);
    pw_mesh_seq q;
    pw_status rc = pw_mesh_seq_read(s, t, t, &q, err);
    if (rc != PW_OK) return rc;
    vec3 *p = malloc((q.n_vertices ? q.n_vertices : 1) * sizeof *p);
    out->vertices = malloc(3 * (q.n_vertices ? q.n_vertices : 1) * sizeof *out->vertices);
    if (!p || !out->vertices) {
        free(p);
        pw_mesh_seq_free(&q);
        pw_mesh_free(out);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory (%zu vertices)", s->path, q.n_vertices);
    }
    pw_mesh_seq_eval(&q, s, t, p, NULL);
    /* in the file's units, as pw_shape_mesh gives them: the caller scales */
    for (size_t i = 0; i < q.n_vertices; i++) {
        out->vertices[3 * i + 0] = (float)(p[i].x / s->scale);
        out->vertices[3 * i + 1] = (float)(p[i].y / s->scale);
        out->vertices[3 * i + 2] = (float)(p[i].z / s->scale);
    }
    out->n_vertices = q.n_vertices;
    out->n_triangles = q.n_triangles;
    out->triangles = q.triangles;
    q.triangles = NULL;
    free(p);
    pw_mesh_seq_free(&q);
    return PW_OK;
}
