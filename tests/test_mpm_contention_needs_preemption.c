/* Property: the step's contention back-off (pw_mpm_step_contended) runs steps on one
 * thread only when other tasks took the cores: a step short of CPU and preempted as
 * a step sharing its cores is (53-280 preemptions a second measured,
 * sim/docs/step-speed.md "Contention, judged by preemptions") is contended; the same
 * shortfall without preemptions (a virtual machine's stolen time, a thread asleep
 * through a serial stretch) is not, nor is a step with its full CPU however often it
 * was preempted. */
#include <sys/resource.h>

#include "check.h"
#include "mpm_internal.h"

int main(void)
{
    /* a 0.4 s step on 2 threads */
    CHECK(pw_mpm_step_contended(0.4, 0.55, 2, 60), "short of CPU (0.69), 150/s: contended");
    CHECK(pw_mpm_step_contended(0.4, 0.40, 2, 21), "half the CPU, 53/s: contended");
    CHECK(!pw_mpm_step_contended(0.4, 0.40, 2, 4), "half the CPU, 10/s (stolen): not contended");
    CHECK(!pw_mpm_step_contended(0.4, 0.40, 2, 0), "no preemption counted: not contended");
    CHECK(!pw_mpm_step_contended(0.4, 0.78, 2, 200), "full CPU (0.975), 500/s: not contended");
    CHECK(!pw_mpm_step_contended(0.4, 0.66, 2, 100), "0.83 of the CPU is not short of it");
    /* the rule at its two bounds */
    CHECK(pw_mpm_step_contended(1.0, 1.5999, 2, 40), "just under 0.8, 40/s: contended");
    CHECK(!pw_mpm_step_contended(1.0, 1.5999, 2, 39), "just under 0.8, 39/s: not contended");
    /* the count the rule reads moves with this process's involuntary switches */
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_nivcsw >= 0, "getrusage counts preemptions");
    return check_done("mpm_contention_needs_preemption");
}
