/* error.c — pw_fail and friends; see pw_error.h. */
#include "pw_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pw_status pw_fail(pw_error *err, pw_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void pw_error_prefix(pw_error *err, const char *fmt, ...)
{
    if (!err) return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Assemble in a larger buffer and cut to the message size by hand, so the
     * truncation is deliberate rather than a snprintf warning. */
    char joined[sizeof prefix + sizeof err->msg + 2];
    size_t np = strlen(prefix), nm = strnlen(err->msg, sizeof err->msg - 1);
    memcpy(joined, prefix, np);
    memcpy(joined + np, ": ", 2);
    memcpy(joined + np + 2, err->msg, nm);
    joined[np + 2 + nm] = '\0';
    size_t n = np + 2 + nm < sizeof err->msg - 1 ? np + 2 + nm : sizeof err->msg - 1;
    memcpy(err->msg, joined, n);
    err->msg[n] = '\0';
}

pw_status pw_fail_open(pw_error *err, const char *path, int errnum)
{
    pw_status code = errnum == ENOENT || errnum == ENOTDIR ? PW_ENOENT : PW_EIO;
    return pw_fail(err, code, "%s: cannot open (%s)", path, strerror(errnum));
}

const char *pw_status_name(pw_status code)
{
    switch (code) {
    case PW_OK: return "PW_OK";
    case PW_EINVAL: return "PW_EINVAL";
    case PW_EIO: return "PW_EIO";
    case PW_EFORMAT: return "PW_EFORMAT";
    case PW_ENOMEM: return "PW_ENOMEM";
    case PW_ENUMERIC: return "PW_ENUMERIC";
    case PW_EUNSUPPORTED: return "PW_EUNSUPPORTED";
    case PW_ENOENT: return "PW_ENOENT";
    case PW_EINTERRUPTED: return "PW_EINTERRUPTED";
    }
    return "PW_E?";
}
