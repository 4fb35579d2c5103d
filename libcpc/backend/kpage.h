/* SPDX-License-Identifier: MIT */
/*
 * Reading the calling thread's counts from the libcpc module's state
 * page without a system call, where the module gives the page a time
 * base (CPC_KPAGE_TIME in kmod/uapi/cpc_kmod.h): the counts and on-CPU
 * time as of the thread's last scheduling in, plus the TSC ticks since,
 * converted with the page's mult and shift; and, whatever the set counts,
 * the counts of a binding an overflow froze (CPC_KSAMPLE_FROZEN), which
 * do not change until it is restarted or rebound.  The one
 * implementation of that protocol; rdtsc is a parameter so that
 * synthetic pages can be read with a stand-in.
 */
#ifndef LIBCPC_KPAGE_H
#define LIBCPC_KPAGE_H

#include <stdatomic.h>
#include <stdint.h>

#include "cpc_kmod.h"
#include "rdpmc.h"

/*
 * Reads the first n counts and the on-CPU time from page kp, under its
 * sequence counter.  Returns 0, or -1 when the page cannot answer now
 * (neither frozen nor with a time base, or fewer requests than n): then
 * use CPC_KIOC_SAMPLE.
 * Async-signal-safe.  Inline, as __cpc_rdpmc_read.
 */
static inline int __cpc_kpage_read(const volatile struct cpc_kpage *kp,
    cpc_rdtsc_fn rdtsc, uint64_t *vals, unsigned n, uint64_t *ontime_ns)
{
	uint32_t seq, mask = 0;
	uint64_t ontime = 0, delta = 0;
	int frozen;

	do {
		seq = kp->seq;
		atomic_signal_fence(memory_order_acquire);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((seq & 1) != 0)
			continue;
		frozen = (kp->flags & CPC_KSAMPLE_FROZEN) != 0;
		if ((!frozen && !(kp->time_flags & CPC_KPAGE_TIME)) ||
		    kp->nreqs < n)
			return -1;
		for (unsigned i = 0; i < n; i++)
			vals[i] = kp->vals[i];
		ontime = kp->ontime_ns;
		if (frozen) {
			/* Exact as they stand: nothing advances. */
			mask = 0;
			delta = 0;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			continue;
		}
		mask = kp->time_mask;
		uint64_t tsc = rdtsc(), base = kp->time_tsc;
		uint64_t cyc = tsc > base ? tsc - base : 0;
		delta = (uint64_t)(((unsigned __int128)cyc * kp->time_mult) >>
		    kp->time_shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) != 0 || kp->seq != seq);
	for (unsigned i = 0; i < n; i++)
		if (mask & (1u << i))
			vals[i] += delta;
	*ontime_ns = ontime + delta;
	return 0;
}

#endif
