/* SPDX-License-Identifier: MIT */
/*
 * The event names of the original's back ends (PCBEs) for today's
 * processors, per counter, with their encodings: what the current
 * interfaces list (cpc_walk_events_*, cpc_walk_generic_events_*) and
 * accept, on the processor an identity (identity.h) describes.
 */
#ifndef LIBCPC_PCBE_EVENTS_H
#define LIBCPC_PCBE_EVENTS_H

#include <stdint.h>

#include "identity.h"

/* A table event: its name, event select (12 bits on AMD) and unit mask. */
struct cpc_pcbe_event {
	const char *name;
	uint16_t code;
	uint8_t umask;
};

/* A generic (PAPI) name: an alias of a table event with a unit mask. */
struct cpc_pcbe_alias {
	const char *name;
	const char *event;
	uint8_t umask;
};

/*
 * The tables, each ended by a NULL name (pcbe_amd_legacy.c; the Zen
 * families' are in pcbe_zen.h).
 */
extern const struct cpc_pcbe_event __cpc_amd_cmn_events[];
extern const struct cpc_pcbe_event __cpc_amd_f_events[];
extern const struct cpc_pcbe_event __cpc_amd_10h_events[];
extern const struct cpc_pcbe_event __cpc_amd_11h_events[];
extern const struct cpc_pcbe_alias __cpc_amd_cmn_papi[];
extern const struct cpc_pcbe_alias __cpc_amd_opt_papi[];
extern const struct cpc_pcbe_alias __cpc_amd_10h_papi[];
/* Intel's Core microarchitecture (pcbe_core_uarch.c); PAPI names too. */
extern const struct cpc_pcbe_event __cpc_core_pic0_events[];
extern const struct cpc_pcbe_event __cpc_core_pic1_events[];
extern const struct cpc_pcbe_event __cpc_core_pic0_papi[];
extern const struct cpc_pcbe_event __cpc_core_events[];
extern const struct cpc_pcbe_event __cpc_core_papi[];

/* 1 if the back end of id has its own event list here. */
int __cpc_pcbe_has_events(const struct cpc_identity *id);

/*
 * Calls fn for each name counter picno lists, in the back end's order,
 * the generic (PAPI) names among them.
 */
void __cpc_pcbe_walk(const struct cpc_identity *id, unsigned picno, void *arg,
    void (*fn)(void *arg, const char *name));

enum { CPC_PCBE_UNKNOWN, CPC_PCBE_FOUND, CPC_PCBE_OTHER_PIC };

/*
 * Looks name up for counter picno (-1: any counter).  CPC_PCBE_FOUND sets
 * *config to the raw event select (event bits 7:0, unit mask 15:8, AMD's
 * extended event bits 35:32) and *generic to 1 for a generic name, which
 * takes no attributes; CPC_PCBE_OTHER_PIC: listed on other counters only.
 */
int __cpc_pcbe_lookup(const struct cpc_identity *id, const char *name,
    int picno, uint64_t *config, int *generic);

#endif
