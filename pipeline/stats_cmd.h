/* stats_cmd.h — the `powder stats` command (main_stats.c): per-frame fragment, J_P,
 * energy, bounds and collider-contact measures of a simulated shot (sim/pw_stats.h). */
#ifndef PW_STATS_CMD_H
#define PW_STATS_CMD_H

/* argv[1] is "stats". @return the process exit status (0, 1 or 2, as cli.h). */
int pw_main_stats(int argc, char **argv);

#endif
