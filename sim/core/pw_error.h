/* pw_error.h — the one error model of Powder.
 *
 * A fallible function returns a pw_status (PW_OK == 0) and, on failure, fills the
 * caller's pw_error with a message of the form "<where>: <what> (<value>)", where
 * <where> names a file and line:col, byte offset, frame or particle. Libraries never
 * print or exit; only pipeline/main.c shows messages and picks the exit status. */
#ifndef PW_ERROR_H
#define PW_ERROR_H

typedef enum {
    PW_OK = 0,
    PW_EINVAL,   /* bad argument or bad user input (scene values, CLI)        */
    PW_EIO,      /* the operating system refused a read, write or rename      */
    PW_EFORMAT,  /* a file's bytes are not what its format promises          */
    PW_ENOMEM,   /* an allocation failed or would exceed a stated limit       */
    PW_ENUMERIC, /* NaN, Inf or a numerical breakdown in a computation        */
    PW_EUNSUPPORTED, /* valid request that this build or version cannot serve */
    PW_ENOENT,       /* a named input (scene, cache, EXR...) does not exist  */
    PW_EINTERRUPTED  /* stopped on request (SIGTERM, SIGINT) where the files on disk
                        resume: running the same command again continues          */
} pw_status;

typedef struct {
    pw_status code;
    char msg[512];
} pw_error;

/* Records code and the printf-formatted message in *err (err may be NULL) and
 * returns code, so that callers write `return pw_fail(err, PW_EIO, "...", ...)`. */
pw_status pw_fail(pw_error *err, pw_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Prepends "<prefix>: " to an existing message, to add context on the way up. */
void pw_error_prefix(pw_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The failure to open path for reading, from the errno that open/fopen left: PW_ENOENT
 * when the file does not exist (ENOENT, or ENOTDIR: a directory of its path is a file),
 * PW_EIO for any other refusal. The message is "<path>: cannot open (<strerror>)". */
pw_status pw_fail_open(pw_error *err, const char *path, int errnum);

/* A short stable name for a status code ("PW_EFORMAT"). */
const char *pw_status_name(pw_status code);

#endif
