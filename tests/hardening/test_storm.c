/* SPDX-License-Identifier: MIT */
/*
 * Overflow signal storms: a SIGEMT on every page fault, or every 20 us of
 * CPU time, while the handler rebinds (or restarts) as the Solaris
 * examples do and the program itself rebinds in a loop, with both
 * interface versions.  Every signal is accounted for from the mechanism
 * (see check_signal_count and wait_for_overflow), with no allowance.
 *
 * Each test is bounded to a few seconds on a 2-core machine.  Under
 * valgrind ("make check-valgrind") LIBCPC_STRESS_DIVISOR shrinks the
 * period's scale, as valgrind runs one thread at a time.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

/*
 * The task-clock period of the timer storms: 20 us of CPU time, longer
 * when the program runs slower (a handler must fit in a period).
 */
static uint64_t timer_period(void)
{
	uint64_t slow = (uint64_t)(100 / stress_scaled(100));
	return 20000 * slow * slow;
}

/* The pages each turn of a storm's loop touches: one fault each. */
#define TURN_PAGES 32

/*
 * The number of overflow signals a storm may give, from both sides.
 *
 * Page-fault storms (period 1, user mode): each of a turn's 32 fresh
 * pages faults once in user mode, and the counter is armed at each of
 * those faults: the first one after a rebind overflows it, its signal is
 * taken on that fault's return, before the next page is touched, and the
 * handler rebinds with the same preset.  So at least 32 signals a turn.
 * Other faults are first touches of pages that stay (the stack, the
 * library's data: 100 at most) and at most one a binding that is new
 * rather than rearmed, whose page the library maps (perf's user page, or
 * the module's state page, is read at the first sample): 2 per turn, for
 * main's rebind and a handler's.
 *
 * Timer storms: at most one signal per period of the thread's CPU time,
 * plus one per rebind (each starts a new period) and 10 for the ends; the
 * other side is exact: wait_for_overflow finds no overflow lost.
 */
static void check_signal_count(int signals, uint64_t period, int turns,
    uint64_t cpu_ns)
{
	uint64_t lo, hi;
	if (period == 1) {
		lo = (uint64_t)turns * TURN_PAGES;
		hi = (uint64_t)turns * (TURN_PAGES + 2) + 100;
	} else {
		lo = 0;
		hi = cpu_ns / period + (uint64_t)turns + 10;
	}
	ck_assert_msg((uint64_t)signals >= lo && (uint64_t)signals <= hi,
	    "%d overflow signals, expected %llu to %llu (%d turns, %llu ms "
	    "of CPU time)", signals, (unsigned long long)lo,
	    (unsigned long long)hi, turns,
	    (unsigned long long)(cpu_ns / 1000000));
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Mappings of the module's state pages (/dev/cpc) in this process: none
 * once every binding is released (each release unmaps its page), however
 * many handlers rebound in the middle of a first sample or of a read of
 * the page.  -1 if /proc/self/maps cannot be read.
 */
static int count_state_page_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, " /dev/cpc") != NULL)
			n++;
	fclose(f);
	return n;
}

static cpc_event_t make_event(const char *spec)
{
	cpc_event_t ev;
	ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0, "%s: %s",
	    spec, captured_errors());
	return ev;
}

static void setup(void)
{
	capture_errors();
}

/*
 * Timer storms: no overflow is lost.  A task-clock overflow is perf's
 * hrtimer (the module's counters are perf's too): armed when the counter
 * is enabled for the period of time on the thread's processor, it
 * expires every period while the thread runs there (a context switch
 * stops it, the next one starts it with what was left), and at an expiry
 * the counter overflows if the interrupt came in user mode (the storms
 * count user mode only); the signal is sent on that interrupt's return.
 * The expiry comes late by at most the resolution of the clock event
 * device: a tick (10 ms at HZ=100, the coarsest; an emulated guest may
 * have no high resolution), and a throttled counter (perf's
 * max_sample_rate) is let go at the next tick too.  So a stretch of user
 * mode on the processor longer than the period plus two ticks, with
 * counters armed, contains an overflow, and its signal comes before the
 * stretch ends.
 *
 * After a rebind, wait_for_overflow spins in user mode, with no system
 * call, for the period plus TICKS_NS of CPU time at the fastest speed
 * measured (spin_calibrate), and stops when a signal has come since
 * *signals was s0.  Without one, with no context switch in the stretch
 * and at least that much CPU time measured around it (the stretch plus
 * the ends of two clock system calls, far less than a millisecond), an
 * overflow was lost: 0.  1 when the signal came; -1 when every stretch
 * of 20 was cut by a context switch or ran faster than measured,
 * proving nothing.
 */
#define TICKS_NS 25000000ULL	/* two ticks at HZ=100, and a margin */
static volatile unsigned long spin_sink;
static double spin_per_ns;	/* loop turns per ns of CPU time, fastest */

static unsigned long spin_until(unsigned long turns,
    volatile sig_atomic_t *signals, sig_atomic_t s0)
{
	unsigned long i;
	for (i = 0; i < turns && *signals == s0; i++)
		spin_sink++;
	return i;
}

static void spin_calibrate(void)
{
	static volatile sig_atomic_t never;
	spin_per_ns = 0;
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = thread_cpu_ns();
		unsigned long n = spin_until(1000000, &never, 0);
		uint64_t t1 = thread_cpu_ns();
		double r = (double)n / (double)(t1 - t0 + 1);
		if (r > spin_per_ns)
			spin_per_ns = r;
	}
}

static int wait_for_overflow(volatile sig_atomic_t *signals, sig_atomic_t s0,
    uint64_t period)
{
	const uint64_t wait_ns = period + TICKS_NS;
	unsigned long turns = (unsigned long)(spin_per_ns * (double)wait_ns) + 1;
	for (int tries = 0; tries < 20; tries++) {
		uint64_t sw = thread_switches(), t0 = thread_cpu_ns();
		spin_until(turns, signals, s0);
		uint64_t t1 = thread_cpu_ns();
		if (*signals != s0)
			return 1;
		if (thread_switches() != sw)
			continue;
		if (t1 - t0 >= wait_ns)
			return 0;
		turns *= 2;	/* ran faster than measured */
	}
	return -1;
}

/* The waits of a timer storm (every other turn, after main's rebind). */
struct waits {
	int waited, lost, unproven;
};

static void count_wait(struct waits *w, int r)
{
	w->waited++;
	w->lost += r == 0;
	w->unproven += r < 0;
}

static void check_waits(const struct waits *w, uint64_t period)
{
	ck_assert_msg(w->lost == 0, "%d of %d waits after a rebind: no "
	    "overflow signal in %llu ms of user-mode CPU time with no context "
	    "switch (period %llu ns)", w->lost, w->waited,
	    (unsigned long long)((period + TICKS_NS) / 1000000),
	    (unsigned long long)period);
	if (period != 1)
		ck_assert_msg(w->waited > 0 && w->unproven < w->waited,
		    "%d waits, %d proved nothing", w->waited, w->unproven);
}

/* ---------------------------------------------- overflow signal storm */

/*
 * Every page fault overflows (preset UINT64_MAX): the handler rebinds,
 * as the Solaris examples do, while the main program rebinds in a loop
 * and takes samples.
 */
static cpc_event_t storm_ev;
static volatile sig_atomic_t storm_ours, storm_stray, storm_bad;
static volatile sig_atomic_t storm_stray_code;
/* errno of the last failed sample and bind in the handler */
static volatile sig_atomic_t storm_sample_errno, storm_bind_errno;
static volatile sig_atomic_t storm_sample_fail;

static void storm_handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t now, again = storm_ev;
	(void)uc;
	if (sig != SIGEMT)
		storm_bad++;
	if (si->si_code == EMT_CPCOVF) {
		storm_ours++;
		if (cpc_take_sample(&now) != 0) {
			storm_sample_fail++;
			storm_sample_errno = errno;
		}
	} else {
		/* A notification that the library did not turn into
		 * EMT_CPCOVF: it leaked out of a rebind. */
		storm_stray++;
		storm_stray_code = si->si_code;
	}
	if (cpc_bind_event(&again, CPC_BIND_EMT_OVF) != 0) {
		storm_bad++;
		storm_bind_errno = errno;
	}
}

static void install(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
}

/*
 * What a storm must leave behind: no descriptor, no failure in the
 * handler, and no overflow notification of the kernel reaching the
 * application raw.  (The library once let a notification that arrived
 * in the middle of a rebind through, with the kernel's si_code, and the
 * handler's calls then failed with EINVAL or leaked descriptors; fixed:
 * RELIABILITY.md, guarantee 3.)
 */
static void check_storm_issues(int fds0)
{
	int leaked = count_perf_fds();
	ck_assert_int_ge(leaked, 0);
	ck_assert_msg(leaked == 0, "%d perf_event descriptors leaked", leaked);
	if (leaked == 0)
		ck_assert_int_eq(count_open_fds(), fds0);
	int maps = count_state_page_maps();
	ck_assert_msg(maps == 0, "%d state page mappings left after the "
	    "release", maps);
	ck_assert_msg(storm_bad == 0 || storm_bind_errno == EINVAL,
	    "%d failures in the handler, errno %d: %s", (int)storm_bad,
	    (int)storm_bind_errno, captured_errors());
	ck_assert_msg(storm_bad == 0, "%d binds or restarts in the handler "
	    "failed with EINVAL", (int)storm_bad);
	ck_assert_msg(storm_sample_fail == 0 || storm_sample_errno == EINVAL,
	    "sample in the handler: errno %d", (int)storm_sample_errno);
	/*
	 * Never, with either backend: the handler's sample finds the set
	 * bound however early its signal comes (the three failures a storm
	 * used to allow with the module were overflows of the first bind's
	 * counters that came before cpc_bind_curlwp had marked the set
	 * bound, each handler's restart overflowing again before its
	 * return; first_overflow_of_fresh_sets tests that alone).
	 */
	ck_assert_msg(storm_sample_fail == 0,
	    "%d samples in the handler failed with EINVAL (of %d)",
	    (int)storm_sample_fail, (int)storm_ours);
	ck_assert_msg(storm_stray == 0, "%d SIGEMTs reached the application with "
	    "si_code %d instead of EMT_CPCOVF", (int)storm_stray,
	    (int)storm_stray_code);
}

/*
 * period: what storm_ev's counter 0 counts until it overflows.  A
 * page-fault storm signals at the faults; a task-clock storm signals at
 * any instruction, also inside the library's own rebinds.
 */
static void run_storm(const char *spec, const char *alt, uint64_t period,
    uint64_t budget)
{
	cpc_event_t alt_ev = make_event(alt != NULL ? alt : spec);
	alt_ev.ce_pic[0] = 0 - period;
	int fds0 = count_open_fds();
	install(storm_handler);
	storm_ours = storm_stray = storm_bad = storm_sample_fail = 0;
	storm_ev = make_event(spec);
	storm_ev.ce_pic[0] = 0 - period;
	cpc_event_t ev = storm_ev;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_EMT_OVF), 0);

	struct waits w = { 0, 0, 0 };
	if (period != 1)
		spin_calibrate();
	uint64_t t0 = now_ns(), c0 = thread_cpu_ns();
	int rebinds = 0, samples = 0, main_bad = 0;
	while (now_ns() - t0 < budget) {
		touch_fresh_pages(TURN_PAGES);
		cpc_event_t s, again = (rebinds & 1) ? alt_ev : storm_ev;
		if (cpc_take_sample(&s) == 0)
			samples++;
		if (cpc_bind_event(&again, CPC_BIND_EMT_OVF) != 0)
			main_bad++;
		rebinds++;
		if (period != 1 && (rebinds & 1))
			count_wait(&w, wait_for_overflow(&storm_ours, storm_ours, period));
	}
	uint64_t t1 = now_ns(), cpu = thread_cpu_ns() - c0;
	ck_assert_int_eq(cpc_rele(), 0);
	fprintf(stderr, "storm (%s, period %llu): %d overflow signals, %d "
	    "stray, %d main rebinds, %d samples in %.2f s; %d waits, %d "
	    "unproven\n", spec, (unsigned long long)period, (int)storm_ours,
	    (int)storm_stray, rebinds, samples, (double)(t1 - t0) / 1e9,
	    w.waited, w.unproven);
	ck_assert_int_eq(main_bad, 0);
	check_waits(&w, period);
	check_signal_count(storm_ours, period, rebinds, cpu);
	ck_assert_int_gt(samples, 0);
	check_storm_issues(fds0);
}

START_TEST(overflow_signal_storm)
{
	/* Preset UINT64_MAX: a signal on every page fault. */
	run_storm("pic0=page-faults,pic1=task-clock", NULL, 1, 1000000000ULL);
}
END_TEST

START_TEST(overflow_timer_storm)
{
	/* A signal every 20 us of CPU time, wherever the program is. */
	run_storm("pic0=task-clock,pic1=page-faults", NULL, timer_period(),
	    1000000000ULL);
}
END_TEST

START_TEST(overflow_timer_storm_full_rebinds)
{
	/* The program alternates between two selections: every one of its
	 * rebinds closes and opens counters while signals arrive. */
	run_storm("pic0=task-clock,pic1=page-faults",
	    "pic0=task-clock,pic1=minor-faults", timer_period(), 1000000000ULL);
}
END_TEST

/* The same with the current interfaces: restart in the handler. */
static cpc_t *storm_cpc;
static cpc_set_t *storm_set;
static cpc_buf_t *storm_buf;

static uint64_t restart_preset;

static void restart_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_code != EMT_CPCOVF) {
		storm_stray++;
		storm_stray_code = si->si_code;
		return;
	}
	storm_ours++;
	if (cpc_set_sample(storm_cpc, storm_set, storm_buf) != 0) {
		storm_sample_fail++;
		storm_sample_errno = errno;
	}
	if (cpc_request_preset(storm_cpc, 0, restart_preset) != 0) {
		storm_bad++;
		storm_bind_errno = errno;
	} else if (cpc_set_restart(storm_cpc, storm_set) != 0) {
		storm_bad++;
		storm_bind_errno = errno;
	}
}

static void run_restart_storm(const char *event, const char *other,
    uint64_t period, uint64_t budget)
{
	int fds0 = count_open_fds();
	install(restart_handler);
	storm_ours = storm_stray = storm_bad = storm_sample_fail = 0;
	restart_preset = 0 - period;
	storm_cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(storm_cpc);
	storm_set = cpc_set_create(storm_cpc);
	ck_assert_ptr_nonnull(storm_set);
	ck_assert_int_eq(cpc_set_add_request(storm_cpc, storm_set, event,
			     restart_preset, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
			     0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(storm_cpc, storm_set, other, 0,
			     CPC_COUNT_USER, 0, NULL), 1);
	storm_buf = cpc_buf_create(storm_cpc, storm_set);
	ck_assert_ptr_nonnull(storm_buf);
	ck_assert_int_eq(cpc_bind_curlwp(storm_cpc, storm_set, 0), 0);

	struct waits w = { 0, 0, 0 };
	if (period != 1)
		spin_calibrate();
	uint64_t t0 = now_ns(), c0 = thread_cpu_ns();
	int rebinds = 0, main_bad = 0;
	while (now_ns() - t0 < budget) {
		touch_fresh_pages(TURN_PAGES);
		if (cpc_bind_curlwp(storm_cpc, storm_set, 0) != 0)
			main_bad++;
		rebinds++;
		if (period != 1 && (rebinds & 1))
			count_wait(&w, wait_for_overflow(&storm_ours, storm_ours, period));
	}
	uint64_t cpu = thread_cpu_ns() - c0;
	ck_assert_int_eq(cpc_unbind(storm_cpc, storm_set), 0);
	ck_assert_int_eq(cpc_close(storm_cpc), 0);
	fprintf(stderr, "restart storm (%s, period %llu): %d overflow "
	    "signals, %d stray, %d rebinds; %d waits, %d unproven\n", event,
	    (unsigned long long)period, (int)storm_ours, (int)storm_stray,
	    rebinds, w.waited, w.unproven);
	ck_assert_int_eq(main_bad, 0);
	check_waits(&w, period);
	check_signal_count(storm_ours, period, rebinds, cpu);
	check_storm_issues(fds0);
}

START_TEST(overflow_restart_storm)
{
	run_restart_storm("page-faults", "task-clock", 1, 1000000000ULL);
}
END_TEST

START_TEST(overflow_restart_timer_storm)
{
	run_restart_storm("task-clock", "page-faults", timer_period(),
	    1000000000ULL);
}
END_TEST

/*
 * A storm of fresh sets: each one bound with a task-clock preset that
 * overflows at the counter's first timer expiry (UINT64_MAX: perf's
 * shortest period, 10 us), so that the signal often comes while
 * cpc_bind_curlwp is still under way (the library raises a notification
 * that lands inside its change again when the change ends) or just
 * after.  The handler's cpc_set_sample must find the set bound however
 * early it runs: the set is the binding's as soon as the counters can
 * overflow (it once was marked bound only after the core's bind had
 * returned, and three samples in a storm failed with EINVAL).
 */
static volatile sig_atomic_t fresh_signals, fresh_fail, fresh_errno;
static cpc_t *fresh_cpc;
static cpc_set_t *volatile fresh_set;
static cpc_buf_t *volatile fresh_buf;

static void fresh_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_code != EMT_CPCOVF)
		return;
	fresh_signals++;
	if (cpc_set_sample(fresh_cpc, fresh_set, fresh_buf) != 0) {
		fresh_fail++;
		fresh_errno = errno;
	}
}

START_TEST(first_overflow_of_fresh_sets)
{
	const int n = stress_scaled(300);
	spin_calibrate();
	install(fresh_handler);
	fresh_signals = fresh_fail = 0;
	fresh_cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(fresh_cpc);
	for (int i = 0; i < n; i++) {
		cpc_set_t *set = cpc_set_create(fresh_cpc);
		ck_assert_ptr_nonnull(set);
		ck_assert_int_eq(cpc_set_add_request(fresh_cpc, set,
				     "task-clock", UINT64_MAX,
				     CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0,
				     NULL), 0);
		cpc_buf_t *buf = cpc_buf_create(fresh_cpc, set);
		ck_assert_ptr_nonnull(buf);
		fresh_buf = buf;
		fresh_set = set;
		sig_atomic_t s0 = fresh_signals;
		ck_assert_int_eq(cpc_bind_curlwp(fresh_cpc, set, 0), 0);
		ck_assert_int_eq(wait_for_overflow(&fresh_signals, s0, 10000), 1);
		ck_assert_int_eq(cpc_unbind(fresh_cpc, set), 0);
		ck_assert_int_eq(cpc_buf_destroy(fresh_cpc, buf), 0);
		ck_assert_int_eq(cpc_set_destroy(fresh_cpc, set), 0);
	}
	ck_assert_int_eq(cpc_close(fresh_cpc), 0);
	fprintf(stderr, "fresh sets: %d, %d overflow signals\n", n,
	    (int)fresh_signals);
	ck_assert_msg(fresh_fail == 0, "%d of %d samples in the handler failed "
	    "(errno %d)", (int)fresh_fail, (int)fresh_signals,
	    (int)fresh_errno);
	ck_assert_int_ge(fresh_signals, n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("storm");
	TCase *tc = tcase_create("storm");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, overflow_signal_storm);
	tcase_add_test(tc, overflow_timer_storm);
	tcase_add_test(tc, overflow_timer_storm_full_rebinds);
	tcase_add_test(tc, overflow_restart_storm);
	tcase_add_test(tc, overflow_restart_timer_storm);
	tcase_add_test(tc, first_overflow_of_fresh_sets);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
