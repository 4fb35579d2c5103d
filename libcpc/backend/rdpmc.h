/* SPDX-License-Identifier: MIT */
/*
 * Reading a counter without a system call: the perf_event mmap page
 * protocol (sequence lock, counter index, width and offset), with the
 * rdpmc instruction; and the page's enabled time, from the TSC.  The one
 * implementation of the user-page protocol.  See perf_event_open(2),
 * "mmap layout".
 */
#ifndef LIBCPC_RDPMC_H
#define LIBCPC_RDPMC_H

#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdint.h>

/* cap_user_rdpmc in the page's capabilities word (bit 2, after cap_bit0
 * and cap_bit0_is_deprecated): one test of the word, not of a bit-field. */
#define CPC_CAP_USER_RDPMC ((uint64_t)1 << 2)

/* Reads hardware counter idx (the page's index - 1). */
typedef uint64_t (*cpc_rdpmc_fn)(uint32_t idx);

/* The rdpmc instruction. */
static inline uint64_t __cpc_rdpmc_insn(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

/*
 * Sign-extends the low width bits of pmc to 64 bits; a width of 0 or of
 * 64 and more leaves pmc as it is.
 */
static inline uint64_t __cpc_pmc_extend(uint64_t pmc, unsigned width)
{
	if (width - 1u < 63u) {
		unsigned shift = (0u - width) & 63u;	/* 64 - width */
		pmc = (uint64_t)((int64_t)(pmc << shift) >> shift);
	}
	return pmc;
}

/*
 * Reads the count of the event whose user page is pg: offset plus the
 * sign-extended pmc_width-bit counter, retried while the kernel changes
 * the page.  Returns 0, or -1 when user-space reading is not possible now
 * (rdpmc not allowed, or the event is not on a counter: index 0); the
 * caller then falls back to read().  Async-signal-safe.  Inline, so that
 * the sample path has no call but rdpmc's (none with the instruction).
 *
 * The offset and the width are read after the counter, still under the
 * lock: with a stand-in function for rdpmc (CPC_SYNTHETIC_PAGES, tests)
 * nothing but the page and the lock's value has to live across the call.
 */
static inline int __cpc_rdpmc_read(
    const volatile struct perf_event_mmap_page *pg, cpc_rdpmc_fn rdpmc,
    uint64_t *count)
{
	uint32_t seq, idx;
	uint64_t value;

	do {
		seq = pg->lock;
		atomic_signal_fence(memory_order_acquire);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		idx = pg->index;
		uint64_t caps = pg->capabilities;
		if (__builtin_expect(!(caps & CPC_CAP_USER_RDPMC) || idx == 0, 0))
			return -1;
		uint64_t pmc = rdpmc(idx - 1);
		value = (uint64_t)pg->offset +
		    __cpc_pmc_extend(pmc, pg->pmc_width);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);
	*count = value;
	return 0;
}

/* Reads the time stamp counter. */
typedef uint64_t (*cpc_rdtsc_fn)(void);

/*
 * The event's enabled time from its user page: the page's time_enabled
 * plus the TSC time since the kernel last wrote it, under the same
 * sequence lock.  Returns 0, or -1 when the page gives no user time
 * (cap_user_time clear).  Async-signal-safe.  Inline, as __cpc_rdpmc_read.
 */
static inline int __cpc_rdpmc_time_enabled(
    const volatile struct perf_event_mmap_page *pg, cpc_rdtsc_fn rdtsc,
    uint64_t *enabled)
{
	uint32_t seq;
	uint64_t value;

	do {
		seq = pg->lock;
		atomic_signal_fence(memory_order_acquire);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!pg->cap_user_time)
			return -1;
		uint64_t cyc = rdtsc();
		uint16_t shift = pg->time_shift;
		uint32_t mult = pg->time_mult;
		uint64_t quot = cyc >> shift;
		uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
		value = pg->time_enabled + pg->time_offset + quot * mult +
		    ((rem * mult) >> shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);
	*enabled = value;
	return 0;
}

#endif
