/* cli.h — what every `powder` subcommand shares on the command line: splitting the
 * arguments into options ("--name value", "--name=value", flags) and positionals, the
 * words of every usage error, and the exit status that a pw_status maps to. */
#ifndef PW_CLI_H
#define PW_CLI_H

#include <stddef.h>

#include "frames.h"
#include "pw_error.h"
#include "scene.h"

/* 3: stopped by SIGTERM or SIGINT at a safe point (interrupt.h); rerunning resumes. */
enum { PW_EXIT_OK = 0, PW_EXIT_WORK = 1, PW_EXIT_USAGE = 2, PW_EXIT_INTERRUPTED = 3 };

typedef struct {
    const char *name;  /* "--frames" (the text before any '='), or NULL for a positional */
    const char *value; /* the option's value, the positional itself, or NULL for a flag */
    char name_buf[64];
} pw_cli_token;

/* Reads the argument at argv[*a] into *tok. options lists the options of command,
 * each between spaces, with a trailing '=' on those that take a value and "=+" on those
 * that may be given more than once: " --frames= --sbatch=+ --quiet ". Such an option
 * takes the rest after '=' or the next argument, and *a is advanced past it. An option
 * with a value given a second time is refused (the arguments argv[2] .. argv[*a - 1]
 * are those already read); a flag may be repeated. --help (and -h) is an option of
 * every command; -h and -q are read as --help and --quiet. Returns 1, or prints the
 * problem as pw_cli_usage_error does (pw_cli_unknown_option, "--frames needs a value",
 * "--quiet takes no value", "--look needs a non-empty value", "--frames given twice
 * ('0', then '5'): give it once") and returns 0. */
int pw_cli_next(const char *command, const char *options, int argc, char **argv, int *a,
                pw_cli_token *tok);

/* ---- usage errors: one wording for every command ----------------------------------
 * Each prints one line "powder <command>: <problem>" on stderr; the caller exits with
 * PW_EXIT_USAGE. */

/* Prints the printf-formatted problem. */
void pw_cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "'--steps' is not an option of render (see powder render --help)". */
void pw_cli_unknown_option(const char *command, const char *option);

/* "unexpected argument 'b.json' (sim takes one scene file; see powder sim --help)";
 * takes says what the command does take ("one scene file"). */
void pw_cli_extra_argument(const char *command, const char *arg, const char *takes);

/* "a scene file is required (see powder sim --help)"; what is "a scene file". */
void pw_cli_missing_argument(const char *command, const char *what);

/* Reads value, the value of option name, as a whole number in [lo, hi] into *out and
 * returns 1; otherwise prints "--threads 'x': expected a whole number in [1, 1024]"
 * and returns 0. */
int pw_cli_int(const char *command, const char *name, const char *value, int lo, int hi,
               int *out);

/* As pw_cli_int for a number in [lo, hi]: "--exposure 'x': expected a number in
 * [-30, 30]". */
int pw_cli_double(const char *command, const char *name, const char *value, double lo,
                  double hi, double *out);

/* --threads N of every command: makes threads (> 0) the thread count of the OpenMP loops
 * that do not choose their own (the density rasterizer of render and export vdb, the
 * measures of stats), as the solver and the tracer take it from their parameters; 0
 * leaves OpenMP's default (every core, or $OMP_NUM_THREADS). */
void pw_cli_threads(int threads);

/* ---- exit status ------------------------------------------------------------------ */

/* 2 (bad usage or input) for PW_EINVAL, PW_EFORMAT, PW_EUNSUPPORTED and PW_ENOENT (a
 * named scene, look, cache or EXR that does not exist), 1 otherwise: the work failed,
 * including every other refusal of the system (a full disk, a write not permitted);
 * 3 for PW_EINTERRUPTED. */
int pw_cli_exit_status(pw_status code);

/* Prints "powder: <message>" on stderr and returns pw_cli_exit_status(err->code). */
int pw_cli_fail(const pw_error *err);

/* pw_shot_check_caches for a command line: 0 when every listed frame (but those with
 * skip[k]; skip may be NULL) has a usable cache; otherwise prints each bad frame (when
 * more than one) and the summary, and returns the exit status. */
int pw_cli_check_caches(const pw_scene *sc, const pw_frame_list *fl, const unsigned char *skip);

#endif
