/* SPDX-License-Identifier: MIT */
/*
 * The Solaris processor interfaces that system-wide programs use:
 * processor_bind(2), p_online(2) and the query forms of pset_bind(2) and
 * pset_assign(2), against the real scheduler affinity and sysfs.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/processor.h>
#include <sys/procset.h>
#include <sys/pset.h>
#include <libcpc.h>

/* The first processor this thread may run on. */
static int first_allowed(cpu_set_t *set)
{
	ck_assert_int_eq(sched_getaffinity(0, sizeof(*set), set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

static int last_allowed(const cpu_set_t *set)
{
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

START_TEST(bind_query_unbind)
{
	cpu_set_t orig, now;
	int cpu = first_allowed(&orig);
	processorid_t old = 12345;
	if (CPU_COUNT(&orig) < 2) {
		printf("SKIP bind_query_unbind: only one processor allowed\n");
		return;
	}
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, PBIND_QUERY, &old), 0);
	ck_assert_int_eq(old, PBIND_NONE);
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, cpu, &old), 0);
	ck_assert_int_eq(old, PBIND_NONE);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	ck_assert_int_eq(CPU_COUNT(&now), 1);
	ck_assert(CPU_ISSET(cpu, &now));
	sched_yield();
	ck_assert_int_eq(sched_getcpu(), cpu);
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, PBIND_QUERY, &old), 0);
	ck_assert_int_eq(old, cpu);
	/* Rebinding reports the old processor; the thread's id works too. */
	int other = last_allowed(&orig);
	ck_assert_int_eq(processor_bind(P_LWPID, _lwp_self(), other, &old), 0);
	ck_assert_int_eq(old, cpu);
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, PBIND_NONE, &old), 0);
	ck_assert_int_eq(old, other);
	ck_assert_int_eq(sched_getaffinity(0, sizeof(now), &now), 0);
	ck_assert(CPU_EQUAL(&now, &orig));
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, PBIND_NONE, NULL), 0);
}
END_TEST

static void *sleeper(void *arg)
{
	pthread_barrier_t *b = arg;
	pthread_barrier_wait(b);
	pthread_barrier_wait(b);
	return NULL;
}

START_TEST(bind_process)
{
	cpu_set_t orig, t;
	int cpu = first_allowed(&orig);
	pthread_barrier_t b;
	pthread_t th;
	processorid_t old;
	pthread_barrier_init(&b, NULL, 2);
	ck_assert_int_eq(pthread_create(&th, NULL, sleeper, &b), 0);
	pthread_barrier_wait(&b);
	ck_assert_int_eq(processor_bind(P_PID, P_MYID, cpu, &old), 0);
	ck_assert_int_eq(pthread_getaffinity_np(th, sizeof(t), &t), 0);
	ck_assert_int_eq(CPU_COUNT(&t), 1);
	ck_assert(CPU_ISSET(cpu, &t));
	ck_assert_int_eq(processor_bind(P_PID, getpid(), PBIND_QUERY, &old), 0);
	ck_assert_int_eq(old, cpu);
	ck_assert_int_eq(processor_bind(P_PID, P_MYID, PBIND_NONE, NULL), 0);
	ck_assert_int_eq(pthread_getaffinity_np(th, sizeof(t), &t), 0);
	ck_assert(CPU_EQUAL(&t, &orig));
	pthread_barrier_wait(&b);
	pthread_join(th, NULL);
}
END_TEST

START_TEST(bind_errors)
{
	processorid_t old = 7;
	errno = 0;
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, 100000, &old), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, -7, &old), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(processor_bind(P_PGID, P_MYID, PBIND_QUERY, &old), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* An LWP of another process, or none at all. */
	ck_assert_int_eq(processor_bind(P_LWPID, 1, PBIND_QUERY, &old), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(processor_bind(P_PID, 0x3ffffff0, PBIND_QUERY, &old),
	    -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(old, 7);
}
END_TEST

START_TEST(online_processors)
{
	int online = 0;
	for (processorid_t c = 0; c < CPU_SETSIZE; c++) {
		int st = p_online(c, P_STATUS);
		if (st == -1) {
			ck_assert_int_eq(errno, EINVAL);
			continue;
		}
		ck_assert(st == P_ONLINE || st == P_OFFLINE);
		online += st == P_ONLINE;
	}
	ck_assert_int_eq(online, (int)sysconf(_SC_NPROCESSORS_ONLN));
	cpu_set_t set;
	int cpu = first_allowed(&set);
	ck_assert_int_eq(p_online(cpu, P_STATUS), P_ONLINE);
	/* Asking for the state it is in changes nothing and reports it. */
	ck_assert_int_eq(p_online(cpu, P_ONLINE), P_ONLINE);
	ck_assert_int_eq(p_online(cpu, P_NOINTR), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(p_online(cpu, 99), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(p_online(-1, P_STATUS), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(p_online(100000, P_STATUS), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(processor_sets)
{
	psetid_t ps = 5;
	ck_assert_int_eq(pset_bind(PS_QUERY, P_PID, P_MYID, &ps), 0);
	ck_assert_int_eq(ps, PS_NONE);
	ps = 5;
	ck_assert_int_eq(pset_bind(PS_QUERY, P_LWPID, P_MYID, &ps), 0);
	ck_assert_int_eq(ps, PS_NONE);
	ps = 5;
	ck_assert_int_eq(pset_assign(PS_QUERY, 0, &ps), 0);
	ck_assert_int_eq(ps, PS_NONE);
	ck_assert_int_eq(pset_bind(PS_NONE, P_PID, P_MYID, NULL), 0);
	/* No set exists. */
	ck_assert_int_eq(pset_bind(1, P_PID, P_MYID, &ps), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pset_assign(1, 0, &ps), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pset_assign(PS_QUERY, 100000, &ps), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(pset_bind(PS_QUERY, P_LWPID, 1, &ps), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(pset_bind(PS_QUERY, P_PGID, 0, &ps), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("processor");
	TCase *tc = tcase_create("processor");
	tcase_add_test(tc, bind_query_unbind);
	tcase_add_test(tc, bind_process);
	tcase_add_test(tc, bind_errors);
	tcase_add_test(tc, online_processors);
	tcase_add_test(tc, processor_sets);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
