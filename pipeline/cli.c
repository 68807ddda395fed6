/* cli.c — command-line tokens and exit status; see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int pw_cli_next(int argc, char **argv, int *a, const char *const *with_value, pw_cli_token *tok,
                char *msg, size_t msg_size)
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
        snprintf(msg, msg_size, "unknown option '%.80s'", arg);
        return 0;
    }
    memcpy(tok->name_buf, arg, len);
    tok->name_buf[len] = '\0';
    tok->name = tok->name_buf;
    int needs = 0;
    for (int k = 0; with_value[k]; k++) needs |= !strcmp(tok->name, with_value[k]);
    if (!needs) {
        if (eq) {
            snprintf(msg, msg_size, "%s takes no value", tok->name);
            return 0;
        }
        return 1;
    }
    if (eq) tok->value = eq + 1;
    else if (*a + 1 < argc) tok->value = argv[++*a];
    else {
        snprintf(msg, msg_size, "%s needs a value", tok->name);
        return 0;
    }
    if (!*tok->value) {
        snprintf(msg, msg_size, "%s needs a non-empty value", tok->name);
        return 0;
    }
    return 1;
}

int pw_cli_exit_status(pw_status code)
{
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
