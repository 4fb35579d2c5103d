/* SPDX-License-Identifier: MIT */
/* CPUID decoding and TSC calibration. */
#include <cpuid.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "cpuinfo.h"

void __cpc_cpuid_read(struct cpc_cpuid_raw *raw)
{
	uint32_t *l[] = { raw->leaf0, raw->leaf1, raw->leafa, raw->ext1 };
	static const unsigned leaf[] = { 0, 1, 0xa, 0x80000001u };

	memset(raw, 0, sizeof(*raw));
	for (size_t i = 0; i < 4; i++)
		if (__get_cpuid(leaf[i], &l[i][0], &l[i][1], &l[i][2],
			&l[i][3]) == 0)
			memset(l[i], 0, 4 * sizeof(uint32_t));
	/* Leaf 0AH only where the highest standard leaf reaches it. */
	if (raw->leaf0[0] < 0xa)
		memset(raw->leafa, 0, sizeof(raw->leafa));
}

void __cpc_cpuinfo_decode(const struct cpc_cpuid_raw *raw,
    struct cpc_cpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	/* The vendor string is EBX, EDX, ECX. */
	memcpy(ci->vendor_id, &raw->leaf0[1], 4);
	memcpy(ci->vendor_id + 4, &raw->leaf0[3], 4);
	memcpy(ci->vendor_id + 8, &raw->leaf0[2], 4);
	ci->vendor_id[12] = '\0';
	if (strcmp(ci->vendor_id, "GenuineIntel") == 0) {
		ci->vendor = CPC_VENDOR_INTEL;
	} else if (strcmp(ci->vendor_id, "AuthenticAMD") == 0 ||
	    strcmp(ci->vendor_id, "HygonGenuine") == 0) {
		ci->vendor = CPC_VENDOR_AMD;
		ci->hygon = ci->vendor_id[0] == 'H';
	} else {
		ci->vendor = CPC_VENDOR_OTHER;
	}
	if (raw->leaf0[0] < 1)
		return;
	uint32_t a = raw->leaf1[0];
	unsigned family = (a >> 8) & 0xf;
	unsigned model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	ci->family = family;
	ci->model = model;
	ci->has_mmx = (raw->leaf1[3] >> 23) & 1;
	ci->htt = (raw->leaf1[3] >> 28) & 1;
	if (ci->vendor == CPC_VENDOR_INTEL && raw->leaf0[0] >= 0xa) {
		ci->pmu_version = raw->leafa[0] & 0xff;
		ci->gp_counters = (raw->leafa[0] >> 8) & 0xff;
		ci->fixed_counters = raw->leafa[3] & 0x1f;
		ci->arch_events = (raw->leafa[0] >> 24) & 0xff;
		ci->arch_absent = raw->leafa[1];
	}
	if (ci->vendor == CPC_VENDOR_AMD)
		ci->amd_perfctr_core = (raw->ext1[2] >> 23) & 1;
}

void __cpc_cpuinfo_read(struct cpc_cpuinfo *ci)
{
	struct cpc_cpuid_raw raw;
	__cpc_cpuid_read(&raw);
	__cpc_cpuinfo_decode(&raw, ci);
}

static _Atomic uint64_t tsc_khz_cache;
_Atomic uint64_t __cpc_ns_to_tsc_mult;

static uint64_t ns_now_raw(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The kernel's own TSC rate, from a perf user page: ns = cyc * mult >>
 * shift there, so ticks per ns = 2^shift / mult.  Sets *mult32 (ticks per
 * ns, 32.32) and returns kHz, or 0 when perf cannot tell (no perf access,
 * or a clock that is not the TSC).
 */
uint64_t __cpc_tsc_khz_perf(uint64_t *mult32)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t khz = 0;
	void *pg = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		const volatile struct perf_event_mmap_page *u = pg;
		uint32_t seq, mult;
		uint16_t shift;
		int ok;
		do {
			seq = u->lock;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			ok = u->cap_user_time;
			mult = u->time_mult;
			shift = u->time_shift;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		} while (u->lock != seq);
		if (ok && mult != 0 && shift < 64) {
			unsigned __int128 one = (unsigned __int128)1 << shift;
			*mult32 = (uint64_t)((one << 32) / mult);
			khz = (uint64_t)(one * 1000000u / mult);
		}
		munmap(pg, (size_t)page);
	}
	close(fd);
	return khz;
}

/*
 * One TSC reading placed in CLOCK_MONOTONIC_RAW time: between two clock
 * readings, at their midpoint, with half their distance as its error.
 * The narrowest of a few tries: an interrupt or a preemption (a host's,
 * in an emulated guest) between the three reads only widens the bracket.
 */
struct tsc_reading {
	uint64_t ns, err, tsc;
};

static void tsc_reading_take(struct tsc_reading *r)
{
	r->err = ~0ULL;
	for (int i = 0; i < 5; i++) {
		uint64_t before = ns_now_raw();
		uint64_t tsc = __cpc_rdtsc();
		uint64_t after = ns_now_raw();
		uint64_t err = (after - before) / 2 + 1;
		if (err < r->err) {
			r->err = err;
			r->ns = before + (after - before) / 2;
			r->tsc = tsc;
		}
	}
}

/*
 * Measures the TSC against CLOCK_MONOTONIC_RAW: kHz, and in *bound the
 * relative error that the measurement guarantees.  The rate's error is at
 * most the two readings' errors over the time between them; windows of
 * 1, 2, 4, 8 and 16 ms until that bound is under 100 ppm (a window of
 * 1 ms natively, where the clock takes tens of ns, longer in an emulated
 * guest), else the best bound of the five (31 ms in all).
 */
uint64_t __cpc_tsc_khz_measure(double *bound)
{
	uint64_t khz = 0;
	double best_bound = 1e9;
	for (uint64_t window = 1000000; window <= 16000000; window *= 2) {
		struct tsc_reading a, b;
		tsc_reading_take(&a);
		while (ns_now_raw() - a.ns < window)
			;
		tsc_reading_take(&b);
		uint64_t span = b.ns - a.ns;
		double bound = (double)(a.err + b.err) / (double)span;
		if (bound < best_bound) {
			best_bound = bound;
			/* Not rounded to whole MHz: 2596.1 MHz TSCs exist. */
			khz = (uint64_t)((unsigned __int128)(b.tsc - a.tsc) *
			    1000000u / span);
		}
		if (best_bound <= 100e-6)
			break;
	}
	if (bound != NULL)
		*bound = best_bound;
	return khz != 0 ? khz : 1;
}

static uint64_t tsc_rate_measured(uint64_t *mult32)
{
	uint64_t khz = __cpc_tsc_khz_measure(NULL);
	*mult32 = (khz << 32) / 1000000u;
	return khz;
}

uint64_t __cpc_tsc_khz(void)
{
	uint64_t khz = atomic_load_explicit(&tsc_khz_cache, memory_order_relaxed);
	if (khz != 0)
		return khz;
	uint64_t mult32 = 0;
	khz = __cpc_tsc_khz_perf(&mult32);
	if (khz == 0)
		khz = tsc_rate_measured(&mult32);
	atomic_store_explicit(&__cpc_ns_to_tsc_mult, mult32,
	    memory_order_relaxed);
	atomic_store_explicit(&tsc_khz_cache, khz, memory_order_release);
	return khz;
}

uint64_t __cpc_ns_to_tsc_first(uint64_t ns)
{
	(void)__cpc_tsc_khz();
	uint64_t mult = atomic_load_explicit(&__cpc_ns_to_tsc_mult,
	    memory_order_relaxed);
	return (uint64_t)(((unsigned __int128)ns * mult) >> 32);
}
