/* progress.h — what long work shows the user: on a terminal a redrawn bar with rate
 * and ETA; otherwise plain "PROGRESS nn%" lines that farm managers parse; nothing when
 * quiet. Single-threaded: call from the thread that drives the work. */
#ifndef PW_PROGRESS_H
#define PW_PROGRESS_H

#include <stdio.h>

typedef enum { PW_PROGRESS_QUIET, PW_PROGRESS_BAR, PW_PROGRESS_LINES } pw_progress_mode;

typedef struct {
    FILE *out;
    pw_progress_mode mode;
    double total;         /* units of work in the whole job (e.g. frames) */
    const char *unit;     /* "frames", "steps" */
    double t_start;       /* monotonic seconds */
    double t_last_draw;
    int last_percent;
    char label[96];       /* what is happening now ("sim frame 12") */
} pw_progress;

/* Picks BAR when out is a terminal, LINES otherwise, QUIET when quiet. */
void pw_progress_init(pw_progress *p, FILE *out, int quiet, double total, const char *unit);

/* done: units finished so far (fractional allowed); label: the current activity. */
void pw_progress_update(pw_progress *p, double done, const char *label);

/* Ends the bar's line (so later messages start on a fresh line). */
void pw_progress_finish(pw_progress *p);

/* Monotonic time [s]. */
double pw_now(void);

#endif
