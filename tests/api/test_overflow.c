/* SPDX-License-Identifier: MIT */
/*
 * Overflow notification (CPC_BIND_EMT_OVF): SIGEMT on the overflowing
 * LWP with EMT_CPCOVF and the interrupted PC, frozen counters until the
 * next bind, rebinding from the handler, and the application's own SIGEMT
 * action kept intact.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

#define PRESET_1000 (UINT64_MAX - 999)

static __thread int sig_count;
static __thread int sig_bad;		/* wrong signo, code, address or thread */
static __thread int rebind;		/* handler rebinds with this preset */
static __thread uint64_t rebind_preset;
static __thread cpc_event_t in_handler;	/* sample taken in the handler */
static __thread pid_t my_tid;

static void emt_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	sig_count++;
	if (sig != SIGEMT || si->si_signo != SIGEMT ||
	    si->si_code != EMT_CPCOVF || si->si_addr == NULL ||
	    si->si_addr != (void *)uc->uc_mcontext.gregs[REG_RIP] ||
	    gettid() != my_tid)
		sig_bad++;
	if (cpc_take_sample(&in_handler) != 0)
		sig_bad++;
	if (rebind) {
		cpc_event_t again = in_handler;
		again.ce_pic[0] = rebind_preset;
		if (cpc_bind_event(&again, CPC_BIND_EMT_OVF) != 0)
			sig_bad++;
	}
}

static void install_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
}

static void setup(void)
{
	capture_errors();
	install_handler();
	sig_count = sig_bad = rebind = 0;
	my_tid = gettid();
}

static void bind_emt(const char *spec, uint64_t p0, uint64_t p1, int flags)
{
	cpc_event_t ev;
	ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0, "%s",
	    captured_errors());
	ev.ce_pic[0] = p0;
	ev.ce_pic[1] = p1;
	ck_assert_msg(cpc_bind_event(&ev, flags) == 0, "bind %s: %s %s", spec,
	    strerror(errno), captured_errors());
}

START_TEST(rebinding_handler_gets_every_overflow)
{
	rebind = 1;
	rebind_preset = PRESET_1000;
	bind_emt("pic0=page-faults,pic1=task-clock", PRESET_1000, 0,
	    CPC_BIND_EMT_OVF);
	touch_fresh_pages(10000);
	ck_assert_msg(sig_count >= 9 && sig_count <= 11,
	    "%d signals for 10000 faults at 1000 per overflow", sig_count);
	ck_assert_int_eq(sig_bad, 0);
	/* The overflowed counter reads as a small wrapped value. */
	ck_assert_uint_lt(in_handler.ce_pic[0], 50);
}
END_TEST

START_TEST(one_signal_then_frozen)
{
	cpc_event_t a, b;
	bind_emt("pic0=page-faults,pic1=task-clock", PRESET_1000, 0,
	    CPC_BIND_EMT_OVF);
	touch_fresh_pages(3000);
	ck_assert_int_eq(sig_count, 1);
	ck_assert_int_eq(sig_bad, 0);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	/* Both counters stopped at the overflow. */
	ck_assert_uint_eq(a.ce_pic[0], in_handler.ce_pic[0]);
	ck_assert_uint_eq(a.ce_pic[1], in_handler.ce_pic[1]);
	touch_fresh_pages(3000);
	burn_cpu_ns(20000000);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(b.ce_pic[0], a.ce_pic[0]);
	ck_assert_uint_eq(b.ce_pic[1], a.ce_pic[1]);
	ck_assert_uint_eq(b.ce_tsc, a.ce_tsc);
	ck_assert_int_eq(sig_count, 1);
	/* A new bind counts again. */
	bind_emt("pic0=page-faults,pic1=task-clock", 0, 0, CPC_BIND_EMT_OVF);
	touch_fresh_pages(100);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_ge(b.ce_pic[0], 100);
}
END_TEST

/*
 * Both counters may signal and the second overflows first: whichever the
 * kernel stops with the overflowing counter, the library freezes the
 * whole context, so the first must not count on after the SIGEMT either.
 */
START_TEST(overflow_of_either_counter_freezes_both)
{
	cpc_event_t a, b;
	bind_emt("pic0=page-faults,pic1=minor-faults", UINT64_MAX - 999999,
	    PRESET_1000, CPC_BIND_EMT_OVF);
	touch_fresh_pages(3000);
	ck_assert_int_eq(sig_count, 1);
	ck_assert_int_eq(sig_bad, 0);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_ge(a.ce_pic[0], UINT64_MAX - 999999 + 900);
	touch_fresh_pages(3000);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(b.ce_pic[0], a.ce_pic[0]);
	ck_assert_uint_eq(b.ce_pic[1], a.ce_pic[1]);
	ck_assert_int_eq(sig_count, 1);
}
END_TEST

/*
 * The notifying counter leads its group, whose other counters the kernel
 * stops with it: a counting (not clock) member must stay frozen too,
 * and a rebind from the handler must restart both.
 */
START_TEST(overflow_freezes_counting_members)
{
	cpc_event_t a, b;
	bind_emt("pic0=page-faults,pic1=minor-faults", PRESET_1000, 0,
	    CPC_BIND_EMT_OVF);
	touch_fresh_pages(3000);
	ck_assert_int_eq(sig_count, 1);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_ge(a.ce_pic[1], 900);
	touch_fresh_pages(3000);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(b.ce_pic[0], a.ce_pic[0]);
	ck_assert_uint_eq(b.ce_pic[1], a.ce_pic[1]);
	/* Rebound in place with new presets: both count again. */
	b.ce_pic[0] = PRESET_1000;
	b.ce_pic[1] = 0;
	ck_assert_int_eq(cpc_bind_event(&b, CPC_BIND_EMT_OVF), 0);
	touch_fresh_pages(500);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_ge(a.ce_pic[0], PRESET_1000 + 500);
	ck_assert_uint_ge(a.ce_pic[1], 500);
	ck_assert_int_eq(sig_count, 1);
	touch_fresh_pages(1000);
	ck_assert_int_eq(sig_count, 2);
}
END_TEST

START_TEST(timer_driven_overflow)
{
	/* task-clock: one overflow per millisecond of CPU time. */
	rebind = 1;
	rebind_preset = UINT64_MAX - 999999;
	bind_emt("pic0=task-clock,pic1=page-faults", UINT64_MAX - 999999, 0,
	    CPC_BIND_EMT_OVF);
	/*
	 * Burn 200 ms of CPU time (CPU time: load beside the test does not
	 * change it).  Never more than one overflow per millisecond of it.
	 * And at least one per 4 ms with perf: each overflow is noticed at
	 * the clock's next hrtimer expiry and rebinds in the handler, all of
	 * it CPU time of this thread, which makes about one per 1.8 ms here,
	 * so 4 ms leaves a factor of two.  The kernel module notices a clock
	 * overflow only at a scheduler tick (4 ms at HZ=250) and its guest
	 * is emulated (about one per 13 ms seen there): one per 30 ms.  All
	 * of them well formed.
	 */
	const char *be = getenv("LIBCPC_BACKEND");
	uint64_t per = be != NULL && strcmp(be, "kmod") == 0 ? 30000000
							     : 4000000;
	uint64_t t0 = thread_cpu_ns(), spent = 0;
	while (spent < 200000000ULL) {
		burn_cpu_ns(10000000);
		spent = thread_cpu_ns() - t0;
	}
	ck_assert_int_eq(sig_bad, 0);
	ck_assert_msg((uint64_t)sig_count >= spent / per,
	    "%d overflows in %llu ms at 1 ms each", sig_count,
	    (unsigned long long)(spent / 1000000));
	ck_assert_msg((uint64_t)sig_count <= spent / 1000000 + 2,
	    "%d overflows in %llu ms", sig_count,
	    (unsigned long long)(spent / 1000000));
}
END_TEST

/* Each of four threads overflows its own counter. */
struct worker {
	int pages, period;
	int signals, bad;
	int ok;
};

static void *worker(void *arg)
{
	struct worker *w = arg;
	cpc_event_t ev;
	sig_count = sig_bad = 0;
	my_tid = gettid();
	rebind = 1;
	rebind_preset = UINT64_MAX - (uint64_t)w->period + 1;
	if (cpc_strtoevent(cpc_getcpuver(), "page-faults,task-clock", &ev) != 0)
		return NULL;
	ev.ce_pic[0] = rebind_preset;
	if (cpc_bind_event(&ev, CPC_BIND_EMT_OVF) != 0)
		return NULL;
	touch_fresh_pages((size_t)w->pages);
	w->signals = sig_count;
	w->bad = sig_bad;
	w->ok = 1;
	return NULL;
}

START_TEST(signal_goes_to_the_overflowing_thread)
{
	struct worker w[4] = {
		{ 1000, 100, 0, 0, 0 }, { 1000, 250, 0, 0, 0 },
		{ 2000, 500, 0, 0, 0 }, { 100, 1000, 0, 0, 0 },
	};
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &w[i]), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++) {
		int want = w[i].pages / w[i].period;
		ck_assert_int_eq(w[i].ok, 1);
		ck_assert_int_eq(w[i].bad, 0);
		ck_assert_msg(w[i].signals >= want - 1 && w[i].signals <= want + 1,
		    "thread %d: %d signals, expected %d", i, w[i].signals, want);
	}
	ck_assert_int_eq(sig_count, 0);	/* none strayed to the main thread */
}
END_TEST

START_TEST(int_bits_choose_the_signalling_counter)
{
	cpc_event_t a;
	/* Only counter 1 signals: counter 0 wraps silently. */
	bind_emt("pic0=page-faults,pic1=page-faults,int1", UINT64_MAX - 99,
	    UINT64_MAX - 999, CPC_BIND_EMT_OVF);
	touch_fresh_pages(500);
	ck_assert_int_eq(sig_count, 0);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_ge(a.ce_pic[0], 400);	/* wrapped, still counting */
	touch_fresh_pages(1000);
	ck_assert_int_eq(sig_count, 1);
	/* Without int bits either counter signals. */
	bind_emt("pic0=page-faults,pic1=page-faults", UINT64_MAX - 99,
	    UINT64_MAX - 999, CPC_BIND_EMT_OVF);
	touch_fresh_pages(500);
	ck_assert_int_eq(sig_count, 2);
	ck_assert_uint_lt(in_handler.ce_pic[0], 50);
}
END_TEST

START_TEST(unreachable_presets_count_silently)
{
	cpc_event_t a;
	bind_emt("pic0=page-faults,pic1=task-clock", 0, 1ULL << 62,
	    CPC_BIND_EMT_OVF);
	touch_fresh_pages(2000);
	ck_assert_int_eq(sig_count, 0);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_ge(a.ce_pic[0], 2000);
	ck_assert_uint_gt(a.ce_pic[1], 1ULL << 62);
}
END_TEST

START_TEST(without_emt_no_signal)
{
	bind_emt("pic0=page-faults,pic1=task-clock", PRESET_1000, 0, 0);
	touch_fresh_pages(3000);
	ck_assert_int_eq(sig_count, 0);
}
END_TEST

static volatile sig_atomic_t app_raised_code;

static void plain_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	app_raised_code = si->si_code;
}

START_TEST(application_sigemt_passes_through)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = plain_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGEMT, &sa, NULL);
	bind_emt("pic0=page-faults,pic1=task-clock", PRESET_1000, 0,
	    CPC_BIND_EMT_OVF);
	app_raised_code = 0;
	raise(SIGEMT);	/* the application's own SIGEMT */
	ck_assert_int_eq(app_raised_code, SI_TKILL);
	/* ... and it did not freeze the counters. */
	cpc_event_t a, b;
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	burn_cpu_ns(2000000);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_gt(b.ce_pic[1], a.ce_pic[1]);
	/* Other signals are not touched by the library. */
	struct sigaction cur;
	sigaction(SIGUSR1, NULL, &cur);
	ck_assert_ptr_eq(cur.sa_handler, SIG_DFL);
}
END_TEST

static volatile int old_style_calls;

static void old_style_handler(int sig)
{
	if (sig == SIGEMT)
		old_style_calls++;
}

START_TEST(handler_without_siginfo)
{
	signal(SIGEMT, old_style_handler);
	bind_emt("pic0=page-faults,pic1=task-clock", PRESET_1000, 0,
	    CPC_BIND_EMT_OVF);
	touch_fresh_pages(2000);
	ck_assert_int_eq(old_style_calls, 1);
}
END_TEST

START_TEST(ignored_sigemt)
{
	cpc_event_t a, b;
	signal(SIGEMT, SIG_IGN);
	uint64_t t0 = thread_cpu_ns();
	bind_emt("pic0=page-faults,pic1=task-clock", PRESET_1000, 0,
	    CPC_BIND_EMT_OVF);
	touch_fresh_pages(2000);
	uint64_t t1 = thread_cpu_ns();
	/* 100 ms of CPU time that the frozen task-clock must not count. */
	burn_cpu_ns(100000000);
	/* Still frozen at the overflow. */
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_le(a.ce_pic[1], t1 - t0 + 1000000);
	touch_fresh_pages(100);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(a.ce_pic[0], b.ce_pic[0]);
	ck_assert_uint_lt(a.ce_pic[0], 50);
	ck_assert_uint_eq(a.ce_pic[1], b.ce_pic[1]);
}
END_TEST

START_TEST(default_action_without_handler)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGEMT, SIG_DFL);
		cpc_event_t ev;
		cpc_strtoevent(cpc_getcpuver(), "page-faults,task-clock", &ev);
		ev.ce_pic[0] = PRESET_1000;
		if (cpc_bind_event(&ev, CPC_BIND_EMT_OVF) != 0)
			_exit(2);
		touch_fresh_pages(2000);
		_exit(0);	/* not reached: SIGEMT's default action */
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGEMT);
}
END_TEST

START_TEST(emt_errors)
{
	cpc_event_t ev;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "page-faults,task-clock,int0,sys0", &ev), 0);
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_EMT_OVF), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "page-faults,task-clock,int0", &ev), 0);
	ck_assert_int_eq(cpc_bind_event(&ev, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* System counting cannot be turned on while overflow is requested. */
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_EMT_OVF), 0);
	ck_assert_int_eq(cpc_count_sys_events(1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_count_usr_events(1), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("overflow");
	TCase *tc = tcase_create("emt");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, rebinding_handler_gets_every_overflow);
	tcase_add_test(tc, one_signal_then_frozen);
	tcase_add_test(tc, overflow_freezes_counting_members);
	tcase_add_test(tc, overflow_of_either_counter_freezes_both);
	tcase_add_test(tc, timer_driven_overflow);
	tcase_add_test(tc, signal_goes_to_the_overflowing_thread);
	tcase_add_test(tc, int_bits_choose_the_signalling_counter);
	tcase_add_test(tc, unreachable_presets_count_silently);
	tcase_add_test(tc, without_emt_no_signal);
	tcase_add_test(tc, application_sigemt_passes_through);
	tcase_add_test(tc, handler_without_siginfo);
	tcase_add_test(tc, ignored_sigemt);
	tcase_add_test(tc, default_action_without_handler);
	tcase_add_test(tc, emt_errors);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
