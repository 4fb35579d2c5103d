/* SPDX-License-Identifier: MIT */
/*
 * What the current interfaces say the counters are (cpc_cciname,
 * cpc_cpuref, cpc_npic, cpc_caps, cpc_walk_attrs): what the original's
 * kernel back end for the processor (its PCBE) reports on the same
 * processor, from CPUID alone, so that simulated CPUID leaves give
 * another processor's identity.
 */
#ifndef LIBCPC_IDENTITY_H
#define LIBCPC_IDENTITY_H

#include "libcpc.h"
#include "cpuinfo.h"

/* The back end whose identity is reported. */
enum cpc_pcbe {
	CPC_PCBE_NONE,		/* none of the original's: Linux perf only */
	CPC_PCBE_P5,		/* Pentium */
	CPC_PCBE_P6,		/* Pentium Pro, II, III; family 6 without PMU */
	CPC_PCBE_CORE,		/* Intel architectural performance monitoring */
	CPC_PCBE_OPTERON	/* AMD and Hygon family 0Fh and later */
};

struct cpc_identity {
	enum cpc_pcbe pcbe;
	char cciname[CPC_MAX_IMPL_NAME];
	const char *cpuref;
	uint_t npic;		/* 0: the caller decides (CPC_PCBE_NONE) */
	uint_t caps;
	/* The attribute names, without "picnum", NULL-terminated. */
	const char *const *attrs;
};

/* The identity of the processor ci.  Async-signal-safe. */
void __cpc_identity(const struct cpc_cpuinfo *ci, struct cpc_identity *id);

#endif
