/* SPDX-License-Identifier: MIT */
/*
 * The model-specific event names of Intel processors in the original's
 * form (illumos lists Intel's EVENT.UMASK names in lower case, such as
 * "br_inst_retired.conditional", beside the architectural events on the
 * processors its generated tables cover), derived here from libpfm4's
 * tables of the core PMU libpfm4 detects (or is forced to, with
 * LIBPFM_FORCE_PMU).
 */
#ifndef LIBCPC_PCBE_INTEL_MODEL_H
#define LIBCPC_PCBE_INTEL_MODEL_H

#include <stdint.h>

/*
 * 1 if the current core PMU is one of the processors the original has
 * model-specific names for (Nehalem to Cascade Lake, and the Atoms
 * Bonnell, Silvermont and Goldmont).
 */
int __cpc_model_has_events(void);

/*
 * Calls fn for each listed name: every event with a unit mask that
 * encodes alone, without the extra registers of off-core events, in
 * libpfm4's order.  The name passed is in a buffer of the walk's.
 */
void __cpc_model_walk(void *arg, void (*fn)(void *arg, const char *name));

/*
 * Looks up a lower-case "event.umask" name; 1 and its event select
 * (event 7:0, unit mask 15:8, and the edge, inv and cmask bits the
 * event needs) in *config, or 0.
 */
int __cpc_model_lookup(const char *name, uint64_t *config);

#endif
