/* SPDX-License-Identifier: MIT */
/* Linux perf's generic hardware, cache and software event names. */
#ifndef LIBCPC_PERF_NAMES_H
#define LIBCPC_PERF_NAMES_H

#include <stddef.h>

#include "evsel.h"

/* Resolves a perf event name (e.g. "task-clock", "L1-dcache-load-misses"). */
int __cpc_perf_name_lookup(const char *name, unsigned *kind, unsigned *index);

/* The canonical name of (kind, index); 0 on success, -1 if unknown. */
int __cpc_perf_name_format(unsigned kind, unsigned index, char *buf, size_t n);

/* The perf encoding of (kind, index); 0 on success, -1 if unknown. */
int __cpc_perf_name_evsel(unsigned kind, unsigned index, struct cpc_evsel *sel);

/* Calls action for the canonical name of every perf event. */
void __cpc_perf_name_walk(void *arg, void (*action)(void *arg, const char *name));

/* Calls action for the canonical name of every perf software event. */
void __cpc_perf_sw_name_walk(void *arg,
    void (*action)(void *arg, const char *name));

#endif
