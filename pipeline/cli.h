/* cli.h — what every `powder` subcommand shares on the command line: splitting the
 * arguments into options ("--name value", "--name=value", flags) and positionals, and
 * the exit status that a pw_status maps to. */
#ifndef PW_CLI_H
#define PW_CLI_H

#include <stddef.h>

#include "pw_error.h"

enum { PW_EXIT_OK = 0, PW_EXIT_WORK = 1, PW_EXIT_USAGE = 2 };

typedef struct {
    const char *name;  /* "--frames" (the text before any '='), or NULL for a positional */
    const char *value; /* the option's value, the positional itself, or NULL for a flag */
    char name_buf[64];
} pw_cli_token;

/* Reads the argument at argv[*a] into *tok; an option listed in with_value (NULL
 * terminated) takes the rest after '=' or the next argument, and *a is advanced past
 * it. Returns 1, or 0 with the problem in msg ("--frames needs a value", "--quiet takes
 * no value", "--look needs a non-empty value"). */
int pw_cli_next(int argc, char **argv, int *a, const char *const *with_value, pw_cli_token *tok,
                char *msg, size_t msg_size);

/* 2 (bad usage or input) for PW_EINVAL, PW_EFORMAT, PW_EUNSUPPORTED and PW_ENOENT (a
 * named scene, look, cache or EXR that does not exist), 1 otherwise: the work failed,
 * including every other refusal of the system (a full disk, a write not permitted). */
int pw_cli_exit_status(pw_status code);

/* Prints "powder: <message>" on stderr and returns pw_cli_exit_status(err->code). */
int pw_cli_fail(const pw_error *err);

#endif
