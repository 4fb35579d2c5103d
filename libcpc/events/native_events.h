/* SPDX-License-Identifier: MIT */
/*
 * Native event names of the running processor, through libpfm4, kept in a
 * process-wide table so that a 16-bit index in a ce_pes[] word names them.
 */
#ifndef LIBCPC_NATIVE_EVENTS_H
#define LIBCPC_NATIVE_EVENTS_H

#include <stddef.h>

#include "evsel.h"

/*
 * Resolves a native name (e.g. "INST_RETIRED:ANY_P") of the running
 * processor's core PMU.  Returns 1 and its table index, or 0 if libpfm4
 * does not know the name for this processor (or the table is full).
 */
int __cpc_native_lookup(const char *name, unsigned *index);

/* The name and encoding of a table entry; 0 or -1.  Async-signal-safe. */
int __cpc_native_name(unsigned index, char *buf, size_t n);
int __cpc_native_evsel(unsigned index, struct cpc_evsel *sel);

/* Calls action for every event name of the running core PMU(s). */
void __cpc_native_walk(void *arg, void (*action)(void *arg, const char *name));

/* General-purpose plus fixed counters of the libpfm4 core PMU, or 0. */
int __cpc_native_counters(void);

/* The name of the libpfm4 core PMU detected (e.g. "skl"), or NULL. */
const char *__cpc_native_pmu_name(void);

#endif
