/* SPDX-License-Identifier: MIT */
/*
 * What the SIGEMT dispositions set after a bind mean for the rest of the
 * program, beyond who gets the overflow (test_sigemt.c): signal() and
 * bsd_signal() restart interrupted system calls (SA_RESTART, glibc's BSD
 * semantics, which a Solaris program built here gets), sysv_signal()
 * does not; sigset(SIG_HOLD) holds an overflow until a later sigset()
 * sets a handler, which unblocks it and reports SIG_HOLD.  The library's
 * handler is in the kernel all the while: what it passes on must behave
 * like the application's own action.  Run on the perf backend by make
 * check, and on the kernel module's by make check-kmod.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
extern void (*bsd_signal(int, void (*)(int)))(int);

#define PRESET_1000 (UINT64_MAX - 999)

static volatile sig_atomic_t calls;

static void handler(int sig)
{
	(void)sig;
	calls++;
}

static void setup(void)
{
	capture_errors();
	calls = 0;
}

/* v1 bind: counter 0 overflows after 1000 page faults; arms the library. */
static void bind_emt(void)
{
	cpc_event_t ev;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=page-faults,pic1=task-clock", &ev), 0);
	ev.ce_pic[0] = PRESET_1000;
	ck_assert_msg(cpc_bind_event(&ev, CPC_BIND_EMT_OVF) == 0, "bind: %s %s",
	    strerror(errno), captured_errors());
}

struct reader {
	int fd;
	volatile pid_t tid;
	ssize_t got;
	int err;
};

static void *read_one(void *arg)
{
	struct reader *r = arg;
	char c;
	r->tid = (pid_t)syscall(SYS_gettid);
	errno = 0;
	r->got = read(r->fd, &c, 1);
	r->err = errno;
	return NULL;
}

/* Waits until thread tid sleeps in read() (/proc: its system call). */
static void wait_blocked_in_read(const struct reader *r)
{
	char path[64], line[128];
	while (r->tid == 0)
		sched_yield();
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)r->tid);
	for (;;) {
		FILE *f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		int in_read = fgets(line, sizeof(line), f) != NULL &&
		    strtol(line, NULL, 10) == SYS_read;
		fclose(f);
		if (in_read)
			return;
		usleep(1000);
	}
}

/*
 * A thread blocked in read() takes a SIGEMT (one the library passes on:
 * not an overflow of its own), then the read gets its byte.  Returns
 * what read() returned, errno in *err.
 */
static ssize_t read_across_sigemt(int *err)
{
	int p[2];
	struct reader r = { 0 };
	pthread_t t;

	ck_assert_int_eq(pipe(p), 0);
	r.fd = p[0];
	ck_assert_int_eq(pthread_create(&t, NULL, read_one, &r), 0);
	wait_blocked_in_read(&r);
	pthread_kill(t, SIGEMT);
	/* The handler has run once the thread sleeps in read() again, or
	 * has left it (interrupted). */
	while (calls == 0)
		usleep(1000);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	close(p[0]);
	close(p[1]);
	*err = r.err;
	return r.got;
}

static void expect_restarted(void)
{
	int err;
	ssize_t got = read_across_sigemt(&err);
	ck_assert_msg(got == 1, "read returned %zd (%s): not restarted", got,
	    strerror(err));
}

START_TEST(signal_restarts_system_calls)
{
	bind_emt();
	ck_assert(signal(SIGEMT, handler) != SIG_ERR);
	struct sigaction cur;
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert(cur.sa_handler == handler);
	ck_assert(cur.sa_flags & SA_RESTART);
	expect_restarted();
}
END_TEST

START_TEST(bsd_signal_restarts_system_calls)
{
	bind_emt();
	ck_assert(bsd_signal(SIGEMT, handler) != SIG_ERR);
	struct sigaction cur;
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert(cur.sa_flags & SA_RESTART);
	expect_restarted();
}
END_TEST

START_TEST(sigaction_restart_flag_is_kept)
{
	bind_emt();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	expect_restarted();
}
END_TEST

START_TEST(sysv_signal_interrupts_system_calls)
{
	bind_emt();
	ck_assert(sysv_signal(SIGEMT, handler) != SIG_ERR);
	struct sigaction cur;
	ck_assert_int_eq(sigaction(SIGEMT, NULL, &cur), 0);
	ck_assert(!(cur.sa_flags & SA_RESTART));
	/* One signal only: the action resets to SIG_DFL when taken. */
	int p[2], err;
	struct reader r = { 0 };
	pthread_t t;
	ck_assert_int_eq(pipe(p), 0);
	r.fd = p[0];
	ck_assert_int_eq(pthread_create(&t, NULL, read_one, &r), 0);
	wait_blocked_in_read(&r);
	pthread_kill(t, SIGEMT);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	err = r.err;
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(r.got, -1);
	ck_assert_int_eq(err, EINTR);
	close(p[0]);
	close(p[1]);
}
END_TEST

static int emt_blocked(void)
{
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	return sigismember(&m, SIGEMT) == 1;
}

START_TEST(sigset_hold_then_handler)
{
	bind_emt();
	ck_assert(sigset(SIGEMT, handler) != SIG_ERR);
	ck_assert_int_eq(emt_blocked(), 0);
	/* Held: the overflow waits, blocked. */
	ck_assert(sigset(SIGEMT, SIG_HOLD) == handler);
	ck_assert_int_eq(emt_blocked(), 1);
	touch_fresh_pages(3000);
	ck_assert_int_eq(calls, 0);
	sigset_t pending;
	ck_assert_int_eq(sigpending(&pending), 0);
	ck_assert_int_eq(sigismember(&pending, SIGEMT), 1);
	/* Held twice: still held, and it says so. */
	ck_assert(sigset(SIGEMT, SIG_HOLD) == SIG_HOLD);
	/* A handler set after the hold: SIG_HOLD reported, the signal
	 * unblocked, and the waiting overflow delivered. */
	ck_assert(sigset(SIGEMT, handler) == SIG_HOLD);
	ck_assert_int_eq(emt_blocked(), 0);
	ck_assert_int_eq(calls, 1);
	/* Not held any more: the handler is reported again. */
	ck_assert(sigset(SIGEMT, handler) == handler);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sigemt_flags");
	TCase *tc = tcase_create("flags");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, signal_restarts_system_calls);
	tcase_add_test(tc, bsd_signal_restarts_system_calls);
	tcase_add_test(tc, sigaction_restart_flag_is_kept);
	tcase_add_test(tc, sysv_signal_interrupts_system_calls);
	tcase_add_test(tc, sigset_hold_then_handler);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
