/* shot_internal.h — what the simulating (shot.c) and rendering (shot_render.c) halves
 * of a shot share. */
#ifndef PW_SHOT_INTERNAL_H
#define PW_SHOT_INTERNAL_H

#include <sys/stat.h>

#include "shot.h"

static inline int pw_shot_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* 0: no usable cache of this setup at path; 1: a slim render cache; 2: a full checkpoint */
int pw_shot_cache_kind(const pw_scene *sc, const char *path);

/* One line to o->log (none when it is NULL), clearing a progress bar first. */
void pw_shot_log(const pw_shot_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
