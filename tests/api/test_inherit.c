/* SPDX-License-Identifier: MIT */
/*
 * CPC_BIND_LWP_INHERIT: new LWPs get their own contexts counting from
 * zero, the group aggregate (cpc_take_group_sample), overflow contexts
 * inherited frozen at UINT64_MAX with an immediate SIGEMT, release, fork,
 * exec, and no leaks over many thread lifetimes.
 */
#include <check.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>
#include <libcpc_group.h>

#include "testutil.h"

static char *self_path;

static void setup(void)
{
	capture_errors();
}

static void teardown(void)
{
	cpc_rele();
}

static void bind_spec(const char *spec, int flags)
{
	cpc_event_t ev;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(), spec, &ev), 0);
	ck_assert_msg(cpc_bind_event(&ev, flags) == 0, "bind: %s %s",
	    strerror(errno), captured_errors());
}

/*
 * A worker that measures itself.  Its task-clock between two samples of
 * its own lies between its CPU time (CLOCK_THREAD_CPUTIME_ID) measured
 * inside and around the samples only while the thread stays on its
 * processor: at a context switch the scheduler charges the switch's own
 * path to the next thread (from the clock read at the top of
 * __schedule()), perf's task-clock to the previous one up to its
 * sched-out hook and to the next one from its sched-in hook, and under an
 * emulator whose host is loaded that path can last tens of milliseconds
 * (a thread then counted 15 ms less than its CPU time over 21 ms with
 * perf_event_open(2) alone, and as much more elsewhere).  So a timed
 * worker takes turns with the others (one timed stretch at a time), and
 * measures again, up to TIMED_TRIES times, only when a stretch in which
 * it was switched out (thread_switches()) misses the bounds; a stretch
 * without a switch must meet them.
 */
#define TIMED_TRIES NESTED_TRIES

struct work {
	uint64_t burn_ns;
	size_t pages;
	int timed;		/* take turns, measure until within bounds */
	int bound_at_start;	/* cpc_take_sample worked before any work */
	cpc_event_t start;	/* that sample */
	cpc_event_t first, last;
	struct nested_clock n;	/* its CPU time inside, most around them */
	int tries;		/* timed stretches measured */
	int nested;		/* create one more inheriting thread */
	struct work *child;
};

static pthread_mutex_t timed_turn = PTHREAD_MUTEX_INITIALIZER;

/* pic0's task-clock in bounds in the last stretch (testutil.c: exact). */
static int within_bounds(const struct work *w)
{
	return nested_holds(&w->n,
	    (double)(w->last.ce_pic[0] - w->first.ce_pic[0]));
}

/* Samples around its burn and page touching; 0 if a sample failed. */
static int measure(struct work *w)
{
	nested_open(&w->n);
	int ok = cpc_take_sample(&w->first) == 0;
	nested_in(&w->n);
	burn_cpu_ns(w->burn_ns);
	touch_fresh_pages(w->pages);
	nested_out(&w->n);
	ok = ok && cpc_take_sample(&w->last) == 0;
	nested_close(&w->n);
	return ok;
}

static void *worker(void *arg)
{
	struct work *w = arg;
	w->bound_at_start = cpc_take_sample(&w->start) == 0;
	if (!w->bound_at_start)
		return NULL;
	do {
		if (w->timed)
			pthread_mutex_lock(&timed_turn);
		int ok = measure(w);
		if (w->timed)
			pthread_mutex_unlock(&timed_turn);
		w->tries++;
		if (!ok) {
			w->bound_at_start = 0;
			break;
		}
	} while (w->timed && w->n.switched && !within_bounds(w) &&
		 w->tries < TIMED_TRIES);
	if (w->nested && w->child != NULL) {
		pthread_t t;
		pthread_create(&t, NULL, worker, w->child);
		pthread_join(t, NULL);
	}
	return NULL;
}

START_TEST(each_lwp_counts_itself_from_zero)
{
	struct work w[4];
	pthread_t t[4];
	cpc_event_t a;

	/* The parent's presets and counts must not leak into new LWPs. */
	cpc_event_t ev;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=task-clock,pic1=page-faults", &ev), 0);
	ev.ce_pic[0] = 1ULL << 40;
	ev.ce_pic[1] = 1ULL << 30;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
	burn_cpu_ns(200000000);
	touch_fresh_pages(3000);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 4; i++) {
		w[i].burn_ns = (uint64_t)(i + 1) * 500000;
		w[i].pages = (size_t)(i + 1) * 200;
		w[i].timed = 1;
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++) {
		ck_assert_msg(w[i].bound_at_start, "thread %d has no context", i);
		/*
		 * Counting started at zero in the new LWP: far below the
		 * parent's 200 ms (emulated guests under load count steal
		 * time too, so the bound is generous), and exact for faults.
		 */
		ck_assert_uint_lt(w[i].start.ce_pic[0], 100000000);
		ck_assert_uint_lt(w[i].start.ce_pic[1], 200);
		/*
		 * Its task-clock between the samples: no less than its CPU
		 * time inside them, no more than the time it can have been
		 * on its processor around them (nested_open in testutil.c);
		 * see struct work for the stretches with a context switch.
		 */
		uint64_t busy = w[i].last.ce_pic[0] - w[i].first.ce_pic[0];
		ck_assert_msg(within_bounds(&w[i]),
		    "thread %d: task-clock %llu vs CPU time %llu (%llu around "
		    "the samples), %s, try %d",
		    i, (unsigned long long)busy,
		    (unsigned long long)w[i].n.inner,
		    (unsigned long long)w[i].n.outer,
		    w[i].n.switched ? "switched out" : "never switched out",
		    w[i].tries);
		uint64_t faults = w[i].last.ce_pic[1] - w[i].first.ce_pic[1];
		ck_assert_msg(faults >= w[i].pages && faults < w[i].pages + 200,
		    "thread %d: %llu faults for %zu pages", i,
		    (unsigned long long)faults, w[i].pages);
		ck_assert_int_eq(w[i].last.ce_cpuver, cpc_getcpuver());
	}
	/* The parent still has its own context, from its presets. */
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_ge(a.ce_pic[0], (1ULL << 40) + 200000000);
	ck_assert_uint_ge(a.ce_pic[1], (1ULL << 30) + 3000);
}
END_TEST

/* 0: starting; 1: has burnt 30 ms and waits; 2: may exit. */
static atomic_int live_state;

static void *live_worker(void *arg)
{
	(void)arg;
	burn_cpu_ns(30000000);
	atomic_store(&live_state, 1);
	while (atomic_load(&live_state) != 2)
		sched_yield();
	return NULL;
}

/* CLOCK_MONOTONIC, in nanoseconds. */
static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

START_TEST(aggregate_is_the_sum)
{
	struct work w[3];
	pthread_t t[3];
	cpc_event_t bound, self, group;

	uint64_t wall0 = wall_ns(), raw0 = raw_ns();
	bind_spec("pic0=task-clock,pic1=page-faults", CPC_BIND_LWP_INHERIT);
	ck_assert_int_eq(cpc_take_sample(&bound), 0);
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 3; i++) {
		w[i].burn_ns = 20000000;
		w[i].pages = 500;
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &w[i]), 0);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);	/* exited: folded in */
	burn_cpu_ns(10000000);
	ck_assert_int_eq(cpc_take_sample(&self), 0);
	ck_assert_int_eq(cpc_take_group_sample(&group), 0);
	uint64_t wall = wall_ns() - wall0, raw = raw_ns() - raw0;
	if (raw > wall)
		wall = raw;
	uint64_t sum0 = self.ce_pic[0], sum1 = self.ce_pic[1];
	for (int i = 0; i < 3; i++) {
		sum0 += w[i].last.ce_pic[0];
		sum1 += w[i].last.ce_pic[1];
	}
	/*
	 * The aggregate counts each new thread from its start to its exit,
	 * its own context from its binding to its last sample, in the same
	 * perf context: at least the sum, but for the main thread's binding,
	 * which starts before the aggregate does (inside cpc_bind_event, so
	 * by less than its count after that).  Page faults are exact: the
	 * aggregate also counts each thread's start and exit (its stack, a
	 * few dozen faults), and a thread folded in twice would add its 500
	 * again.
	 */
	ck_assert_msg(group.ce_pic[1] + bound.ce_pic[1] >= sum1 &&
			  group.ce_pic[1] <= sum1 + 300,
	    "aggregate faults %llu, sum %llu",
	    (unsigned long long)group.ce_pic[1], (unsigned long long)sum1);
	/*
	 * Task-clock: at least that, and no more than all processors' time
	 * since the binding.  How much more than the sum is not bounded
	 * otherwise: thread start and exit cost milliseconds each in an
	 * emulated guest, and a loaded host can stretch any of them by tens
	 * of milliseconds (2.3 times the sum was seen).  All processors'
	 * time on their sched_clock: each processor's clock is monotonic, so
	 * the segments the threads ran on it add up to no more than its
	 * clock's advance over the run.  With a stable TSC that clock and
	 * CLOCK_MONOTONIC_RAW scale the same TSC; where the kernel found
	 * the TSC unstable (an emulated guest's watchdog), sched_clock_cpu
	 * keeps each processor's clock within one tick after the
	 * CLOCK_MONOTONIC of its last tick: at most two ticks (10 ms at
	 * HZ = 100, the lowest) beyond the larger of the two wall times.
	 */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ck_assert_int_gt(ncpu, 0);
	ck_assert_msg(group.ce_pic[0] + bound.ce_pic[0] >= sum0 &&
			  group.ce_pic[0] <=
			      (wall + 2 * 10000000u) * (uint64_t)ncpu,
	    "aggregate task-clock %llu, sum %llu (%llu at the binding), "
	    "%ld processors for %llu ns",
	    (unsigned long long)group.ce_pic[0], (unsigned long long)sum0,
	    (unsigned long long)bound.ce_pic[0], ncpu,
	    (unsigned long long)wall);
	ck_assert_uint_ge(group.ce_tsc, self.ce_tsc);
	ck_assert_uint_eq(group.ce_pes[0], self.ce_pes[0]);

	/*
	 * A live thread counts in the aggregate too: sampled while it still
	 * runs, after it has burnt 30 ms of CPU time (the group's clock
	 * counts at least that much of its time, whatever else runs).
	 */
	pthread_t lt;
	cpc_event_t before, during;
	ck_assert_int_eq(cpc_take_group_sample(&before), 0);
	atomic_store(&live_state, 0);
	ck_assert_int_eq(pthread_create(&lt, NULL, live_worker, NULL), 0);
	while (atomic_load(&live_state) != 1)
		sched_yield();
	ck_assert_int_eq(cpc_take_group_sample(&during), 0);
	atomic_store(&live_state, 2);
	pthread_join(lt, NULL);
	ck_assert_uint_ge(during.ce_pic[0] - before.ce_pic[0], 30000000);
}
END_TEST

START_TEST(grandchildren_inherit)
{
	struct work w, child;
	pthread_t t;
	memset(&w, 0, sizeof(w));
	memset(&child, 0, sizeof(child));
	w.nested = 1;
	w.child = &child;
	child.pages = 300;
	bind_spec("page-faults,task-clock", CPC_BIND_LWP_INHERIT);
	ck_assert_int_eq(pthread_create(&t, NULL, worker, &w), 0);
	pthread_join(t, NULL);
	ck_assert(w.bound_at_start);
	ck_assert(child.bound_at_start);
	ck_assert_uint_ge(child.last.ce_pic[0] - child.first.ce_pic[0], 300);
}
END_TEST

START_TEST(no_inheritance_without_the_flag)
{
	struct work w;
	pthread_t t;
	cpc_event_t g;
	memset(&w, 0, sizeof(w));
	bind_spec("task-clock,page-faults", 0);
	ck_assert_int_eq(pthread_create(&t, NULL, worker, &w), 0);
	pthread_join(t, NULL);
	ck_assert(!w.bound_at_start);
	ck_assert_int_eq(cpc_take_group_sample(&g), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Overflow and inheritance: an immediate SIGEMT in each new LWP. */
static __thread int emt_signals, emt_bad;
static __thread pid_t emt_tid;	/* set by the first SIGEMT in a new LWP */

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t s;
	int initial = emt_tid == 0;
	(void)uc;
	if (initial)
		emt_tid = gettid();
	emt_signals++;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF || gettid() != emt_tid ||
	    cpc_take_sample(&s) != 0) {
		emt_bad++;
		return;
	}
	/* The inherited context: frozen at UINT64_MAX, both counters. */
	if (initial && (s.ce_pic[0] != UINT64_MAX || s.ce_pic[1] != UINT64_MAX))
		emt_bad++;
	s.ce_pic[0] = UINT64_MAX - 99;	/* every 100 faults */
	s.ce_pic[1] = 0;
	if (cpc_bind_event(&s, CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT) != 0)
		emt_bad++;
}

struct emt_result {
	int signals, bad;
};

static void *emt_worker(void *arg)
{
	struct emt_result *r = arg;
	/* The inherited SIGEMT came, on this LWP, before this routine ran. */
	int first = emt_signals == 1 && emt_tid == gettid();
	touch_fresh_pages(1000);	/* about 10 more overflows */
	r->signals = emt_signals;
	r->bad = emt_bad + (first ? 0 : 100);
	return NULL;
}

START_TEST(emt_and_inherit)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	emt_tid = gettid();	/* the binding LWP is not a new one */

	cpc_event_t ev;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=page-faults,pic1=task-clock,int0", &ev), 0);
	ev.ce_pic[0] = UINT64_MAX - 99;
	ck_assert_int_eq(cpc_bind_event(&ev,
			     CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT), 0);
	struct emt_result r[3];
	pthread_t t[3];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, emt_worker, &r[i]),
		    0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 3; i++) {
		ck_assert_msg(r[i].bad == 0, "thread %d: bad %d", i, r[i].bad);
		/* 1 immediate + about 10 overflows of its own. */
		ck_assert_msg(r[i].signals >= 10 && r[i].signals <= 12,
		    "thread %d: %d signals", i, r[i].signals);
	}
	ck_assert_int_eq(emt_bad, 0);
}
END_TEST

/* Release stops further inheritance; running inheritors keep theirs. */
static pthread_barrier_t barrier;

static void *waiting_worker(void *arg)
{
	struct work *w = arg;
	cpc_event_t s;
	w->bound_at_start = cpc_take_sample(&s) == 0;
	pthread_barrier_wait(&barrier);	/* parent releases */
	pthread_barrier_wait(&barrier);
	touch_fresh_pages(100);
	w->nested = cpc_take_sample(&w->last) == 0;	/* still bound? */
	return NULL;
}

START_TEST(release_stops_inheritance)
{
	struct work early, late;
	pthread_t t1, t2;
	memset(&early, 0, sizeof(early));
	memset(&late, 0, sizeof(late));
	pthread_barrier_init(&barrier, NULL, 2);
	bind_spec("page-faults,task-clock", CPC_BIND_LWP_INHERIT);
	ck_assert_int_eq(pthread_create(&t1, NULL, waiting_worker, &early), 0);
	pthread_barrier_wait(&barrier);
	ck_assert_int_eq(cpc_rele(), 0);
	pthread_barrier_wait(&barrier);
	pthread_join(t1, NULL);
	ck_assert(early.bound_at_start);
	ck_assert(early.nested);	/* kept its own context */
	ck_assert_int_eq(pthread_create(&t2, NULL, worker, &late), 0);
	pthread_join(t2, NULL);
	ck_assert(!late.bound_at_start);
	pthread_barrier_destroy(&barrier);
}
END_TEST

START_TEST(fork_and_exec)
{
	int unbound_fds = count_open_fds();
	bind_spec("page-faults,task-clock", CPC_BIND_LWP_INHERIT);
	pid_t pid = fork();
	if (pid == 0) {
		/* Fork child: no context, and its threads inherit nothing. */
		cpc_event_t s;
		struct work w;
		memset(&w, 0, sizeof(w));
		pthread_t t;
		int ok = cpc_take_sample(&s) == -1 && errno == EINVAL;
		pthread_create(&t, NULL, worker, &w);
		pthread_join(t, NULL);
		ok = ok && !w.bound_at_start && count_open_fds() == unbound_fds;
		_exit(ok ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* exec: the new image holds none of the counter fds. */
	pid = fork();
	if (pid == 0) {
		char n[16];
		snprintf(n, sizeof(n), "%d", unbound_fds);
		execl(self_path, self_path, "count-fds", n, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

static void *quick(void *arg)
{
	cpc_event_t s;
	*(int *)arg += cpc_take_sample(&s) == 0;
	return NULL;
}

START_TEST(no_leak_over_1000_threads)
{
	int bound = 0;
	bind_spec("task-clock,page-faults", CPC_BIND_LWP_INHERIT);
	/* Warm up allocator and thread caches. */
	for (int i = 0; i < 10; i++) {
		pthread_t t;
		pthread_create(&t, NULL, quick, &bound);
		pthread_join(t, NULL);
	}
	int fds = count_open_fds();
	size_t heap = mallinfo2().uordblks;
	for (int i = 0; i < 1000; i++) {
		pthread_t t;
		ck_assert_int_eq(pthread_create(&t, NULL, quick, &bound), 0);
		pthread_join(t, NULL);
	}
	ck_assert_int_eq(bound, 1010);
	ck_assert_int_eq(count_open_fds(), fds);
	ck_assert_msg(mallinfo2().uordblks <= heap + 4096,
	    "heap grew from %zu to %zu bytes", heap, mallinfo2().uordblks);
}
END_TEST

START_TEST(aggregate_survives_rebind)
{
	cpc_event_t ev, g1, g2;
	struct work live;
	pthread_t t;
	memset(&live, 0, sizeof(live));
	live.burn_ns = 20000000;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(), "task-clock,page-faults",
			     &ev), 0);
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, worker, &live), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(cpc_take_group_sample(&g1), 0);
	ck_assert_uint_ge(g1.ce_pic[0], 20000000);
	/* Same events, new presets, still inheriting: the sums go on. */
	ev.ce_pic[0] = 12345;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
	ck_assert_int_eq(cpc_take_group_sample(&g2), 0);
	ck_assert_uint_ge(g2.ce_pic[0], g1.ce_pic[0]);
	/*
	 * Other events: a new group, from zero: the only thread's on-CPU
	 * time since the bind, where the old aggregate's 20 ms would have
	 * shown.  So no more than the most this thread can have been on
	 * its processor from before the bind to after the sample (exact
	 * while it stays there: nested_open in testutil.c).  Measured again
	 * after a context switch, each time with the other order of the
	 * two events (other events again: a new group again).
	 */
	static const char *const other[2] = { "page-faults,task-clock",
		"task-clock,page-faults" };
	struct nested_clock n;
	uint64_t clock;
	int tries = 0;
	do {
		int k = tries % 2;
		ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(), other[k], &ev),
		    0);
		nested_open(&n);
		ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
		nested_in(&n);
		nested_out(&n);
		ck_assert_int_eq(cpc_take_group_sample(&g2), 0);
		nested_close(&n);
		clock = g2.ce_pic[k == 0 ? 1 : 0];
	} while (!nested_holds(&n, (double)clock) && n.switched &&
		 ++tries < NESTED_TRIES);
	ck_assert_msg(nested_holds(&n, (double)clock),
	    "new aggregate's task-clock %llu, at most %llu ns on the "
	    "processor (the old one's %llu; %s)",
	    (unsigned long long)clock, (unsigned long long)n.outer,
	    (unsigned long long)g1.ce_pic[0],
	    n.switched ? "switched out" : "never switched out");
	/* A failed bind ends it. */
	ck_assert_int_eq(cpc_bind_event(&ev, 0x100), -1);
	ck_assert_int_eq(cpc_take_group_sample(&g2), -1);
}
END_TEST

START_TEST(group_sample_errors)
{
	cpc_event_t g;
	errno = 0;
	ck_assert_int_eq(cpc_take_group_sample(&g), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_take_group_sample(NULL), -1);
	bind_spec("task-clock,page-faults", CPC_BIND_LWP_INHERIT);
	ck_assert_int_eq(cpc_take_group_sample(&g), 0);
	ck_assert_int_eq(cpc_rele(), 0);
	ck_assert_int_eq(cpc_take_group_sample(&g), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static void *member_tries_group(void *arg)
{
	cpc_event_t g;
	*(int *)arg = cpc_take_group_sample(&g) == -1 && errno == EINVAL;
	return NULL;
}

START_TEST(only_the_binder_reads_the_group)
{
	int refused = 0;
	pthread_t t;
	bind_spec("task-clock,page-faults", CPC_BIND_LWP_INHERIT);
	ck_assert_int_eq(pthread_create(&t, NULL, member_tries_group, &refused),
	    0);
	pthread_join(t, NULL);
	ck_assert_int_eq(refused, 1);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "count-fds") == 0)
		return count_open_fds() <= atoi(argv[2]) ? 0 : 1;
	self_path = argv[0];

	Suite *s = suite_create("inherit");
	TCase *tc = tcase_create("inherit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, each_lwp_counts_itself_from_zero);
	tcase_add_test(tc, aggregate_is_the_sum);
	tcase_add_test(tc, grandchildren_inherit);
	tcase_add_test(tc, no_inheritance_without_the_flag);
	tcase_add_test(tc, emt_and_inherit);
	tcase_add_test(tc, release_stops_inheritance);
	tcase_add_test(tc, fork_and_exec);
	tcase_add_test(tc, no_leak_over_1000_threads);
	tcase_add_test(tc, aggregate_survives_rebind);
	tcase_add_test(tc, group_sample_errors);
	tcase_add_test(tc, only_the_binder_reads_the_group);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
