/* SPDX-License-Identifier: MIT */
/* The Solaris generic event names (generic_events(3CPC), PAPI_*). */
#ifndef LIBCPC_GENERIC_EVENTS_H
#define LIBCPC_GENERIC_EVENTS_H

#include <stddef.h>

#include "evsel.h"

/* Index of a generic name in the table, or -1. */
int __cpc_generic_lookup(const char *name);

/* Name of table entry index, or NULL. */
const char *__cpc_generic_name(unsigned index);

/*
 * The encoding of entry index on the running processor; 0 on success, -1
 * if the processor has no such event.  Async-signal-safe.
 */
int __cpc_generic_evsel(unsigned index, struct cpc_evsel *sel);

/* Calls action for each generic name the running processor supports. */
void __cpc_generic_walk(void *arg, void (*action)(void *arg, const char *name));

#endif
