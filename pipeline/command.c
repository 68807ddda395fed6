/* command.c — run a program and keep what it prints; see command.h. */
#include "command.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    char *s;
    size_t len, cap;
} buffer;

/* Appends n bytes, keeping at most max; returns 0, or -1 when memory ran out. */
static int buffer_add(buffer *b, const char *p, size_t n, size_t max, int *too_long)
{
    if (b->len + n > max) {
        *too_long = 1;
        n = max - b->len;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) return -1;
        b->s = s, b->cap = cap;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static char *buffer_take(buffer *b)
{
    if (!b->s) return calloc(1, 1);
    return b->s;
}

pw_status pw_command_run(char *const argv[], size_t max_output, pw_command_result *r,
                         pw_error *err)
{
    memset(r, 0, sizeof *r);
    int po[2], pe[2];
    if (pipe(po) != 0) return pw_fail(err, PW_EIO, "%s: pipe: %s", argv[0], strerror(errno));
    if (pipe(pe) != 0) {
        close(po[0]), close(po[1]);
        return pw_fail(err, PW_EIO, "%s: pipe: %s", argv[0], strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return pw_fail(err, PW_EIO, "%s: fork: %s", argv[0], strerror(errno));
    }
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        execvp(argv[0], argv);
        _exit(127); /* the shell's "command not found" */
    }
    close(po[1]);
    close(pe[1]);
    struct pollfd pf[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    buffer dst[2] = {{0}, {0}};
    int open_fds = 2, oom = 0;
    while (open_fds > 0) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int k = 0; k < 2; k++) {
            if (pf[k].fd < 0 || !pf[k].revents) continue;
            char buf[4096];
            ssize_t got = read(pf[k].fd, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                pf[k].fd = -1;
                open_fds--;
                continue;
            }
            if (buffer_add(&dst[k], buf, (size_t)got, max_output, &r->too_long) != 0) oom = 1;
        }
    }
    close(po[0]);
    close(pe[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r->out = buffer_take(&dst[0]);
    r->errs = buffer_take(&dst[1]);
    if (oom || !r->out || !r->errs) {
        pw_command_result_free(r);
        return pw_fail(err, PW_ENOMEM, "%s: out of memory keeping its output", argv[0]);
    }
    return PW_OK;
}

void pw_command_result_free(pw_command_result *r)
{
    free(r->out);
    free(r->errs);
    r->out = r->errs = NULL;
}

void pw_command_last_line(const char *s, char *out, size_t n)
{
    size_t len = s ? strlen(s) : 0;
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ')) len--;
    size_t start = len;
    while (start && s[start - 1] != '\n') start--;
    snprintf(out, n, "%.*s", (int)(len - start), s ? s + start : "");
}
