/* What the running processor is, from CPUID, and its TSC frequency. */
#ifndef LIBCPC_CPUINFO_H
#define LIBCPC_CPUINFO_H

#include <stdint.h>

enum cpc_vendor { CPC_VENDOR_OTHER, CPC_VENDOR_INTEL, CPC_VENDOR_AMD };

struct cpc_cpuinfo {
	enum cpc_vendor vendor;
	unsigned family;	/* display family */
	unsigned model;		/* display model */
	int has_mmx;
	char vendor_id[13];
};

/* Fills *ci from CPUID.  Async-signal-safe. */
void __cpc_cpuinfo_read(struct cpc_cpuinfo *ci);

/* Reads the time-stamp counter. */
static inline uint64_t __cpc_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/*
 * TSC frequency in kHz, cached: the kernel's own rate from a perf user
 * page (cap_user_time) where perf may be opened, else measured once
 * against CLOCK_MONOTONIC_RAW (about 2 ms).  Async-signal-safe; call it
 * outside measured regions.
 */
uint64_t __cpc_tsc_khz(void);

/*
 * Monotonic nanoseconds (gethrtime): CLOCK_MONOTONIC through the vDSO,
 * so exactly the kernel's clock.  Async-signal-safe.
 */
uint64_t __cpc_hrtime(void);

/* Nanoseconds to TSC ticks, without a division.  Async-signal-safe. */
uint64_t __cpc_ns_to_tsc(uint64_t ns);

#endif
