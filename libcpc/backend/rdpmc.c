/* Counter reads through the perf_event mmap page and rdpmc. */
#include <stdatomic.h>

#include "rdpmc.h"

uint64_t __cpc_rdpmc_insn(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
}

int __cpc_rdpmc_read(const volatile struct perf_event_mmap_page *pg,
    cpc_rdpmc_fn rdpmc, uint64_t *count)
{
	uint32_t seq, idx;
	uint64_t value;

	do {
		seq = pg->lock;
		atomic_signal_fence(memory_order_acquire);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		idx = pg->index;
		if (!pg->cap_user_rdpmc || idx == 0)
			return -1;
		int64_t offset = pg->offset;
		uint16_t width = pg->pmc_width;
		uint64_t pmc = rdpmc(idx - 1);
		if (width > 0 && width < 64) {
			/* Sign-extend the counter's width to 64 bits. */
			int shift = 64 - width;
			pmc = (uint64_t)((int64_t)(pmc << shift) >> shift);
		}
		value = (uint64_t)offset + pmc;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);
	*count = value;
	return 0;
}

int __cpc_rdpmc_time_enabled(const volatile struct perf_event_mmap_page *pg,
    cpc_rdtsc_fn rdtsc, uint64_t *enabled)
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
