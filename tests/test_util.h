/* test_util.h — the file helpers every kind of test uses: a whole file read into memory,
 * whether a file exists, and whether two files hold the same bytes. */
#ifndef PW_TEST_UTIL_H
#define PW_TEST_UTIL_H

#include <stdio.h>
#include <sys/stat.h>

#include "pw_file.h"

/* The whole file at path, NUL-terminated (its size, without the NUL, in *n when n is not
 * NULL), or NULL when it cannot be read; the caller frees it. */
static inline char *slurp(const char *path, size_t *n)
{
    char *data = NULL;
    size_t size = 0;
    pw_error err = {0};
    if (pw_read_file(path, (size_t)1 << 30, &data, &size, &err) != PW_OK) return NULL;
    if (n) *n = size;
    return data;
}

static inline int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* 1 when both files exist and hold the same bytes. */
static inline int same_bytes(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF || cb == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

#endif
