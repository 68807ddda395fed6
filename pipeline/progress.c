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
    p->t_last_draw = -1;
    p->last_percent = -1;
}

static void format_duration(double s, char *buf, size_t n)
{
    if (!(s >= 0) || s > 360000) snprintf(buf, n, "--:--");
    else if (s >= 3600) snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
    else snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

void pw_progress_update(pw_progress *p, double done, const char *label)
{
    if (p->mode == PW_PROGRESS_QUIET) return;
    if (label) snprintf(p->label, sizeof p->label, "%s", label);
    double frac = done / p->total;
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    int percent = (int)(frac * 100.0);
    double now = pw_now(), elapsed = now - p->t_start;

    if (p->mode == PW_PROGRESS_LINES) {
        if (percent == p->last_percent) return;
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
    format_duration(frac > 0 ? elapsed * (1 - frac) / frac : -1, eta, sizeof eta);
    format_duration(elapsed, el, sizeof el);
    double rate = elapsed > 0 ? done / elapsed : 0;
    enum { WIDTH = 28 };
    char bar[WIDTH + 1];
    int filled = (int)(frac * WIDTH + 0.5);
    for (int i = 0; i < WIDTH; i++) bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(p->out, "\r\033[K[%s] %3d%%  %.2f %s/s  elapsed %s  ETA %s  %s", bar, percent, rate,
            p->unit, el, eta, p->label);
    fflush(p->out);
}

void pw_progress_finish(pw_progress *p)
{
    if (p->mode == PW_PROGRESS_BAR) {
        fputc('\n', p->out);
        fflush(p->out);
    }
}
