/* SPDX-License-Identifier: MIT */
/*
 * libpctx and the process-context bindings against the real kernel: a
 * child running tests/pctx_target is created or captured, its LWP, fork,
 * exec and exit events are checked in order, and its counts are read
 * with cpc_bind_pctx (version 2) and cpc_pctx_* (version 1).
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
#include <x86intrin.h>

#include <libcpc.h>
#include <libpctx.h>

#include "pctx_testlog.h"
#include "testutil.h"

#define MAX_LWPS 32

/* May this user count in system mode (system_mode_permitted())? */
static int sys_ok;
static cpc_t *cpc;

/* Per LWP: its set and last counts (task-clock ns, page faults). */
static struct lwp_rec {
	pid_t pid;
	__id_t lwpid;
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint64_t ns, faults, tick;
} lwps[MAX_LWPS];
static int nlwps;
/* The LWP ids init_lwp saw, in order. */
static __id_t init_ids[MAX_LWPS];
static int ninit;
static int follow_fork, follow_exec = 1, stop_after_ticks;
static int ticks, exit_status = -1;
static int want_rc;	/* what run_target's pctx_run must return */
static int watch_parent;	/* a fork copy looks at the parent at exit */
static pid_t fork_parent;
static int fork_pipe = -1;	/* where a fork copy tells what it saw */
static uint64_t preset_ns, preset_faults;	/* of init_lwp's requests */
static pid_t fork_child, exec_pid;
static char exec_args[128];

static void setup(void)
{
	pctx_testlog_setup();
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_seterrhndlr(cpc, cpc_handler);
	memset(lwps, 0, sizeof(lwps));
	nlwps = 0;
	ninit = 0;
	follow_fork = 0;
	follow_exec = 1;
	stop_after_ticks = 0;
	want_rc = 0;
	watch_parent = 0;
	fork_parent = 0;
	fork_pipe = -1;
	ticks = 0;
	exit_status = -1;
	fork_child = exec_pid = 0;
	exec_args[0] = '\0';
	preset_ns = preset_faults = 0;
}

static void teardown(void)
{
	if (cpc != NULL)
		cpc_close(cpc);
}

static struct lwp_rec *rec(pid_t pid, __id_t lwpid)
{
	for (int i = 0; i < nlwps; i++)
		if (lwps[i].pid == pid && lwps[i].lwpid == lwpid)
			return &lwps[i];
	ck_assert_int_lt(nlwps, MAX_LWPS);
	lwps[nlwps].pid = pid;
	lwps[nlwps].lwpid = lwpid;
	return &lwps[nlwps++];
}

static void sample(struct lwp_rec *r)
{
	ck_assert_int_eq(cpc_set_sample(cpc, r->set, r->buf), 0);
	ck_assert_int_eq(cpc_buf_get(cpc, r->buf, 0, &r->ns), 0);
	ck_assert_int_eq(cpc_buf_get(cpc, r->buf, 1, &r->faults), 0);
	r->tick = cpc_buf_tick(cpc, r->buf);
}

static int init_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	struct lwp_rec *r = rec(pid, lwpid);
	ck_assert_ptr_eq(arg, &lwps);
	logf_("init %d;", lwpid == 1 ? 0 : 1);
	if (ninit < MAX_LWPS)
		init_ids[ninit++] = lwpid;
	/* A Solaris LWP id; its thread is one of the process's. */
	pid_t tid = pctx_lwp_tid(pctx, lwpid);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	ck_assert_int_eq(access(path, F_OK), 0);
	if (lwpid == 1)
		ck_assert_int_eq(tid, pid);
	r->set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, r->set, "task-clock",
			     preset_ns, CPC_COUNT_USER, 0, NULL), 0);
	/* The target's faults are its own (user mode); the kernel's count
	 * too where this user may count in system mode. */
	ck_assert_int_eq(cpc_set_add_request(cpc, r->set, "page-faults",
			     preset_faults,
			     CPC_COUNT_USER |
				 (sys_ok ? CPC_COUNT_SYSTEM : 0),
			     0, NULL),
	    1);
	r->buf = cpc_buf_create(cpc, r->set);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, r->set, 0), 0);
	return 0;
}

static int fini_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg;
	struct lwp_rec *r = rec(pid, lwpid);
	logf_("fini %d;", lwpid == 1 ? 0 : 1);
	if (r->set != NULL) {
		sample(r);
		ck_assert_int_eq(cpc_unbind(cpc, r->set), 0);
	}
	return 0;
}

static int lwp_create(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg, (void)pid;
	ck_assert_int_gt(lwpid, 1);
	logf_("lwp_create;");
	return 0;
}

static int lwp_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg, (void)pid;
	ck_assert_int_gt(lwpid, 1);
	logf_("lwp_exit;");
	return 0;
}

static void proc_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, int status,
    void *arg)
{
	(void)pctx, (void)lwpid, (void)arg;
	logf_("exit %d;", pid == fork_child ? 1 : 0);
	if (pid == fork_child && watch_parent) {
		/* The parent must still wait for it (state S), not run on. */
		char path[64], buf[256] = "";
		usleep(200000);
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)fork_parent);
		FILE *f = fopen(path, "r");
		if (f != NULL) {
			if (fgets(buf, sizeof(buf), f) == NULL)
				buf[0] = '\0';
			fclose(f);
		}
		const char *st = strrchr(buf, ')');
		logf_("parent %c;", st != NULL ? st[2] : '?');
	}
	if (pid != fork_child)
		exit_status = status;
}

static int proc_exec(pctx_t *pctx, pid_t pid, __id_t lwpid, char *args,
    void *arg)
{
	(void)pctx, (void)arg;
	ck_assert_int_eq(lwpid, 1);	/* the new image's one LWP */
	exec_pid = pid;
	snprintf(exec_args, sizeof(exec_args), "%s", args);
	logf_("exec;");
	return follow_exec ? 0 : -1;
}

static void set_events(pctx_t *pctx);

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void proc_fork(pctx_t *pctx, pid_t ppid, __id_t child, pid_t lwpid,
    void *arg)
{
	(void)arg;
	/* In a copy of this process, with a new context on the child. */
	char msg[sizeof(log_) + 64];
	log_[0] = '\0';
	fork_child = (pid_t)child;
	fork_parent = ppid;
	if (follow_fork) {
		set_events(pctx);
		int rc = pctx_run(pctx, 0, 0, NULL);
		logf_("run %d;", rc);
	}
	int n = snprintf(msg, sizeof(msg), "%d %d %d %d %s", (int)getppid(),
	    (int)ppid, (int)child, (int)lwpid, log_);
	if (fork_pipe >= 0 && write(fork_pipe, msg, (size_t)n + 1) < 0)
		_exit(5);
}

/*
 * What the fork copy saw (its pctx_run's log) into out; checks that the
 * callback ran in a copy of this process with the parent's and child's
 * pids.
 */
static void fork_report(int fd, pid_t parent, char *out, size_t n)
{
	char buf[sizeof(log_) + 64] = "";
	size_t got = 0;
	ssize_t r;
	while (got < sizeof(buf) - 1 &&
	    (r = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)r;
	int copy_parent, ppid, child, lwp, off = 0;
	ck_assert_msg(sscanf(buf, "%d %d %d %d %n", &copy_parent, &ppid,
			  &child, &lwp, &off) == 4, "fork copy: '%s'", buf);
	/* A copy of the controller (its parent is init or a subreaper, not
	 * us: it is a grandchild whose parent has gone) */
	ck_assert_int_ne(copy_parent, getpid());
	ck_assert_int_eq(ppid, parent);
	ck_assert_int_gt(child, 0);
	ck_assert_int_ne(child, parent);
	ck_assert_int_eq(lwp, 1);
	fork_child = child;
	snprintf(out, n, "%s", buf + off);
}

static int tick(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)lwpid, (void)arg;
	ticks++;
	if (stop_after_ticks > 0 && ticks >= stop_after_ticks)
		pctx_terminate(pctx);
	return 0;
}

static void set_events(pctx_t *pctx)
{
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
			     PCTX_FINI_LWP_EVENT, fini_lwp,
			     PCTX_SYSC_LWP_CREATE_EVENT, lwp_create,
			     PCTX_SYSC_LWP_EXIT_EVENT, lwp_exit,
			     PCTX_SYSC_EXIT_EVENT, proc_exit,
			     PCTX_SYSC_EXEC_EVENT, proc_exec,
			     PCTX_SYSC_FORK_EVENT, proc_fork, PCTX_NULL_EVENT),
	    0);
}

/* Runs the target with steps, to its end, with ticks every msec. */
static pctx_t *run_target(const char *const *steps, uint_t msec)
{
	char *argv[32];
	int n = 0;
	argv[n++] = target;
	for (; steps[n - 1] != NULL; n++)
		argv[n] = (char *)steps[n - 1];
	argv[n] = NULL;
	pctx_t *pctx = pctx_create(target, argv, &lwps, 0, errfn);
	ck_assert_msg(pctx != NULL, "pctx_create: %s", errs);
	set_events(pctx);
	ck_assert_int_eq(pctx_run(pctx, msec, 0, tick), want_rc);
	return pctx;
}

START_TEST(counts_of_a_known_workload)
{
	const char *steps[] = { "spin", "200", "pages", "5000", "exit", "3",
		NULL };
	/* Counting starts from the presets. */
	preset_ns = 1ULL << 50;
	preset_faults = 1ULL << 40;
	uint64_t wall0 = wall_ns();
	pctx_t *pctx = run_target(steps, 50);
	uint64_t wall = wall_ns() - wall0;
	ck_assert_str_eq(log_, "init 0;fini 0;exit 0;");
	ck_assert_int_eq(exit_status, 3);
	ck_assert_int_eq(nlwps, 1);
	/*
	 * At least the 200 ms of CPU time the target spins without a context
	 * switch (tests/pctx_target.c's spin_ms: a task-clock counts at least
	 * that, on the thread's own CPU clock, however loaded), and no more
	 * than the wall time its run took: one thread cannot run longer than
	 * that.  (What start-up and page touching add is no bound: tens of
	 * ms natively, 150 ms were seen in an emulated guest under load.)
	 */
	uint64_t ns = lwps[0].ns - preset_ns;
	ck_assert_msg(ns >= 200000000u &&
		ns <= wall + sched_clock_slack_ns(),
	    "task-clock %llu ns for 200 ms of CPU in %llu ms of wall time",
	    (unsigned long long)ns, (unsigned long long)(wall / 1000000));
	/*
	 * 5000 fresh pages, plus the start-up's faults: a few hundred, over
	 * a thousand with AddressSanitizer's shadow memory (make
	 * check-sanitizers): fewer than 5000 more.
	 */
	uint64_t faults = lwps[0].faults - preset_faults;
	ck_assert_msg(faults >= 5000 && faults < 10000,
	    "%llu page faults for 5000 pages", (unsigned long long)faults);
	/*
	 * Ticks are TSC ticks of on-CPU time: the library's TSC rate times
	 * the task-clock time, truncated to a whole tick.  That rate is the
	 * kernel's own scale (perf's time_mult, exact to 2^-32) or measured
	 * against CLOCK_MONOTONIC_RAW to 100 ppm (__cpc_tsc_khz_measure);
	 * here the TSC is measured against the same raw clock (never
	 * slewed), each reading between two clock readings: known to the
	 * brackets' width over the span.
	 */
	double rate = (double)lwps[0].tick / (double)ns;
	uint64_t r0 = raw_ns(), c0 = __rdtsc(), r0b = raw_ns(), r1a, c1, r1;
	do {
		r1a = raw_ns();
		c1 = __rdtsc();
		r1 = raw_ns();
	} while (r1a - r0b < 20000000);
	double span = (double)(r1a + r1) / 2 - (double)(r0 + r0b) / 2;
	double tsc_rate = (double)(c1 - c0) / span;
	double err = (double)(r0b - r0 + r1 - r1a) / span + 100e-6 +
	    1 / (double)lwps[0].tick;
	ck_assert_msg(rate >= tsc_rate * (1 - err) &&
		rate <= tsc_rate * (1 + err),
	    "%.6f ticks per on-CPU ns, the TSC runs %.6f per ns (+- %.4f%%)",
	    rate, tsc_rate, err * 100);
	ck_assert_int_ge(ticks, 2);
	pctx_release(pctx);
}
END_TEST

START_TEST(threads_are_followed)
{
	const char *steps[] = { "threads", "2", "100", "spin", "20", NULL };
	uint64_t wall0 = wall_ns();
	pctx_t *pctx = run_target(steps, 0);
	uint64_t wall = wall_ns() - wall0;
	/* illumos's order: init_lwp before lwp_create, fini_lwp before
	 * lwp_exit */
	ck_assert_str_eq(log_, "init 0;init 1;lwp_create;init 1;lwp_create;"
			       "fini 1;lwp_exit;fini 1;lwp_exit;"
			       "fini 0;exit 0;");
	ck_assert_int_eq(nlwps, 3);
	/* Solaris LWP ids: the main thread 1, then in creation order. */
	ck_assert_int_eq(ninit, 3);
	ck_assert_int_eq(init_ids[0], 1);
	/* (the two threads may report their first stops in either order) */
	ck_assert((init_ids[1] == 2 && init_ids[2] == 3) ||
	    (init_ids[1] == 3 && init_ids[2] == 2));
	/*
	 * Each thread is bound at its first stop, before its first
	 * instruction, and read at its exit stop, after its last: at least
	 * the 100 ms it spins without a context switch (spin_ms in
	 * tests/pctx_target.c), no more than the wall time of the run (and
	 * sched_clock's slack, testutil.h).
	 */
	for (int i = 1; i < 3; i++) {
		ck_assert_uint_ge(lwps[i].ns, 100000000u);
		ck_assert_uint_le(lwps[i].ns, wall + sched_clock_slack_ns());
	}
	/*
	 * The main thread spins 20 ms and starts the program: not the
	 * threads' 200 ms (start-up is no bound: in an emulated guest under
	 * load a thread's CPU time is host wall time, which stalls inflate).
	 */
	ck_assert_uint_ge(lwps[0].ns, 20000000u);
	ck_assert_uint_lt(lwps[0].ns, 195000000u);
	ck_assert_int_eq(exit_status, 0);
	pctx_release(pctx);
}
END_TEST

START_TEST(fork_not_followed)
{
	const char *steps[] = { "fork", "100", "spin", "30", NULL };
	int p[2];
	char seen[sizeof(log_)];
	ck_assert_int_eq(pipe(p), 0);
	fork_pipe = p[1];
	pctx_t *pctx = run_target(steps, 0);
	close(p[1]);
	/* The fork callback is not called in the controller. */
	ck_assert_str_eq(log_, "init 0;fini 0;exit 0;");
	fork_report(p[0], lwps[0].pid, seen, sizeof(seen));
	close(p[0]);
	ck_assert_str_eq(seen, "");
	ck_assert_int_eq(lwps[0].lwpid, 1);
	/* The child's 100 ms are not in the parent's 30 ms and start-up. */
	ck_assert_uint_lt(lwps[0].ns, 125000000u);
	pctx_release(pctx);
}
END_TEST

START_TEST(fork_not_followed_is_not_stopped)
{
	/*
	 * A child the fork callback does not run is let go as it was, never
	 * stopped: its parent is told of no stop or continuation.
	 */
	const char *steps[] = { "cldfork", "20", NULL };
	int p[2];
	char seen[sizeof(log_)];
	ck_assert_int_eq(pipe(p), 0);
	fork_pipe = p[1];
	pctx_t *pctx = run_target(steps, 0);
	close(p[1]);
	fork_report(p[0], lwps[0].pid, seen, sizeof(seen));
	close(p[0]);
	ck_assert_int_eq(exit_status, 0);
	pctx_release(pctx);
}
END_TEST

START_TEST(fork_followed)
{
	/*
	 * As on Solaris: the fork callback runs in a copy of the controller
	 * with a context on the child, which it may pctx_run (cputrack -f).
	 */
	const char *steps[] = { "fork", "100", "spin", "30", NULL };
	int p[2];
	char seen[sizeof(log_)];
	follow_fork = 1;
	ck_assert_int_eq(pipe(p), 0);
	fork_pipe = p[1];
	pctx_t *pctx = run_target(steps, 0);
	close(p[1]);
	ck_assert_str_eq(log_, "init 0;fini 0;exit 0;");
	fork_report(p[0], lwps[0].pid, seen, sizeof(seen));
	close(p[0]);
	ck_assert_str_eq(seen, "init 0;fini 0;exit 1;run 0;");
	pctx_release(pctx);
}
END_TEST

START_TEST(fork_exit_before_the_parent_sees_it)
{
	/*
	 * As on Solaris, where the exit callbacks run at the exit system
	 * call: the parent, waiting for the child, is still waiting while
	 * the child's exit callback runs (it would otherwise spin 300 ms).
	 */
	const char *steps[] = { "fork", "20", "spin", "300", NULL };
	int p[2];
	char seen[sizeof(log_)];
	follow_fork = 1;
	watch_parent = 1;
	ck_assert_int_eq(pipe(p), 0);
	fork_pipe = p[1];
	pctx_t *pctx = run_target(steps, 0);
	close(p[1]);
	fork_report(p[0], lwps[0].pid, seen, sizeof(seen));
	close(p[0]);
	ck_assert_str_eq(seen, "init 0;fini 0;exit 1;parent S;run 0;");
	pctx_release(pctx);
}
END_TEST

START_TEST(exec_is_followed)
{
	const char *steps[] = { "spin", "200", "exec", target, "spin", "100",
		"exit", "4", NULL };
	pctx_t *pctx = run_target(steps, 0);
	ck_assert_str_eq(log_, "init 0;fini 0;exec;init 0;fini 0;exit 0;");
	ck_assert_int_eq(exec_pid, lwps[0].pid);
	/* psargs: the new command line cut to PRARGSZ - 1 (79) bytes,
	 * however long the checkout's path is. */
	char want[sizeof(target) + 32];
	snprintf(want, sizeof(want), "%s spin 100 exit 4", target);
	size_t n = strlen(want) < 79 ? strlen(want) : 79;
	while (n > 0 && want[n - 1] == ' ')
		n--;
	want[n] = '\0';
	ck_assert_str_eq(exec_args, want);
	ck_assert_int_eq(exit_status, 4);
	/* The new image counts from zero: 100 ms and its start-up, not the
	 * old image's 200 ms too (spin_ms: at least 100 ms counted). */
	ck_assert_uint_ge(lwps[0].ns, 100000000u);
	ck_assert_uint_lt(lwps[0].ns, 295000000u);
	pctx_release(pctx);
}
END_TEST

START_TEST(exec_from_a_thread)
{
	/* The exec'ing thread takes the process id; the old main ends. */
	const char *steps[] = { "texec", target, "spin", "30", "exit", "2",
		NULL };
	pctx_t *pctx = run_target(steps, 0);
	ck_assert_str_eq(log_, "init 0;init 1;lwp_create;fini 1;fini 0;exec;"
			       "init 0;fini 0;exit 0;");
	ck_assert_int_eq(exit_status, 2);
	ck_assert_int_eq(exec_pid, lwps[0].pid);
	/* The exec'ing LWP was 2; the new image's is 1. */
	ck_assert_int_eq(ninit, 3);
	ck_assert_int_eq(init_ids[1], 2);
	ck_assert_int_eq(init_ids[2], 1);
	pctx_release(pctx);
}
END_TEST

START_TEST(exec_ends_tracking)
{
	const char *steps[] = { "exec", target, "exit", "5", NULL };
	int st;
	follow_exec = 0;
	want_rc = -1;	/* illumos: the exec callback's refusal is a failure */
	pctx_t *pctx = run_target(steps, 0);
	ck_assert_str_eq(log_, "init 0;fini 0;exec;");
	pid_t pid = lwps[0].pid;
	pctx_release(pctx);
	/* Released, it runs on and remains this process's child. */
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 5);
}
END_TEST

START_TEST(terminate_releases)
{
	const char *argv[] = { target, "spin", "2000", "exit", "6", NULL };
	int st;
	pctx_t *pctx = pctx_create(target, (char *const *)argv, &lwps, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	set_events(pctx);
	stop_after_ticks = 2;
	hrtime_t t0 = gethrtime();
	ck_assert_int_eq(pctx_run(pctx, 20, 0, tick), 0);
	ck_assert_int_lt(gethrtime() - t0, 1000000000);
	/* As on Solaris, no fini_lwp when the run ends early. */
	ck_assert_str_eq(log_, "init 0;");
	pid_t pid = lwps[0].pid;
	pctx_release(pctx);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 6);
}
END_TEST

START_TEST(nsamples_ends_the_run)
{
	const char *argv[] = { target, "spin", "2000", NULL };
	int st;
	pctx_t *pctx = pctx_create(target, (char *const *)argv, &lwps, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	set_events(pctx);
	ck_assert_int_eq(pctx_run(pctx, 10, 3, tick), 0);
	/* 3 intervals: 3 ticks, fewer if the run was late (as on Solaris,
	 * intervals missed count; the last sample is still taken) */
	ck_assert_int_ge(ticks, 1);
	ck_assert_int_le(ticks, 3);
	pid_t pid = lwps[0].pid;
	pctx_release(pctx);
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
}
END_TEST

START_TEST(capture_a_running_process)
{
	int p[2], st;
	char line[64] = "";
	ck_assert_int_eq(pipe(p), 0);
	/* The target is a grandchild: its parent must still see its exit. */
	pid_t parent = fork();
	if (parent == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			dup2(p[1], 1);
			execl(target, target, "pid", "sleep", "300", "spin",
			    "100", "exit", "7", (char *)NULL);
			_exit(127);
		}
		while (waitpid(pid, &st, 0) < 0)
			;
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 126);
	}
	close(p[1]);
	ck_assert_int_gt(read(p[0], line, sizeof(line) - 1), 0);
	close(p[0]);
	pid_t pid = (pid_t)atoi(line + 4);
	ck_assert_int_gt(pid, 0);
	pctx_t *pctx = pctx_capture(pid, &lwps, 0, errfn);
	ck_assert_msg(pctx != NULL, "pctx_capture: %s", errs);
	set_events(pctx);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_str_eq(log_, "init 0;fini 0;exit 0;");
	ck_assert_int_eq(exit_status, 7);
	ck_assert_uint_ge(lwps[0].ns, 95000000u);
	pctx_release(pctx);
	ck_assert_int_eq(waitpid(parent, &st, 0), parent);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 7);
}
END_TEST

START_TEST(capture_numbers_threads)
{
	int p[2], st;
	char line[64] = "";
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execl(target, target, "pid", "threads", "2", "400", "exit", "0",
		    (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ck_assert_int_gt(read(p[0], line, sizeof(line) - 1), 0);
	close(p[0]);
	/* Let it start both threads (each spins 400 ms). */
	for (int i = 0; i < 200; i++) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		FILE *f = fopen(path, "r");
		char l[128];
		int threads = 0;
		while (f != NULL && fgets(l, sizeof(l), f) != NULL)
			if (sscanf(l, "Threads: %d", &threads) == 1)
				break;
		if (f != NULL)
			fclose(f);
		if (threads == 3)
			break;
		usleep(5000);
	}
	pctx_t *pctx = pctx_capture(pid, &lwps, 0, errfn);
	ck_assert_msg(pctx != NULL, "pctx_capture: %s", errs);
	set_events(pctx);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	/* The main thread is 1, the others 2 and 3 whatever their tids. */
	ck_assert_int_eq(ninit, 3);
	ck_assert_int_eq(init_ids[0], 1);
	ck_assert((init_ids[1] == 2 && init_ids[2] == 3) ||
	    (init_ids[1] == 3 && init_ids[2] == 2));
	pctx_release(pctx);
	/* Our child, reaped by libpctx as its tracer when it ended. */
	(void)waitpid(pid, &st, WNOHANG);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pctx");
	TCase *tc = tcase_create("libpctx");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	sys_ok = system_mode_permitted();
	if (!process_counting_permitted()) {
		/* Neither perf nor the module's device lets this user count. */
		printf("SKIP counting tests of test_pctx: perf_event_paranoid "
		       "refuses perf to this user, and /dev/cpc does not "
		       "open\n");
		suite_add_tcase(s, tc);
		return s;
	}
	tcase_add_test(tc, counts_of_a_known_workload);
	tcase_add_test(tc, threads_are_followed);
	tcase_add_test(tc, fork_not_followed);
	tcase_add_test(tc, fork_not_followed_is_not_stopped);
	tcase_add_test(tc, fork_followed);
	tcase_add_test(tc, fork_exit_before_the_parent_sees_it);
	tcase_add_test(tc, exec_is_followed);
	tcase_add_test(tc, exec_from_a_thread);
	tcase_add_test(tc, exec_ends_tracking);
	tcase_add_test(tc, terminate_releases);
	tcase_add_test(tc, nsamples_ends_the_run);
	tcase_add_test(tc, capture_a_running_process);
	tcase_add_test(tc, capture_numbers_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_pctx_suite(suite());
}
