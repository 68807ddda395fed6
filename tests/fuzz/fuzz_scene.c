/* fuzz_scene.c — libFuzzer target for the scene parser: any bytes must give either a
 * valid scene whose invariants hold or an error naming the input, never a crash, a
 * sanitizer report, a hang or an unterminated message.
 *
 * Build: tools/fuzz, or cmake -DPOWDER_FUZZ=ON -DCMAKE_C_COMPILER=clang
 *   -DCMAKE_CXX_COMPILER=clang++; run:
 *   fuzz_scene -max_total_time=60 tests/fuzz/corpus/scene */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

/* Asset paths resolve against the current directory; a fuzzer-made path can only name
 * existing regular files, which the parser opens and closes. */
#define NAME "fuzz.json"

static int finite3(vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static void check_scene(const pw_scene *s)
{
    /* What callers rely on after PW_OK; a violation is a parser bug. */
    if (s->n_bodies < 1 || s->n_bodies > PW_SCENE_MAX_BODIES) __builtin_trap();
    if (s->n_materials < 1 || s->n_materials > PW_SCENE_MAX_MATERIALS) __builtin_trap();
    for (int b = 0; b < s->n_bodies; b++) {
        if (s->body_material[b] < 0 || s->body_material[b] >= s->n_materials) __builtin_trap();
        if (s->bodies[b].n_add < 1) __builtin_trap();
        if (!finite3(s->bodies[b].velocity)) __builtin_trap();
    }
    if (!(s->sim.h > 0) || !(s->fps > 0) || s->frame_end < s->frame_start) __builtin_trap();
    if (s->camera.width_px < 1 || s->camera.height_px < 1 || s->render.spp < 1) __builtin_trap();
    if (!(s->medium.g > -1 && s->medium.g < 1)) __builtin_trap();
    if (s->particle_estimate > s->max_particles) __builtin_trap();
    if (s->n_surfaces + (s->draw_colliders ? s->n_colliders : 0) > PW_SCENE_MAX_SURFACES)
        __builtin_trap();
    char path[4096];
    pw_error err = {0};
    if (pw_frame_path(s->frame_pattern, s->frame_end, path, sizeof path, &err) != PW_OK &&
        strstr(err.msg, "does not fit") == NULL)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* pw_scene is a few MB; one per input keeps inputs independent. */
    pw_scene *s = malloc(sizeof *s);
    if (!s) return 0;
    pw_error err;
    memset(&err, 0, sizeof err);
    pw_status rc = pw_scene_parse(NAME, (const char *)data, size, "", s, &err);
    if (rc == PW_OK) {
        check_scene(s);
    } else {
        /* Every error names the input and is a terminated string. */
        if (memchr(err.msg, '\0', sizeof err.msg) == NULL) __builtin_trap();
        if (strncmp(err.msg, NAME, strlen(NAME)) != 0) __builtin_trap();
    }
    free(s);
    return 0;
}
