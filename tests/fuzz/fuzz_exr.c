/* fuzz_exr.c — libFuzzer target for the EXR reader (memory variant): any bytes must be
 * read or refused with a message naming the input, never crash or overrun. An accepted
 * image has a sane size and only finite values, and every value is read so that the
 * sanitizers check the whole buffer. OpenEXRCore is a system library, so only our code
 * is coverage-instrumented; crashes inside the library are still caught. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pw_error err = {0};
    int w = 0, h = 0;
    float *rgba = NULL;
    pw_status rc = pw_exr_read_rgba_memory("fuzz.exr", data, size, &w, &h, &rgba, &err);
    if (rc == PW_OK) {
        if (!rgba || w <= 0 || h <= 0 || (int64_t)w * h > ((int64_t)1 << 28)) __builtin_trap();
        for (size_t i = 0; i < (size_t)w * h * 4; i++)
            if (!isfinite(rgba[i])) __builtin_trap();
        free(rgba);
    } else if (rgba != NULL || strncmp(err.msg, "fuzz.exr: ", 10) != 0) {
        __builtin_trap();
    }
    return 0;
}
