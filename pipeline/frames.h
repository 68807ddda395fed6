/* frames.h — frame lists from the command line: "5", "1-48", "1-100x2", and comma
 * separated combinations ("1-10,20,30-40x5"). */
#ifndef PW_FRAMES_H
#define PW_FRAMES_H

#include "pw_error.h"

typedef struct {
    int *frames; /* ascending, without duplicates */
    int count;
} pw_frame_list;

/* Parses spec into *out (freed with pw_frame_list_free). Each frame must lie in
 * [lo, hi]; errors quote the offending part of the spec. */
pw_status pw_frames_parse(const char *spec, int lo, int hi, pw_frame_list *out, pw_error *err);

/* All frames lo..hi. */
pw_status pw_frames_range(int lo, int hi, pw_frame_list *out, pw_error *err);

void pw_frame_list_free(pw_frame_list *l);

#endif
