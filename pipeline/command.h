/* command.h — run a program (sbatch, squeue) and keep what it prints. */
#ifndef PW_COMMAND_H
#define PW_COMMAND_H

#include <stddef.h>

#include "pw_error.h"

typedef struct {
    char *out, *errs;  /* what it printed on stdout and stderr, NUL-terminated, owned */
    int exit_status;   /* its exit status; 127 when the program was not found; -1 when
                          it died of a signal */
    int too_long;      /* an output exceeded max_output and was cut there */
} pw_command_result;

/* Runs argv[0] (looked up on PATH) with argv, reading both its outputs to their ends (so
 * neither pipe can fill and block it), each kept up to max_output bytes. PW_EIO when it
 * cannot be started (pipe, fork) or an output cannot be kept (memory); *r is then
 * empty. Free *r with pw_command_result_free on every return. */
pw_status pw_command_run(char *const argv[], size_t max_output, pw_command_result *r,
                         pw_error *err);
void pw_command_result_free(pw_command_result *r);

/* The last non-empty line of s (NULL is empty), trimmed, for a message. */
void pw_command_last_line(const char *s, char *out, size_t n);

#endif
