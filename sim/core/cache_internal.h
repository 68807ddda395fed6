/* cache_internal.h — the byte layout of frame cache files, shared by the writer
 * (cache.c) and the reader (cache_read.c); not installed, not for other modules. */
#ifndef PW_CACHE_INTERNAL_H
#define PW_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pw_cache.h"

/* ---- format constants ------------------------------------------------------ */

/* Byte sequence (not an integer, so no byte order): 0x89 catches 7-bit transports,
 * CR LF and LF catch line-ending conversion, 0x1A stops DOS `type`, as in PNG. */
static const unsigned char cache_magic[8] = {0x89, 'P', 'W', 'C', '\r', '\n', 0x1A, '\n'};

/* Header field offsets of format 1.0 [B]. */
enum {
    OFF_MAGIC = 0,
    OFF_MAJOR = 8,        /* u16 */
    OFF_MINOR = 10,       /* u16 */
    OFF_HEADER_SIZE = 12, /* u32, this header's length; >= HEADER_SIZE_V1 */
    OFF_GLOBAL_SIZE = 16, /* u32, one global entry's length */
    OFF_ENTRY_SIZE = 20,  /* u32, one attribute entry's length */
    OFF_N_GLOBALS = 24,   /* u32 */
    OFF_N_ATTRS = 28,     /* u32 */
    OFF_FILE_SIZE = 32,   /* u64, the whole file [B] */
    OFF_COUNT = 40,       /* u64 */
    OFF_TIME = 48,        /* f64 [s] */
    OFF_H = 56,           /* f64 [m] */
    OFF_FRAME = 64,       /* i64 */
    OFF_STEP = 72,        /* u64 */
    OFF_SIM_HASH = 80,    /* u64 */
    OFF_RESERVED = 88,    /* u64, written 0, ignored by 1.x readers */
    HEADER_SIZE_V1 = 96
};
_Static_assert(OFF_RESERVED + 8 == HEADER_SIZE_V1, "cache header 1.0 is 96 bytes");

/* Global entry: name[32], f64 value. */
enum { GOFF_NAME = 0, GOFF_VALUE = 32, GLOBAL_SIZE_V1 = 40 };
_Static_assert(GOFF_VALUE + 8 == GLOBAL_SIZE_V1, "cache global entry 1.0 is 40 bytes");

/* Attribute entry. */
enum {
    AOFF_NAME = 0,
    AOFF_TYPE = 32,       /* u32 pw_scalar_type */
    AOFF_COMPONENTS = 36, /* u32 */
    AOFF_FLAGS = 40,      /* u32, ATTR_SHUFFLED */
    AOFF_CRC = 44,        /* u32, CRC-32 of the compressed bytes */
    AOFF_OFFSET = 48,     /* u64 [B] from the start of the file */
    AOFF_CSIZE = 56,      /* u64 compressed bytes */
    AOFF_RSIZE = 64,      /* u64 raw bytes */
    ENTRY_SIZE_V1 = 72
};
_Static_assert(AOFF_RSIZE + 8 == ENTRY_SIZE_V1, "cache attribute entry 1.0 is 72 bytes");
_Static_assert(sizeof(double) == 8 && sizeof(float) == 4, "IEEE-754 binary64/binary32");

#define ATTR_SHUFFLED 1u
#define ATTR_KNOWN_FLAGS ATTR_SHUFFLED
/* Later minor versions may lengthen header and entries; beyond this they are damage. */
#define MAX_STRUCT_SIZE 4096u
/* zstd cannot beat one 4-byte RLE block per 128 KiB, so a declared ratio above
 * 32768:1 is a lie; the 1 MiB slack covers frame headers of tiny attributes. */
#define MAX_RATIO 32768u
#define RATIO_SLACK ((uint64_t)1 << 20)
#define DEFAULT_LEVEL 3
#define CHUNK ((size_t)1 << 20) /* stat checksums in chunks of this size [B] */

/* ---- little-endian fields and checksums ------------------------------------ */

static inline void put_u16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}
static inline void put_u32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static inline void put_u64(unsigned char *p, uint64_t v)
{
    for (int k = 0; k < 8; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static inline void put_f64(unsigned char *p, double x)
{
    uint64_t v;
    memcpy(&v, &x, 8);
    put_u64(p, v);
}
static inline uint16_t get_u16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int k = 3; k >= 0; k--) v = v << 8 | p[k];
    return v;
}
static inline uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
    return v;
}
static inline double get_f64(const unsigned char *p)
{
    uint64_t v = get_u64(p);
    double x;
    memcpy(&x, &v, 8);
    return x;
}

/* ---- shared helpers (cache.c) ---------------------------------------------- */

/* CRC-32 (IEEE 802.3, zlib's crc32); chain chunks as crc = f(f(0, a), b). */
uint32_t pw_cache_crc32(uint32_t crc, const void *data, size_t n);
/* Byte k (little-endian significance) of every value, for k = 0..size-1. */
void pw_cache_shuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t size);
/* Inverse; shuffled == 0: src holds plain little-endian values. */
void pw_cache_unshuffle(unsigned char *dst, const unsigned char *src, size_t n, size_t size,
                        int shuffled);
/* 1 when a 32-byte field holds a non-empty printable ASCII name and a NUL. */
int pw_cache_name_ok(const char name[32]);

#endif
