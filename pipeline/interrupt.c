/* interrupt.c — the SIGTERM/SIGINT handler; see interrupt.h. */
#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t first_signal;
/* stderr is a terminal, where the progress bar is redrawn in place without a newline:
 * a message must first end that line. Found once, before any signal. */
static int stderr_is_terminal;

/* Only async-signal-safe calls here: write and _exit. */
static void on_signal(int sig)
{
    if (stderr_is_terminal) {
        ssize_t ignored = write(STDERR_FILENO, "\n", 1);
        (void)ignored;
    }
    if (first_signal) {
        static const char again[] =
            "powder: interrupted again: stopping at once, the frame in flight is lost; the "
            "files written are whole and the same command resumes from the newest "
            "checkpoint\n";
        ssize_t ignored = write(STDERR_FILENO, again, sizeof again - 1);
        (void)ignored;
        _exit(PW_EXIT_INTERRUPTED);
    }
    first_signal = sig;
    static const char term[] = "powder: SIGTERM: stopping after the frame in flight (a second "
                               "signal stops at once)\n";
    static const char intr[] = "powder: SIGINT: stopping after the frame in flight (a second "
                               "signal stops at once)\n";
    ssize_t ignored = sig == SIGTERM ? write(STDERR_FILENO, term, sizeof term - 1)
                                     : write(STDERR_FILENO, intr, sizeof intr - 1);
    (void)ignored;
}

void pw_interrupt_install(void)
{
    stderr_is_terminal = isatty(STDERR_FILENO);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* The other signal waits while the handler runs, so the two cannot race on the flag. */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGINT);
    /* Reads and writes in flight go on: the frame being finished must still be written. */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

int pw_interrupt_signal(void) { return first_signal; }

const char *pw_interrupt_signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "a signal";
}
