/* cli.c — command-line tokens, usage errors and exit status; see cli.h. */
#include "cli.h"
#include "shot.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kinds of option, as options lists them. */
enum { NOT_AN_OPTION = 0, FLAG = 1, VALUE = 2, REPEATABLE = 3 };

/* FLAG when options lists " name ", VALUE when " name= ", REPEATABLE when " name=+ ",
 * else NOT_AN_OPTION. --help (and -h) is a flag of every command. */
static int option_kind(const char *options, const char *name)
{
    if (!strcmp(name, "--help")) return FLAG;
    char word[80];
    snprintf(word, sizeof word, " %s ", name);
    if (strstr(options, word)) return FLAG;
    snprintf(word, sizeof word, " %s= ", name);
    if (strstr(options, word)) return VALUE;
    snprintf(word, sizeof word, " %s=+ ", name);
    return strstr(options, word) ? REPEATABLE : NOT_AN_OPTION;
}

/* The option's full name of argument arg into buf ("--frames" of "--frames=5", "--quiet"
 * of "-q"); 0 when arg is not an option (a positional, or too long to be one). *eq
 * receives the '=' in arg or NULL. */
static int option_name(const char *arg, char *buf, size_t n, const char **eq)
{
    if (arg[0] != '-' || !arg[1]) return 0;
    *eq = strchr(arg, '=');
    size_t len = *eq ? (size_t)(*eq - arg) : strlen(arg);
    if (len >= n) return 0;
    memcpy(buf, arg, len);
    buf[len] = '\0';
    if (!strcmp(buf, "-h")) snprintf(buf, n, "--help");
    else if (!strcmp(buf, "-q")) snprintf(buf, n, "--quiet");
    return 1;
}

/* The value that option name (taking one) was given in argv[2] .. argv[end - 1], the
 * arguments already read, or NULL when it was not. Those arguments were accepted, so
 * each is read as pw_cli_next read it. */
static const char *given_before(const char *options, char **argv, int end, const char *name)
{
    for (int a = 2; a < end; a++) {
        char buf[64];
        const char *eq;
        if (!option_name(argv[a], buf, sizeof buf, &eq)) continue;
        int kind = option_kind(options, buf);
        if (kind == FLAG || kind == NOT_AN_OPTION) continue;
        const char *value = eq ? eq + 1 : a + 1 < end ? argv[++a] : NULL;
        if (!strcmp(buf, name)) return value;
    }
    return NULL;
}

int pw_cli_next(const char *command, const char *options, int argc, char **argv, int *a,
                pw_cli_token *tok)
{
    const char *arg = argv[*a];
    memset(tok, 0, sizeof *tok);
    if (arg[0] != '-' || !arg[1]) {
        tok->value = arg;
        return 1;
    }
    const char *eq;
    if (!option_name(arg, tok->name_buf, sizeof tok->name_buf, &eq)) {
        pw_cli_unknown_option(command, arg);
        return 0;
    }
    int kind = option_kind(options, tok->name_buf);
    if (kind == NOT_AN_OPTION) {
        char typed[sizeof tok->name_buf]; /* "-q" as typed, not the name made of it */
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        snprintf(typed, sizeof typed, "%.*s", (int)len, arg);
        pw_cli_unknown_option(command, typed);
        return 0;
    }
    tok->name = tok->name_buf;
    if (kind == FLAG) {
        if (eq) {
            pw_cli_usage_error(command, "%s takes no value", tok->name);
            return 0;
        }
        return 1;
    }
    int at = *a; /* where this option starts: the arguments before it were read */
    if (eq) tok->value = eq + 1;
    else if (*a + 1 < argc) tok->value = argv[++*a];
    else {
        pw_cli_usage_error(command, "%s needs a value", tok->name);
        return 0;
    }
    if (!*tok->value) {
        pw_cli_usage_error(command, "%s needs a non-empty value", tok->name);
        return 0;
    }
    /* the last of two values would be taken in silence: refuse both */
    const char *before = kind == VALUE ? given_before(options, argv, at, tok->name) : NULL;
    if (before) {
        pw_cli_usage_error(command, "%s given twice ('%.80s', then '%.80s'): give it once",
                           tok->name, before, tok->value);
        return 0;
    }
    return 1;
}

void pw_cli_usage_error(const char *command, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "powder %s: %s\n", command, msg);
}

void pw_cli_unknown_option(const char *command, const char *option)
{
    pw_cli_usage_error(command, "'%.80s' is not an option of %s (see powder %s --help)", option,
                       command, command);
}

void pw_cli_extra_argument(const char *command, const char *arg, const char *takes)
{
    pw_cli_usage_error(command, "unexpected argument '%.200s' (%s takes %s; see powder %s --help)",
                       arg, command, takes, command);
}

void pw_cli_missing_argument(const char *command, const char *what)
{
    pw_cli_usage_error(command, "%s is required (see powder %s --help)", what, command);
}

int pw_cli_int(const char *command, const char *name, const char *value, int lo, int hi,
               int *out)
{
    char *end;
    long x = strtol(value, &end, 10);
    if (!*value || *end || x < lo || x > hi) {
        pw_cli_usage_error(command, "%s '%.80s': expected a whole number in [%d, %d]", name, value,
                           lo, hi);
        return 0;
    }
    *out = (int)x;
    return 1;
}

int pw_cli_double(const char *command, const char *name, const char *value, double lo,
                  double hi, double *out)
{
    char *end;
    double x = strtod(value, &end);
    if (!*value || *end || !(x >= lo && x <= hi)) {
        pw_cli_usage_error(command, "%s '%.80s': expected a number in [%g, %g]", name, value, lo,
                           hi);
        return 0;
    }
    *out = x;
    return 1;
}

void pw_cli_threads(int threads)
{
    if (threads > 0) omp_set_num_threads(threads);
}

int pw_cli_exit_status(pw_status code)
{
    if (code == PW_EINTERRUPTED) return PW_EXIT_INTERRUPTED;
    return (code == PW_EINVAL || code == PW_EFORMAT || code == PW_EUNSUPPORTED ||
            code == PW_ENOENT)
               ? PW_EXIT_USAGE
               : PW_EXIT_WORK;
}

int pw_cli_fail(const pw_error *err)
{
    fprintf(stderr, "powder: %s\n", err->msg);
    return pw_cli_exit_status(err->code);
}

int pw_cli_check_caches(const pw_scene *sc, const pw_frame_list *fl, const unsigned char *skip)
{
    pw_cache_problems problems;
    pw_error err = {0};
    if (pw_shot_check_caches(sc, fl, skip, &problems, &err) == PW_OK) return 0;
    if (problems.count > 1)
        for (int k = 0; k < problems.count; k++)
            fprintf(stderr, "powder: frame %d: %s\n", problems.items[k].frame,
                    problems.items[k].error.msg);
    pw_cache_problems_free(&problems);
    return pw_cli_fail(&err);
}
