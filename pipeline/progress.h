/* progress.h — what long work shows the user: on a terminal a redrawn bar with rate
 * and ETA; otherwise plain "PROGRESS nn%" lines that farm managers parse; nothing when
 * quiet. Single-threaded: call from the thread that drives the work.
 *
 * A job may have stages whose units cost very different times (a simulated frame and
 * a rendered one). Each stage's cost per unit is measured as its units complete, so the
 * bar and the ETA weigh every unit by what its stage really costs; until a stage has
 * run, the caller's prior estimate stands in for it. */
#ifndef PW_PROGRESS_H
#define PW_PROGRESS_H

#include <stdio.h>

typedef enum { PW_PROGRESS_QUIET, PW_PROGRESS_BAR, PW_PROGRESS_LINES } pw_progress_mode;

#define PW_PROGRESS_MAX_STAGES 4

typedef struct {
    double first, units;     /* the stage's units are [first, first + units) of the job */
    double prior_seconds;    /* [s] per unit before any is measured; 0 = unknown */
    double measured_units;   /* units done while timed (skipped units excluded) */
    double measured_seconds; /* [s] spent on them */
} pw_progress_stage;

typedef struct {
    FILE *out;
    pw_progress_mode mode;
    double total;         /* units of work in the whole job (e.g. frames) */
    const char *unit;     /* "frames", "steps" */
    double t_start;       /* monotonic seconds */
    double t_last_draw;
    int last_percent;
    char label[96];       /* what is happening now ("sim frame 12") */
    pw_progress_stage stages[PW_PROGRESS_MAX_STAGES];
    int n_stages;         /* 0: one stage of `total` units */
    double last_done, t_last; /* the previous update: where the timed interval starts */
    double shown;         /* the fraction displayed: never goes back (pw_progress_shown) */
} pw_progress;

/* Picks BAR when out is a terminal, LINES otherwise, QUIET when quiet. */
void pw_progress_init(pw_progress *p, FILE *out, int quiet, double total, const char *unit);

/* Declares the next stage: the `units` after those of the stages before it, each
 * estimated at prior_seconds [s] (0 = unknown) until the stage's own are measured.
 * Stages should cover total; at most PW_PROGRESS_MAX_STAGES (more are ignored). */
void pw_progress_add_stage(pw_progress *p, double units, double prior_seconds);

/* done: units finished so far (fractional allowed); label: the current activity. The
 * time since the previous update is charged to the units between the two. */
void pw_progress_update(pw_progress *p, double done, const char *label);

/* Moves to done without timing the units in between (frames found already done). */
void pw_progress_skip(pw_progress *p, double done, const char *label);

/* The same two at an explicit time t [s] on the monotonic clock (tests). */
void pw_progress_update_at(pw_progress *p, double done, const char *label, double t);
void pw_progress_skip_at(pw_progress *p, double done, const char *label, double t);

/* The weighted fraction done in [0, 1], and the estimated seconds left (< 0: unknown,
 * nothing measured yet). A stage that has timed less than one unit is priced by what it
 * measured plus its prior (or the other stages' cost) for the rest of that unit, so the
 * set-up before a stage's first piece of work is not read as the cost of every unit. */
double pw_progress_fraction(const pw_progress *p);
double pw_progress_eta(const pw_progress *p);

/* The fraction the bar and the PROGRESS lines show: it never goes back. Each update
 * moves it by the share of the estimated remaining work that the update completed, so
 * when a stage turns out dearer than estimated the bar slows instead of jumping back,
 * and it reaches 1 exactly when the work is done. */
double pw_progress_shown(const pw_progress *p);

/* Ends the bar's line (so later messages start on a fresh line). */
void pw_progress_finish(pw_progress *p);

/* Monotonic time [s]. */
double pw_now(void);

#endif
