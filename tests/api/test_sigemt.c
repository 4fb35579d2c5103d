/* SPDX-License-Identifier: MIT */
/*
 * SIGEMT dispositions set after the bind, as Solaris programs do: the
 * library's dispatch stays in front whichever function sets the action
 * (sigaction, signal, bsd_signal, sysv_signal, sigset) and whenever, the
 * application gets EMT_CPCOVF with the interrupted PC and frozen counters,
 * sigaction reports the application's own action, and SIG_IGN, SIG_DFL,
 * SA_RESETHAND, SA_NODEFER and sa_mask mean what they mean on Solaris.
 * Also C11 thrd_create threads inherit CPC_BIND_LWP_INHERIT bindings.
 * Run on the perf backend by make check, and on the kernel module's by
 * make check-kmod.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <threads.h>
#include <ucontext.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

#define PRESET_1000 (UINT64_MAX - 999)

/* sigset is deprecated in glibc's headers, but Solaris programs use it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/* Solaris's BSD-semantics signal(); glibc still defines it. */
extern void (*bsd_signal(int, void (*)(int)))(int);

static volatile sig_atomic_t calls, bad, emt_blocked, usr2_blocked;
static cpc_event_t in_handler;
static int v2_mode;	/* the handler does not sample with version 1 */

static void note_mask(void)
{
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	emt_blocked = sigismember(&m, SIGEMT) == 1;
	usr2_blocked = sigismember(&m, SIGUSR2) == 1;
}

static void info_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	calls++;
	note_mask();
	if (sig != SIGEMT || si->si_signo != SIGEMT ||
	    si->si_code != EMT_CPCOVF || si->si_addr == NULL ||
	    si->si_addr != (void *)uc->uc_mcontext.gregs[PC])
		bad++;
	if (!v2_mode && cpc_take_sample(&in_handler) != 0)
		bad++;
}

static void plain_handler(int sig)
{
	calls++;
	note_mask();
	if (sig != SIGEMT)
		bad++;
	if (cpc_take_sample(&in_handler) != 0)
		bad++;
}

static void other_handler(int sig)
{
	(void)sig;
}

static void setup(void)
{
	capture_errors();
	calls = bad = 0;
}

/* v1 bind: counter 0 overflows after 1000 page faults. */
static void bind_emt(void)
{
	cpc_event_t ev;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=page-faults,pic1=task-clock", &ev), 0);
	ev.ce_pic[0] = PRESET_1000;
	ck_assert_msg(cpc_bind_event(&ev, CPC_BIND_EMT_OVF) == 0, "bind: %s %s",
	    strerror(errno), captured_errors());
}

/* One overflow reached the handler, and the counters stayed frozen. */
static void expect_one_frozen(void)
{
	cpc_event_t a, b;
	touch_fresh_pages(3000);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(bad, 0);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_lt(a.ce_pic[0], 50);	/* wrapped at the overflow */
	ck_assert_uint_eq(a.ce_pic[0], in_handler.ce_pic[0]);
	ck_assert_uint_eq(a.ce_pic[1], in_handler.ce_pic[1]);
	touch_fresh_pages(200);
	burn_cpu_ns(5000000);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(b.ce_pic[0], a.ce_pic[0]);
	ck_assert_uint_eq(b.ce_pic[1], a.ce_pic[1]);
}

START_TEST(sigaction_after_bind)
{
	bind_emt();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = info_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	expect_one_frozen();
	/* Without SA_NODEFER, SIGEMT is blocked while its handler runs. */
	ck_assert_int_eq(emt_blocked, 1);
}
END_TEST

START_TEST(signal_after_bind)
{
	bind_emt();
	ck_assert(signal(SIGEMT, plain_handler) != SIG_ERR);
	expect_one_frozen();
}
END_TEST

START_TEST(bsd_signal_after_bind)
{
	bind_emt();
	ck_assert(bsd_signal(SIGEMT, plain_handler) != SIG_ERR);
	expect_one_frozen();
}
END_TEST

START_TEST(sigset_after_bind)
{
	bind_emt();
	ck_assert(sigset(SIGEMT, plain_handler) != SIG_ERR);
	expect_one_frozen();
	/* SIG_HOLD blocks it, and reports the handler it had. */
	ck_assert(sigset(SIGEMT, SIG_HOLD) == plain_handler);
	ck_assert(sigset(SIGEMT, plain_handler) == SIG_HOLD);
}
END_TEST

START_TEST(sysv_signal_resets)
{
	bind_emt();
	ck_assert(sysv_signal(SIGEMT, plain_handler) != SIG_ERR);
	touch_fresh_pages(3000);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(emt_blocked, 0);	/* SA_NODEFER */
	struct sigaction cur;
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert_ptr_eq(cur.sa_handler, SIG_DFL);	/* SA_RESETHAND */
}
END_TEST

START_TEST(query_reports_the_application_action)
{
	struct sigaction sa, cur, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = info_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	bind_emt();
	/* The library's handler is in the kernel; the query shows ours. */
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert(cur.sa_sigaction == info_handler);
	ck_assert(cur.sa_flags & SA_SIGINFO);
	ck_assert_int_eq(sigismember(&cur.sa_mask, SIGUSR2), 1);
	/* Replacing it gives the old one back; signal() too. */
	ck_assert(signal(SIGEMT, other_handler) == (void (*)(int))(void *)info_handler);
	ck_assert_int_eq(sigaction(SIGEMT, &sa, &old), 0);
	ck_assert(old.sa_handler == other_handler);
	ck_assert(!(old.sa_flags & SA_SIGINFO));
	/* sa_mask applies while the handler runs. */
	expect_one_frozen();
	ck_assert_int_eq(usr2_blocked, 1);
	/* Other signals are left alone. */
	ck_assert_int_eq(sigaction(SIGUSR1, NULL, &cur), 0);
	ck_assert_ptr_eq(cur.sa_handler, SIG_DFL);
}
END_TEST

START_TEST(ignored_after_bind)
{
	struct sigaction cur;
	ck_assert(signal(SIGEMT, plain_handler) != SIG_ERR);
	bind_emt();
	ck_assert(signal(SIGEMT, SIG_IGN) == plain_handler);
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert_ptr_eq(cur.sa_handler, SIG_IGN);
	cpc_event_t a, b;
	touch_fresh_pages(3000);
	ck_assert_int_eq(calls, 0);
	/* Still frozen at the overflow. */
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_lt(a.ce_pic[0], 50);
	touch_fresh_pages(200);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(a.ce_pic[0], b.ce_pic[0]);
}
END_TEST

START_TEST(default_after_bind_ends_the_process)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGEMT, plain_handler);
		bind_emt();
		signal(SIGEMT, SIG_DFL);
		touch_fresh_pages(3000);
		_exit(0);	/* not reached: SIGEMT's default action */
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status));
	ck_assert_int_eq(WTERMSIG(status), SIGEMT);
}
END_TEST

START_TEST(resethand_and_nodefer)
{
	struct sigaction sa, cur;
	bind_emt();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = info_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	expect_one_frozen();
	/* As on Solaris: not blocked on entry, and reset to SIG_DFL. */
	ck_assert_int_eq(emt_blocked, 0);
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert_ptr_eq(cur.sa_handler, SIG_DFL);
	ck_assert(!(cur.sa_flags & SA_SIGINFO));
	/* SA_NODEFER alone: not blocked, not reset. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	calls = 0;
	bind_emt();
	expect_one_frozen();
	ck_assert_int_eq(emt_blocked, 0);
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert(cur.sa_sigaction == info_handler);
}
END_TEST

START_TEST(v2_handler_after_bind)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	v2_mode = 1;
	cpc_set_t *set = cpc_set_create(cpc);
	int i = cpc_set_add_request(cpc, set, "page-faults", PRESET_1000,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL);
	ck_assert_int_ge(i, 0);
	ck_assert_msg(cpc_bind_curlwp(cpc, set, 0) == 0, "bind: %s %s",
	    strerror(errno), captured_errors());
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = info_handler;
	sa.sa_flags = SA_SIGINFO;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	touch_fresh_pages(3000);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(bad, 0);	/* EMT_CPCOVF and the interrupted PC */
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	touch_fresh_pages(200);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	uint64_t va, vb;
	cpc_buf_get(cpc, a, i, &va);
	cpc_buf_get(cpc, b, i, &vb);
	ck_assert_uint_lt(va, 50);
	ck_assert_uint_eq(va, vb);
	cpc_close(cpc);
}
END_TEST

/* C11 threads inherit CPC_BIND_LWP_INHERIT bindings. */
static int c11_thread(void *arg)
{
	cpc_event_t *ev = arg;
	return cpc_take_sample(ev) == 0 ? 0 : 1;
}

START_TEST(thrd_create_inherits)
{
	cpc_event_t ev, in_thread;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=task-clock,pic1=page-faults", &ev), 0);
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
	thrd_t t;
	int res = -1;
	ck_assert_int_eq(thrd_create(&t, c11_thread, &in_thread), thrd_success);
	ck_assert_int_eq(thrd_join(t, &res), thrd_success);
	/* The thread had its own context: its sample succeeded. */
	ck_assert_int_eq(res, 0);
	ck_assert_int_eq(in_thread.ce_cpuver, ev.ce_cpuver);
	cpc_rele();
	/* Without inheritance, it has none. */
	ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);
	ck_assert_int_eq(thrd_create(&t, c11_thread, &in_thread), thrd_success);
	ck_assert_int_eq(thrd_join(t, &res), thrd_success);
	ck_assert_int_eq(res, 1);
	cpc_rele();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sigemt");
	TCase *tc = tcase_create("sigemt");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, sigaction_after_bind);
	tcase_add_test(tc, signal_after_bind);
	tcase_add_test(tc, bsd_signal_after_bind);
	tcase_add_test(tc, sigset_after_bind);
	tcase_add_test(tc, sysv_signal_resets);
	tcase_add_test(tc, query_reports_the_application_action);
	tcase_add_test(tc, ignored_after_bind);
	tcase_add_test(tc, default_after_bind_ends_the_process);
	tcase_add_test(tc, resethand_and_nodefer);
	tcase_add_test(tc, v2_handler_after_bind);
	tcase_add_test(tc, thrd_create_inherits);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
