/* progress.c — progress display; see progress.h. */
#include "progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

double pw_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pw_progress_init(pw_progress *p, FILE *out, int quiet, double total, const char *unit)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->mode = quiet ? PW_PROGRESS_QUIET : (isatty(fileno(out)) ? PW_PROGRESS_BAR : PW_PROGRESS_LINES);
    p->total = total > 0 ? total : 1;
    p->unit = unit;
    p->t_start = pw_now();
    p->t_last = p->t_start;
    p->t_last_draw = -1;
    p->last_percent = -1;
}

void pw_progress_add_stage(pw_progress *p, double units, double prior_seconds)
{
    if (p->n_stages == PW_PROGRESS_MAX_STAGES) return;
    pw_progress_stage *s = &p->stages[p->n_stages];
    memset(s, 0, sizeof *s);
    s->first = p->n_stages ? p->stages[p->n_stages - 1].first + p->stages[p->n_stages - 1].units
                           : 0;
    s->units = units > 0 ? units : 0;
    s->prior_seconds = prior_seconds > 0 ? prior_seconds : 0;
    p->n_stages++;
}

/* Without declared stages the job is one stage of `total` units. */
static int stages(const pw_progress *p, const pw_progress_stage **out, pw_progress_stage *one)
{
    if (p->n_stages) {
        *out = p->stages;
        return p->n_stages;
    }
    memset(one, 0, sizeof *one);
    one->units = p->total;
    *out = one;
    return 1;
}

static double overlap(double a0, double a1, double b0, double b1)
{
    double lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

/* Charges dt to the stages of the units [from, to), in proportion to their share. */
static void charge(pw_progress *p, double from, double to, double dt)
{
    if (!(to > from) || !(dt >= 0)) return;
    if (!p->n_stages) pw_progress_add_stage(p, p->total, 0);
    for (int k = 0; k < p->n_stages; k++) {
        pw_progress_stage *s = &p->stages[k];
        double u = overlap(from, to, s->first, s->first + s->units);
        s->measured_units += u;
        s->measured_seconds += dt * u / (to - from);
    }
}

/* Seconds per unit of each stage. A stage timed over at least one unit costs what it
 * measured. One not yet timed costs its prior, else the mean of the stages timed over a
 * unit, else 1 (nothing known: plain unit counting). One timed over part of a unit pays
 * what it measured plus that estimate for the rest of the unit: a frame's first tile
 * also carries the frame's set-up (reading, rasterizing), and extrapolating it alone
 * priced a 1 s render frame at minutes; with no estimate, its partial rate is all
 * there is, and it also prices the stages not yet timed. */
static void unit_costs(const pw_progress_stage *s, int n, double *cost)
{
    double sum = 0, sum_part = 0;
    int whole = 0, part = 0;
    for (int k = 0; k < n; k++)
        if (s[k].measured_units >= 1) {
            sum += s[k].measured_seconds / s[k].measured_units;
            whole++;
        } else if (s[k].measured_units > 0) {
            sum_part += s[k].measured_seconds / s[k].measured_units;
            part++;
        }
    for (int k = 0; k < n; k++) {
        double mu = s[k].measured_units;
        int guessed = s[k].prior_seconds > 0 || whole > 0;
        double guess = s[k].prior_seconds > 0 ? s[k].prior_seconds
                       : whole                ? sum / whole
                       : part                 ? sum_part / part /* only partial rates known */
                                              : 1;
        if (mu >= 1 || (mu > 0 && !guessed)) cost[k] = s[k].measured_seconds / mu;
        else if (mu > 0) cost[k] = s[k].measured_seconds + guess * (1 - mu);
        else cost[k] = guess;
    }
}

static void weighted(const pw_progress *p, double *done_s, double *total_s, int *known)
{
    pw_progress_stage one;
    const pw_progress_stage *s;
    int n = stages(p, &s, &one);
    double cost[PW_PROGRESS_MAX_STAGES];
    unit_costs(s, n, cost);
    *done_s = *total_s = 0;
    *known = 0;
    for (int k = 0; k < n; k++) {
        double d = overlap(0, p->last_done, s[k].first, s[k].first + s[k].units);
        *done_s += cost[k] * d;
        *total_s += cost[k] * s[k].units;
        *known |= s[k].measured_units > 0;
    }
}

double pw_progress_fraction(const pw_progress *p)
{
    double done_s, total_s;
    int known;
    weighted(p, &done_s, &total_s, &known);
    double f = total_s > 0 ? done_s / total_s : 0;
    return f < 0 ? 0 : f > 1 ? 1 : f;
}

double pw_progress_eta(const pw_progress *p)
{
    double done_s, total_s;
    int known;
    weighted(p, &done_s, &total_s, &known);
    if (!known) return -1;
    return total_s > done_s ? total_s - done_s : 0;
}

double pw_progress_shown(const pw_progress *p) { return p->shown; }

/* Moves the shown fraction by the share of the estimated remaining work that the units
 * [from, to) were, priced at today's costs: constant costs give the weighted fraction
 * itself; a re-weighing slows or speeds the bar, never moves it back. */
static void advance_shown(pw_progress *p, double from, double to)
{
    if (!(to > from)) return;
    pw_progress_stage one;
    const pw_progress_stage *s;
    int n = stages(p, &s, &one);
    double cost[PW_PROGRESS_MAX_STAGES], step = 0, left = 0;
    unit_costs(s, n, cost);
    for (int k = 0; k < n; k++) {
        step += cost[k] * overlap(from, to, s[k].first, s[k].first + s[k].units);
        left += cost[k] * overlap(to, p->total, s[k].first, s[k].first + s[k].units);
    }
    double share = step + left > 0 ? step / (step + left) : 1;
    p->shown += (1 - p->shown) * share;
    if (left <= 0 || p->shown > 1) p->shown = 1;
}

static void format_duration(double s, char *buf, size_t n)
{
    if (!(s >= 0) || s > 360000) snprintf(buf, n, "--:--");
    else if (s >= 3600) snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

static void draw(pw_progress *p, double now)
{
    if (p->mode == PW_PROGRESS_QUIET) return;
    double frac = p->shown;
    int percent = (int)(frac * 100.0);
    double elapsed = now - p->t_start;

    if (p->mode == PW_PROGRESS_LINES) {
        if (percent <= p->last_percent) return; /* one line a percent */
        p->last_percent = percent;
        fprintf(p->out, "PROGRESS %d%%\n", percent);
        fflush(p->out);
        return;
    }
    /* Redraw at most 10 times a second: terminals are slow and the eye is slower. */
    if (p->t_last_draw >= 0 && now - p->t_last_draw < 0.1 && percent == p->last_percent) return;
    p->t_last_draw = now;
    p->last_percent = percent;
    char eta[32], el[32];
    format_duration(pw_progress_eta(p), eta, sizeof eta);
    format_duration(elapsed, el, sizeof el);
    double rate = elapsed > 0 ? p->last_done / elapsed : 0;
    enum { WIDTH = 28 };
    char bar[WIDTH + 1];
    int filled = (int)(frac * WIDTH + 0.5);
    for (int i = 0; i < WIDTH; i++) bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(p->out, "\r\033[K[%s] %3d%%  %.2f %s/s  elapsed %s  ETA %s  %s", bar, percent, rate,
            p->unit, el, eta, p->label);
    fflush(p->out);
}

void pw_progress_update_at(pw_progress *p, double done, const char *label, double t)
{
    if (label) snprintf(p->label, sizeof p->label, "%s", label);
    /* an update that completes nothing leaves its time to the next one that does */
    if (done > p->last_done) {
        charge(p, p->last_done, done, t - p->t_last);
        advance_shown(p, p->last_done, done);
        p->last_done = done;
        p->t_last = t;
    }
    draw(p, t);
}

void pw_progress_skip_at(pw_progress *p, double done, const char *label, double t)
{
    if (label) snprintf(p->label, sizeof p->label, "%s", label);
    if (done > p->last_done) {
        advance_shown(p, p->last_done, done);
        p->last_done = done;
    }
    p->t_last = t;
    draw(p, t);
}

void pw_progress_update(pw_progress *p, double done, const char *label)
{
    pw_progress_update_at(p, done, label, pw_now());
}

void pw_progress_skip(pw_progress *p, double done, const char *label)
{
    pw_progress_skip_at(p, done, label, pw_now());
}

void pw_progress_finish(pw_progress *p)
{
    if (p->mode == PW_PROGRESS_BAR) {
        fputc('\n', p->out);
        fflush(p->out);
    }
}
