/* SPDX-License-Identifier: MIT */
/* Helpers of the hardware-event suite; see hwutil.h. */
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "hwutil.h"
#include "testutil.h"

#define SIMPMU "/sys/kernel/simpmu/"

struct simpmu_info hw_pmu;
char hw_pfm_error[256];

int simpmu_present(struct simpmu_info *info, const char **why)
{
	char vendor[16] = "";
	FILE *f = fopen(SIMPMU "info", "r");
	if (f == NULL) {
		*why = "no simulated PMU (" SIMPMU "info does not exist): "
		       "run through make check-hw, in the qemu guest";
		return 0;
	}
	int n = fscanf(f, "vendor=%15s counters=%u mhz=%u", vendor,
	    &info->counters, &info->mhz);
	fclose(f);
	if (n != 3 || info->counters == 0 || info->mhz == 0 ||
	    (strcmp(vendor, "intel") != 0 && strcmp(vendor, "amd") != 0)) {
		*why = SIMPMU "info is not \"vendor=V counters=N mhz=M\"";
		return 0;
	}
	info->amd = strcmp(vendor, "amd") == 0;
	return 1;
}

void hw_require(const char *prog)
{
	const char *why;
	if (!simpmu_present(&hw_pmu, &why)) {
		printf("%s: SKIP: %s\n", prog, why);
		exit(77);
	}
	printf("%s: simulated %s PMU, %u counters, %u MHz; cpuver %d (%s)\n",
	    prog, hw_pmu.amd ? "AMD" : "Intel", hw_pmu.counters, hw_pmu.mhz,
	    cpc_getcpuver(), cpc_getcciname(cpc_getcpuver()));
	fflush(stdout);
}

static int parse_line(const char *line, struct simpmu_rec *r)
{
	memset(r, 0, sizeof(*r));
	return sscanf(line,
		   "type=%u config=0x%" SCNx64 " raw=0x%" SCNx64
		   " excl_user=%d excl_kernel=%d period=%" SCNu64
		   " pinned=%d group=%d rc=%d",
		   &r->type, &r->config, &r->raw, &r->excl_user,
		   &r->excl_kernel, &r->period, &r->pinned, &r->group,
		   &r->rc) == 9
	    ? 0
	    : -1;
}

int simpmu_read(struct simpmu_rec *out, int max)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(SIMPMU "log", "r");
	if (f == NULL)
		return -1;
	while (n < max && fgets(line, sizeof(line), f) != NULL)
		if (parse_line(line, &out[n]) == 0)
			n++;
	fclose(f);
	return n;
}

/*
 * The marker: a two-event binding of the numeric code 0xfe with umasks
 * lo and hi, which no test counts otherwise.
 */
#define MARK_CODE 0xfe

uint64_t simpmu_mark(void)
{
	static unsigned seq;
	struct timespec ts;
	char spec[96];
	cpc_event_t ev;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	unsigned v = ((unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec ^
		      ++seq << 4) & 0xffff;
	unsigned lo = (v & 0xff) | 1, hi = (v >> 8) | 1;
	snprintf(spec, sizeof(spec), "pic0=0x%x,pic1=0x%x,umask0=0x%x,umask1=0x%x",
	    MARK_CODE, MARK_CODE, lo, hi);
	if (cpc_strtoevent(cpc_getcpuver(), spec, &ev) != 0 ||
	    cpc_bind_event(&ev, 0) != 0) {
		fprintf(stderr, "simpmu_mark: cannot bind %s: %s\n", spec,
		    strerror(errno));
		return 0;
	}
	cpc_rele();
	return (uint64_t)lo << 8 | (uint64_t)hi << 24 | MARK_CODE;
}

int simpmu_since(uint64_t mark, struct simpmu_rec *out, int max)
{
	struct simpmu_rec all[128];
	int n = simpmu_read(all, 128);
	uint64_t c0 = MARK_CODE | (mark >> 8 & 0xff) << 8;
	uint64_t c1 = MARK_CODE | (mark >> 24 & 0xff) << 8;
	int start = -1;
	for (int i = n - 1; i >= 0; i--)
		if ((all[i].config & 0xffff) == c1 && i > 0 &&
		    (all[i - 1].config & 0xffff) == c0) {
			start = i + 1;
			break;
		}
	if (mark == 0 || start < 0)
		return -1;
	int k = 0;
	for (int i = start; i < n && k < max; i++)
		out[k++] = all[i];
	return k;
}

const char *simpmu_format(const struct simpmu_rec *r, int n)
{
	static char buf[8192];
	size_t len = 0;
	buf[0] = '\0';
	if (n <= 0)
		return n < 0 ? " (no marker in the log)" : " (no records)";
	for (int i = 0; i < n && len < sizeof(buf) - 200; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
		    "\n  type=%u config=0x%" PRIx64 " raw=0x%" PRIx64
		    " excl_user=%d excl_kernel=%d period=%" PRIu64
		    " pinned=%d rc=%d",
		    r[i].type, r[i].config, r[i].raw, r[i].excl_user,
		    r[i].excl_kernel, r[i].period, r[i].pinned, r[i].rc);
	return buf;
}

void evsel_split(uint64_t raw, struct evsel_fields *f)
{
	f->event = (unsigned)(raw & 0xff) | (unsigned)((raw >> 32) & 0xf) << 8;
	f->umask = (unsigned)(raw >> 8) & 0xff;
	f->usr = (int)(raw >> 16) & 1;
	f->os = (int)(raw >> 17) & 1;
	f->edge = (int)(raw >> 18) & 1;
	f->inv = (int)(raw >> 23) & 1;
	f->cmask = (unsigned)(raw >> 24) & 0xff;
}

const char *evsel_format(const struct evsel_fields *f)
{
	static __thread char buf[128];
	snprintf(buf, sizeof(buf),
	    "event=0x%x umask=0x%02x cmask=%u inv=%d edge=%d usr=%d os=%d",
	    f->event, f->umask, f->cmask, f->inv, f->edge, f->usr, f->os);
	return buf;
}

int pfm_expected(const char *spec, int plm, struct evsel_fields *f)
{
	static int init = -1;
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;

	if (init < 0)
		init = pfm_initialize() == PFM_SUCCESS;
	if (!init) {
		snprintf(hw_pfm_error, sizeof(hw_pfm_error),
		    "libpfm4 does not initialise");
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	int rc = pfm_get_os_event_encoding(spec,
	    ((plm & 1) ? PFM_PLM3 : 0) | ((plm & 2) ? PFM_PLM0 : 0),
	    PFM_OS_PERF_EVENT, &arg);
	if (rc != PFM_SUCCESS || attr.type != PERF_TYPE_RAW) {
		snprintf(hw_pfm_error, sizeof(hw_pfm_error),
		    "libpfm4 cannot encode %s here: %s (type %u)", spec,
		    pfm_strerror(rc), attr.type);
		return -1;
	}
	evsel_split(attr.config, f);
	f->usr = !attr.exclude_user;
	f->os = !attr.exclude_kernel;
	return 0;
}

int simpmu_find(const struct simpmu_rec *r, int n, const struct evsel_fields *f)
{
	for (int i = n - 1; i >= 0; i--) {
		struct evsel_fields g;
		if (r[i].rc != 0)
			continue;
		evsel_split(r[i].raw, &g);
		if (g.event == f->event && g.umask == f->umask &&
		    g.cmask == f->cmask && g.inv == f->inv &&
		    g.edge == f->edge && g.usr == f->usr && g.os == f->os)
			return i;
	}
	return -1;
}

/* The spin loop, alone in its section so that a PC can be placed in it. */
__attribute__((noinline, section("hwspin"))) void hw_spin(unsigned long iters)
{
	for (unsigned long i = 0; i < iters; i++)
		__asm__ volatile("" ::: "memory");
}

extern char __start_hwspin[], __stop_hwspin[];
extern char __executable_start[], etext[];

int hw_in_spin(const void *pc)
{
	return (const char *)pc >= __start_hwspin &&
	    (const char *)pc < __stop_hwspin;
}

int hw_in_text(const void *pc)
{
	return hw_in_spin(pc) || ((const char *)pc >= __executable_start &&
	    (const char *)pc < etext);
}

unsigned long hw_iters_per_ms(void)
{
	static unsigned long ipm;
	if (ipm == 0) {
		unsigned long n = 100000;
		for (;;) {
			uint64_t t0 = thread_cpu_ns();
			hw_spin(n);
			uint64_t dt = thread_cpu_ns() - t0;
			if (dt >= 20000000 || n > (1UL << 40)) {
				ipm = (unsigned long)(n * 1000000.0 / (double)dt) + 1;
				break;
			}
			n *= 4;
		}
	}
	return ipm;
}

void hw_spin_ms(unsigned ms)
{
	hw_spin(hw_iters_per_ms() * ms);
}

/* 1 if CPUID shows Intel's architectural PMU (leaf 0AH, version > 0). */
static int arch_pmu_visible(void)
{
	unsigned a = 0, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d) || a < 0xa)
		return 0;
	if (!__get_cpuid(0xa, &a, &b, &c, &d))
		return 0;
	return (a & 0xff) != 0 && ((a >> 8) & 0xff) != 0;
}

const char *hw_v2_cycles(void)
{
	unsigned a, b, c, d = 0;
	if (hw_pmu.amd)
		return "LsNotHaltedCyc";
	if (!arch_pmu_visible())
		return "cpu_clk_unhalted";
	if (!__get_cpuid(1, &a, &b, &c, &d))
		d = 0;
	return (d >> 28) & 1 ? "cpu_clk_unhalted.thread_p"
			     : "cpu_clk_unhalted.core";
}

const char *hw_v2_instructions(void)
{
	if (hw_pmu.amd)
		return "ExRetInstr";
	return arch_pmu_visible() ? "inst_retired.any_p" : "inst_retired";
}
