/* SPDX-License-Identifier: MIT */
/*
 * Processor contexts: counting everything that runs on one processor
 * (cpc_bind_cpu, and the version 1 cpc_shared_* interfaces), through the
 * backend that serves processors (__cpc_backend_for).  The interface layers
 * keep one context per binding; this module keeps only which processors
 * are taken (__cpc_cpu_claim).
 */
#ifndef LIBCPC_CPUCTX_H
#define LIBCPC_CPUCTX_H

#include <sched.h>
#include <stdint.h>

#include "counters.h"
#include "reqset.h"

struct cpc_cpuctx {
	struct cpc_counters ctr;
	uint64_t tsc_at_bind;
};

/*
 * Starts counting set (overflow notification dropped) on processor cpu
 * in c, a zeroed or closed context.  0, or -errno with *bad the failing
 * request (or -1).
 */
int __cpc_cpu_open(struct cpc_cpuctx *c, const struct cpc_reqset *set, int cpu,
    int *bad);

/* The n counts and the TSC ticks since open: 0 or -errno. */
int __cpc_cpu_sample(struct cpc_cpuctx *c, uint64_t *vals, unsigned n,
    uint64_t *tick);

/* Stops counting; idempotent. */
void __cpc_cpu_close(struct cpc_cpuctx *c);

/*
 * Takes processor cpu for system-wide counting: one binding at a time
 * per processor, whichever interface makes it (cpc_shared_open,
 * cpc_bind_cpu), as the original's driver allows one open per
 * processor.  0, -EAGAIN if it is taken, -EINVAL for no such number.
 * Machine-wide among the programs of this library (an abstract socket
 * per processor, in the network namespace; see cpuctx.c); Linux itself
 * lets other programs count there too.
 */
int __cpc_cpu_claim(int cpu);

/*
 * As __cpc_cpu_claim, handing the caller in *sock the descriptor that
 * holds the claim machine-wide (-1 if there is none), to close after
 * __cpc_cpu_unclaim.
 */
int __cpc_cpu_claim_fd(int cpu, int *sock);

/* Gives processor cpu back. */
void __cpc_cpu_unclaim(int cpu);

/* May this process count on the processor it runs on?  0 or -errno. */
int __cpc_cpu_probe(void);

#endif
