/* bench_cpu.h — the CPU a benchmark ran on, printed with its figures: machines of the
 * same size differ by 1.5x in speed, so a time without its CPU says little. */
#ifndef PW_BENCH_CPU_H
#define PW_BENCH_CPU_H

#include <stdio.h>
#include <string.h>

/* Prints "cpu <model name> (<n> logical CPUs)" from /proc/cpuinfo, or "cpu unknown". */
static inline void bench_print_cpu(void)
{
    char line[512], model[256] = "unknown";
    int n = 0;
    FILE *fp = fopen("/proc/cpuinfo", "r");
    while (fp && fgets(line, sizeof line, fp)) {
        if (!strncmp(line, "processor", 9)) n++;
        const char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon && !strcmp(model, "unknown")) {
            snprintf(model, sizeof model, "%s", colon + 2);
            model[strcspn(model, "\n")] = 0;
        }
    }
    if (fp) fclose(fp);
    printf("cpu                  %s (%d logical CPUs)\n", model, n);
}

#endif
