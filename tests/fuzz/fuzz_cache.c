/* fuzz_cache.c — libFuzzer target for the frame cache reader: any byte string must be
 * read or refused with PW_EFORMAT and a message naming the input, never crash, leak or
 * return attributes that disagree with the header.
 *
 * Random bytes almost never pass the CRCs, which would leave the structural checks and
 * the zstd decoding behind them unfuzzed; so every input is also tried "resealed":
 * with its checksums recomputed wherever the header makes that possible. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache_internal.h"
#include "pw_cache.h"

static void one(const uint8_t *data, size_t size);

/* Recomputes the attribute CRCs (for extents inside the input) and the header CRC. */
static void reseal(uint8_t *b, size_t size)
{
    if (size < HEADER_SIZE_V1 || memcmp(b, cache_magic, sizeof cache_magic) != 0) return;
    uint64_t hs = get_u32(b + OFF_HEADER_SIZE), gs = get_u32(b + OFF_GLOBAL_SIZE),
             es = get_u32(b + OFF_ENTRY_SIZE), ng = get_u32(b + OFF_N_GLOBALS),
             na = get_u32(b + OFF_N_ATTRS);
    if (hs > 4096 || gs > 4096 || es < ENTRY_SIZE_V1 || es > 4096 || ng > 64 || na > 512) return;
    uint64_t meta = hs + ng * gs + na * es;
    if (meta + 4 > size) return;
    for (uint64_t a = 0; a < na; a++) {
        uint8_t *e = b + hs + ng * gs + a * es;
        uint64_t off = get_u64(e + AOFF_OFFSET), cs = get_u64(e + AOFF_CSIZE);
        if (off <= size && cs <= size - off) put_u32(e + AOFF_CRC, pw_cache_crc32(0, b + off, cs));
    }
    put_u32(b + meta, pw_cache_crc32(0, b, meta));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    one(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    reseal(copy, size);
    if (size == 0 || memcmp(copy, data, size) != 0) one(copy, size);
    free(copy);
    return 0;
}

static void one(const uint8_t *data, size_t size)
{
    pw_error err = {0};
    pw_cache_frame f;
    pw_status rc = pw_cache_read_memory("fuzz.pwc", data, size, NULL, 0, &f, &err);
    if (rc == PW_OK) {
        /* a frame that was accepted must be internally consistent */
        for (int a = 0; a < f.n_attrs; a++) {
            const pw_cache_attr *at = &f.attrs[a];
            size_t bytes = (size_t)f.count * at->components * pw_scalar_size(at->type);
            if (bytes && !at->data) __builtin_trap();
            if (bytes) {
                volatile unsigned char last = ((const unsigned char *)at->data)[bytes - 1];
                (void)last; /* ASan checks the whole declared extent is allocated */
            }
        }
        pw_cache_frame_free(&f);
    } else if (rc != PW_EFORMAT && rc != PW_ENOMEM) {
        __builtin_trap();
    } else if (strncmp(err.msg, "fuzz.pwc: ", 10) != 0) {
        __builtin_trap();
    }
    /* a subset read and stat take their own paths through the table */
    const char *names[2] = {"x", "v"};
    if (pw_cache_read_memory("fuzz.pwc", data, size, names, 2, &f, &err) == PW_OK)
        pw_cache_frame_free(&f);
    pw_cache_info info;
    (void)pw_cache_stat_memory("fuzz.pwc", data, size, &info, &err);
}
