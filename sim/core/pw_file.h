/* pw_file.h — atomic file output shared by every writer (caches, EXR, PNG, PLY):
 * write to "<path>.tmp.<pid>", fsync, rename over <path>, fsync the directory.
 * A process killed at any moment leaves either the old file or the complete new
 * one under <path>, never a partial one. */
#ifndef PW_FILE_H
#define PW_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "pw_error.h"

typedef struct {
    char path[4096];     /* final name */
    char tmp_path[4096]; /* where the bytes go until commit */
    FILE *fp;            /* open on tmp_path between begin and commit/abort */
} pw_atomic_file;

/* Opens the temporary file. On failure nothing is left on disk. */
pw_status pw_atomic_begin(pw_atomic_file *f, const char *path, pw_error *err);

/* Writes n bytes; errors name the file. */
pw_status pw_atomic_write(pw_atomic_file *f, const void *data, size_t n, pw_error *err);

/* Flushes, fsyncs, closes and renames the temporary file to the final name. On
 * failure the temporary file is removed. */
pw_status pw_atomic_commit(pw_atomic_file *f, pw_error *err);

/* Closes and removes the temporary file (after an error elsewhere). */
void pw_atomic_abort(pw_atomic_file *f);

/* For writers that need a path (libraries that open files themselves, like
 * OpenEXRCore): fills tmp with "<path>.tmp.<pid>". */
void pw_atomic_tmp_name(const char *path, char *tmp, size_t tmp_size);

/* fsync(tmp), rename(tmp, path), fsync the directory; removes tmp on failure. */
pw_status pw_atomic_rename(const char *tmp, const char *path, pw_error *err);

/* Writes pattern with its one run of '#' replaced by frame, zero-padded to the run's
 * length (more digits are written in full when needed). A pattern with no '#' or more
 * than one run, a negative frame or a result longer than out_size - 1 is an error.
 * Caches, frames and OBJ sequences are named so. */
pw_status pw_frame_path(const char *pattern, int frame, char *out, size_t out_size,
                        pw_error *err);

/* The number of runs of '#' in pattern, and where the first starts and how long it is. */
int pw_frame_pattern_runs(const char *pattern, size_t *start, size_t *len);

/* Creates dir and its parents (mkdir -p). */
pw_status pw_mkdir_p(const char *dir, pw_error *err);

/* Creates the parent directories of a file path. */
pw_status pw_mkdir_parent(const char *path, pw_error *err);

/* printf into a path buffer; a result that does not fit is an error (never a silently
 * truncated path). */
pw_status pw_path_format(char *out, size_t n, pw_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Reads a whole file into a new buffer (NUL-terminated for convenience); refuses
 * files larger than max_bytes. The caller frees *data. */
pw_status pw_read_file(const char *path, size_t max_bytes, char **data, size_t *size,
                       pw_error *err);

#endif
