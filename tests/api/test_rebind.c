/* SPDX-License-Identifier: MIT */
/*
 * Rebinding in place and the edges of binding, on the real kernel:
 * cpc_set_restart starts the clock requests (task-clock) from their
 * presets again, not from the bind; a notifying preset of exactly 2^63
 * (an overflow 2^63 events away: never, but a valid preset) binds and
 * counts from there, with both interfaces; cpc_bind_curlwp of a set bound
 * to a processor moves it to the LWP, giving the processor and the LWP's
 * affinity back, while another set's processor binding refuses it
 * (EAGAIN).  Run on the perf backend by make check, and on the kernel
 * module's by make check-kmod.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

#define MS 1000000ULL
#define TWO_63 (1ULL << 63)

static cpc_t *cpc;
static volatile sig_atomic_t emts;

static void count_emt(int sig)
{
	(void)sig;
	emts++;
}

static char noted[256];

static void note(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode, (void)fmt, (void)ap;
	snprintf(noted, sizeof(noted), "%s", fn);
}

static void setup(void)
{
	capture_errors();
	emts = 0;
	noted[0] = '\0';
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_seterrhndlr(cpc, note);
}

static void teardown(void)
{
	cpc_close(cpc);
}

static cpc_set_t *set_of(const char *e0, const char *e1, uint64_t p1,
    uint_t f1)
{
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, e0, 0, CPC_COUNT_USER, 0,
			     NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, e1, p1, f1, 0, NULL), 1);
	return set;
}

static uint64_t value(cpc_buf_t *b, int i)
{
	uint64_t v = 0;
	ck_assert_int_eq(cpc_buf_get(cpc, b, i, &v), 0);
	return v;
}

START_TEST(restart_starts_clocks_again)
{
	cpc_set_t *set = set_of("task-clock", "page-faults", 0, CPC_COUNT_USER);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	burn_cpu_ns(60 * MS);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	ck_assert_uint_gt(value(a, 0), 0);	/* on-CPU ns (user mode) */
	hrtime_t before = gethrtime();
	ck_assert_int_eq(cpc_set_restart(cpc, set), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	hrtime_t after = gethrtime();
	/* From the preset (0) at the restart: no more than the wall time
	 * since, which excludes the 60 ms before it unless this thread
	 * waited that long between the two readings of the clock. */
	ck_assert_uint_le(value(b, 0), (uint64_t)(after - before));
	/* The ticks run on from the bind (the clock of cpc_buf_tick), by no
	 * more than the time between the two samples. */
	ck_assert_uint_ge(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
	/* And a later sample counts on from there, still bounded by the
	 * wall time since the restart. */
	burn_cpu_ns(20 * MS);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	after = gethrtime();
	ck_assert_uint_gt(value(b, 0), 0);
	ck_assert_uint_le(value(b, 0), (uint64_t)(after - before));
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
}
END_TEST

START_TEST(notifying_preset_at_two_to_the_63)
{
	ck_assert(signal(SIGEMT, count_emt) != SIG_ERR);
	cpc_set_t *set = set_of("task-clock", "page-faults", TWO_63,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT);
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	ck_assert_msg(cpc_bind_curlwp(cpc, set, 0) == 0, "bind: %s",
	    strerror(errno));
	touch_fresh_pages(500);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	ck_assert_uint_ge(value(b, 1), TWO_63 + 500);
	ck_assert_uint_lt(value(b, 1), TWO_63 + 100000);
	ck_assert_int_eq(emts, 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);

	/* Version 1 likewise. */
	cpc_event_t ev, s;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=page-faults,pic1=task-clock", &ev), 0);
	ev.ce_pic[0] = TWO_63;
	ck_assert_msg(cpc_bind_event(&ev, CPC_BIND_EMT_OVF) == 0, "v1 bind: %s",
	    captured_errors());
	touch_fresh_pages(500);
	ck_assert_int_eq(cpc_take_sample(&s), 0);
	ck_assert_uint_ge(s.ce_pic[0], TWO_63 + 500);
	ck_assert_uint_lt(s.ce_pic[0], TWO_63 + 100000);
	ck_assert_int_eq(emts, 0);
	ck_assert_int_eq(cpc_rele(), 0);
}
END_TEST

/*
 * Counting stops at the overflow in the kernel, not when the signal is
 * taken: with SIGEMT blocked, the 2000 faults after the 1000th are not
 * counted (Solaris freezes the counters in its overflow interrupt).  The
 * overflowing fault's own count may be in (perf disables the counters
 * from irq_work, which runs before that fault returns to user space), so
 * the frozen count is the preset's wrap to 0, or 1.  The same after a
 * rebind in place before the overflow: a rearm must not give the counters
 * a second overflow before they stop; and after a restart that follows
 * an overflow taken.
 */
static void expect_frozen_at_overflow(cpc_set_t *set, int how)
{
	sigset_t emt, old;
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	ck_assert(signal(SIGEMT, count_emt) != SIG_ERR);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	if (how == 1) {
		touch_fresh_pages(100);
		ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	} else if (how == 2) {
		touch_fresh_pages(1500);
		ck_assert_int_eq(emts, 1);
		emts = 0;
		ck_assert_int_eq(cpc_set_restart(cpc, set), 0);
	}
	pthread_sigmask(SIG_BLOCK, &emt, &old);
	touch_fresh_pages(3000);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	uint64_t v = value(b, 0);
	ck_assert_msg(v <= 1, "counted %llu past the overflow",
	    (unsigned long long)v);
	ck_assert_int_eq(emts, 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ck_assert_int_eq(emts, 1);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
}

START_TEST(overflow_stops_counting_before_the_signal)
{
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults",
			     UINT64_MAX - 999, CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
			     0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 1);
	expect_frozen_at_overflow(set, 0);
	emts = 0;
	expect_frozen_at_overflow(set, 1);
	emts = 0;
	expect_frozen_at_overflow(set, 2);
}
END_TEST

/* The library's explanation of the last failure, or "". */
static const char *errnote(void)
{
	const char *n = cpc_linux_errnote(cpc);
	return n != NULL ? n : "";
}

/* Root, or perf_event_paranoid <= 0 (what per-CPU events need). */
static int may_count_cpus(void)
{
	return geteuid() == 0 || perf_paranoid_level() <= 0;
}

START_TEST(bind_curlwp_of_a_processor_bound_set)
{
	if (!may_count_cpus()) {
		printf("SKIP bind_curlwp of a processor-bound set: counting on "
		       "a processor needs root or perf_event_paranoid <= 0\n");
		return;
	}
	cpu_set_t orig, now;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(orig), &orig), 0);
	int cpu = -1;
	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &orig))
			cpu = c;
	cpc_set_t *set = set_of("task-clock", "page-faults", 0, CPC_COUNT_USER);
	cpc_set_t *other = set_of("task-clock", "page-faults", 0,
	    CPC_COUNT_USER);
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	/* Each step says why it failed (the errno and the library's note):
	 * under the kernel module this sequence once met an EAGAIN that
	 * could not be reproduced since (issue 24). */
	ck_assert_msg(cpc_bind_cpu(cpc, cpu, set, 0) == 0, "bind_cpu: %s (%s)",
	    strerror(errno), errnote());

	/* Another set while this LWP holds a processor binding: refused. */
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, other, 0), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* No subcode: the handler is not called (illumos's cpc_err), the
	 * explanation waits in cpc_linux_errnote. */
	ck_assert_str_eq(noted, "");
	ck_assert_ptr_nonnull(cpc_linux_errnote(cpc));

	/* The bound set itself: moved to the LWP. */
	ck_assert_msg(cpc_bind_curlwp(cpc, set, 0) == 0, "bind_curlwp: %s (%s)",
	    strerror(errno), errnote());
	touch_fresh_pages(300);
	ck_assert_msg(cpc_set_sample(cpc, set, b) == 0, "sample: %s (%s)",
	    strerror(errno), errnote());
	ck_assert_uint_ge(value(b, 1), 300);
	/* The processor is free for another binding, and the affinity the
	 * LWP had before the processor binding is back. */
	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	ck_assert(CPU_EQUAL(&now, &orig));
	ck_assert_msg(cpc_bind_cpu(cpc, cpu, other, 0) == 0,
	    "bind_cpu again: %s (%s)", strerror(errno), errnote());
	ck_assert_int_eq(cpc_unbind(cpc, other), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	ck_assert(CPU_EQUAL(&now, &orig));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rebind");
	TCase *tc = tcase_create("rebind");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, restart_starts_clocks_again);
	tcase_add_test(tc, notifying_preset_at_two_to_the_63);
	tcase_add_test(tc, overflow_stops_counting_before_the_signal);
	tcase_add_test(tc, bind_curlwp_of_a_processor_bound_set);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
