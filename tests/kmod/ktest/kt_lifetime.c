/* SPDX-License-Identifier: MIT */
/*
 * kt_lifetime.c: the life of contexts: exec, thread churn, fork, close and
 * reopen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

/* ---- exec: bindings and aggregates stop; the context lives on ------ */

/* Binds the calling thread on f (reaping the file's dead contexts). */
static void *reaper_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);

	return (void *)(intptr_t)bind_reqs(*(int *)arg, CPC_KIOC_BIND, 0, 0,
					   1, &r);
}

/* The exec'ed image of test_exec (kmod_test --after-exec FD). */
int after_exec(int f)
{
	const volatile struct cpc_kpage *kp;
	struct cpc_ksample a, b, g1, g2;
	struct page_read pr;
	pthread_t t;
	void *ret;
	int bad = 0, stopped;
	/* Without perf's remove_on_exec (before 5.13) they count on. */
	long exec_stop = kt_stat("exec_stop");

	if (sample(f, CPC_KIOC_SAMPLE, 0, &a) != 0 || a.nreqs != 1)
		bad |= 1;
	if (sample(f, CPC_KIOC_GROUP_SAMPLE, 0, &g1) != 0 || g1.nreqs != 1)
		bad |= 2;
	spin_ms(20);
	if (pthread_create(&t, NULL, reaper_thread, &f) != 0 ||
	    pthread_join(t, &ret) != 0 || ret != NULL)
		bad |= 4;
	if (sample(f, CPC_KIOC_SAMPLE, 0, &b) != 0)
		bad |= 8;
	if (sample(f, CPC_KIOC_GROUP_SAMPLE, 0, &g2) != 0)
		bad |= 16;
	stopped = b.vals[0] == a.vals[0] && g2.vals[0] == g1.vals[0];
	if (exec_stop != 0 ? !stopped :
	    b.vals[0] <= a.vals[0] || g2.vals[0] <= g1.vals[0])
		bad |= 32;	/* both stopped at the exec (or counted on) */
	if (a.vals[0] < 2000000 || g1.vals[0] < 2000000)
		bad |= 64;	/* both counted before it */
	/* The state page has no time base for the stopped binding. */
	kp = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, f, 0);
	usleep(1000);		/* scheduled in again */
	if (kp == MAP_FAILED || page_read_time(kp, &pr) ||
	    kp->vals[0] != b.vals[0])
		bad |= 128;
	if (bad)
		printf("# after exec: %#x, binding %llu -> %llu, aggregate "
		       "%llu -> %llu\n", bad, (unsigned long long)a.vals[0],
		       (unsigned long long)b.vals[0],
		       (unsigned long long)g1.vals[0],
		       (unsigned long long)g2.vals[0]);
	return bad;
}

static const char *exec_self;

/* Binds and aggregates its own thread on a file kept across exec. */
static void *exec_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	int f = open(CPC_KMOD_DEVICE, O_RDWR);	/* no O_CLOEXEC */
	char num[16];

	(void)arg;
	if (f < 0 || bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &r) != 0 ||
	    bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &r) != 0)
		_exit(70);
	spin_ms(5);
	snprintf(num, sizeof(num), "%d", f);
	execl(exec_self, exec_self, "--after-exec", num, (char *)NULL);
	_exit(71);
}

static int child_exec(void *arg)
{
	pthread_t t;

	if (*(int *)arg == 0)
		exec_thread(NULL);	/* the leader execs */
	if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
		return 72;
	pthread_join(t, NULL);	/* the exec ends this thread */
	return 73;
}

static void test_exec(void)
{
	const char *self = kt_self;
	int nonleader = 0, st;

	exec_self = self;
	st = in_child(child_exec, &nonleader);
	check(st == 0, "exec of the leader: binding and group aggregate both "
	      "stop at the exec and stay readable (%d)", st);
	nonleader = 1;
	st = in_child(child_exec, &nonleader);
	check(st == 0, "exec of a non-leader thread (it takes the leader's "
	      "tid): its context is not reaped; binding and aggregate both "
	      "stopped (%d)", st);
}

/* ---- thread churn, mmap, reopen, fork ------------------------------ */

static volatile int churn_errors;

static void *churn_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);

	(void)arg;
	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		churn_errors++;
	return NULL;
}

static void test_churn(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	long before, after;
	pthread_t t;
	int i, left;

	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	before = kt_stat("contexts_in_use");
	for (i = 0; i < 1000; i++) {
		if (pthread_create(&t, NULL, churn_thread, NULL) != 0) {
			churn_errors++;
			break;
		}
		pthread_join(t, NULL);
	}
	left = wait_threads_gone();
	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);	/* reaps */
	after = kt_stat("contexts_in_use");
	if (!is_root)	/* contexts_in_use is root's: count errors only */
		before = after = 1;
	check(churn_errors == 0 && left == 0 && before > 0 && after == before,
	      "1000 thread create/bind/exit cycles: contexts_in_use %ld -> "
	      "%ld, %d errors, %d threads not gone", before, after,
	      churn_errors, left);
}

/*
 * The child binds task-clock and spins.  Task-clock counts the time the
 * thread is on its processor (perf's clock, interrupts included); the
 * thread's CPU time is the scheduler's (without interrupt and steal
 * time).  Over an interval nested inside the counting one, with no
 * context switch in it, task-clock therefore counts at least the CPU
 * time: exact, no share.  (A switch's own path is charged to different
 * threads by the two clocks: measured again, up to 10 times.)
 */
static int child_fork(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample a, s;
	uint64_t t0, t1, sw;
	int err, tries = 0;

	(void)arg;
	/* The child's thread is not bound: nothing is inherited. */
	if (sample(fd, CPC_KIOC_SAMPLE, 0, &s) != EINVAL)
		return 1;
	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		return 2;
	do {
		sw = switches_now();
		err = sample(fd, CPC_KIOC_SAMPLE, 0, &a);
		t0 = thread_cpu_ns();
		spin_ms(5);
		t1 = thread_cpu_ns();
		err = err ? err : sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	} while (!err && switches_now() != sw && ++tries < 10);
	if (err || s.vals[0] - a.vals[0] < t1 - t0) {
		printf("# child_fork: sample err %d, task-clock +%llu ns, "
		       "thread CPU time +%llu ns, on-CPU %llu ns, %d tries\n",
		       err, (unsigned long long)(s.vals[0] - a.vals[0]),
		       (unsigned long long)(t1 - t0),
		       (unsigned long long)s.ontime_ns, tries + 1);
		fflush(stdout);
		return err ? 3 : 4;
	}
	return 0;		/* exits bound: the parent's file reaps it */
}

static void test_fork_reopen(void)
{
	long base = kt_contexts_base;
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	long n;
	int st, err;

	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	st = in_child(child_fork, NULL);
	err = sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(st == 0 && err == 0, "fork: the child shares the file, binds "
	      "its own thread; the parent's binding stays (%d %d)", st, err);

	close(fd);
	n = kt_stat("contexts_in_use");
	if (is_root)
		check(n == base, "close frees every context (%ld, was %ld)", n,
		      base);
	fd = open_cpc();
	check(fd >= 0, "reopen /dev/cpc");
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	check(err == 0 && sample(fd, CPC_KIOC_SAMPLE, 0, &s) == 0,
	      "bind and sample after reopening (%d)", err);
}

static const struct kt_test tests[] = {
	{ "exec", test_exec, 0,
	  "exec stops bindings and aggregates; the context lives on" },
	{ "churn", test_churn, 0, "1000 threads bind and exit: no context leaks" },
	{ "fork_reopen", test_fork_reopen, 0,
	  "fork shares the file; close frees every context; reopen" },
};
KT_SUITE(lifetime, tests);
