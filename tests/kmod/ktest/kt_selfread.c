/* SPDX-License-Identifier: MIT */
/*
 * kt_selfread.c: a thread sampling its own binding (the module's reads
 * without perf's locks), alone and amid preemption and migration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
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

/*
 * A thread sampling its own binding reads every counter after the first
 * without perf's locks (cpc_read_self() in the module, counted by the
 * statistic self_reads); another thread's sample goes through perf.
 * Both must give the same counts: with the bound thread blocked, its
 * user-mode page faults cannot change, so the other thread's sample must
 * equal the thread's own last one exactly.
 */
static int selfread_pipe[2][2];	/* [0]: main -> helper, [1]: back */
static pid_t selfread_tid;
static struct cpc_ksample selfread_other;

static void *selfread_helper(void *arg)
{
	char c;

	(void)arg;
	while (read(selfread_pipe[0][0], &c, 1) == 1 && c == 's') {
		sample(fd, CPC_KIOC_SAMPLE, selfread_tid, &selfread_other);
		if (write(selfread_pipe[1][1], "d", 1) != 1)
			break;
	}
	return NULL;
}

/*
 * Spinning only (page faults, at munmap's rescheduling points, switch it
 * out), and short: the bounds are exact.
 */
static void selfread_work(void)
{
	spin_ms(20);
}

static void test_self_read(void)
{
	struct cpc_kreq r[3] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER, 0),
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample a, b;
	struct clock_check cc;
	long before, after, tbefore, tafter;
	pthread_t helper;
	int err, round, same = 1, ok;
	char c;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	check(err == 0, "bind task-clock, page-faults, task-clock (err %d)",
	      err);
	if (err)
		return;
	before = kt_stat("self_reads");
	tbefore = kt_stat("self_time_reads");
	/* Exact bounds from the thread's CPU time (clock_nested). */
	ok = clock_nested(fd, 2, selfread_work, &cc);
	a = cc.a;
	b = cc.b;
	after = kt_stat("self_reads");
	tafter = kt_stat("self_time_reads");
	check(before >= 0 && after - before >= 6,
	      "self_reads %ld -> %ld: two samples of the thread's own three "
	      "counters read them without perf's locks", before, after);
	if (self_time_kernel())
		check(tbefore >= 0 && tafter - tbefore >= 2,
		      "self_time_reads %ld -> %ld: with the on-CPU time",
		      tbefore, tafter);
	else
		check(tbefore >= 0 && tafter == tbefore,
		    "self_time_reads %ld -> %ld: the on-CPU time through "
		    "perf on this kernel",
		    tbefore, tafter);
	check(ok, "task-clock read that way: +%llu ns between the thread's "
	      "CPU time inside the samples, %llu ns, and around them, %llu ns "
	      "(%d tries, err %d)", (unsigned long long)cc.counted,
	      (unsigned long long)cc.inner, (unsigned long long)cc.outer,
	      cc.tries + 1, cc.err);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	touch_pages(50);
	sample(fd, CPC_KIOC_SAMPLE, 0, &b);
	check(b.vals[1] - a.vals[1] >= 50 && b.vals[1] - a.vals[1] < 100,
	      "page-faults read that way: +%llu for 50 fresh pages",
	      (unsigned long long)(b.vals[1] - a.vals[1]));

	selfread_tid = gettid_();
	if (pipe(selfread_pipe[0]) || pipe(selfread_pipe[1]) ||
	    pthread_create(&helper, NULL, selfread_helper, NULL)) {
		check(0, "pipes and a helper thread (%s)", strerror(errno));
		return;
	}
	/* Round 0 warms up the path (its faults); round 1 is checked. */
	for (round = 0; round < 2; round++) {
		sample(fd, CPC_KIOC_SAMPLE, 0, &a);
		if (write(selfread_pipe[0][1], "s", 1) != 1 ||
		    read(selfread_pipe[1][0], &c, 1) != 1) {
			same = 0;
			break;
		}
		same = selfread_other.nreqs == 3 &&
		       selfread_other.vals[1] == a.vals[1] &&
		       selfread_other.vals[2] >= a.vals[2] &&
		       selfread_other.vals[0] >= a.vals[0];
	}
	check(same, "another thread's sample (through perf) of the blocked "
	      "thread: page-faults %llu = its own last %llu, task-clock "
	      "%llu >= %llu", (unsigned long long)selfread_other.vals[1],
	      (unsigned long long)a.vals[1],
	      (unsigned long long)selfread_other.vals[2],
	      (unsigned long long)a.vals[2]);
	/*
	 * The on-CPU time the thread computed for itself lies between its
	 * first task-clock (read just before the time, in the same clock)
	 * and where both stopped when it blocked: a window of the few
	 * microseconds it ran after its sample.  A time in another base
	 * (or off by a stale timestamp) falls outside.
	 */
	check(same && a.vals[0] <= a.ontime_ns &&
	      a.ontime_ns <= selfread_other.ontime_ns &&
	      a.ontime_ns <= selfread_other.vals[0],
	      "the thread's own on-CPU time %llu ns lies between its "
	      "task-clock %llu and the blocked thread's time %llu and "
	      "task-clock %llu read through perf",
	      (unsigned long long)a.ontime_ns, (unsigned long long)a.vals[0],
	      (unsigned long long)selfread_other.ontime_ns,
	      (unsigned long long)selfread_other.vals[0]);
	close(selfread_pipe[0][1]);
	pthread_join(helper, NULL);
	close(selfread_pipe[0][0]);
	close(selfread_pipe[1][0]);
	close(selfread_pipe[1][1]);
	target(fd, CPC_KIOC_RELE, 0);
}

/*
 * Threads that preempt one another (more of them than processors, their
 * samples contending for the file's lock) and migrate, each sampling its
 * own binding between short bursts: the module's quick reads, after every
 * kind of switch.  task-clock's count and the set's on-CPU time
 * (ontime_ns) both advance with the thread's perf context clock while it
 * runs and stand still while it does not, so count minus time changes
 * only by how far apart the two were read inside one sample, which that
 * sample's own wall-clock time bounds (an emulator's host may stall it:
 * then the bound grows with it).  A counter judged stopped, or a time
 * taken from another processor's or thread's context, moves the
 * difference by the time the thread ran.  Comparing with the thread's
 * CPU time instead would not do: the scheduler and perf charge a
 * context switch's own path to different threads, and under an emulator
 * on a loaded host that path can last tens of milliseconds.
 */
#define SWITCH_SAMPLES 60
#define SWITCH_THREADS_MAX 9

struct switch_worker {
	int bound, bad;
	unsigned samples, migrations;
	uint64_t switches;
	char why[200];
};

static void *switch_worker(void *arg)
{
	struct switch_worker *w = arg;
	struct cpc_kreq r[2] = {
	    TASK_CLOCK(CPC_KREQ_USER, 0),
	    PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample prev, cur;
	uint64_t w0, wall, prev_wall = 0, sw0;
	int64_t lag, prev_lag = 0, moved;
	int cpu, prev_cpu = -1, err;
	unsigned k;

	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r))
		return NULL;
	w->bound = 1;
	sw0 = switches_now();
	memset(&prev, 0, sizeof(prev));
	for (k = 0; k < SWITCH_SAMPLES && !w->bad; k++) {
		w0 = mono_ns();
		err = sample(fd, CPC_KIOC_SAMPLE, 0, &cur);
		wall = mono_ns() - w0;
		cpu = sched_getcpu();
		if (err) {
			w->bad = 1;
			snprintf(w->why, sizeof(w->why), "sample %u: %s", k,
			    strerror(err));
			break;
		}
		w->samples++;
		if (prev_cpu >= 0 && cpu != prev_cpu)
			w->migrations++;
		prev_cpu = cpu;
		lag = (int64_t)(cur.ontime_ns - cur.vals[0]);
		moved = lag > prev_lag ? lag - prev_lag : prev_lag - lag;
		if (k > 0 && (cur.vals[0] < prev.vals[0] ||
				 cur.ontime_ns < prev.ontime_ns ||
				 cur.vals[1] < prev.vals[1] ||
				 (uint64_t)moved > wall + prev_wall + 2000)) {
			w->bad = 1;
			snprintf(w->why, sizeof(w->why),
			    "sample %u: task-clock %llu -> %llu, on-CPU "
			    "time %llu -> %llu (apart by %lld, then %lld "
			    "ns; the samples took %llu and %llu ns)",
			    k, (unsigned long long)prev.vals[0],
			    (unsigned long long)cur.vals[0],
			    (unsigned long long)prev.ontime_ns,
			    (unsigned long long)cur.ontime_ns,
			    (long long)prev_lag, (long long)lag,
			    (unsigned long long)prev_wall,
			    (unsigned long long)wall);
		}
		prev = cur;
		prev_lag = lag;
		prev_wall = wall;
		spin_ms(2);
	}
	w->switches = switches_now() - sw0;
	target(fd, CPC_KIOC_RELE, 0);
	return NULL;
}

static void test_self_read_switching(void)
{
	struct switch_worker w[SWITCH_THREADS_MAX];
	pthread_t t[SWITCH_THREADS_MAX];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n, i, bound = 0, bad = 0, samples = 0, migrations = 0;
	uint64_t switches = 0;
	const char *why = "";

	n = ncpu > 0 && ncpu < (SWITCH_THREADS_MAX - 1) / 2
		? (unsigned)ncpu * 2 + 1
		: SWITCH_THREADS_MAX;
	memset(w, 0, sizeof(w));
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, switch_worker, &w[i])) {
			check(0, "thread %u (%s)", i, strerror(errno));
			n = i;
			break;
		}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		bound += w[i].bound;
		samples += w[i].samples;
		migrations += w[i].migrations;
		switches += w[i].switches;
		if (w[i].bad && !bad++)
			why = w[i].why;
	}
	check(
	    bound == n && samples == n * SWITCH_SAMPLES && !bad && switches > 0,
	    "%u threads on %ld processors, each sampling itself %d times "
	    "(%llu context switches, %u migrations between samples): "
	    "task-clock and on-CPU time advance together%s%s",
	    n, ncpu, SWITCH_SAMPLES, (unsigned long long)switches, migrations,
	    bad ? "; " : "", why);
}

static const struct kt_test tests[] = {
	{ "self_read", test_self_read, 0,
	  "a thread's own samples without perf's locks, equal to perf's" },
	{ "self_read_switching", test_self_read_switching, 0,
	  "the same amid preemption and migration" },
};
KT_SUITE(selfread, tests);
