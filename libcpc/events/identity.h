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

/* Which of the back end's event lists the processor has (pcbe_events.h). */
enum cpc_evtab {
	CPC_EVTAB_NONE,		/* none here: the library's own names */
	CPC_EVTAB_AMD_F,
	CPC_EVTAB_AMD_10H,
	CPC_EVTAB_AMD_11H,
	CPC_EVTAB_ZEN1,		/* family 17h models 00h-2Fh, Hygon 18h */
	CPC_EVTAB_ZEN2,
	CPC_EVTAB_ZEN3,
	CPC_EVTAB_ZEN4,
	CPC_EVTAB_ZEN5,
	CPC_EVTAB_INTEL_ARCH,	/* Intel's architectural events */
	CPC_EVTAB_CORE_UARCH	/* Intel's Core microarchitecture */
};

struct cpc_identity {
	enum cpc_pcbe pcbe;
	char cciname[CPC_MAX_IMPL_NAME];
	const char *cpuref;
	uint_t npic;		/* 0: the caller decides (CPC_PCBE_NONE) */
	uint_t caps;
	/* The attribute names, without "picnum", NULL-terminated. */
	const char *const *attrs;
	enum cpc_evtab evtab;
	/* Intel's PMU (CPC_EVTAB_INTEL_ARCH, CPC_EVTAB_CORE_UARCH). */
	unsigned gpc, ffc;	/* general-purpose and fixed counters */
	unsigned arch_events;	/* architectural events CPUID describes */
	uint32_t arch_absent;	/* bit i set: architectural event i absent */
	int htt;		/* thread names (thread_p) for the cycle events */
};

/* The identity of the processor ci.  Async-signal-safe. */
void __cpc_identity(const struct cpc_cpuinfo *ci, struct cpc_identity *id);

#endif
