/* SPDX-License-Identifier: MIT */
/*
 * Counting against the real kernel with the version 1 per-LWP interfaces,
 * from several places: each thread's own binding (and the release of a
 * thread that exits bound), a fork child that starts unbound, and binding
 * and sampling in a signal handler.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"
#include "v1_fixture.h"

/* Threads: each LWP has its own binding and counts only itself. */
struct thread_result {
	int unbound_errno;
	uint64_t faults;
	int ok;
};

static void *own_thread(void *arg)
{
	struct thread_result *r = arg;
	cpc_event_t e, a, b;
	if (cpc_take_sample(&e) == -1)
		r->unbound_errno = errno;
	if (cpc_strtoevent(cpc_getcpuver(), "page-faults,task-clock", &e) != 0 ||
	    cpc_bind_event(&e, 0) != 0 || cpc_take_sample(&a) != 0)
		return NULL;
	touch_fresh_pages(100);
	if (cpc_take_sample(&b) != 0)
		return NULL;
	r->faults = b.ce_pic[0] - a.ce_pic[0];
	r->ok = 1;
	return NULL;	/* exits bound: the library must release */
}

START_TEST(per_lwp_contexts)
{
	cpc_event_t a, b;
	struct thread_result r;
	memset(&r, 0, sizeof(r));
	bind_spec("page-faults,task-clock");
	sample(&a);
	pthread_t t;
	ck_assert_int_eq(pthread_create(&t, NULL, own_thread, &r), 0);
	touch_fresh_pages(3000);
	pthread_join(t, NULL);
	sample(&b);
	ck_assert_int_eq(r.ok, 1);
	ck_assert_int_eq(r.unbound_errno, EINVAL);
	ck_assert_msg(r.faults >= 100 && r.faults < 1000,
	    "thread counted %llu faults (its own: 100)",
	    (unsigned long long)r.faults);
	ck_assert_uint_ge(b.ce_pic[0] - a.ce_pic[0], 3000);
}
END_TEST

START_TEST(no_fd_leak_on_thread_exit)
{
	int before = count_open_fds();
	for (int i = 0; i < 100; i++) {
		struct thread_result r;
		memset(&r, 0, sizeof(r));
		pthread_t t;
		ck_assert_int_eq(pthread_create(&t, NULL, own_thread, &r), 0);
		pthread_join(t, NULL);
		ck_assert_int_eq(r.ok, 1);
	}
	ck_assert_int_eq(count_open_fds(), before);
	/* Rebinding and releasing in one thread does not leak either. */
	for (int i = 0; i < 200; i++)
		bind_spec("task-clock,page-faults");
	cpc_rele();
	ck_assert_int_eq(count_open_fds(), before);
}
END_TEST

START_TEST(fork_child_starts_unbound)
{
	cpc_event_t a, b;
	int unbound_fds = count_open_fds();
	bind_spec("task-clock,page-faults");
	sample(&a);
	ck_assert_int_ge(count_open_fds(), unbound_fds);
	pid_t pid = fork();
	if (pid == 0) {
		cpc_event_t e;
		int rc = cpc_take_sample(&e);
		int err = errno;
		/* The child holds none of the parent's counter fds. */
		int fds = count_open_fds();
		_exit(rc == -1 && err == EINVAL && fds == unbound_fds ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	touch_fresh_pages(100);
	sample(&b);
	ck_assert_uint_ge(b.ce_pic[1] - a.ce_pic[1], 100);
}
END_TEST

/* Sampling and rebinding from a signal handler. */
static volatile sig_atomic_t handler_ok;
static cpc_event_t handler_event;

static void on_alarm(int sig)
{
	cpc_event_t s;
	(void)sig;
	if (cpc_take_sample(&s) != 0)
		return;
	handler_event.ce_pic[0] = 5000000000ULL;
	handler_event.ce_pic[1] = 7;
	if (cpc_bind_event(&handler_event, 0) != 0)
		return;
	if (cpc_take_sample(&s) != 0 || s.ce_pic[0] < 5000000000ULL ||
	    s.ce_pic[1] < 7)
		return;
	handler_ok = 1;
}

START_TEST(bind_and_sample_in_handler)
{
	cpc_event_t b;
	bind_spec("task-clock,page-faults");
	handler_event = ev;
	signal(SIGALRM, on_alarm);
	handler_ok = 0;
	raise(SIGALRM);
	ck_assert_int_eq(handler_ok, 1);
	touch_fresh_pages(10);
	sample(&b);
	ck_assert_uint_ge(b.ce_pic[0], 5000000000ULL);
	ck_assert_uint_ge(b.ce_pic[1], 17);
	signal(SIGALRM, SIG_DFL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counting_threads");
	TCase *tc = tcase_create("v1");
	tcase_add_checked_fixture(tc, v1_setup, v1_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, per_lwp_contexts);
	tcase_add_test(tc, no_fd_leak_on_thread_exit);
	tcase_add_test(tc, fork_child_starts_unbound);
	tcase_add_test(tc, bind_and_sample_in_handler);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
