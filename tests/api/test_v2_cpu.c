/* SPDX-License-Identifier: MIT */
/*
 * The version 2 interfaces against the real kernel: per-CPU counting
 * (cpc_bind_cpu), its refusal to an unprivileged user, and the
 * exclusiveness of processor bindings and the affinity they set.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"
#include "v2_fixture.h"

/* The calling thread's affinity equals want. */
static int affinity_is(const cpu_set_t *want)
{
	cpu_set_t now;
	return sched_getaffinity(0, sizeof(now), &now) == 0 &&
	    CPU_EQUAL(&now, want);
}

static int affinity_is_one(int cpu)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return affinity_is(&one);
}

START_TEST(processor_bindings_are_exclusive)
{
	cpu_set_t orig;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(orig), &orig), 0);
	int c0 = -1, c1 = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &orig)) {
			if (c0 < 0)
				c0 = c;
			else if (c1 < 0)
				c1 = c;
		}
	if (geteuid() != 0 || c1 < 0) {
		printf("SKIP processor_bindings_are_exclusive: needs root and "
		       "two processors\n");
		return;
	}
	cpc_set_t *a = make_set("cpu-clock", "context-switches", 0,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM);
	cpc_set_t *b = make_set("cpu-clock", "context-switches", 0,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM);
	cpc_set_t *l = make_set("cpu-clock", "context-switches", 0,
	    CPC_COUNT_USER);
	for (int order = 0; order < 2; order++) {
		ck_assert_int_eq(cpc_bind_cpu(cpc, c0, a, 0), 0);
		ck_assert(affinity_is_one(c0));
		/* A processor already bound: EAGAIN. */
		errno = 0;
		ck_assert_int_eq(cpc_bind_cpu(cpc, c0, b, 0), -1);
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert(affinity_is_one(c0));
		ck_assert_int_eq(cpc_bind_cpu(cpc, c1, b, 0), 0);
		ck_assert(affinity_is_one(c1));
		/* No LWP binding while the LWP has a processor binding. */
		errno = 0;
		ck_assert_int_eq(cpc_bind_curlwp(cpc, l, 0), -1);
		ck_assert_int_eq(errno, EAGAIN);
		if (order == 0) {
			ck_assert_int_eq(cpc_unbind(cpc, a), 0);
			ck_assert(affinity_is_one(c1));
			ck_assert_int_eq(cpc_unbind(cpc, b), 0);
		} else {
			ck_assert_int_eq(cpc_unbind(cpc, b), 0);
			ck_assert(affinity_is_one(c0));	/* back to a's */
			ck_assert_int_eq(cpc_unbind(cpc, a), 0);
		}
		/* Unbound in any order: the original affinity again. */
		ck_assert(affinity_is(&orig));
	}
	/* Then the LWP may bind, and a processor may be bound again. */
	ck_assert_int_eq(cpc_bind_curlwp(cpc, l, 0), 0);
	ck_assert_int_eq(cpc_unbind(cpc, l), 0);
	ck_assert_int_eq(cpc_bind_cpu(cpc, c0, a, 0), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, a), 0);
	ck_assert(affinity_is(&orig));
}
END_TEST

START_TEST(per_cpu_counting)
{
	cpc_set_t *set = make_set("cpu-clock", "context-switches", 0,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	if (geteuid() == 0) {
		uint64_t v0, v1;
		ck_assert_int_eq(cpc_bind_cpu(cpc, 0, set, 0), 0);
		ck_assert_int_eq(sched_getcpu(), 0);
		ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
		usleep(50000);
		ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
		cpc_buf_get(cpc, a, 0, &v0);
		cpc_buf_get(cpc, b, 0, &v1);
		/*
		 * The processor's clock runs whoever runs on it: at least
		 * the 50 ms slept on CLOCK_MONOTONIC, less its slew and
		 * sched_clock's slack (testutil.h).
		 */
		ck_assert_uint_ge(v1 - v0,
		    (uint64_t)(50000000 * (1 - MONOTONIC_SLEW)) -
			sched_clock_slack_ns());
		ck_assert_uint_gt(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
		ck_assert_int_eq(cpc_unbind(cpc, set), 0);
		ck_assert_int_eq(cpc_bind_cpu(cpc, 0, set, 1), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(cpc_bind_cpu(cpc, 100000, set, 0), -1);
	} else {
		printf("SKIP per_cpu_counting success path: needs root\n");
	}
	/* An unprivileged user is refused. */
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		cpc_t *h = cpc_open(CPC_VER_CURRENT);
		/*
		 * Refused already at the open where the kernel lets this
		 * user count nothing (perf alone under perf_event_paranoid
		 * 3: ENOSYS, with the cause in the message).
		 */
		if (h == NULL)
			_exit(errno == ENOSYS ? 0 : 4);
		cpc_set_t *s = cpc_set_create(h);
		cpc_set_add_request(h, s, "cpu-clock", 0, CPC_COUNT_USER, 0, NULL);
		int rc = cpc_bind_cpu(h, 0, s, 0);
		_exit(rc == -1 && errno == EACCES ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v2_cpu");
	TCase *tc = tcase_create("v2_cpu");
	tcase_add_checked_fixture(tc, v2_setup, v2_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, processor_bindings_are_exclusive);
	tcase_add_test(tc, per_cpu_counting);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
