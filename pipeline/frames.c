/* frames.c — parsing of --frames specifications; see frames.h. */
#include "frames.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest list we build: a frame list is for people, and 1e6 frames is 11 hours of
 * film at 24 fps; anything larger is a typo. */
enum { MAX_FRAMES = 1000000 };

static int parse_int(const char **s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno || v < INT_MIN || v > INT_MAX) return 0;
    *s = end;
    *out = (int)v;
    return 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static pw_status append(pw_frame_list *l, int *cap, int f, pw_error *err)
{
    if (l->count == *cap) {
        if (*cap >= MAX_FRAMES)
            return pw_fail(err, PW_EINVAL, "--frames: more than %d frames", MAX_FRAMES);
        int ncap = *cap ? *cap * 2 : 64;
        int *n = realloc(l->frames, (size_t)ncap * sizeof *n);
        if (!n) return pw_fail(err, PW_ENOMEM, "--frames: out of memory");
        l->frames = n;
        *cap = ncap;
    }
    l->frames[l->count++] = f;
    return PW_OK;
}

pw_status pw_frames_parse(const char *spec, int lo, int hi, pw_frame_list *out, pw_error *err)
{
    memset(out, 0, sizeof *out);
    int cap = 0;
    const char *s = spec;
    if (!*s) return pw_fail(err, PW_EINVAL, "--frames: empty list");
    while (*s) {
        const char *item = s;
        int a, b, step = 1;
        if (!parse_int(&s, &a)) goto bad;
        b = a;
        if (*s == '-') {
            s++;
            if (!parse_int(&s, &b)) goto bad;
            if (*s == 'x') {
                s++;
                if (!parse_int(&s, &step) || step < 1) goto bad;
            }
        }
        if (*s && *s != ',') goto bad;
        if (b < a) {
            pw_frame_list_free(out);
            return pw_fail(err, PW_EINVAL, "--frames '%s': range %d-%d runs backwards", spec, a, b);
        }
        if (a < 0) { /* "-1" is frame -1, never a range: say so rather than "-1--1" */
            pw_frame_list_free(out);
            return pw_fail(err, PW_EINVAL, "--frames '%s': frame %d: frame numbers start at 0 "
                           "(the shot's frames are %d-%d)", spec, a, lo, hi);
        }
        if (a < lo || b > hi) {
            pw_frame_list_free(out);
            if (a == b)
                return pw_fail(err, PW_EINVAL, "--frames '%s': frame %d is outside the shot's "
                               "%d-%d", spec, a, lo, hi);
            return pw_fail(err, PW_EINVAL, "--frames '%s': frames %d-%d reach outside the "
                           "shot's %d-%d", spec, a, b, lo, hi);
        }
        for (long f = a; f <= b; f += step) {
            pw_status rc = append(out, &cap, (int)f, err);
            if (rc != PW_OK) {
                pw_frame_list_free(out);
                return rc;
            }
        }
        if (*s == ',') {
            s++;
            if (!*s) goto bad;
        }
        continue;
    bad:
        pw_frame_list_free(out);
        return pw_fail(err, PW_EINVAL,
                       "--frames '%s': cannot read '%s' (expected N, A-B or A-BxSTEP, comma separated)",
                       spec, item);
    }
    qsort(out->frames, (size_t)out->count, sizeof *out->frames, cmp_int);
    int n = 0;
    for (int i = 0; i < out->count; i++)
        if (n == 0 || out->frames[n - 1] != out->frames[i]) out->frames[n++] = out->frames[i];
    out->count = n;
    return PW_OK;
}

pw_status pw_frames_range(int lo, int hi, pw_frame_list *out, pw_error *err)
{
    char spec[64];
    snprintf(spec, sizeof spec, "%d-%d", lo, hi);
    return pw_frames_parse(spec, lo, hi, out, err);
}

void pw_frame_list_free(pw_frame_list *l)
{
    if (!l) return;
    free(l->frames);
    l->frames = NULL;
    l->count = 0;
}
