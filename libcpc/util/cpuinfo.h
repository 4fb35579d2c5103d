/* SPDX-License-Identifier: MIT */
/* What the running processor is, from CPUID, and its TSC frequency. */
#ifndef LIBCPC_CPUINFO_H
#define LIBCPC_CPUINFO_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

enum cpc_vendor { CPC_VENDOR_OTHER, CPC_VENDOR_INTEL, CPC_VENDOR_AMD };

struct cpc_cpuinfo {
	enum cpc_vendor vendor;
	unsigned family;	/* display family */
	unsigned model;		/* display model */
	int has_mmx;
	char vendor_id[13];
	int hygon;		/* HygonGenuine (vendor is CPC_VENDOR_AMD) */
	/* Intel architectural performance monitoring (CPUID leaf 0AH). */
	unsigned pmu_version;	/* 0: none */
	unsigned gp_counters;
	unsigned fixed_counters;
	unsigned arch_events;	/* length of the event availability vector */
	uint32_t arch_absent;	/* EBX: bit i set = architectural event i absent */
	int htt;		/* leaf 1 EDX[28]: more than one logical processor */
	/* AMD: the core performance counter extensions (six counters). */
	int amd_perfctr_core;
};

/* The CPUID leaves the description is made of (EAX, EBX, ECX, EDX). */
struct cpc_cpuid_raw {
	uint32_t leaf0[4];	/* vendor, highest standard leaf */
	uint32_t leaf1[4];	/* family, model, features */
	uint32_t leafa[4];	/* architectural PMU; zeros if absent */
	uint32_t ext1[4];	/* 8000_0001H; zeros if absent */
};

/* Fills *ci from CPUID.  Async-signal-safe. */
void __cpc_cpuinfo_read(struct cpc_cpuinfo *ci);

/* Reads the leaves of the running processor.  Async-signal-safe. */
void __cpc_cpuid_read(struct cpc_cpuid_raw *raw);

/* Describes the processor of the leaves raw (real or simulated). */
void __cpc_cpuinfo_decode(const struct cpc_cpuid_raw *raw,
    struct cpc_cpuinfo *ci);

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
 * against CLOCK_MONOTONIC_RAW (1 ms natively, up to 32 ms in an
 * emulated guest).  Async-signal-safe; call it
 * outside measured regions.
 */
uint64_t __cpc_tsc_khz(void);
/* The kernel's TSC rate from a perf user page (kHz, *mult32), or 0. */
uint64_t __cpc_tsc_khz_perf(uint64_t *mult32);
/* The TSC measured against CLOCK_MONOTONIC_RAW (kHz); *bound: its error. */
uint64_t __cpc_tsc_khz_measure(double *bound);

/*
 * Monotonic nanoseconds (gethrtime): CLOCK_MONOTONIC itself, which the
 * vDSO reads from the TSC with the kernel's own conversion (no system
 * call where the clocksource allows it), so it never drifts from the
 * clock the man pages promise.  Inline: the sample paths call it.
 * Async-signal-safe.
 */
static inline uint64_t __cpc_hrtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* TSC ticks per ns, 32.32 fixed point; 0 until __cpc_tsc_khz has run. */
extern _Atomic uint64_t __cpc_ns_to_tsc_mult;

/* __cpc_ns_to_tsc before the rate is known: measures it first. */
uint64_t __cpc_ns_to_tsc_first(uint64_t ns);

/*
 * Nanoseconds to TSC ticks, without a division.  Inline: the sample paths
 * call it (every binding has measured the rate already).
 * Async-signal-safe.
 */
static inline uint64_t __cpc_ns_to_tsc(uint64_t ns)
{
	uint64_t mult = atomic_load_explicit(&__cpc_ns_to_tsc_mult,
	    memory_order_relaxed);
	if (__builtin_expect(mult == 0, 0))
		return __cpc_ns_to_tsc_first(ns);
	return (uint64_t)(((unsigned __int128)ns * mult) >> 32);
}

#endif
