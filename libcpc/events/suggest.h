/* SPDX-License-Identifier: MIT */
/* The closest event names to one no request takes, for the Linux notes. */
#ifndef LIBCPC_SUGGEST_H
#define LIBCPC_SUGGEST_H

#include <stddef.h>

/*
 * Formats into buf "unknown event 'NAME'" and then the closest names the
 * library takes on this system (cpuver's platform names, or the kernel's
 * software events where it has no hardware PMU; the generic PAPI_*
 * names; perf's and libpfm4's), if any is near, and where the list is.
 */
void __cpc_suggest(int cpuver, const char *name, char *buf, size_t n);

#endif
