/* SPDX-License-Identifier: MIT */
/*
 * Counting on one processor (cpc_bind_cpu, cpc_shared_bind_event) against
 * a known workload: page faults of a thread pinned to CPU k are counted
 * by a binding to k and not by a binding to another CPU; presets are the
 * starting values; ticks run from the bind.
 *
 * Per-CPU counting needs privilege: without root (or CAP_PERFMON-like
 * perf_event_paranoid <= 0) the program skips, decided from the
 * environment, not from what the library answers.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <libcpc.h>

#include "testutil.h"

/*
 * The workload: NPAGES fresh pages, each faulting once, a few tens of ms.
 * A processor's count is system-wide: the machine's other processes fault
 * on every CPU while we measure, and on a busy machine (builds: every
 * exec faults hundreds of pages) that can reach thousands of faults in
 * such a window.  Their faults only ever add to a count.  So a binding to
 * the CPU of the workload must count at least NPAGES, every time; and a
 * binding to another CPU must count fewer than half of them in at least
 * one of TRIALS windows (the least disturbed one shows what the binding
 * itself sees of our faults: nothing).  That needs short windows: where
 * the workload runs slowly (under valgrind, ten times slower), windows
 * longer than MAX_WINDOW_NS tell nothing and that part is skipped.
 */
#define NPAGES 16000
#define TRIALS 8
#define MAX_WINDOW_NS 200000000ULL

static uint64_t last_window_ns;	/* of the last workload */
#define PRESET 1000000000000ULL

static int cpus[2];	/* two CPUs this process may run on, or -1 */

static void find_cpus(void)
{
	cpu_set_t all;
	cpus[0] = cpus[1] = -1;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	for (int c = 0, n = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &all))
			cpus[n++] = c;
}

static void *fault_on(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return (void *)1;
	touch_fresh_pages(NPAGES);
	return sched_getcpu() == cpu ? NULL : (void *)2;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall time since *m0 and *r0 (CLOCK_MONOTONIC and _RAW), the larger. */
static uint64_t wall_since(uint64_t m0, uint64_t r0)
{
	uint64_t m = now_ns() - m0, r = raw_ns() - r0;
	return m > r ? m : r;
}

/* workload_on(QUIET): no workload, a sleep as long as the last one. */
#define QUIET (-2)

/* Touches the pages from a thread pinned to cpu. */
static void workload_on(int cpu)
{
	pthread_t t;
	void *rc;
	if (cpu == QUIET) {
		struct timespec ts = { (time_t)(last_window_ns / 1000000000u),
			(long)(last_window_ns % 1000000000u) };
		nanosleep(&ts, NULL);
		return;
	}
	uint64_t t0 = now_ns();
	ck_assert_int_eq(pthread_create(&t, NULL, fault_on,
			     (void *)(intptr_t)cpu), 0);
	ck_assert_int_eq(pthread_join(t, &rc), 0);
	last_window_ns = now_ns() - t0;
	ck_assert_ptr_null(rc);
}

/*
 * The most TSC ticks per ns libcpc can convert a processor's clock with:
 * the TSC measured over 20 ms of CLOCK_MONOTONIC_RAW, each reading
 * between two clock readings (known to the brackets' width over the
 * span), plus the library's own rate error (perf's time_mult: exact to
 * 2^-32; else measured against the same raw clock to 100 ppm).
 */
static double tsc_per_ns(void)
{
	uint64_t r0 = raw_ns(), c0 = __rdtsc(), r0b = raw_ns(), r1a, c1, r1;
	do {
		r1a = raw_ns();
		c1 = __rdtsc();
		r1 = raw_ns();
	} while (r1a - r0b < 20000000);
	double span = (double)(r1a + r1) / 2 - (double)(r0 + r0b) / 2;
	double err = (double)(r0b - r0 + r1 - r1a) / span + 100e-6;
	return (double)(c1 - c0) / span * (1 + err);
}

/*
 * The most ns a processor's clock (cpu-clock: its sched_clock) can
 * advance while wall_ns pass on the larger of CLOCK_MONOTONIC and
 * CLOCK_MONOTONIC_RAW (sched_clock_slack_ns in testutil.c).
 */
static uint64_t clock_bound(uint64_t wall_ns)
{
	return wall_ns + sched_clock_slack_ns();
}

static cpc_t *cpc;

static void setup(void)
{
	find_cpus();
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
}

static void teardown(void)
{
	cpc_close(cpc);
}

static cpc_set_t *fault_set(void)
{
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", PRESET,
			     CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "cpu-clock", 0,
			     CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL), 1);
	return set;
}

static uint64_t get(cpc_buf_t *b, int i)
{
	uint64_t v = 0;
	ck_assert_int_eq(cpc_buf_get(cpc, b, i, &v), 0);
	return v;
}

/* Faults counted by a binding to `bound` while the workload runs on `work`. */
static uint64_t v2_faults(int bound, int work, double rate)
{
	cpc_set_t *set = fault_set();
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	uint64_t t0 = now_ns(), r0 = raw_ns();
	ck_assert_int_eq(cpc_bind_cpu(cpc, bound, set, 0), 0);
	ck_assert_int_eq(sched_getcpu(), bound);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	uint64_t wall = wall_since(t0, r0);
	workload_on(work);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	/* Counting starts from the preset. */
	ck_assert_uint_ge(get(a, 0), PRESET);
	/* (Other processes' faults since the bind only add a few.) */
	ck_assert_uint_lt(get(a, 0), PRESET + 100000000);
	/* Ticks run from the bind: no more than the time since then. */
	ck_assert_msg(cpc_buf_tick(cpc, a) <= clock_bound(wall) * rate + 1,
	    "tick %llu after %llu ns", (unsigned long long)cpc_buf_tick(cpc, a),
	    (unsigned long long)wall);
	ck_assert_uint_gt(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	uint64_t n = get(b, 0) - get(a, 0);
	cpc_set_destroy(cpc, set);
	return n;
}

/*
 * A processor's count through faults(bound, work, rate): the faults of a
 * workload pinned to the bound processor are all counted; bound to the
 * other processor, fewer than half of them in at least one of TRIALS
 * windows (other processes' faults only add to a processor's count).
 */
typedef uint64_t (*faults_fn)(int bound, int work, double rate);

static void counts_the_bound_cpu(const char *test, faults_fn faults)
{
	double rate = tsc_per_ns();
	uint64_t n = faults(cpus[0], cpus[0], rate);
	ck_assert_msg(n >= NPAGES, "bound to cpu %d: %llu of %d faults",
	    cpus[0], (unsigned long long)n, NPAGES);
	if (cpus[1] < 0) {
		printf("SKIP %s, other cpu: this process may run on one CPU "
		       "only\n", test);
		return;
	}
	n = faults(cpus[1], cpus[1], rate);
	ck_assert_msg(n >= NPAGES, "bound to cpu %d: %llu of %d faults",
	    cpus[1], (unsigned long long)n, NPAGES);
	/*
	 * Each window is followed by a quiet one as long, without the
	 * workload: what the machine's other processes fault there.  A
	 * window tells something only where that is under a quarter of
	 * NPAGES (a quarter more would not reach half); a busy machine
	 * (builds beside the tests) gives none, and that part is skipped.
	 */
	uint64_t least = UINT64_MAX, noise = 0;
	int windows = 0, slow = 0;
	for (int i = 0; i < TRIALS && least >= NPAGES / 2; i++) {
		n = faults(cpus[1], cpus[0], rate);
		if (last_window_ns > MAX_WINDOW_NS) {
			slow++;
			continue;
		}
		noise = faults(cpus[1], QUIET, rate);
		if (noise >= NPAGES / 4)
			continue;
		windows++;
		least = n < least ? n : least;
	}
	if (windows == 0 && slow > 0) {
		printf("SKIP %s, other cpu: the workload takes %llu ms here, "
		       "too long to tell its faults from the machine's\n",
		    test, (unsigned long long)(last_window_ns / 1000000));
		return;
	}
	if (windows == 0) {
		printf("SKIP %s, other cpu: other processes fault on cpu %d "
		       "(%llu faults in the last quiet window): the machine "
		       "is too busy to tell ours from theirs\n",
		    test, cpus[1], (unsigned long long)noise);
		return;
	}
	ck_assert_msg(least < NPAGES / 2, "bound to cpu %d, faults on cpu %d: "
	    "at least %llu of %d counted in %d windows", cpus[1], cpus[0],
	    (unsigned long long)least, NPAGES, TRIALS);
}

START_TEST(bind_cpu_counts_that_cpu)
{
	counts_the_bound_cpu("bind_cpu_counts_that_cpu", v2_faults);
}
END_TEST

static void pin_self(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
}

static uint64_t v1_faults(int bound, int work, double rate)
{
	cpc_event_t ev, a, b;
	/* As on Solaris: bound to the processor before cpc_shared_open. */
	pin_self(bound);
	int fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=page-faults,pic1=cpu-clock,sys", &ev), 0);
	ev.ce_pic[0] = PRESET;
	ev.ce_pic[1] = 7;
	uint64_t t0 = now_ns(), r0 = raw_ns();
	ck_assert_int_eq(cpc_shared_bind_event(fd, &ev, 0), 0);
	ck_assert_int_eq(cpc_shared_take_sample(fd, &a), 0);
	uint64_t wall = wall_since(t0, r0);
	workload_on(work);
	ck_assert_int_eq(cpc_shared_take_sample(fd, &b), 0);
	ck_assert_uint_ge(a.ce_pic[0], PRESET);
	ck_assert_uint_lt(a.ce_pic[0], PRESET + 100000000);
	ck_assert_uint_ge(a.ce_pic[1], 7);
	ck_assert_msg(a.ce_tsc <= clock_bound(wall) * rate + 1,
	    "tick %llu after %llu ns", (unsigned long long)a.ce_tsc,
	    (unsigned long long)wall);
	ck_assert_uint_gt(b.ce_tsc, a.ce_tsc);
	ck_assert_int_eq(cpc_shared_rele(fd), 0);
	cpc_shared_close(fd);
	return b.ce_pic[0] - a.ce_pic[0];
}

START_TEST(shared_bind_counts_the_bound_cpu)
{
	counts_the_bound_cpu("shared_bind_counts_the_bound_cpu", v1_faults);
}
END_TEST

/* Root, or perf_event_paranoid <= 0 (what per-CPU events need). */
static int cpu_counting_permitted(void)
{
	return geteuid() == 0 || perf_paranoid_level() <= 0;
}

/* Where the environment forbids counting on a processor: refused. */
START_TEST(cpu_counting_refused)
{
	cpc_t *h = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(h);
	cpc_set_t *set = cpc_set_create(h);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_ge(cpc_set_add_request(h, set, "page-faults", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	errno = 0;
	ck_assert_int_eq(cpc_bind_cpu(h, 0, set, 0), -1);
	ck_assert_int_eq(errno, EACCES);
	cpc_set_destroy(h, set);
	cpc_close(h);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpu_bound");
	TCase *tc = tcase_create("cpu");
	if (cpu_counting_permitted()) {
		tcase_add_checked_fixture(tc, setup, teardown);
		tcase_set_timeout(tc, 60);
		tcase_add_test(tc, bind_cpu_counts_that_cpu);
		tcase_add_test(tc, shared_bind_counts_the_bound_cpu);
	} else {
		printf("SKIP counting on a processor: it needs root or "
		       "perf_event_paranoid <= 0 (the refusal is checked "
		       "instead)\n");
		tcase_add_test(tc, cpu_counting_refused);
	}
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
