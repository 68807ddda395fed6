/* Property: the collision response of Stomakhin et al. 2013, section 8, exactly:
 * separating relative velocity (v_n >= 0) is untouched; |v_t| <= -mu v_n sticks
 * (v_rel' = 0); otherwise v_rel' = v_t + mu v_n v_t / |v_t|; sticky colliders set
 * v_rel' = 0 whenever phi <= 0; sticking and sticky contacts constrain all components in
 * the implicit solve, sliding and frictionless ones only the normal; everything is
 * computed in the collider's frame (v_rel = v - v_co); poses formed once per time answer
 * as poses formed per point. The cases use numbers exactly representable in binary so
 * the expected vectors are compared to 1e-15 (rounding of a few operations). */
#include <string.h>

#include "check.h"
#include "collide.h"

static void check_vec(vec3 a, vec3 b, double tol, const char *what)
{
    CHECK(v3_length(v3_sub(a, b)) <= tol, "%s: (%.17g %.17g %.17g) vs (%.17g %.17g %.17g)", what,
          a.x, a.y, a.z, b.x, b.y, b.z);
}

int main(void)
{
    vec3 up = v3(0, 1, 0), zero = v3_zero();
    /* 1. separating: returned unchanged, bit for bit */
    {
        vec3 v = v3(0.3, 0.7, -0.2), r = pw_collide_velocity(v, zero, up, 0.5, 0, NULL);
        CHECK(r.x == v.x && r.y == v.y && r.z == v.z, "1 separating velocity changed");
        /* 1b. v_n == 0 exactly (sliding along the surface) also counts as separating */
        vec3 t = v3(2, 0, 1), rt = pw_collide_velocity(t, zero, up, 0.5, 0, NULL);
        CHECK(rt.x == 2 && rt.y == 0 && rt.z == 1, "1b tangential velocity changed");
    }
    /* 2. sticking: |v_t| = 0.5 <= -mu v_n = 0.6 -> v = v_co */
    check_vec(pw_collide_velocity(v3(0.5, -1, 0), zero, up, 0.6, 0, NULL), zero, 0, "2 sticking");
    /* 2b. boundary |v_t| == -mu v_n sticks (<=) */
    check_vec(pw_collide_velocity(v3(0, -2, 1), zero, up, 0.5, 0, NULL), zero, 0, "2b boundary");
    /* 3. sliding: v_n = -1, v_t = (3, 0, 4), |v_t| = 5, mu = 0.5:
     * v' = v_t + 0.5 (-1) v_t / 5 = 0.9 v_t = (2.7, 0, 3.6) */
    check_vec(pw_collide_velocity(v3(3, -1, 4), zero, up, 0.5, 0, NULL), v3(2.7, 0, 3.6), 1e-15,
              "3 sliding");
    /* 3b. frictionless: only the normal component goes */
    check_vec(pw_collide_velocity(v3(3, -1, 4), zero, up, 0, 0, NULL), v3(3, 0, 4), 0, "3b mu = 0");
    /* 3c. tilted normal n = (0.6, 0.8, 0): v = (-1.2, -1.6, 1) has v_n = -2, v_t = (0,0,1);
     * mu = 0.25 -> |v_t| = 1 > 0.5, v' = (0, 0, 1 - 0.5) */
    check_vec(pw_collide_velocity(v3(-1.2, -1.6, 1), zero, v3(0.6, 0.8, 0), 0.25, 0, NULL),
              v3(0, 0, 0.5), 1e-15, "3c tilted normal");
    /* 4. sticky: even a separating velocity is set to the collider's */
    check_vec(pw_collide_velocity(v3(1, 2, 3), v3(0.25, 0, 0), up, 0, 1, NULL), v3(0.25, 0, 0), 0,
              "4 sticky separating");
    check_vec(pw_collide_velocity(v3(1, -2, 3), zero, up, 0, 1, NULL), zero, 0, "4b sticky approaching");
    /* 5. moving collider: v_co = (1, 2, 0), v = (4, 1, 4) -> v_rel = (3, -1, 4) -> sliding
     * as case 3 -> (2.7, 0, 3.6) + v_co */
    check_vec(pw_collide_velocity(v3(4, 1, 4), v3(1, 2, 0), up, 0.5, 0, NULL), v3(3.7, 2, 3.6), 1e-15,
              "5 moving frame");
    /* 5b. a collider moving away faster than the material: separating in its frame */
    check_vec(pw_collide_velocity(v3(0, -1, 0), v3(0, -3, 0), up, 0.5, 0, NULL), v3(0, -1, 0), 0,
              "5b collider receding");

    /* 5c. what each case constrains in the implicit solve: static friction and
     * sticky all components, sliding and frictionless contact only the normal one */
    {
        pw_contact k;
        pw_collide_velocity(v3(0.3, 0.7, -0.2), zero, up, 0.5, 0, &k);
        CHECK(k == PW_CONTACT_NONE, "5c separating: %d", k);
        pw_collide_velocity(v3(0.5, -1, 0), zero, up, 0.6, 0, &k);
        CHECK(k == PW_CONTACT_ALL, "5c static friction: %d", k);
        pw_collide_velocity(v3(3, -1, 4), zero, up, 0.5, 0, &k);
        CHECK(k == PW_CONTACT_NORMAL, "5c sliding: %d", k);
        vec3 r = pw_collide_velocity(v3(0, -1, 0), zero, up, 0, 0, &k);
        CHECK(k == PW_CONTACT_NORMAL && r.x == 0 && r.y == 0 && r.z == 0,
              "5c frictionless head-on: %d", k);
        pw_collide_velocity(v3(1, 2, 3), zero, up, 0, 1, &k);
        CHECK(k == PW_CONTACT_ALL, "5c sticky: %d", k);
    }

    /* 6. through pw_colliders: ground plane y <= 0 (friction 0.5) and a sticky sphere
     * spinning about +y at 2 rad/s (keyframes), union distance and application */
    pw_error err = {0};
    pw_colliders *cs = pw_colliders_create(0.1, &err);
    CHECK(cs != NULL, "6 create: %s", err.msg);
    pw_collider_desc ground = {.friction = 0.5, .sticky = 0};
    pw_shape_init(&ground.shape, PW_SHAPE_HALFSPACE);
    CHECK(pw_colliders_add(cs, &ground, &err) == PW_OK, "6 add ground: %s", err.msg);
    pw_collider_desc ball = {.friction = 0, .sticky = 1};
    pw_shape_init(&ball.shape, PW_SHAPE_SPHERE);
    ball.shape.radius = 0.5;
    ball.shape.n_keys = 2;
    ball.shape.keys[0] = (pw_keyframe){0.0, v3(3, 1, 0), v3(0, 1, 0), 0.0};
    ball.shape.keys[1] = (pw_keyframe){1.0, v3(3, 1, 0), v3(0, 1, 0), 2.0};
    CHECK(pw_colliders_add(cs, &ball, &err) == PW_OK, "6 add ball: %s", err.msg);
    CHECK(pw_colliders_count(cs) == 2, "6 count");
    CHECK_NEAR(pw_colliders_phi(cs, 0.5, v3(0, 0.25, 0)), 0.25, 1e-15, "6 phi above ground");
    CHECK_NEAR(pw_colliders_phi(cs, 0.5, v3(3, 1.25, 0)), -0.25, 1e-15, "6 phi in ball (min)");
    vec3 v = v3(3, -1, 4);
    vec3 n = v3_zero();
    CHECK(pw_colliders_apply(cs, 0.5, v3(0, -0.01, 0), &v, &n) == PW_CONTACT_NORMAL,
          "6a sliding contact constrains the normal only");
    check_vec(n, up, 0, "6a contact normal");
    check_vec(v, v3(2.7, 0, 3.6), 1e-15, "6a ground sliding");
    v = v3(1, 1, 1);
    CHECK(pw_colliders_apply(cs, 0.5, v3(0, -0.01, 0), &v, NULL) == PW_CONTACT_NONE, "6b separating not applied");
    check_vec(v, v3(1, 1, 1), 0, "6b separating untouched");
    v = v3(1, -1, 1);
    CHECK(pw_colliders_apply(cs, 0.5, v3(0, 0.01, 0), &v, NULL) == PW_CONTACT_NONE, "6c outside not applied");
    /* 6d. inside the spinning sticky ball at x - T = (0.25, 0, 0): v_co = omega x r =
     * (0, 2, 0) x (0.25, 0, 0) = (0, 0, -0.5) */
    v = v3(5, 5, 5);
    CHECK(pw_colliders_apply(cs, 0.5, v3(3.25, 1, 0), &v, NULL) == PW_CONTACT_ALL, "6d sticky holds all");
    check_vec(v, v3(0, 0, -0.5), 1e-15, "6d sticky moves with the spinning collider");
    /* 6e. poses formed once for a time (pw_colliders_pose_at, as a step does) give the
     * bits of poses formed per point, and calls at another time form their own: a box
     * that slides and turns holds the first point at t = 0.5, not at t = 0.25, so a
     * stale pose would answer differently there */
    {
        pw_colliders *moving = pw_colliders_create(0.1, &err);
        pw_collider_desc box = {.friction = 0.3, .sticky = 0};
        pw_shape_init(&box.shape, PW_SHAPE_BOX);
        box.shape.half_extents = v3(0.3, 0.3, 0.3);
        box.shape.n_keys = 2;
        box.shape.keys[0] = (pw_keyframe){0.0, v3(0, 0, 0), v3(0, 0, 1), 0.0};
        box.shape.keys[1] = (pw_keyframe){1.0, v3(2, 0, 0), v3(0, 0, 1), 1.0};
        CHECK(moving && pw_colliders_add(moving, &box, &err) == PW_OK, "6e add box: %s",
              err.msg);
        vec3 pts[3] = {v3(1.05, 0.1, 0), v3(0.9, -0.2, 0.1), v3(0.55, 0.05, -0.2)};
        double times[2] = {0.5, 0.25};
        vec3 want[2][3];
        pw_contact want_kind[2][3];
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++) {
                want[t][k] = v3(1, -2, 0.5);
                want_kind[t][k] = pw_colliders_apply(moving, times[t], pts[k], &want[t][k], NULL);
            }
        CHECK(want_kind[0][0] != PW_CONTACT_NONE && want_kind[1][0] == PW_CONTACT_NONE,
              "6e the box holds the first point at t = 0.5 only");
        pw_colliders_pose_at(moving, 0.5);
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < 3; k++) {
                vec3 v = v3(1, -2, 0.5);
                pw_contact kind = pw_colliders_apply(moving, times[t], pts[k], &v, NULL);
                CHECK(kind == want_kind[t][k] && memcmp(&v, &want[t][k], sizeof v) == 0,
                      "6e point %d at t = %g: the posed answer differs", k, times[t]);
            }
        pw_colliders_destroy(moving);
    }
    /* 7. bad input is refused with a message */
    pw_collider_desc bad = ground;
    bad.friction = -1;
    CHECK(pw_colliders_add(cs, &bad, &err) == PW_EINVAL && err.msg[0], "7 negative friction");
    bad = ball;
    bad.shape.radius = 0;
    CHECK(pw_colliders_add(cs, &bad, &err) == PW_EINVAL, "7 zero radius");
    CHECK(pw_colliders_count(cs) == 2, "7 refused colliders not added");
    pw_colliders_destroy(cs);
    pw_colliders_destroy(NULL);
    CHECK(pw_colliders_create(0, &err) == NULL && err.code == PW_EINVAL, "7 h = 0");
    return check_done("collide_velocity_projection");
}
