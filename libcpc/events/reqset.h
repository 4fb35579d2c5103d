/* SPDX-License-Identifier: MIT */
/*
 * The core model every interface is built on: a set of requests, each an
 * event with a 64-bit preset and flags, bound to an LWP by a backend.
 */
#ifndef LIBCPC_REQSET_H
#define LIBCPC_REQSET_H

#include <stdint.h>

#include "evsel.h"

/*
 * Most requests one set may hold: the counters of today's x86 PMUs (up to
 * 8 general-purpose plus 4 fixed), and small enough that an LWP's whole
 * context stays under 1 KiB.
 */
#define CPC_MAX_REQS 12

struct cpc_req {
	uint64_t preset;	/* the count starts here (mod 2^64) */
	struct cpc_evsel sel;
	uint32_t flags;		/* CPC_COUNT_USER, CPC_COUNT_SYSTEM, CPC_OVF_NOTIFY_EMT */
};

struct cpc_reqset {
	unsigned nreqs;
	struct cpc_req req[CPC_MAX_REQS];
};

#endif
