/* Property: the preview settings pw_exr_write records ("powder:previewExposure", double;
 * "powder:previewView" and "powder:previewLook", strings) read back through
 * pw_exr_read_preview exactly (tolerance 0: a double and strings are stored as they
 * are), absent ones read as absent, and a damaged or wrong-typed record is an error
 * naming the file and the attribute, never a crash or a silent value.
 *   1. exposure -5.4, a view and a look: all three exact;
 *   2. exposure only (view and look NULL): names "";
 *   3. has_preview 0: nothing recorded, has_exposure 0;
 *   4. the writer refuses a NaN exposure, one beyond 64 stops and an over-long name
 *      (PW_EINVAL), leaving no file;
 *   5. damaged files, made by patching the bytes of case 1's header in place:
 *      5.1 the exposure's type renamed "string" (its 8 bytes then a string);
 *      5.2 the view's type renamed "double" (an 8-byte view read as a double);
 *      5.3 the exposure's bytes a NaN; 5.4 the exposure 100 stops;
 *      5.5 the exposure's size field 2^31 - 1 (the library skips it, misreading the rest);
 *      5.6 the file cut inside the header;
 *   each PW_EFORMAT (5.6: any error) naming the file, and the attribute where its
 *   value is what is wrong. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exr.h"
#include "test_util.h"

enum { W = 4, H = 2 };

static float pixels[W * H * 4];

static pw_status write_with(const char *path, int has, double ev, const char *view,
                            const char *look, pw_error *err)
{
    pw_image img = {.width = W, .height = H, .rgba = pixels};
    pw_exr_options o;
    pw_exr_options_default(&o);
    o.has_preview = has;
    o.preview_exposure = ev;
    o.preview_view = view;
    o.preview_look = look;
    return pw_exr_write(path, &img, &o, err);
}

static void spit(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n) exit(3);
    fclose(f);
}

/* Offset of the attribute record "name\0type\0" in b, or -1. */
static long find_attr(const unsigned char *b, size_t n, const char *name, const char *type)
{
    char key[128];
    size_t ln = strlen(name) + 1, lk = ln + strlen(type) + 1;
    memcpy(key, name, ln);
    memcpy(key + ln, type, strlen(type) + 1);
    for (size_t k = 0; k + lk <= n; k++)
        if (memcmp(b + k, key, lk) == 0) return (long)k;
    return -1;
}

/* Writes a copy of good with its bytes at `at` replaced by len bytes of with; returns
 * pw_exr_read_preview's status on it, the message in err. */
static pw_status read_patched(const unsigned char *good, size_t n, const char *path, long at,
                              const void *with, size_t len, pw_exr_preview *pv, pw_error *err)
{
    unsigned char *b = malloc(n);
    memcpy(b, good, n);
    if (at >= 0 && (size_t)at + len <= n) memcpy(b + at, with, len);
    spit(path, b, n);
    free(b);
    return pw_exr_read_preview(path, pv, err);
}

int main(void)
{
    for (int k = 0; k < W * H * 4; k++) pixels[k] = 0.25f * (float)(k % 5);
    char path[4096], bad[4096];
    snprintf(path, sizeof path, "%s/exr_preview.exr", POWDER_TEST_TMP);
    snprintf(bad, sizeof bad, "%s/exr_preview_bad.exr", POWDER_TEST_TMP);
    pw_error err = {0};
    pw_exr_preview pv;

    /* 1. all three */
    const char *look = "ACES 1.3 Reference Gamut Compression";
    CHECK(write_with(path, 1, -5.4, "Viewabcd", look, &err) == PW_OK, "1 write: %s", err.msg);
    CHECK(pw_exr_read_preview(path, &pv, &err) == PW_OK, "1 read: %s", err.msg);
    CHECK(pv.has_exposure && pv.exposure == -5.4, "1.1 exposure %d %.17g", pv.has_exposure,
          pv.exposure);
    CHECK(strcmp(pv.view, "Viewabcd") == 0, "1.2 view '%s'", pv.view);
    CHECK(strcmp(pv.look, look) == 0, "1.3 look '%s'", pv.look);
    size_t n = 0;
    unsigned char *good = (unsigned char *)slurp(path, &n);
    CHECK(good && n > 0, "1.4 cannot read %s back", path);

    /* 2. exposure only */
    CHECK(write_with(bad, 1, 3.25, NULL, NULL, &err) == PW_OK, "2 write: %s", err.msg);
    CHECK(pw_exr_read_preview(bad, &pv, &err) == PW_OK, "2 read: %s", err.msg);
    CHECK(pv.has_exposure && pv.exposure == 3.25 && !pv.view[0] && !pv.look[0],
          "2: %d %g '%s' '%s'", pv.has_exposure, pv.exposure, pv.view, pv.look);

    /* 3. nothing recorded */
    CHECK(write_with(bad, 0, -5.4, "x", "y", &err) == PW_OK, "3 write: %s", err.msg);
    CHECK(pw_exr_read_preview(bad, &pv, &err) == PW_OK, "3 read: %s", err.msg);
    CHECK(!pv.has_exposure && pv.exposure == 0 && !pv.view[0] && !pv.look[0],
          "3: %d %g '%s' '%s'", pv.has_exposure, pv.exposure, pv.view, pv.look);

    /* 4. the writer refuses */
    char refused[4096], longname[PW_EXR_PREVIEW_NAME_CAP + 1];
    snprintf(refused, sizeof refused, "%s/exr_preview_refused.exr", POWDER_TEST_TMP);
    remove(refused);
    memset(longname, 'v', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    const double evs[3] = {NAN, 65, 0};
    for (int k = 0; k < 3; k++) {
        pw_status rc = write_with(refused, 1, evs[k], k == 2 ? longname : NULL, NULL, &err);
        FILE *f = fopen(refused, "rb");
        CHECK(rc == PW_EINVAL && strstr(err.msg, refused) && !f, "4.%d: %d '%s' (file left: %d)",
              k + 1, (int)rc, err.msg, f != NULL);
        if (f) fclose(f);
    }

    /* 5. damaged */
    if (good) {
        long ev_at = find_attr(good, n, "powder:previewExposure", "double");
        long view_at = find_attr(good, n, "powder:previewView", "string");
        CHECK(ev_at >= 0 && view_at >= 0, "5: attributes not found in the file (%ld, %ld)", ev_at,
              view_at);
        long ev_type = ev_at + (long)strlen("powder:previewExposure") + 1;
        long ev_size = ev_type + (long)strlen("double") + 1, ev_value = ev_size + 4;
        long view_type = view_at + (long)strlen("powder:previewView") + 1;
        double nan_v = NAN, far_v = 100;
        int32_t huge = INT32_MAX; /* (the file is little-endian, as is every host we build on) */
        const struct {
            const char *what, *attr; /* attr: NULL when any error will do */
            long at;
            const void *with;
            size_t len;
        } cases[5] = {{"5.1", "powder:previewExposure", ev_type, "string", 6},
                      {"5.2", "powder:previewView", view_type, "double", 6},
                      {"5.3", "powder:previewExposure", ev_value, &nan_v, 8},
                      {"5.4", "powder:previewExposure", ev_value, &far_v, 8},
                      {"5.5", NULL, ev_size, &huge, 4}};
        for (int c = 0; c < 5; c++) {
            memset(&err, 0, sizeof err);
            pw_status rc = read_patched(good, n, bad, cases[c].at, cases[c].with, cases[c].len,
                                        &pv, &err);
            int format = rc == PW_EFORMAT;
            CHECK(format && strstr(err.msg, bad) &&
                      (!cases[c].attr || strstr(err.msg, cases[c].attr)),
                  "%s: status %d, message '%s'", cases[c].what, (int)rc, err.msg);
            CHECK(!pv.has_exposure && !pv.view[0], "%s: a value was left in *out", cases[c].what);
        }
        /* 5.6 cut inside the header */
        spit(bad, good, (size_t)ev_value);
        memset(&err, 0, sizeof err);
        CHECK(pw_exr_read_preview(bad, &pv, &err) != PW_OK && strstr(err.msg, bad),
              "5.6: a file cut in its header read as good ('%s')", err.msg);
    }
    free(good);
    return check_done("exr_preview_round_trip");
}
