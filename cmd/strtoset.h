/* SPDX-License-Identifier: MIT */
/*
 * The event specification of cputrack and cpustat (-c): parsed into a
 * libcpc request set.  Private to the tools, as on Solaris.
 */
#ifndef CMD_STRTOSET_H
#define CMD_STRTOSET_H

#include <libcpc.h>

/*
 * Parses spec, for example "pic0=task-clock,pic1=page-faults,sys", into a
 * new set of cpc: one request per counter given an event, in counter
 * order, each with the attribute picnum.  Errors go to the handler set by
 * strtoset_handler (function name "cpc_strtoset", subcode -1).  Returns
 * the set, or NULL with errno EINVAL.  smt is accepted for compatibility
 * (Pentium 4 HyperThreading) and ignored.
 */
cpc_set_t *cpc_strtoset(cpc_t *cpc, const char *spec, int smt);

/* The tool's error handler, also installed on cpc with cpc_seterrhndlr. */
void strtoset_handler(cpc_errhndlr_t *fn);

/*
 * The event of the last specification no counter took (unknown, or no
 * counter left: *counter_free says which counters remained), or NULL.
 */
const char *strtoset_refused(int *counter_free);

#endif
