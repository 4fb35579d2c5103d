/* SPDX-License-Identifier: MIT */
/*
 * kt_bind.c: binding and sampling: counts against the thread's own
 * clocks, presets, rebinding in place, group aggregates, other targets.
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
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

/* Short: the bounds are exact, and a switch makes a stretch retried. */
static void spin_20ms(void)
{
	spin_ms(20);
}

static void test_counting(void)
{
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample a, b;
	struct clock_check cc;
	int err, ok;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	check(err == 0, "bind task-clock + page-faults (err %d)", err);
	if (err)
		return;
	ok = clock_nested(fd, 0, spin_20ms, &cc);
	a = cc.a;
	b = cc.b;
	check(a.nreqs == 2 && b.nreqs == 2 && b.flags == 0 && b.abi == 1,
	      "sample nreqs %u flags %u", b.nreqs, b.flags);
	check(ok, "task-clock +%llu ns between the thread's CPU time inside "
	      "the samples, %llu ns, and around them, %llu ns (%d tries, "
	      "err %d)", (unsigned long long)cc.counted,
	      (unsigned long long)cc.inner, (unsigned long long)cc.outer,
	      cc.tries + 1, cc.err);
	/* The on-CPU time is the same clock, from the bind. */
	check(b.ontime_ns >= cc.counted && b.ontime_ns > a.ontime_ns,
	      "ontime_ns %llu grows with the thread's CPU time",
	      (unsigned long long)b.ontime_ns);

	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	touch_pages(300);
	sample(fd, CPC_KIOC_SAMPLE, 0, &b);
	check(b.vals[1] - a.vals[1] >= 300 && b.vals[1] - a.vals[1] < 400,
	      "page-faults +%llu for 300 fresh pages",
	      (unsigned long long)(b.vals[1] - a.vals[1]));
}

static void test_presets(void)
{
	const uint64_t p0 = 1000000000000ull, p1 = UINT64_MAX - 4;
	struct cpc_kreq r[3] = {
		TASK_CLOCK(CPC_KREQ_USER, p0),
		PAGE_FAULTS(CPC_KREQ_USER, p1),
		PAGE_FAULTS(0, 777),	/* neither mode: counts nothing */
	};
	struct cpc_ksample s;
	int err;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	check(err == 0, "rebind with presets (err %d)", err);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.vals[0] >= p0 && s.vals[0] < p0 + 50000000,
	      "task-clock starts at its preset (%llu)",
	      (unsigned long long)s.vals[0]);
	touch_pages(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.vals[1] - p1 >= 20 && s.vals[1] < 100,
	      "page-faults preset 2^64-5 wraps mod 2^64 (%llu)",
	      (unsigned long long)s.vals[1]);
	check(s.vals[2] == 777, "a request with neither USER nor SYSTEM "
	      "reads its preset (%llu)", (unsigned long long)s.vals[2]);
}

/*
 * Clocks are rebound in place like any event (perf rewrites their
 * counters' attr.type on 6.12: the module goes by the requests), except
 * when they notify overflow: clocks overflow from an hrtimer, and
 * rebound in place they lost overflows under timer storms
 * (tests/hardening/test_stress.c), so they get new counters.
 */
static void test_rebind_clocks(void)
{
	static const struct {
		const char *name;
		int ovf;	/* request 0 notifies overflow */
		int cpu;	/* request 0 is cpu-clock */
	} cases[] = {
		{ "task-clock", 0, 0 }, { "cpu-clock", 0, 1 },
		{ "task-clock notifying overflow", 1, 0 },
		{ "cpu-clock notifying overflow", 1, 1 },
	};
	unsigned c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t fl = CPC_KREQ_USER |
			      (cases[c].ovf ? CPC_KREQ_OVF_EMT : 0);
		uint64_t pre = cases[c].ovf ? -1000000000000ull : 0;
		struct cpc_kreq r[2] = {
			cases[c].cpu ? CPU_CLOCK(fl, pre) : TASK_CLOCK(fl, pre),
			TASK_CLOCK(CPC_KREQ_USER, 0),
		};
		struct cpc_ksample s;
		long n0, n1;
		int e0, e1;

		e0 = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
		n0 = kt_stat("rebinds_in_place");
		r[1].preset = 5000000000000ull;
		e1 = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
		n1 = kt_stat("rebinds_in_place");
		sample(fd, CPC_KIOC_SAMPLE, 0, &s);
		check(e0 == 0 && e1 == 0 && n0 >= 0 &&
		      n1 == n0 + !cases[c].ovf &&
		      s.vals[1] >= 5000000000000ull &&
		      s.vals[1] < 5000000000000ull + 1000000000ull,
		      "rebind of %s and task-clock: %s (rebinds_in_place "
		      "%ld -> %ld, count %llu from the new preset)",
		      cases[c].name, cases[c].ovf ? "new counters" :
		      "in place", n0, n1, (unsigned long long)s.vals[1]);
		target(fd, CPC_KIOC_RELE, 0);
	}
}

/*
 * A rebind of the same events keeps their kernel counters: the counts
 * start again at the new presets and the on-CPU time at zero; other
 * events or modes get new counters.
 */
static void test_rebind_in_place(void)
{
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample s;
	long n0;
	int err;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	n0 = kt_stat("rebinds_in_place");
	spin_ms(30);
	touch_pages(100);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.ontime_ns >= 20000000 && s.vals[1] >= 100,
	      "before the rebind: %llu ns on CPU, %llu faults",
	      (unsigned long long)s.ontime_ns, (unsigned long long)s.vals[1]);
	r[0].preset = 1000;
	r[1].preset = 5000;
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	check(n0 >= 0 && kt_stat("rebinds_in_place") == n0 + 1,
	      "that rebind kept the counters (rebinds_in_place %ld -> %ld)",
	      n0, kt_stat("rebinds_in_place"));
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.ontime_ns < 10000000 && s.vals[0] >= 1000 &&
	      s.vals[0] < 1000 + 10000000 && s.vals[1] >= 5000 &&
	      s.vals[1] < 5000 + 50, "rebind of the same events: presets "
	      "and on-CPU time start again (%llu ns, %llu, %llu)",
	      (unsigned long long)s.ontime_ns, (unsigned long long)s.vals[0],
	      (unsigned long long)s.vals[1]);
	touch_pages(100);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.vals[1] >= 5100 && s.flags == 0,
	      "and they count on (%llu faults)", (unsigned long long)s.vals[1]);
	/* An overflow request: new counters, from their presets. */
	r[1] = PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -100000ull);
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.vals[1] >= -100000ull &&
	      s.vals[1] < -100000ull + 1000,
	      "rebind with other overflow requests starts at the preset "
	      "(%llu)", (unsigned long long)s.vals[1]);
	target(fd, CPC_KIOC_RELE, 0);
}

/* ---- group aggregate --------------------------------------------- */

static uint64_t group_thread_faults[4];

static void *group_thread(void *arg)
{
	struct cpc_kreq r = PAGE_FAULTS(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	long i = (long)arg;

	int err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	if (err != 0)
		printf("# group thread %ld: BIND failed, err %d\n", i, err);
	touch_pages(500);
	spin_ms(5);
	err = sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	if (err == 0)
		group_thread_faults[i] = s.vals[0];
	else
		printf("# group thread %ld: SAMPLE failed, err %d\n", i, err);
	target(fd, CPC_KIOC_RELE, 0);
	return NULL;
}

static void test_group(void)
{
	struct cpc_kreq r[2] = {
		PAGE_FAULTS(CPC_KREQ_USER, 0),
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample s;
	uint64_t sum = 0;
	pthread_t t[4];
	long i;
	int err;

	err = bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r);
	check(err == 0, "GROUP_OPEN (err %d)", err);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, group_thread, (void *)i);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		sum += group_thread_faults[i];
	}
	err = sample(fd, CPC_KIOC_GROUP_SAMPLE, 0, &s);
	check(err == 0 && s.nreqs == 2 && sum >= 4 * 500 && s.vals[0] >= sum,
	      "group aggregate of 4 exited threads: %llu page faults >= sum "
	      "%llu", (unsigned long long)s.vals[0], (unsigned long long)sum);
	check(s.vals[1] >= 4 * 5000000ull && s.ontime_ns >= 4 * 5000000ull,
	      "group task-clock %llu ns, ontime %llu ns (summed)",
	      (unsigned long long)s.vals[1], (unsigned long long)s.ontime_ns);
	err = target(fd, CPC_KIOC_GROUP_CLOSE, 0);
	check(err == 0 && sample(fd, CPC_KIOC_GROUP_SAMPLE, 0, &s) == EINVAL,
	      "GROUP_CLOSE, then GROUP_SAMPLE is EINVAL");
	r[0].preset = 1;
	check(bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r) == EINVAL,
	      "GROUP_OPEN with a preset: EINVAL");
	r[0].preset = 0;
	r[0].flags |= CPC_KREQ_OVF_EMT;
	check(bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r) == EINVAL,
	      "GROUP_OPEN with OVF_EMT: EINVAL");
	r[0].flags = CPC_KREQ_USER;
	check(bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, CPC_KBIND_START_FROZEN, 2,
			r) == EINVAL, "GROUP_OPEN START_FROZEN: EINVAL");
}

/* ---- targets ------------------------------------------------------ */

static volatile int other_stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!other_stop)
		spin_ms(1);
	return NULL;
}

static pid_t spinner_tid;

static void *spinner_tid_thread(void *arg)
{
	spinner_tid = gettid_();
	return spinner(arg);
}

static int child_bind_parent(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	pid_t parent = *(pid_t *)arg;
	struct cpc_ksample s;
	int bad = 0;

	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &r) != 0)
		bad |= 1;
	spin_ms(1);
	if (sample(fd, CPC_KIOC_SAMPLE, parent, &s) != 0)
		bad |= 2;
	if (target(fd, CPC_KIOC_RELE, parent) != 0)
		bad |= 4;
	return bad;
}

/* The parent made itself undumpable: only ptrace rights over it would do. */
static int child_undumpable_parent(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	pid_t parent = *(pid_t *)arg;

	return bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &r) == EPERM ? 0 : 1;
}

static int child_nobody_parent(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	pid_t parent = *(pid_t *)arg;
	struct cpc_ksample s;
	int bad = 0;

	drop_to_nobody();
	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &r) != EPERM)
		bad |= 1;
	if (sample(fd, CPC_KIOC_SAMPLE, parent, &s) != EPERM)
		bad |= 2;
	if (target(fd, CPC_KIOC_RELE, parent) != EPERM)
		bad |= 4;
	if (bind_reqs(fd, CPC_KIOC_GROUP_OPEN, parent, 0, 1, &r) != EPERM)
		bad |= 8;
	/* Its own thread is fine. */
	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		bad |= 16;
	return bad;
}

static void test_targets(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	pid_t me = gettid_(), gone;
	pthread_t t;
	int err, st;

	/* Another thread of this process, by tid. */
	other_stop = 0;
	spinner_tid = 0;
	pthread_create(&t, NULL, spinner_tid_thread, NULL);
	while (!spinner_tid)
		usleep(1000);
	err = bind_reqs(fd, CPC_KIOC_BIND, spinner_tid, 0, 1, &r);
	usleep(50000);
	check(err == 0 && sample(fd, CPC_KIOC_SAMPLE, spinner_tid, &s) == 0 &&
	      s.vals[0] > 1000000, "bind and sample a sibling thread by tid "
	      "(err %d, %llu ns)", err, (unsigned long long)s.vals[0]);
	check(target(fd, CPC_KIOC_RELE, spinner_tid) == 0,
	      "RELE a sibling thread");
	other_stop = 1;
	pthread_join(t, NULL);

	/* A nonexistent thread. */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, &st, 0);
	check(bind_reqs(fd, CPC_KIOC_BIND, gone, 0, 1, &r) == ESRCH &&
	      sample(fd, CPC_KIOC_SAMPLE, gone, &s) == ESRCH &&
	      target(fd, CPC_KIOC_RELE, gone) == ESRCH,
	      "nonexistent tid %d: ESRCH", gone);

	/* A child process of the same user may count its parent. */
	st = in_child(child_bind_parent, &me);
	check(st == 0, "same-user child binds/samples/reles the parent's "
	      "thread (status %d)", st);

	/* Not once the parent is undumpable (ptrace_may_access's rule). */
	if (!is_root && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0) {
		st = in_child(child_undumpable_parent, &me);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		check(st == 0, "same-user child: EPERM on an undumpable "
		      "parent (status %d)", st);
	}

	if (is_root) {
		st = in_child(child_nobody_parent, &me);
		check(st == 0, "uid 65534 child: EPERM on root's thread, its "
		      "own thread works (status %d)", st);
	}
}

static const struct kt_test tests[] = {
	{ "counting", test_counting, 0,
	  "task-clock and page faults against the thread's CPU time" },
	{ "presets", test_presets, 0, "counts start at their presets" },
	{ "rebind_in_place", test_rebind_in_place, 0,
	  "a rebind of the same events keeps their counters" },
	{ "rebind_clocks", test_rebind_clocks, 0,
	  "clocks rebound in place unless they notify overflow" },
	{ "group", test_group, 0, "GROUP_OPEN: the aggregate of exited threads" },
	{ "targets", test_targets, 0,
	  "other threads and processes: by tid, gone, another user's" },
};
KT_SUITE(bind, tests);
