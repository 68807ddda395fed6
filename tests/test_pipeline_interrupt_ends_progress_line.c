/* Property: on a terminal, the message `powder` prints when SIGINT (Ctrl-C) arrives
 * starts on a line of its own: the progress bar, redrawn in place with '\r' and no
 * newline, is ended first. The message ran on after the bar ("...  sim frame 3powder:
 * SIGINT: stopping"). The program runs on a pseudo-terminal, so its stderr is a tty and
 * the bar is drawn; the byte before the message must be a newline. Exact bytes, no
 * tolerance.
 *
 * Cases: 1. the bar was drawn before the signal; 2. the message is there; 3. the byte
 * before it ends a line; 4. the run stops with exit 3. */
#define _XOPEN_SOURCE 600
#include <errno.h>
#include <fcntl.h>
#include <poll.h>

#include "check.h"
#include "pipeline_fixture.h"

/* Appends what the terminal has to read (waiting at most ms) to buf; 0 at its end. */
static int read_some(int fd, char *buf, size_t cap, size_t *len, int ms)
{
    struct pollfd pf = {fd, POLLIN, 0};
    if (poll(&pf, 1, ms) <= 0) return 1;
    ssize_t got = read(fd, buf + *len, cap - 1 - *len);
    if (got <= 0) return 0; /* EIO: the child closed the terminal */
    *len += (size_t)got;
    buf[*len] = '\0';
    return 1;
}

int main(void)
{
    const char *dir = fixture_dir("pipeline_interrupt_ends_progress_line");
    char scene[4200], out[4200];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 60));
    snprintf(out, sizeof out, "%s/out", dir);

    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) {
        printf("no pseudo-terminal (%s): skipped\n", strerror(errno));
        return 77;
    }
    const char *slave = ptsname(master);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int fd = open(slave, O_RDWR);
        if (fd < 0) _exit(127);
        dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
        execl(POWDER_BINARY, POWDER_BINARY, "sim", scene, "--output", out, (char *)NULL);
        _exit(127);
    }
    static char buf[1 << 20];
    size_t len = 0;
    /* 1. wait for the bar of a simulated frame, then Ctrl-C */
    int alive = 1;
    for (int k = 0; k < 600 && alive && !strstr(buf, "sim frame 2"); k++)
        alive = read_some(master, buf, sizeof buf, &len, 100);
    CHECK(strstr(buf, "sim frame 2") != NULL, "1. no progress bar drawn: %s", buf);
    kill(pid, SIGINT);
    while (alive) alive = read_some(master, buf, sizeof buf, &len, 30000);
    int status = 0;
    waitpid(pid, &status, 0);
    close(master);

    /* 2.-4. the message, on its own line, and the exit status */
    const char *msg = strstr(buf, "powder: SIGINT: stopping after the frame in flight");
    CHECK(msg != NULL, "2. no SIGINT message in: %s", buf);
    if (msg) {
        char before[64];
        size_t from = (size_t)(msg - buf) > 40 ? (size_t)(msg - buf) - 40 : 0;
        snprintf(before, sizeof before, "%.*s", (int)(msg - buf - (long)from), buf + from);
        CHECK(msg > buf && msg[-1] == '\n', "3. the message runs on after \"%s\"", before);
    }
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "4. exit status %d, expected 3",
          WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return check_done("pipeline_interrupt_ends_progress_line");
}
