/* CPUID decoding and TSC calibration. */
#include <cpuid.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "cpuinfo.h"

void __cpc_cpuinfo_read(struct cpc_cpuinfo *ci)
{
	unsigned a = 0, b = 0, c = 0, d = 0;

	memset(ci, 0, sizeof(*ci));
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return;
	memcpy(ci->vendor_id, &b, 4);
	memcpy(ci->vendor_id + 4, &d, 4);
	memcpy(ci->vendor_id + 8, &c, 4);
	ci->vendor_id[12] = '\0';
	if (strcmp(ci->vendor_id, "GenuineIntel") == 0)
		ci->vendor = CPC_VENDOR_INTEL;
	else if (strcmp(ci->vendor_id, "AuthenticAMD") == 0 ||
	    strcmp(ci->vendor_id, "HygonGenuine") == 0)
		ci->vendor = CPC_VENDOR_AMD;
	else
		ci->vendor = CPC_VENDOR_OTHER;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	unsigned family = (a >> 8) & 0xf;
	unsigned model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	ci->family = family;
	ci->model = model;
	ci->has_mmx = (d >> 23) & 1;
}

static _Atomic uint64_t tsc_khz_cache;
static _Atomic uint64_t ns_to_tsc_mult;	/* ticks per ns, 32.32 fixed point */

static uint64_t ns_now_monotonic(void);

/* gethrtime() from the TSC once calibrated, when the kernel trusts it. */
static int tsc_is_clocksource;
static uint64_t hr_tsc0, hr_ns0, hr_mult;	/* ns per tick, 32.32 */
static _Atomic int hr_ready;

__attribute__((constructor)) static void check_clocksource(void)
{
	char buf[16] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	tsc_is_clocksource = n >= 3 && strncmp(buf, "tsc", 3) == 0 &&
	    (n == 3 || buf[3] == '\n');
}

static void start_tsc_hrtime(uint64_t khz)
{
	if (!tsc_is_clocksource)
		return;
	hr_mult = (1000000ULL << 32) / khz;
	hr_tsc0 = __cpc_rdtsc();
	hr_ns0 = ns_now_monotonic();
	atomic_store_explicit(&hr_ready, 1, memory_order_release);
}

uint64_t __cpc_hrtime(void)
{
	if (atomic_load_explicit(&hr_ready, memory_order_acquire))
		return hr_ns0 + (uint64_t)(((unsigned __int128)(__cpc_rdtsc() -
						hr_tsc0) * hr_mult) >> 32);
	return ns_now_monotonic();
}

static uint64_t ns_now_monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t ns_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t __cpc_tsc_khz(void)
{
	uint64_t khz = atomic_load_explicit(&tsc_khz_cache, memory_order_relaxed);
	if (khz != 0)
		return khz;

	/* Best of three short windows: the least disturbed one wins. */
	uint64_t best = 0;
	uint64_t best_ns = ~0ULL;
	for (int i = 0; i < 3; i++) {
		uint64_t t0 = ns_now(), c0 = __cpc_rdtsc();
		uint64_t t1;
		do {
			t1 = ns_now();
		} while (t1 - t0 < 700000);
		uint64_t c1 = __cpc_rdtsc();
		uint64_t t2 = ns_now();
		if (t2 - t0 < best_ns) {
			best_ns = t2 - t0;
			best = (c1 - c0) * 1000000ULL / (t1 - t0);
		}
	}
	/* Round to the nearest MHz: TSCs run at whole-MHz rates. */
	khz = (best / 1000 + (best % 1000 >= 500)) * 1000;
	if (khz == 0)
		khz = 1;
	atomic_store_explicit(&ns_to_tsc_mult, (khz << 32) / 1000000u,
	    memory_order_relaxed);
	atomic_store_explicit(&tsc_khz_cache, khz, memory_order_release);
	start_tsc_hrtime(khz);
	return khz;
}

uint64_t __cpc_ns_to_tsc(uint64_t ns)
{
	if (atomic_load_explicit(&tsc_khz_cache, memory_order_acquire) == 0)
		(void)__cpc_tsc_khz();
	uint64_t mult = atomic_load_explicit(&ns_to_tsc_mult,
	    memory_order_relaxed);
	return (uint64_t)(((unsigned __int128)ns * mult) >> 32);
}
