/* pipeline_fixture.h — running the powder program from tests: a tiny scene written to
 * a scratch directory, the program started with arguments, file comparisons. */
#ifndef PW_TEST_PIPELINE_FIXTURE_H
#define PW_TEST_PIPELINE_FIXTURE_H

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

extern char **environ;

/* Test paths are short scratch paths; GCC's worst-case truncation analysis of the
 * snprintf calls that build them is noise here. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* A snowball of radius 0.05 m at h = 0.02 m: about 900 particles, seconds to run. */
static const char tiny_scene_json[] =
    "{\n"
    "  \"name\": \"tiny\",\n"
    "  \"comment\": \"test shot: about 900 particles, a few seconds\",\n"
    "  \"frames\": {\"start\": 0, \"end\": %d, \"fps\": 24},\n"
    "  \"sim\": {\n"
    "    \"h\": 0.02,\n"
    "    \"domain\": {\"min\": [-0.3, -0.1, -0.3], \"max\": [0.3, 0.5, 0.3]},\n"
    "    \"materials\": {\"snow\": {}},\n"
    "    \"bodies\": [{\"material\": \"snow\", \"particles_per_cell\": 8, \"seed\": 1,\n"
    "                  \"shapes\": [{\"type\": \"sphere\", \"center\": [0, 0.12, 0], \"radius\": 0.06}],\n"
    "                  \"velocity\": [0, -1.5, 0]}],\n"
    "    \"colliders\": [{\"shape\": {\"type\": \"halfspace\", \"center\": [0, 0, 0],\n"
    "                                \"normal\": [0, 1, 0]}, \"friction\": 0.5}]\n"
    "  },\n"
    "  \"render\": {\n"
    "    \"camera\": {\"eye\": [0, 0.15, 0.6], \"target\": [0, 0.08, 0], \"fov_deg\": 40},\n"
    "    \"resolution\": [48, 27], \"spp\": 4,\n"
    "    \"lights\": {\"sun\": {\"direction\": [-0.4, 0.8, 0.45], \"irradiance\": [3, 2.9, 2.7]},\n"
    "               \"sky\": {\"radiance\": [0.05, 0.06, 0.08]}},\n"
    "    \"draw_colliders\": false\n"
    "  }\n"
    "}\n";

static inline void fixture_write(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        exit(3);
    }
    fputs(text, fp);
    fclose(fp);
}

/* Writes the tiny scene with frames 0..last_frame to dir/name; returns its path. */
static inline const char *fixture_scene(const char *dir, const char *name, int last_frame)
{
    static char path[4096];
    char text[sizeof tiny_scene_json + 32];
    snprintf(text, sizeof text, tiny_scene_json, last_frame);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fixture_write(path, text);
    return path;
}

/* A fresh scratch directory under POWDER_TEST_TMP. */
static inline const char *fixture_dir(const char *name)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s.%ld", POWDER_TEST_TMP, name, (long)getpid());
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) exit(3);
    return dir;
}

/* Starts the powder program with a NULL-terminated argument list (after argv[0]);
 * stdout and stderr go to log (appended). Returns the pid. */
static inline pid_t powder_start(const char *log, const char *const *args)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = POWDER_BINARY;
    for (int k = 0; args[k] && n < 63; k++) argv[n++] = args[k];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    if (posix_spawn(&pid, POWDER_BINARY, &fa, NULL, (char *const *)argv, environ) != 0) {
        perror("posix_spawn");
        exit(3);
    }
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

/* Runs the program to completion; returns its exit status (or 128 + signal). */
static inline int powder_run(const char *log, const char *const *args)
{
    pid_t pid = powder_start(log, args);
    int status;
    while (waitpid(pid, &status, 0) < 0) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* 1 when the file at path contains needle. */
static inline int file_contains(const char *path, const char *needle)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

#endif
