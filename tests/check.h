/* check.h — the few assertions our tests need; each failure prints file:line and the
 * values compared, and the test exits 1 when any check failed, 0 otherwise. */
#ifndef PW_TEST_CHECK_H
#define PW_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int check_failures = 0;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol, what)                                             \
    do {                                                                        \
        double a_ = (a), b_ = (b), t_ = (tol);                                  \
        CHECK(fabs(a_ - b_) <= t_ && isfinite(a_) && isfinite(b_),              \
              "%s: %.10g vs %.10g (tolerance %.3g)", what, a_, b_, t_);         \
    } while (0)

/* Prints a summary line and returns the exit status for main(). */
static inline int check_done(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
