/* Property: pw_cache_write is all-or-nothing. A write that fails (missing directory,
 * the file-size limit hit in the middle of the data, a directory in the way, a frame
 * refused for NaN) leaves no file under the final name and no temporary file behind,
 * and an existing good file under that name survives byte for byte and still reads.
 * Exact comparisons: the property is about bytes on disk, there is nothing to round.
 * The mid-write failure is real: RLIMIT_FSIZE makes write(2) fail with EFBIG once the
 * file passes 4 KiB, while the frame compresses to far more than that. */
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "check.h"
#include "pw_cache.h"
#include "pw_file.h"
#include "test_util.h"

#define DIR_ POWDER_TEST_TMP "/atomic"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in DIR_ whose name starts with prefix and contains ".tmp.". */
static int temporaries(const char *prefix)
{
    DIR *d = opendir(DIR_);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

int main(void)
{
    pw_error err = {0};
    pw_mkdir_p(DIR_, &err);
    /* pseudo-random floats: they barely compress, so the file is ~ 4 x 30000 B */
    size_t np = 10000;
    float *v = malloc(np * 3 * sizeof *v);
    unsigned s = 99;
    for (size_t i = 0; i < 3 * np; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (float)(s >> 8) * 1e-3f;
    }
    pw_cache_attr at = {.name = "v", .type = PW_F32, .components = 3, .data = v};
    pw_cache_frame f = {.count = np, .time = 2, .h = 0.01, .n_attrs = 1, .attrs = &at};

    /* 1. a missing directory: PW_EIO naming the path, nothing created */
    const char *nodir = DIR_ "/no/such/dir/f.pwc";
    CHECK(pw_cache_write(nodir, &f, &err) == PW_EIO && strstr(err.msg, "no/such/dir/f.pwc"),
          "missing directory: %s", err.msg);
    CHECK(!exists(nodir), "no file in a missing directory");

    /* 2. the file-size limit hit in the middle of the data: no final, no temporary */
    const char *fresh = DIR_ "/fresh.pwc";
    remove(fresh);
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 4096;
    signal(SIGXFSZ, SIG_IGN); /* write(2) then fails with EFBIG instead of killing us */
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    pw_status rc = pw_cache_write(fresh, &f, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(rc == PW_EIO && strstr(err.msg, "fresh.pwc"), "size limit: %s %s", pw_status_name(rc),
          err.msg);
    CHECK(!exists(fresh), "no file under the final name after a failed write");
    CHECK(temporaries("fresh.pwc") == 0, "no temporary left (%d)", temporaries("fresh.pwc"));

    /* 3. an existing good file survives a failed overwrite, byte for byte */
    const char *keep = DIR_ "/keep.pwc";
    pw_cache_frame small = f;
    small.count = 100; /* ~1.2 kB: fits under the limit */
    small.frame = 1;
    CHECK(pw_cache_write(keep, &small, &err) == PW_OK, "%s", err.msg);
    size_t n0 = 0, n1 = 0;
    char *before = slurp(keep, &n0);
    CHECK(before && n0 < 4096, "small file (%zu bytes)", n0);
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit");
    rc = pw_cache_write(keep, &f, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(rc == PW_EIO, "overwrite under the limit fails: %s", err.msg);
    char *after = slurp(keep, &n1);
    CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0,
          "old file intact (%zu vs %zu bytes)", n0, n1);
    pw_cache_frame r;
    CHECK(pw_cache_read(keep, NULL, 0, &r, &err) == PW_OK && r.frame == 1 && r.count == 100,
          "old file still reads: %s", err.msg);
    pw_cache_frame_free(&r);
    CHECK(temporaries("keep.pwc") == 0, "no temporary left after the failed overwrite");
    free(after);

    /* 4. a frame refused for NaN does not touch the existing file */
    v[5] = 0.0f / 0.0f;
    CHECK(pw_cache_write(keep, &small, &err) == PW_ENUMERIC, "NaN refused: %s", err.msg);
    after = slurp(keep, &n1);
    CHECK(after && n0 == n1 && memcmp(before, after, n0) == 0, "old file intact after NaN");
    free(after);
    v[5] = 1.0f;

    /* 5. a directory under the final name: rename fails, directory and nothing else left */
    const char *dirpath = DIR_ "/isdir.pwc";
    pw_mkdir_p(dirpath, &err);
    rc = pw_cache_write(dirpath, &small, &err);
    CHECK(rc == PW_EIO && strstr(err.msg, "isdir.pwc"), "directory in the way: %s %s",
          pw_status_name(rc), err.msg);
    struct stat st;
    CHECK(stat(dirpath, &st) == 0 && S_ISDIR(st.st_mode), "directory untouched");
    CHECK(temporaries("isdir.pwc") == 0, "no temporary left after a failed rename");

    /* 6. a successful overwrite replaces the file completely */
    CHECK(pw_cache_write(keep, &f, &err) == PW_OK, "%s", err.msg);
    CHECK(pw_cache_read(keep, NULL, 0, &r, &err) == PW_OK && r.count == np, "new file reads");
    pw_cache_frame_free(&r);

    free(before);
    free(v);
    return check_done("cache_atomic_write");
}
