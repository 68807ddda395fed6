/* file.c — atomic writes and small file helpers; see pw_file.h. */
#include "pw_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void pw_atomic_tmp_name(const char *path, char *tmp, size_t tmp_size)
{
    snprintf(tmp, tmp_size, "%s.tmp.%ld", path, (long)getpid());
}

static void fsync_parent_dir(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = '\0';
    else if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        fsync(fd); /* best effort: some file systems refuse fsync on directories */
        close(fd);
    }
}

pw_status pw_atomic_begin(pw_atomic_file *f, const char *path, pw_error *err)
{
    memset(f, 0, sizeof *f);
    if (strlen(path) + 32 >= sizeof f->path)
        return pw_fail(err, PW_EINVAL, "%s: path too long", path);
    snprintf(f->path, sizeof f->path, "%s", path);
    pw_atomic_tmp_name(path, f->tmp_path, sizeof f->tmp_path);
    f->fp = fopen(f->tmp_path, "wb");
    if (!f->fp)
        return pw_fail(err, PW_EIO, "%s: cannot create (%s)", f->tmp_path, strerror(errno));
    return PW_OK;
}

pw_status pw_atomic_write(pw_atomic_file *f, const void *data, size_t n, pw_error *err)
{
    if (n && fwrite(data, 1, n, f->fp) != n)
        return pw_fail(err, PW_EIO, "%s: write failed (%s)", f->tmp_path, strerror(errno));
    return PW_OK;
}

pw_status pw_atomic_rename(const char *tmp, const char *path, pw_error *err)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        remove(tmp);
        return pw_fail(err, PW_EIO, "%s: cannot sync (%s)", tmp, strerror(e));
    }
    close(fd);
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return pw_fail(err, PW_EIO, "%s: cannot rename into place (%s)", path, strerror(e));
    }
    fsync_parent_dir(path);
    return PW_OK;
}

pw_status pw_atomic_commit(pw_atomic_file *f, pw_error *err)
{
    if (!f->fp) return pw_fail(err, PW_EINVAL, "%s: not open", f->path);
    int bad = fflush(f->fp) != 0 || ferror(f->fp);
    int e = errno;
    if (fclose(f->fp) != 0 && !bad) { bad = 1; e = errno; }
    f->fp = NULL;
    if (bad) {
        remove(f->tmp_path);
        return pw_fail(err, PW_EIO, "%s: write failed (%s)", f->tmp_path, strerror(e));
    }
    return pw_atomic_rename(f->tmp_path, f->path, err);
}

void pw_atomic_abort(pw_atomic_file *f)
{
    if (f->fp) fclose(f->fp);
    f->fp = NULL;
    if (f->tmp_path[0]) remove(f->tmp_path);
}

pw_status pw_mkdir_p(const char *dir, pw_error *err)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return pw_fail(err, PW_EINVAL, "%s: path too long", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return pw_fail(err, PW_EIO, "%s: cannot create directory (%s)", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return pw_fail(err, PW_EIO, "%s: cannot create directory (%s)", buf, strerror(errno));
    return PW_OK;
}

pw_status pw_mkdir_parent(const char *path, pw_error *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return PW_OK;
    *slash = '\0';
    return pw_mkdir_p(dir, err);
}

pw_status pw_read_file(const char *path, size_t max_bytes, char **data, size_t *size,
                       pw_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return pw_fail_open(err, path, errno);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(fp);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory", path);
    }
    for (;;) {
        if (n == cap) {
            if (cap >= max_bytes) {
                free(buf);
                fclose(fp);
                return pw_fail(err, PW_EINVAL, "%s: larger than the %zu-byte limit", path,
                               max_bytes);
            }
            size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(fp);
                return pw_fail(err, PW_ENOMEM, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(fp);
    fclose(fp);
    if (bad) {
        free(buf);
        return pw_fail(err, PW_EIO, "%s: read failed", path);
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return PW_OK;
}

pw_status pw_path_format(char *out, size_t n, pw_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(out, n, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= n)
        return pw_fail(err, PW_EINVAL, "%.200s...: path longer than %zu bytes", out, n - 1);
    return PW_OK;
}

int pw_frame_pattern_runs(const char *pattern, size_t *start, size_t *len)
{
    int runs = 0;
    for (size_t k = 0; pattern[k]; k++) {
        if (pattern[k] != '#' || (k > 0 && pattern[k - 1] == '#')) continue;
        size_t n = 0;
        while (pattern[k + n] == '#') n++;
        if (runs++ == 0) *start = k, *len = n;
    }
    return runs;
}

pw_status pw_frame_path(const char *pattern, int frame, char *out, size_t out_size,
                        pw_error *err)
{
    size_t start = 0, len = 0;
    int runs = pw_frame_pattern_runs(pattern, &start, &len);
    if (runs != 1)
        return pw_fail(err, PW_EINVAL, "frame pattern \"%.200s\": needs exactly one run of "
                       "'#', found %d", pattern, runs);
    if (frame < 0)
        return pw_fail(err, PW_EINVAL, "frame pattern \"%.200s\": negative frame (%d)",
                       pattern, frame);
    /* The run's length is the minimum digit count; precision of %.*d zero-pads. */
    int n = snprintf(out, out_size, "%.*s%0*d%s", (int)start, pattern, (int)len, frame,
                     pattern + start + len);
    if (n < 0 || (size_t)n >= out_size)
        return pw_fail(err, PW_EINVAL, "frame pattern \"%.200s\": path for frame %d does not "
                       "fit in %zu bytes", pattern, frame, out_size);
    return PW_OK;
}
