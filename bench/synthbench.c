/* SPDX-License-Identifier: MIT */
/*
 * synthbench: the syscall-free sample path measured without a PMU.  The
 * library is compiled into this program with CPC_SYNTHETIC_PAGES, so that
 * the perf backend samples through user pages this program writes (the
 * layout of perf_event_mmap_page, cap_user_rdpmc and cap_user_time set)
 * with a stand-in for the rdpmc instruction; the time stamp counter is
 * the real one.  The whole cpc_set_sample / cpc_take_sample is timed
 * against the bare sequence-lock read of the same pages with the same
 * stand-in (the work libperf's self-monitoring read does: each counter
 * under the page's lock, and the enabled time from the TSC).
 *
 * Usage: synthbench [-q]   (prints rows and RATIO / ADDED_NS lines)
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "libcpc.h"
#include "rdpmc.h"
#include "timing.h"

/* The hooks of libcpc/backend/perf.c (CPC_SYNTHETIC_PAGES). */
extern unsigned char *(*__cpc_synth_pages)(unsigned nfd);
extern cpc_rdpmc_fn __cpc_synth_rdpmc;

#define PAGE 4096
#define WIDTH 48

/* The stand-in PMU: counter idx reads pmc[idx]. */
static volatile uint64_t pmc[8];

__attribute__((noinline)) static uint64_t fake_rdpmc(uint32_t idx)
{
	return pmc[idx & 7];
}

static unsigned char *pages;	/* the last pages handed to the library */
static unsigned npages;
static uint64_t tsc_before_fill;	/* the TSC before make_pages */

static void fill_page(volatile struct perf_event_mmap_page *pg, unsigned i)
{
	memset((void *)pg, 0, PAGE);
	pg->version = 0;
	pg->compat_version = 0;
	pg->lock = 2;
	pg->index = i + 1;
	pg->offset = 1000 * (int64_t)(i + 1);
	pg->pmc_width = WIDTH;
	pg->cap_user_rdpmc = 1;
	pg->cap_user_time = 1;
	pg->time_enabled = 5000;
	pg->time_running = 5000;
	pg->time_shift = 10;
	pg->time_mult = 1024;	/* one ns per tick */
	pg->time_offset = (uint64_t)-(int64_t)__builtin_ia32_rdtsc();
}

static unsigned char *make_pages(unsigned nfd)
{
	unsigned char *p = mmap(NULL, (size_t)nfd * PAGE,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	tsc_before_fill = __builtin_ia32_rdtsc();
	for (unsigned i = 0; i < nfd; i++)
		fill_page((volatile void *)(p + (size_t)i * PAGE), i);
	pages = p;
	npages = nfd;
	return p;
}

/* ------------------------------------------------ the bare protocol */

struct bare {
	unsigned n;
	const unsigned char *pages;
	uint64_t vals[4];
	uint64_t enabled;
};

static uint64_t bare_count(const volatile struct perf_event_mmap_page *pg,
    cpc_rdpmc_fn rd)
{
	uint32_t seq;
	uint64_t v;
	do {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint32_t idx = pg->index;
		uint64_t c = rd(idx - 1);
		int shift = 64 - pg->pmc_width;
		v = (uint64_t)pg->offset +
		    (uint64_t)((int64_t)(c << shift) >> shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);
	return v;
}

static uint64_t bare_enabled(const volatile struct perf_event_mmap_page *pg)
{
	uint32_t seq;
	uint64_t v;
	do {
		seq = pg->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint64_t cyc = __builtin_ia32_rdtsc();
		uint16_t shift = pg->time_shift;
		uint32_t mult = pg->time_mult;
		uint64_t quot = cyc >> shift;
		uint64_t rem = cyc & (((uint64_t)1 << shift) - 1);
		v = pg->time_enabled + pg->time_offset + quot * mult +
		    ((rem * mult) >> shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (pg->lock != seq);
	return v;
}

static cpc_rdpmc_fn volatile bare_rdpmc = fake_rdpmc;

static void op_bare(void *arg)
{
	struct bare *b = arg;
	cpc_rdpmc_fn rd = bare_rdpmc;
	for (unsigned i = 0; i < b->n; i++)
		b->vals[i] = bare_count(
		    (const volatile void *)(b->pages + (size_t)i * PAGE), rd);
	b->enabled = bare_enabled((const volatile void *)b->pages);
	__asm__ __volatile__("" : : "r"(b) : "memory");
}

static void op_bare_clock(void *arg)
{
	struct timespec ts;
	op_bare(arg);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ __volatile__("" : : "r"(&ts) : "memory");
}

/* ------------------------------------------------ libcpc */

static cpc_t *cpc;

static const char *const names[4] = { "page-faults", "context-switches",
	"minor-faults", "cpu-migrations" };

struct bound {
	cpc_set_t *set;
	cpc_buf_t *buf;
};

static void op_set_sample(void *arg)
{
	struct bound *b = arg;
	if (cpc_set_sample(cpc, b->set, b->buf) != 0)
		abort();
}

static void op_take_sample(void *arg)
{
	cpc_event_t ev;
	(void)arg;
	if (cpc_take_sample(&ev) != 0)
		abort();
}

/* The library must really read the stand-in: a wrong value aborts. */
static void check_reads_pages(struct bound *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pmc[i] = 100 * (i + 1);
	op_set_sample(b);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v;
		cpc_buf_get(cpc, b->buf, (int)i, &v);
		if (v != 1000 * (i + 1) + 100 * (i + 1)) {
			fprintf(stderr,
			    "synthbench: request %u reads %llu, not the "
			    "synthetic page's %u\n",
			    i, (unsigned long long)v, 1100 * (i + 1));
			exit(1);
		}
	}
	/* Width: a counter past 2^47 is negative (sign-extended). */
	pmc[0] = (1ULL << 48) - 1;
	op_set_sample(b);
	uint64_t v;
	cpc_buf_get(cpc, b->buf, 0, &v);
	if (v != 999) {
		fprintf(stderr, "synthbench: width not applied (%llu)\n",
		    (unsigned long long)v);
		exit(1);
	}
	pmc[0] = 100;
}

/*
 * A set with a clock request is not one run of pages: the clock's value
 * is the enabled time of the leader's page (5000 ns when filled, then one
 * ns per TSC tick), the other request its own page's count.
 */
static void check_clock_set(void)
{
	cpc_set_t *set = cpc_set_create(cpc);
	if (cpc_set_add_request(cpc, set, "page-faults", 0, CPC_COUNT_USER,
		0, NULL) < 0 ||
	    cpc_set_add_request(cpc, set, "task-clock", 0, CPC_COUNT_USER, 0,
		NULL) < 0) {
		fprintf(stderr, "synthbench: cannot add task-clock\n");
		exit(1);
	}
	cpc_buf_t *buf = cpc_buf_create(cpc, set);
	if (buf == NULL || cpc_bind_curlwp(cpc, set, 0) != 0) {
		perror("synthbench: cpc_bind_curlwp (task-clock)");
		exit(1);
	}
	if (pages == NULL || npages != 1) {
		fprintf(stderr, "synthbench: task-clock is a group member\n");
		exit(1);
	}
	pmc[0] = 100;
	if (cpc_set_sample(cpc, set, buf) != 0)
		abort();
	uint64_t after = __builtin_ia32_rdtsc();
	uint64_t count, clock;
	cpc_buf_get(cpc, buf, 0, &count);
	cpc_buf_get(cpc, buf, 1, &clock);
	if (count != 1100 || clock < 5000 ||
	    clock - 5000 > after - tsc_before_fill) {
		fprintf(stderr,
		    "synthbench: page-faults and task-clock read %llu and "
		    "%llu, not 1100 and 5000 + at most %llu\n",
		    (unsigned long long)count, (unsigned long long)clock,
		    (unsigned long long)(after - tsc_before_fill));
		exit(1);
	}
	cpc_unbind(cpc, set);
	cpc_buf_destroy(cpc, buf);
	cpc_set_destroy(cpc, set);
}

static void bench_v2(unsigned n)
{
	char ours[48], bare[48], bareclk[48];
	struct bound b;
	snprintf(ours, sizeof(ours), "synth_set_sample_%uev", n);
	snprintf(bare, sizeof(bare), "bare_protocol_%uev", n);
	snprintf(bareclk, sizeof(bareclk), "bare_protocol_clock_%uev", n);
	b.set = cpc_set_create(cpc);
	for (unsigned i = 0; i < n; i++)
		if (cpc_set_add_request(cpc, b.set, names[i], 0,
			CPC_COUNT_USER, 0, NULL) < 0)
			exit(1);
	b.buf = cpc_buf_create(cpc, b.set);
	if (b.buf == NULL || cpc_bind_curlwp(cpc, b.set, 0) != 0) {
		perror("synthbench: cpc_bind_curlwp");
		exit(1);
	}
	if (pages == NULL || npages != n) {
		fprintf(stderr, "synthbench: the library did not take the "
				"synthetic pages\n");
		exit(1);
	}
	check_reads_pages(&b, n);
	struct bare br = { .n = n, .pages = pages };
	struct op ops[3] = {
		{ ours, op_set_sample, &b, NULL },
		{ bare, op_bare, &br, NULL },
		{ bareclk, op_bare_clock, &br, NULL },
	};
	bench_time_ops(ops, 3, bench_batch);
	cpc_unbind(cpc, b.set);
	cpc_buf_destroy(cpc, b.buf);
	cpc_set_destroy(cpc, b.set);
}

static void bench_v1(void)
{
	cpc_event_t ev;
	if (cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches",
		&ev) != 0 ||
	    cpc_bind_event(&ev, 0) != 0) {
		perror("synthbench: cpc_bind_event");
		exit(1);
	}
	if (cpc_take_sample(&ev) != 0 || ev.ce_pic[0] != 1000 + pmc[0]) {
		fprintf(stderr, "synthbench: cpc_take_sample does not read "
				"the synthetic page\n");
		exit(1);
	}
	struct bare br = { .n = 2, .pages = pages };
	struct op ops[3] = {
		{ "synth_take_sample_2ev", op_take_sample, NULL, NULL },
		{ "bare_protocol_2ev_v1", op_bare, &br, NULL },
		{ "bare_protocol_clock_2ev_v1", op_bare_clock, &br, NULL },
	};
	bench_time_ops(ops, 3, bench_batch);
	cpc_rele();
}

static void lines(const char *ours, const char *bare, const char *bareclk)
{
	char name[96];
	snprintf(name, sizeof(name), "%s/%s", ours, bare);
	bench_ratio(stdout, name, ours, bare);
	bench_added(stdout, name, ours, bare);
	snprintf(name, sizeof(name), "%s/%s", ours, bareclk);
	bench_ratio(stdout, name, ours, bareclk);
	bench_added(stdout, name, ours, bareclk);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0) {
			bench_batches = 41;
			bench_batch = 100;
		} else {
			fprintf(stderr, "usage: synthbench [-q]\n");
			return 2;
		}
	}
	cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL) {
		perror("synthbench: cpc_open");
		return 1;
	}
	__cpc_synth_rdpmc = fake_rdpmc;
	__cpc_synth_pages = make_pages;
	printf("synthbench: synthetic perf user pages, rdpmc stand-in\n");
	check_clock_set();
	for (unsigned n = 1; n <= 4; n *= 2)
		bench_v2(n);
	bench_v1();
	bench_print_table(stdout);
	printf("\n");
	lines("synth_set_sample_1ev", "bare_protocol_1ev",
	    "bare_protocol_clock_1ev");
	lines("synth_set_sample_2ev", "bare_protocol_2ev",
	    "bare_protocol_clock_2ev");
	lines("synth_set_sample_4ev", "bare_protocol_4ev",
	    "bare_protocol_clock_4ev");
	lines("synth_take_sample_2ev", "bare_protocol_2ev_v1",
	    "bare_protocol_clock_2ev_v1");
	cpc_close(cpc);
	return 0;
}
