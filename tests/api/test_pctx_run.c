/* SPDX-License-Identifier: MIT */
/*
 * pctx_run's result and callbacks where a callback fails, the process
 * dies of a signal, or the run ends early, as illumos's libpctx: -1 when
 * a callback fails ("lost control of pid N" when init_lwp fails at
 * discovery), no fini_lwp after a failed tick or an early end; and
 * pctx_set_events keeping the callbacks it is not given.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpctx.h>

#include "pctx_testlog.h"

static int fail_init_at, fail_tick_at, fail_create, inits, ticks;
static int kill_in_tick, slow_tick_ms;

static void setup(void)
{
	pctx_testlog_setup();
	fail_init_at = fail_tick_at = fail_create = inits = ticks = 0;
	kill_in_tick = 0;
	slow_tick_ms = 0;
}

static int init_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)arg;
	logf_("init %d;", (int)lwpid > 1);
	return ++inits == fail_init_at ? -1 : 0;
}

static int fini_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)arg;
	logf_("fini %d;", (int)lwpid > 1);
	return 0;
}

static int lwp_create(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)arg;
	logf_("create %d;", (int)lwpid > 1);
	return fail_create ? -1 : 0;
}

static int lwp_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)arg;
	logf_("lwp_exit %d;", (int)lwpid > 1);
	return 0;
}

static void proc_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, int status,
    void *arg)
{
	(void)pctx, (void)pid, (void)lwpid, (void)arg;
	logf_("exit %d;", status);
}

static int tick(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg;
	ticks++;
	/* (once the target is killed, its death may take a tick or two) */
	if (kill_in_tick && ticks > 1)
		return 0;
	logf_("tick %d;", (int)lwpid > 1);
	if (kill_in_tick && ticks == 1)
		kill(pid, SIGKILL);
	if (slow_tick_ms > 0) {
		struct timespec ts = { 0, slow_tick_ms * 1000000L };
		nanosleep(&ts, NULL);
	}
	return ticks == fail_tick_at ? -1 : 0;
}

static pctx_t *start(const char *const *steps, int verbose)
{
	char *argv[16];
	int n = 0;
	argv[n++] = target;
	for (; steps[n - 1] != NULL; n++)
		argv[n] = (char *)steps[n - 1];
	argv[n] = NULL;
	pctx_t *pctx = pctx_create(target, argv, NULL, verbose, errfn);
	ck_assert_msg(pctx != NULL, "pctx_create: %s", errs);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
			     PCTX_FINI_LWP_EVENT, fini_lwp,
			     PCTX_SYSC_LWP_CREATE_EVENT, lwp_create,
			     PCTX_SYSC_LWP_EXIT_EVENT, lwp_exit,
			     PCTX_SYSC_EXIT_EVENT, proc_exit, PCTX_NULL_EVENT),
	    0);
	return pctx;
}

/* Ends a target that was left running, and reaps it. */
static void finish(pctx_t *pctx, pid_t pid)
{
	int st;
	pctx_release(pctx);
	kill(pid, SIGKILL);
	(void)waitpid(pid, &st, 0);
}

static pid_t target_pid(pctx_t *pctx)
{
	return pctx_lwp_tid(pctx, 1);
}

START_TEST(discovery_failure_loses_control)
{
	const char *steps[] = { "spin", "50", NULL };
	for (int verbose = 0; verbose <= 1; verbose++) {
		setup();
		pctx_t *pctx = start(steps, verbose);
		pid_t pid = target_pid(pctx);
		fail_init_at = 1;
		ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), -1);
		ck_assert_str_eq(log_, "init 0;");
		char want[256];
		snprintf(want, sizeof(want), "%srun: lost control of pid %d\n",
		    verbose ? "run: " : "", (int)pid);
		if (verbose) {
			char lead[64];
			snprintf(lead, sizeof(lead), "%d: lwp discovery failed\n",
			    (int)pid);
			snprintf(want, sizeof(want),
			    "run: %srun: lost control of pid %d\n", lead,
			    (int)pid);
		}
		ck_assert_str_eq(errs, want);
		finish(pctx, pid);
	}
}
END_TEST

START_TEST(failed_tick_fails_the_run)
{
	/* Every LWP is ticked, then the run ends: no fini_lwp, no exit. */
	const char *steps[] = { "threads", "2", "3000", NULL };
	pctx_t *pctx = start(steps, 0);
	pid_t pid = target_pid(pctx);
	fail_tick_at = 1;
	ck_assert_int_eq(pctx_run(pctx, 300, 0, tick), -1);
	ck_assert_str_eq(log_, "init 0;init 1;create 1;init 1;create 1;"
			       "tick 0;tick 1;tick 1;");
	finish(pctx, pid);
}
END_TEST

START_TEST(failed_init_of_a_new_lwp)
{
	/* init_lwp comes first; when it fails, lwp_create is not called. */
	const char *steps[] = { "threads", "1", "3000", NULL };
	pctx_t *pctx = start(steps, 0);
	pid_t pid = target_pid(pctx);
	fail_init_at = 2;
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), -1);
	ck_assert_str_eq(log_, "init 0;init 1;");
	finish(pctx, pid);
}
END_TEST

START_TEST(failed_lwp_create)
{
	const char *steps[] = { "threads", "1", "3000", NULL };
	pctx_t *pctx = start(steps, 0);
	pid_t pid = target_pid(pctx);
	fail_create = 1;
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), -1);
	ck_assert_str_eq(log_, "init 0;init 1;create 1;");
	finish(pctx, pid);
}
END_TEST

START_TEST(nsamples_end_without_fini)
{
	const char *steps[] = { "spin", "3000", NULL };
	pctx_t *pctx = start(steps, 0);
	pid_t pid = target_pid(pctx);
	ck_assert_int_eq(pctx_run(pctx, 20, 2, tick), 0);
	ck_assert_str_eq(log_, "init 0;tick 0;tick 0;");
	finish(pctx, pid);
}
END_TEST

START_TEST(late_ticks_count_toward_nsamples)
{
	/*
	 * A tick that takes 3.2 intervals: as on Solaris the intervals it
	 * made the run miss count toward the 4 samples, but the last is
	 * still taken: 2 ticks.
	 */
	const char *steps[] = { "spin", "3000", NULL };
	pctx_t *pctx = start(steps, 0);
	pid_t pid = target_pid(pctx);
	slow_tick_ms = 160;
	ck_assert_int_eq(pctx_run(pctx, 50, 4, tick), 0);
	ck_assert_str_eq(log_, "init 0;tick 0;tick 0;");
	finish(pctx, pid);
}
END_TEST

START_TEST(death_by_signal)
{
	/* No fini_lwp, no exit: the process ended outside exit(2). */
	const char *steps[] = { "spin", "3000", NULL };
	for (int verbose = 0; verbose <= 1; verbose++) {
		setup();
		kill_in_tick = 1;
		pctx_t *pctx = start(steps, verbose);
		pid_t pid = target_pid(pctx);
		ck_assert_int_eq(pctx_run(pctx, 20, 0, tick), -1);
		ck_assert_str_eq(log_, "init 0;tick 0;");
		char want[128] = "";
		if (verbose)
			snprintf(want, sizeof(want),
			    "run: %d: process terminated\n", (int)pid);
		ck_assert_str_eq(errs, want);
		pctx_release(pctx);
	}
}
END_TEST

START_TEST(normal_exit)
{
	const char *steps[] = { "threads", "1", "20", "exit", "3", NULL };
	pctx_t *pctx = start(steps, 1);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_str_eq(log_, "init 0;init 1;create 1;fini 1;lwp_exit 1;"
			       "fini 0;exit 3;");
	ck_assert_str_eq(errs, "");
	pctx_release(pctx);
}
END_TEST

START_TEST(set_events_keeps_the_others)
{
	const char *argv[] = { target, "spin", "20", NULL };
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
			     PCTX_NULL_EVENT),
	    0);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_FINI_LWP_EVENT, fini_lwp,
			     PCTX_NULL_EVENT),
	    0);
	/* An unknown event: illumos's text, in hexadecimal. */
	ck_assert_int_eq(pctx_set_events(pctx, 99, fini_lwp, PCTX_NULL_EVENT),
	    -1);
	ck_assert_str_eq(errs, "set_events: unknown event type 63\n");
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_str_eq(log_, "init 0;fini 0;");
	pctx_release(pctx);
}
END_TEST

START_TEST(create_texts)
{
	char path[64];
	char *argv[] = { path, NULL };
	/* a file that cannot be executed */
	snprintf(path, sizeof(path), "/dev/null");
	ck_assert_ptr_null(pctx_create(path, argv, NULL, 0, errfn));
	ck_assert_str_eq(errs, "create: cannot execute program '/dev/null'\n");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("libpctx-run");
	TCase *tc = tcase_create("run");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, discovery_failure_loses_control);
	tcase_add_test(tc, failed_tick_fails_the_run);
	tcase_add_test(tc, failed_init_of_a_new_lwp);
	tcase_add_test(tc, failed_lwp_create);
	tcase_add_test(tc, nsamples_end_without_fini);
	tcase_add_test(tc, late_ticks_count_toward_nsamples);
	tcase_add_test(tc, death_by_signal);
	tcase_add_test(tc, normal_exit);
	tcase_add_test(tc, set_events_keeps_the_others);
	tcase_add_test(tc, create_texts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_pctx_suite(suite());
}
