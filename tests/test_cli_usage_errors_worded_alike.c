/* Property: every command words a usage error the same way. An unknown option, an
 * option without its value, a value out of its range and an argument too many each
 * exit 2 with exactly one line on stderr, the same line on every command but for the
 * command's name, the option and its range (one function of cli.c writes each). An
 * option given twice is refused on every command rather than read as its last value
 * (`--frames 0 --frames 5` once did frame 5 alone, unsaid). No command takes a second positional silently: run, sim, render and turntable ignored
 * one, even a file that does not exist. --half with --float is refused, and a
 * --resolution over the limit names the limit (16384). Exact string comparison, no
 * tolerance: the words are what users and scripts read. */
#include "check.h"
#include "pipeline_fixture.h"

static char log_path[4200];

/* Runs powder with args and checks exit 2 and that the whole output is want. */
static void expect_line(const char *what, const char *const *args, const char *want)
{
    remove(log_path);
    int rc = powder_run(log_path, args);
    CHECK(rc == 2, "%s: exit %d, expected 2", what, rc);
    static char got[1 << 16];
    FILE *fp = fopen(log_path, "rb");
    size_t n = fp ? fread(got, 1, sizeof got - 1, fp) : 0;
    if (fp) fclose(fp);
    got[n] = '\0';
    CHECK(!strcmp(got, want), "%s:\n  got:      %s  expected: %s", what, got, want);
}

/* A command's arguments: the command, its positionals, then extra. */
typedef struct {
    const char *cmd;          /* as named in messages */
    const char *pos[2];       /* its positionals (NULL-terminated) */
    const char *value_option; /* an option with a value, NULL if it has none */
    const char *number;       /* a numeric option, NULL if it has none */
    const char *range;        /* what the number must be */
    const char *takes;        /* what its positionals are */
} command;

static void args_of(const command *c, const char *const *extra, const char **args)
{
    int n = 0;
    args[n++] = c->cmd;
    if (!strcmp(c->cmd, "export")) args[n++] = "ply";
    for (int k = 0; k < 2 && c->pos[k]; k++) args[n++] = c->pos[k];
    for (int k = 0; extra[k]; k++) args[n++] = extra[k];
    args[n] = NULL;
}

int main(void)
{
    const char *dir = fixture_dir("cli_usage_errors_worded_alike");
    snprintf(log_path, sizeof log_path, "%s/usage.log", dir);
    char scene[4200], missing[4200], out[4200];
    snprintf(scene, sizeof scene, "%s", fixture_scene(dir, "tiny.json", 1));
    snprintf(missing, sizeof missing, "%s/missing.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    const char *whole = "a whole number in [1, 1024]";
    const command commands[] = {
        {"run", {scene}, "--frames", "--threads", whole, "at most one scene file"},
        {"sim", {scene}, "--frames", "--threads", whole, "one scene file"},
        {"render", {scene}, "--frames", "--threads", whole, "one scene file"},
        {"turntable", {scene}, "--steps", "--steps", "a whole number in [1, 3600]",
         "one scene file"},
        {"info", {"a.pwc"}, NULL, NULL, NULL, "one cache file"},
        {"png", {"a.exr"}, "--exposure", "--exposure", "a number in [-30, 30]", NULL},
        {"export", {scene}, "--frames", NULL, NULL, "a format and one scene file"},
        {"stats", {scene}, "--frames", "--link", "a number in [0.01, 10]", "one scene file"},
        {"submit", {scene}, "--frames", "--threads", whole, "one scene file"},
    };
    const int n_commands = (int)(sizeof commands / sizeof *commands);
    char what[256], want[1024];
    const char *args[16];

    for (int k = 0; k < n_commands; k++) {
        const command *c = &commands[k];
        /* 1. an unknown option */
        const char *bogus[] = {"--bogus", NULL};
        args_of(c, bogus, args);
        snprintf(what, sizeof what, "1 %s --bogus", c->cmd);
        snprintf(want, sizeof want,
                 "powder %s: '--bogus' is not an option of %s (see powder %s --help)\n", c->cmd,
                 c->cmd, c->cmd);
        expect_line(what, args, want);

        /* 2. an option without its value */
        if (c->value_option) {
            const char *bare[] = {c->value_option, NULL};
            args_of(c, bare, args);
            snprintf(what, sizeof what, "2 %s %s", c->cmd, c->value_option);
            snprintf(want, sizeof want, "powder %s: %s needs a value\n", c->cmd, c->value_option);
            expect_line(what, args, want);

            /* 2b. an option given twice is refused, not read as its last value, in
             * either spelling ("--frames=0 --frames 5" as "--frames 0 --frames 5") */
            const char *twice[] = {c->value_option, "1", c->value_option, "2", NULL};
            args_of(c, twice, args);
            snprintf(what, sizeof what, "2b %s %s 1 %s 2", c->cmd, c->value_option,
                     c->value_option);
            snprintf(want, sizeof want,
                     "powder %s: %s given twice ('1', then '2'): give it once\n", c->cmd,
                     c->value_option);
            expect_line(what, args, want);
            char eq[64];
            snprintf(eq, sizeof eq, "%s=1", c->value_option);
            const char *twice_eq[] = {eq, c->value_option, "2", NULL};
            args_of(c, twice_eq, args);
            snprintf(what, sizeof what, "2b %s %s %s 2", c->cmd, eq, c->value_option);
            expect_line(what, args, want);
        }

        /* 3. a value that is not a number of the option's range */
        if (c->number) {
            const char *bad[] = {c->number, "lots", NULL};
            args_of(c, bad, args);
            snprintf(what, sizeof what, "3 %s %s lots", c->cmd, c->number);
            snprintf(want, sizeof want, "powder %s: %s 'lots': expected %s\n", c->cmd, c->number,
                     c->range);
            expect_line(what, args, want);
        }

        /* 4. one argument too many, here a file that does not exist; run, sim, render
         * and turntable get options that would make a quick shot of the rest */
        if (c->takes) {
            const char *extra[] = {missing, "--output", out, "--quiet", NULL};
            const char *extra_shot[] = {missing, "--output", out, "--quiet", "--spp", "1",
                                        "--resolution", "16x9", NULL};
            int shot = !strcmp(c->cmd, "run") || !strcmp(c->cmd, "render") ||
                       !strcmp(c->cmd, "turntable");
            args_of(c, shot ? extra_shot : extra, args);
            if (!strcmp(c->cmd, "info")) args[2] = "b.pwc", args[3] = NULL;
            snprintf(what, sizeof what, "4 %s with a second argument", c->cmd);
            snprintf(want, sizeof want,
                     "powder %s: unexpected argument '%s' (%s takes %s; see powder %s --help)\n",
                     c->cmd, args[2 + !strcmp(c->cmd, "export")], c->cmd, c->takes, c->cmd);
            expect_line(what, args, want);
        }
    }

    /* 5. png takes any number of files: the sixth is read like the first */
    const char *six[] = {"png", "1.exr", "2.exr", "3.exr", "4.exr", "5.exr", "6.exr", NULL};
    expect_line("5 png with six files", six,
                "powder: 1.exr: cannot open (No such file or directory)\n");

    /* 6. --half with --float; 7. a resolution over the limit names it */
    const char *beauty_commands[] = {"run", "render", "turntable"};
    for (int k = 0; k < 3; k++) {
        const char *cmd = beauty_commands[k];
        const char *both[] = {cmd, scene, "--half", "--float", "--output", out, "--quiet", NULL};
        snprintf(what, sizeof what, "6 %s --half --float", cmd);
        snprintf(want, sizeof want, "powder %s: --half and --float exclude each other: give one\n",
                 cmd);
        expect_line(what, both, want);
        const char *huge[] = {cmd, scene, "--resolution", "20000x10", "--output", out, NULL};
        snprintf(what, sizeof what, "7 %s --resolution 20000x10", cmd);
        snprintf(want, sizeof want,
                 "powder %s: --resolution '20000x10': expected WxH, each in [1, 16384], e.g. "
                 "320x180\n",
                 cmd);
        expect_line(what, huge, want);
    }
    return check_done("cli_usage_errors_worded_alike");
}
