/* stream.h — stores that bypass the caches (internal to sim/).
 *
 * Why: an ordinary store first brings its line into the writing core's cache, reading
 * it from memory or taking it from another core. For arrays that a loop writes whole and
 * that are read only much later (K, 324 bytes a particle) or by another thread (the
 * solver's action input, read by every thread's action), that read is pure cost: at
 * 3e5 particles and 2 threads it was measured in the reorder, K's formation and the
 * solver's update pass (sim/docs/step-speed.md, third round). A non-temporal store
 * writes the line without reading it.
 *
 * Streamed stores are weakly ordered: a thread that streams must call pw_stream_fence()
 * before the barrier after which other threads read what it wrote. Where the target has
 * no such stores (not x86-64), these are ordinary copies and the fence does nothing. */
#ifndef PW_STREAM_H
#define PW_STREAM_H

#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#define PW_STREAMED 1
#else
#define PW_STREAMED 0
#endif

/* dst = src, 16 bytes; dst 16-byte aligned */
static inline void pw_stream_store16(void *dst, const void *src)
{
#if PW_STREAMED
    __m128i v;
    memcpy(&v, src, sizeof v);
    _mm_stream_si128((__m128i *)dst, v);
#else
    memcpy(dst, src, 16);
#endif
}

/* dst = src, n bytes, n a multiple of 4 and dst 4-byte aligned: 8-byte words, then a
 * 4-byte tail */
static inline void pw_stream_copy(void *dst, const void *src, size_t n)
{
#if PW_STREAMED
    char *d = dst;
    const char *s = src;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        long long w;
        memcpy(&w, s + k, sizeof w);
        _mm_stream_si64((long long *)(void *)(d + k), w);
    }
    if (k < n) {
        int w;
        memcpy(&w, s + k, sizeof w);
        _mm_stream_si32((int *)(void *)(d + k), w);
    }
#else
    memcpy(dst, src, n);
#endif
}

/* Orders this thread's streamed stores before its later stores (and so before the
 * barrier that follows). */
static inline void pw_stream_fence(void)
{
#if PW_STREAMED
    _mm_sfence();
#endif
}

#endif
