/* fuzz_obj.c — libFuzzer target for the OBJ parser: any text must be parsed or refused
 * with PW_EFORMAT and a "name:line:" message, never crash; an accepted mesh has only
 * in-range, non-degenerate triangles and finite vertices. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "pw_obj.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pw_error err = {0};
    pw_mesh m;
    pw_status rc = pw_obj_parse("fuzz.obj", (const char *)data, size, &m, &err);
    if (rc == PW_OK) {
        if (m.n_triangles == 0 || m.n_vertices == 0) __builtin_trap();
        for (size_t k = 0; k < 3 * m.n_vertices; k++)
            if (!isfinite(m.vertices[k])) __builtin_trap();
        for (size_t t = 0; t < m.n_triangles; t++) {
            const uint32_t *v = m.triangles + 3 * t;
            if (v[0] >= m.n_vertices || v[1] >= m.n_vertices || v[2] >= m.n_vertices)
                __builtin_trap();
            if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) __builtin_trap();
        }
        pw_mesh_free(&m);
    } else if (rc != PW_EFORMAT && rc != PW_ENOMEM) {
        __builtin_trap();
    } else if (strncmp(err.msg, "fuzz.obj:", 9) != 0) {
        __builtin_trap();
    }
    return 0;
}
