/* Property: a text shape is one solid to every user of shapes: the collider's level set
 * and the Embree surface drawn for it have the letters where the outline has them and
 * the holes empty, at the shape's place, rotation and keyframed time.
 * "Go" (DejaVu Sans Bold, capitals 0.4 m, 0.1 m deep), turned 90 degrees about +y (its
 * +x reading direction becomes world -z, its front +z becomes world +x), centred at
 * (1, 0.5, 0) and moving by +0.3 m in y between t = 0 and 1 s.
 * 1. collider (h = 0.01 m, distance grid h/2): at t = 0.5 s, phi at the centre of the
 *    'o''s hole is positive and within h/2 of the distance to the hole's wall (same
 *    bound as for seeding); at a point of the G's stem (inside by >= 1.5 cm) it is
 *    negative, and 0.2 m in front of the letters it is 0.2 - depth/2 within h/2; at
 *    t = 0 the stem is 0.15 m lower (the motion is applied);
 * 2. surface at t = 0.5 s: a ray along -x through the stem hits the front face at
 *    x = 1 + depth/2 (to 1e-5 m, float vertices) with normal +x; a ray along -x through
 *    the 'o''s hole passes through (no hit); at t = 0 the ray 0.15 m lower hits the stem.
 * The hole centre and the stem point are taken from the outline itself. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collide.h"
#include "surfaces.h"

static double hole_wall_distance(const pw_text_outline *o, size_t c, double x, double y)
{
    size_t f = o->first[c], m = o->first[c + 1] - f;
    double d = INFINITY;
    for (size_t k = 0; k < m; k++) {
        const double *u = &o->xy[2 * (f + k)], *v = &o->xy[2 * (f + (k + 1) % m)];
        double ex = v[0] - u[0], ey = v[1] - u[1], l2 = ex * ex + ey * ey;
        double t = l2 > 0 ? ((x - u[0]) * ex + (y - u[1]) * ey) / l2 : 0;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        d = fmin(d, hypot(u[0] + t * ex - x, u[1] + t * ey - y));
    }
    return d;
}

int main(void)
{
    const double h = 0.01, height = 0.4, depth = 0.1;
    pw_shape sh;
    pw_shape_init(&sh, PW_SHAPE_TEXT);
    snprintf(sh.path, sizeof sh.path, "%s", PW_TEXT_DEFAULT_FONT);
    snprintf(sh.text, sizeof sh.text, "Go");
    sh.text_height = height;
    sh.text_depth = depth;
    sh.center = v3(1, 0.5, 0);
    sh.rotation_axis = v3(0, 1, 0);
    sh.rotation_angle = 0.5 * 3.14159265358979323846;
    sh.n_keys = 2;
    sh.keys[0].t = 0;
    sh.keys[0].axis = v3(0, 1, 0);
    sh.keys[1].t = 1;
    sh.keys[1].translation = v3(0, 0.3, 0);
    sh.keys[1].axis = v3(0, 1, 0);
    pw_error err = {0};

    /* the hole of 'o' (the contour flagged a hole) and a point deep in the G's stem */
    pw_text_outline o;
    if (pw_text_outline_create(sh.path, sh.text, height, PW_TEXT_TOLERANCE * height, &o, &err)) {
        fprintf(stderr, "outline: %s\n", err.msg);
        return 1;
    }
    size_t hole = o.n_contours;
    for (size_t c = 0; c < o.n_contours; c++)
        if (o.hole[c] && o.character[c] == 1) hole = c;
    CHECK(hole < o.n_contours, "the 'o' has no hole");
    if (hole == o.n_contours) return check_done("text_collider_and_surface");
    double hx = 0.5 * (o.box[4 * hole] + o.box[4 * hole + 2]);
    double hy = 0.5 * (o.box[4 * hole + 1] + o.box[4 * hole + 3]);
    double wall = hole_wall_distance(&o, hole, hx, hy);
    double sx = o.lo[0] + 0.025, sy = 0; /* the G's left stroke, ~0.07 m wide */
    CHECK(pw_text_sdf(&o, depth, v3(sx, sy, 0)) < -0.015, "stem point not deep inside (%g)",
          pw_text_sdf(&o, depth, v3(sx, sy, 0)));

    /* body (text frame) to world at time t: rotation about +y by 90 degrees, then
     * centre and motion */
    double t = 0.5;
    mat3 R = m3_rotation(sh.rotation_axis, sh.rotation_angle);
    vec3 at_t = v3(0, 0.3 * t, 0);
    vec3 hole_w = v3_add(v3_add(sh.center, at_t), m3_mulv(R, v3(hx, hy, 0)));
    vec3 stem_w = v3_add(v3_add(sh.center, at_t), m3_mulv(R, v3(sx, sy, 0)));
    vec3 front = m3_mulv(R, v3(0, 0, 1));
    printf("hole of 'o' at %.4f %.4f %.4f (wall %.4f m away), stem at %.4f %.4f %.4f, front "
           "(%.2f, %.2f, %.2f)\n", hole_w.x, hole_w.y, hole_w.z, wall, stem_w.x, stem_w.y,
           stem_w.z, front.x, front.y, front.z);

    /* 1. collider */
    pw_colliders *cs = pw_colliders_create(h, &err);
    pw_collider_desc cd = {.shape = sh, .friction = 0.5};
    CHECK(cs && pw_colliders_add(cs, &cd, &err) == PW_OK, "1 add: %s", err.msg);
    if (cs && pw_colliders_count(cs) == 1) {
        double phi_hole = pw_colliders_phi(cs, t, hole_w);
        double phi_stem = pw_colliders_phi(cs, t, stem_w);
        double phi_front = pw_colliders_phi(cs, t, v3_madd(stem_w, front, 0.2));
        printf("1 phi: hole %.5f (wall %.5f), stem %.5f, 0.2 m in front %.5f (expect %.5f)\n",
               phi_hole, wall, phi_stem, phi_front, 0.2 - 0.5 * depth);
        CHECK(phi_hole > 0 && fabs(phi_hole - wall) <= 0.5 * h, "1.1 hole phi %g (wall %g)",
              phi_hole, wall);
        CHECK(phi_stem < 0, "1.2 stem phi %g", phi_stem);
        CHECK(fabs(phi_front - (0.2 - 0.5 * depth)) <= 0.5 * h, "1.3 front phi %g", phi_front);
        /* at t = 0 the letters are 0.15 m lower */
        CHECK(pw_colliders_phi(cs, 0, v3_add(stem_w, v3(0, -0.15, 0))) < 0,
              "1.4 the stem is not 0.15 m lower at t = 0");
    }
    pw_colliders_destroy(cs);

    /* 2. surface */
    pw_surface_desc sd = {.shape = sh, .color = v3(0.5, 0.5, 0.5)};
    pw_surfaces *s = pw_surfaces_create(&sd, 1, t, &err);
    CHECK(s != NULL, "2 surfaces: %s", err.msg);
    if (s) {
        pw_surface_hit hit;
        vec3 dir = v3_scale(front, -1);
        int got = pw_surfaces_intersect(s, v3_madd(stem_w, front, 1.0), dir, 0, 10, &hit);
        CHECK(got, "2.1 the ray through the stem misses");
        if (got) {
            printf("2.1 stem hit at x = %.6f (front face at %.6f), normal (%.3f, %.3f, %.3f)\n",
                   hit.p.x, 1 + 0.5 * depth, hit.n.x, hit.n.y, hit.n.z);
            CHECK(fabs(hit.p.x - (1 + 0.5 * depth)) <= 1e-5, "2.1 hit x %.7f", hit.p.x);
            CHECK(v3_dot(hit.n, front) > 0.9999, "2.1 normal (%g %g %g)", hit.n.x, hit.n.y,
                  hit.n.z);
        }
        CHECK(!pw_surfaces_intersect(s, v3_madd(hole_w, front, 1.0), dir, 0, 10, &hit),
              "2.2 the ray through the hole of 'o' hits at (%g %g %g)", hit.p.x, hit.p.y,
              hit.p.z);
        pw_surfaces_destroy(s);
    }
    /* 2.3 at t = 0 the stem is 0.15 m lower */
    s = pw_surfaces_create(&sd, 1, 0, &err);
    CHECK(s != NULL, "2.3 surfaces: %s", err.msg);
    if (s) {
        pw_surface_hit hit;
        vec3 lower = v3_add(stem_w, v3(0, -0.15, 0));
        int got = pw_surfaces_intersect(s, v3_madd(lower, front, 1.0), v3_scale(front, -1), 0,
                                        10, &hit);
        CHECK(got && fabs(hit.p.x - (1 + 0.5 * depth)) <= 1e-5, "2.3 the stem at t = 0: %s",
              got ? "hit elsewhere" : "no hit");
        pw_surfaces_destroy(s);
    }
    pw_text_outline_free(&o);
    return check_done("text_collider_and_surface");
}
