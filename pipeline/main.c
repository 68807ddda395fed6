/* main.c — the powder program (placeholder until the CLI lands). */
#include <stdio.h>
int main(void) { fprintf(stderr, "powder: not built yet\n"); return 2; }
