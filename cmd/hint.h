/* SPDX-License-Identifier: MIT */
/*
 * Linux hints of cputrack and cpustat: a line of help printed after the
 * Solaris message of an event specification error (the unknown name and
 * the closest names the library takes, or the number of counters), and
 * which events can be counted on this system.
 */
#ifndef CMD_HINT_H
#define CMD_HINT_H

#include <stdio.h>
#include <libcpc.h>

/* Prints on fp the hint for event, which no counter of cpc took. */
void hint_event(cpc_t *cpc, const char *event, int counter_free, FILE *fp);

/* Can this system count event (a trial bind on the calling thread)? */
int hint_countable(cpc_t *cpc, const char *event);

/*
 * The Linux section of -h: which of the events the Solaris lists name
 * this system can count (a trial bind of each).
 */
void hint_print_countable(cpc_t *cpc, FILE *fp);

#endif
