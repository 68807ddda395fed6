/* cli.c — command-line tokens, usage errors and exit status; see cli.h. */
#include "cli.h"
#include "shot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 when options lists " name " (a flag), 2 when " name= " (takes a value), else 0. */
static int option_kind(const char *options, const char *name)
{
    char word[80];
    snprintf(word, sizeof word, " %s ", name);
    if (strstr(options, word)) return 1;
    snprintf(word, sizeof word, " %s= ", name);
    return strstr(options, word) ? 2 : 0;
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
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (len >= sizeof tok->name_buf) {
        pw_cli_unknown_option(command, arg);
        return 0;
    }
    memcpy(tok->name_buf, arg, len);
    tok->name_buf[len] = '\0';
    const char *full = !strcmp(tok->name_buf, "-h")   ? "--help"
                       : !strcmp(tok->name_buf, "-q") ? "--quiet"
                                                      : tok->name_buf;
    int kind = !strcmp(full, "--help") ? 1 : option_kind(options, full);
    if (!kind) {
        pw_cli_unknown_option(command, tok->name_buf); /* as typed */
        return 0;
    }
    if (full != tok->name_buf) snprintf(tok->name_buf, sizeof tok->name_buf, "%s", full);
    tok->name = tok->name_buf;
    if (kind == 1) {
        if (eq) {
            pw_cli_usage_error(command, "%s takes no value", tok->name);
            return 0;
        }
        return 1;
    }
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
