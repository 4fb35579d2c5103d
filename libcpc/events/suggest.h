/* SPDX-License-Identifier: MIT */
/*
 * The closest event names to one no request takes: for the Linux notes,
 * and for cpc_linux_suggest(3CPC), which walks a handle's names.
 */
#ifndef LIBCPC_SUGGEST_H
#define LIBCPC_SUGGEST_H

#include <stddef.h>

#define CPC_CLOSEST_N 3
#define CPC_CLOSEST_LEN 63

/*
 * The names nearest to want seen so far, the closest first: Levenshtein
 * distance ignoring case, within a third of want's length (at least 2);
 * a name or want longer than CPC_CLOSEST_LEN is never near.
 */
struct cpc_closest {
	const char *want;
	int limit;
	char best[CPC_CLOSEST_N][CPC_CLOSEST_LEN + 1];
	int dist[CPC_CLOSEST_N];
	int n;
};

void __cpc_closest_init(struct cpc_closest *c, const char *want);
/* A walker's action: arg is a struct cpc_closest. */
void __cpc_closest_add(void *arg, const char *name);
/*
 * Formats into buf (NUL-terminated when n > 0) the names of c as
 * "a", "a or b" or "a, b or c"; returns the length written.
 */
size_t __cpc_closest_list(const struct cpc_closest *c, char *buf, size_t n);

/*
 * Formats into buf "unknown event 'NAME'" and then the closest names the
 * library takes on this system (cpuver's platform names, or the kernel's
 * software events where it has no hardware PMU; the generic PAPI_*
 * names; perf's and libpfm4's), if any is near, and where the list is.
 */
void __cpc_suggest(int cpuver, const char *name, char *buf, size_t n);

#endif
