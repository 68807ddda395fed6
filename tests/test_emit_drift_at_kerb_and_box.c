/* Where fallen snow lies (sim/emit.h): in still air a box's top collects as much snow a
 * square metre as the ground beside it (within 10 %); in a wind across a kerb, the
 * windward side holds a drift deeper than the lee, which the kerb shelters. Measured as
 * `powder stats --layer` measures (pw_stats_cache_layer on slim caches). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "mpm_fixture.h"
#include "pw_stats.h"

#define H 0.03

static pw_collider_desc box_collider(vec3 c, vec3 half)
{
    pw_collider_desc b;
    memset(&b, 0, sizeof b);
    pw_shape_init(&b.shape, PW_SHAPE_BOX);
    b.shape.center = c;
    b.shape.half_extents = half;
    b.friction = 0.6;
    return b;
}

/* Snow fallen for t_end on the ground and the collider, from a source over [x0, x1]. */
static pw_sim *fall(const pw_collider_desc *obstacle, vec3 wind, double x0, double x1,
                    double t_end, const char *path)
{
    pw_sim_params p;
    fixture_params(&p, H, v3(-0.8, -3 * H, -0.2), v3(0.8, 0.6, 0.2));
    p.gravity = v3(0, -9.81, 0);
    p.air_velocity = wind;
    p.threads = 2;
    pw_error err = {0};
    pw_sim *s = pw_sim_create(&p, &err);
    pw_source_desc d; /* 6 kg/m^2 a second */
    fixture_snowfall(&d, v3(0.5 * (x0 + x1), 0.5, 0), v3(0.5 * (x1 - x0), 0.02, 0.17),
                     6.0 * (x1 - x0) * 0.34, t_end - 0.6);
    d.jitter = 0.05;
    d.velocity = v3_add(wind, d.velocity);
    d.seed = 9;
    if (!s || fixture_ground(s, 0.8, &err) != PW_OK || pw_sim_add_collider(s, obstacle, &err) ||
        pw_sim_add_source(s, &d, &err) != PW_OK ||
        pw_sim_advance_to(s, t_end, NULL, NULL, &err) != PW_OK ||
        pw_sim_save_slim(s, path, 0, 0, &err) != PW_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        exit(1);
    }
    return s;
}

static pw_layer_stats layer(const char *path, double x0, double x1, double y0)
{
    pw_layer_region r = {x0, -0.12, x1, 0.12, y0};
    pw_layer_stats L;
    pw_error err = {0};
    if (pw_stats_cache_layer(path, &r, &L, &err) != PW_OK) {
        fprintf(stderr, "layer: %s\n", err.msg);
        exit(1);
    }
    return L;
}

int main(void)
{
    /* a box 0.4 m long across x and 0.12 m tall in still air: its top's middle 0.32 m
     * against as much ground on either side, 0.1 m from it */
    pw_collider_desc box = box_collider(v3(0, 0.06, 0), v3(0.2, 0.06, 0.3));
    pw_sim *s = fall(&box, v3_zero(), -0.7, 0.7, 1.6, "fallen_on_box.pwc");
    pw_layer_stats top = layer("fallen_on_box.pwc", -0.16, 0.16, 0.12);
    pw_layer_stats left = layer("fallen_on_box.pwc", -0.62, -0.3, 0);
    pw_layer_stats right = layer("fallen_on_box.pwc", 0.3, 0.62, 0);
    double on_top = top.mass / top.area, beside = (left.mass + right.mass) / (left.area + right.area);
    printf("still air: %.3f kg/m^2 on the box's top, %.3f beside it (%.1f %%); depths %.3f, "
           "%.3f, %.3f m\n", on_top, beside, 100 * (on_top / beside - 1), top.depth_mean,
           left.depth_mean, right.depth_mean);
    CHECK(fabs(on_top / beside - 1) < 0.10, "the box's top collects what the ground does");
    pw_sim_destroy(s);

    /* a kerb 0.06 m wide and 0.12 m tall across a 0.5 m/s wind along +x: the source
     * starts upwind so that the flakes (0.5 m of drift over their fall) cover both sides */
    pw_collider_desc kerb = box_collider(v3(0, 0.06, 0), v3(0.03, 0.06, 0.3));
    s = fall(&kerb, v3(0.5, 0, 0), -0.8 + 0.25, 0.25, 1.6, "fallen_at_kerb.pwc");
    pw_layer_stats windward = layer("fallen_at_kerb.pwc", -0.15, -0.03, 0);
    pw_layer_stats lee = layer("fallen_at_kerb.pwc", 0.03, 0.15, 0);
    printf("wind 0.5 m/s: windward of the kerb %.3f m deep (%.3f kg), lee %.3f m (%.3f kg)\n",
           windward.depth_mean, windward.mass, lee.depth_mean, lee.mass);
    CHECK(windward.depth_mean > 1.2 * lee.depth_mean && windward.mass > lee.mass,
          "the kerb's windward side holds the deeper snow");
    pw_sim_destroy(s);
    return check_done("emit_drift_at_kerb_and_box");
}
