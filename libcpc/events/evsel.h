/* SPDX-License-Identifier: MIT */
/* A resolved event: what a backend programs into a counter. */
#ifndef LIBCPC_EVSEL_H
#define LIBCPC_EVSEL_H

#include <stdint.h>

struct cpc_evsel {
	uint64_t config;	/* for PERF_TYPE_RAW: the x86 event-select bits */
	uint64_t config1;	/* extra register (e.g. Intel offcore response) */
	uint32_t type;		/* PERF_TYPE_* */
};

/* Kinds of events carried in a ce_pes[] word marked CPC_PES_LINUX_EXT. */
enum cpc_ext_kind {
	CPC_EXT_SW = 1,		/* Linux software event; index = config */
	CPC_EXT_HW = 2,		/* perf generic hardware event; index = config */
	CPC_EXT_CACHE = 3,	/* perf cache event; index = id|op<<4|result<<6 */
	CPC_EXT_PFM = 4,	/* libpfm4 native event; index into the intern table */
	CPC_EXT_GENERIC = 5	/* Solaris generic PAPI_* event; index into its table */
};

#endif
