/* interrupt.h — a request to stop, by SIGTERM or SIGINT, honoured where the files on
 * disk resume cleanly.
 *
 * Slurm sends SIGTERM before it kills a job (time limit, preemption, scancel) and its
 * --signal option sends one a chosen time before the limit; Ctrl-C sends SIGINT. The
 * handler only records the signal (async-signal-safe), and the shot loops ask at their
 * safe points: the simulation after each frame (the frame in flight is finished and
 * written as a full checkpoint), rendering between frames. A second signal stops at
 * once: the frame in flight is lost, every file under a final name is whole (atomic
 * writes), and the newest checkpoint is where the same command resumes. Either way the
 * process exits with PW_EXIT_INTERRUPTED (cli.h). */
#ifndef PW_INTERRUPT_H
#define PW_INTERRUPT_H

/* Installs the handler for SIGTERM and SIGINT (system calls restart after it). */
void pw_interrupt_install(void);

/* 0, or the first signal received since pw_interrupt_install. */
int pw_interrupt_signal(void);

/* "SIGTERM", "SIGINT" (the signals handled), else "a signal". */
const char *pw_interrupt_signal_name(int sig);

#endif
