/* SPDX-License-Identifier: MIT */
/*
 * libpctx and the process-context bindings against the real kernel: a
 * child running tests/pctx_target is created or captured, its LWP, fork,
 * exec and exit events are checked in order, and its counts are read
 * with cpc_bind_pctx (version 2) and cpc_pctx_* (version 1).
 */
#include <check.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
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

#include "testutil.h"

#define MAX_LWPS 32

static cpc_t *cpc;
static char target[4096];
static char log_[8192];		/* the callbacks, in order */
static char errs[2048];		/* libpctx messages */

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
static uint64_t preset_ns, preset_faults;	/* of init_lwp's requests */
static pid_t fork_ppid, fork_child, fork_lwp, exec_pid;
static char exec_args[128];

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
	size_t len = strlen(log_);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(log_ + len, sizeof(log_) - len, fmt, ap);
	va_end(ap);
}

static void errfn(const char *fn, const char *fmt, va_list ap)
{
	size_t len = strlen(errs);
	snprintf(errs + len, sizeof(errs) - len, "%s: ", fn);
	len = strlen(errs);
	vsnprintf(errs + len, sizeof(errs) - len, fmt, ap);
}

static void cpc_handler(const char *fn, int subcode, const char *fmt,
    va_list ap)
{
	(void)subcode;
	errfn(fn, fmt, ap);
}

static void setup(void)
{
	const char *dir = getenv("top_builddir");
	snprintf(target, sizeof(target), "%s/tests/pctx_target",
	    dir != NULL ? dir : ".");
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_seterrhndlr(cpc, cpc_handler);
	log_[0] = errs[0] = '\0';
	memset(lwps, 0, sizeof(lwps));
	nlwps = 0;
	ninit = 0;
	follow_fork = 0;
	follow_exec = 1;
	stop_after_ticks = 0;
	ticks = 0;
	exit_status = -1;
	fork_ppid = fork_child = fork_lwp = exec_pid = 0;
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
	ck_assert_int_eq(cpc_set_add_request(cpc, r->set, "page-faults",
			     preset_faults, CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
			     NULL), 1);
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
	fork_ppid = ppid;
	fork_child = (pid_t)child;
	fork_lwp = lwpid;
	logf_("fork;");
	if (follow_fork)
		set_events(pctx);
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
	ck_assert_int_eq(pctx_run(pctx, msec, 0, tick), 0);
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
	 * At least the 200 ms of CPU time the target spins (on its own CPU
	 * clock, so load on the machine does not shorten it), and no more
	 * than the wall time its run took: one thread cannot run longer than
	 * that.  (What start-up and page touching add is no bound: tens of
	 * ms natively, 150 ms were seen in an emulated guest under load.)
	 */
	uint64_t ns = lwps[0].ns - preset_ns;
	ck_assert_msg(ns >= 195000000u && ns <= wall,
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
	/* Ticks are TSC ticks of on-CPU time: rate x task-clock time. */
	double rate = (double)lwps[0].tick / (double)ns;
	uint64_t w0 = wall_ns(), c0 = __rdtsc();
	while (wall_ns() - w0 < 20000000)
		;
	double tsc_rate = (double)(__rdtsc() - c0) / (double)(wall_ns() - w0);
	ck_assert_msg(rate > tsc_rate * 0.8 && rate < tsc_rate * 1.25,
	    "%.3f ticks per on-CPU ns, the TSC runs %.3f per ns", rate,
	    tsc_rate);
	ck_assert_int_ge(ticks, 2);
	pctx_release(pctx);
}
END_TEST

START_TEST(threads_are_followed)
{
	const char *steps[] = { "threads", "2", "100", "spin", "20", NULL };
	pctx_t *pctx = run_target(steps, 0);
	ck_assert_str_eq(log_, "init 0;lwp_create;init 1;lwp_create;init 1;"
			       "lwp_exit;fini 1;lwp_exit;fini 1;"
			       "fini 0;exit 0;");
	ck_assert_int_eq(nlwps, 3);
	/* Solaris LWP ids: the main thread 1, then in creation order. */
	ck_assert_int_eq(ninit, 3);
	ck_assert_int_eq(init_ids[0], 1);
	/* (the two threads may report their first stops in either order) */
	ck_assert((init_ids[1] == 2 && init_ids[2] == 3) ||
	    (init_ids[1] == 3 && init_ids[2] == 2));
	for (int i = 1; i < 3; i++) {
		ck_assert_uint_ge(lwps[i].ns, 95000000u);
		ck_assert_uint_lt(lwps[i].ns, 1000000000u);
	}
	/*
	 * The main thread spins 20 ms and starts the program: not the
	 * threads' 200 ms (start-up is no bound: in an emulated guest under
	 * load a thread's CPU time is host wall time, which stalls inflate).
	 */
	ck_assert_uint_ge(lwps[0].ns, 15000000u);
	ck_assert_uint_lt(lwps[0].ns, 195000000u);
	ck_assert_int_eq(exit_status, 0);
	pctx_release(pctx);
}
END_TEST

START_TEST(fork_not_followed)
{
	const char *steps[] = { "fork", "100", "spin", "30", NULL };
	pctx_t *pctx = run_target(steps, 0);
	ck_assert_str_eq(log_, "init 0;fork;fini 0;exit 0;");
	ck_assert_int_eq(fork_ppid, lwps[0].pid);
	ck_assert_int_eq(fork_lwp, 1);
	ck_assert_int_eq(lwps[0].lwpid, 1);
	ck_assert_int_gt(fork_child, 0);
	ck_assert_int_ne(fork_child, fork_ppid);
	/* The child's 100 ms are not in the parent's 30 ms and start-up. */
	ck_assert_uint_lt(lwps[0].ns, 125000000u);
	pctx_release(pctx);
}
END_TEST

START_TEST(fork_followed)
{
	const char *steps[] = { "fork", "100", "spin", "30", NULL };
	follow_fork = 1;
	pctx_t *pctx = run_target(steps, 0);
	ck_assert_str_eq(log_, "init 0;fork;init 0;fini 0;exit 1;fini 0;"
			       "exit 0;");
	ck_assert_int_eq(nlwps, 2);
	ck_assert_int_eq(lwps[1].pid, fork_child);
	ck_assert_int_eq(lwps[1].lwpid, 1);	/* the child's first LWP */
	ck_assert_uint_ge(lwps[1].ns, 95000000u);
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
	 * old image's 200 ms too. */
	ck_assert_uint_ge(lwps[0].ns, 95000000u);
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
	ck_assert_str_eq(log_, "init 0;lwp_create;init 1;fini 1;fini 0;exec;"
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
	ck_assert_str_eq(log_, "init 0;fini 0;");
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
	ck_assert_int_eq(ticks, 3);
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

/* pctx_create of /bin/sh: init_lwp gets LWP 1, and binding LWP 1 counts. */
static int sh_counted;

static int sh_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(lwpid, 1);
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=task-clock,pic1=page-faults", &ev), 0);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, 1, &ev, 0), 0);
	return 0;
}

static int sh_fini(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(lwpid, 1);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, 1, &ev), 0);
	if (ev.ce_pic[0] > 1000000 && ev.ce_pic[1] > 0)
		sh_counted = 1;
	ck_assert_int_eq(cpc_pctx_rele(pctx, 1), 0);
	return 0;
}

START_TEST(shell_is_lwp_1)
{
	char *argv[] = { "sh", "-c",
		"i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	pctx_t *pctx = pctx_create("/bin/sh", argv, NULL, 0, errfn);
	ck_assert_msg(pctx != NULL, "pctx_create: %s", errs);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, sh_init,
			     PCTX_FINI_LWP_EVENT, sh_fini, PCTX_NULL_EVENT), 0);
	sh_counted = 0;
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_int_eq(sh_counted, 1);
	/* No such LWP once released. */
	ck_assert_int_eq(pctx_lwp_tid(pctx, 1), -1);
	ck_assert_int_eq(errno, ESRCH);
	pctx_release(pctx);
}
END_TEST

START_TEST(capture_refused)
{
	/* An unprivileged user may not trace init (pid 1). */
	int p[2], st;
	ck_assert_int_eq(pipe(p), 0);
	pid_t child = fork();
	if (child == 0) {
		close(p[0]);
		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		errno = 0;
		pctx_t *pctx = pctx_capture(1, NULL, 0, errfn);
		int e = errno;
		if (write(p[1], errs, strlen(errs)) < 0)
			_exit(4);
		_exit(pctx == NULL && e == EPERM ? 0 : 1);
	}
	close(p[1]);
	char msg[512] = "";
	ck_assert_int_ge(read(p[0], msg, sizeof(msg) - 1), 0);
	close(p[0]);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s",
	    st, msg);
	ck_assert_ptr_nonnull(strstr(msg, "capture: cannot trace process 1: "));
}
END_TEST

START_TEST(create_errors)
{
	char *argv[] = { "/nonexistent/program", NULL };
	errno = 0;
	ck_assert_ptr_null(pctx_create(argv[0], argv, NULL, 0, errfn));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(errs, "create: cannot run "
					   "'/nonexistent/program'"));
	ck_assert_int_eq(pctx_set_events(NULL, PCTX_NULL_EVENT), -1);
	ck_assert_int_eq(pctx_run(NULL, 0, 0, NULL), -1);
	ck_assert_ptr_null(pctx_capture(0, NULL, 0, errfn));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* cpc_bind_pctx's checks, from an init_lwp callback. */
static int bind_checks(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)arg;
	cpc_set_t *set = cpc_set_create(cpc), *empty = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	cpc_buf_t *buf = cpc_buf_create(cpc, set);

	errno = 0;
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, empty, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, pid + 100000, set, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_set_sample(cpc, set, buf), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Bind, rebind, unbind, destroy while bound. */
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 0), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, buf), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 0), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), -1);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 0), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, set), 0);
	/*
	 * CPC_OVF_NOTIFY_EMT is accepted, as by illumos; the counter counts
	 * on past its overflow, without a signal to either process.
	 */
	cpc_set_t *ovf = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, ovf, "task-clock",
			     UINT64_MAX - 999, CPC_COUNT_USER |
			     CPC_OVF_NOTIFY_EMT, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, ovf, 0), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, ovf), 0);
	cpc_set_destroy(cpc, empty);
	cpc_buf_destroy(cpc, buf);
	logf_("checked;");
	return 0;
}

/* A request with CPC_OVF_NOTIFY_EMT in another process counts on. */
static cpc_set_t *emt_set;
static uint64_t emt_val;

static int emt_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	emt_set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, emt_set, "task-clock",
			     UINT64_MAX - 999999, CPC_COUNT_USER |
			     CPC_OVF_NOTIFY_EMT, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, emt_set, 0), 0);
	return 0;
}

static int emt_fini(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)lwpid, (void)arg;
	cpc_buf_t *buf = cpc_buf_create(cpc, emt_set);
	ck_assert_int_eq(cpc_set_sample(cpc, emt_set, buf), 0);
	ck_assert_int_eq(cpc_buf_get(cpc, buf, 0, &emt_val), 0);
	return 0;
}

static void emt_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, int status,
    void *arg)
{
	(void)pctx, (void)pid, (void)lwpid, (void)arg;
	exit_status = status;
}

START_TEST(emt_request_in_a_process_context)
{
	const char *argv[] = { target, "spin", "100", "exit", "9", NULL };
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, emt_init,
			     PCTX_FINI_LWP_EVENT, emt_fini,
			     PCTX_SYSC_EXIT_EVENT, emt_exit, PCTX_NULL_EVENT),
	    0);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	/* The target was not signalled, and the count went past 2^64. */
	ck_assert_int_eq(exit_status, 9);
	ck_assert_uint_ge(emt_val, 90000000u);
	ck_assert_uint_lt(emt_val, 2000000000u);
	pctx_release(pctx);
}
END_TEST

START_TEST(bind_pctx_errors)
{
	const char *argv[] = { target, "spin", "10", NULL };
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, bind_checks,
			     PCTX_NULL_EVENT), 0);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_str_eq(log_, "checked;");
	pctx_release(pctx);
	/* Without a context. */
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, NULL, 1, set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Version 1: bind, sample, invalidate, rebind, release. */
static cpc_event_t v1_event;
static int v1_samples_ok;
static uint64_t v1_wall0; /* CLOCK_MONOTONIC before the target started */

static int v1_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev = v1_event;
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev,
			     CPC_BIND_EMT_OVF), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* In silence, as the originals: the explanation is in the note. */
	ck_assert_int_eq(captured_count(), 0);
	ck_assert_ptr_nonnull(strstr(cpc_linux_errnote(NULL),
	    "pctx_bind_event: "));
	/* Any flag, as illumos: inheritance too. */
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev,
			     CPC_BIND_LWP_INHERIT), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0x100), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid + 100000, &ev, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_pctx_invalidate(pctx, lwpid + 100000), -1);
	ck_assert_int_eq(errno, ESRCH);
	/* Every cpc_pctx_* call on a missing LWP: ESRCH (both originals). */
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid + 100000, &ev), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid + 100000), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid + 100000, NULL, 0),
	    -1);
	ck_assert_int_eq(errno, ESRCH);
	/* Releasing an unbound LWP is no error (Solaris 8). */
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid), 0);
	/* Bound, invalidated, bound again. */
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0), 0);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	ck_assert_int_eq(cpc_pctx_invalidate(pctx, lwpid), 0);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ev = v1_event;
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0), 0);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	return 0;
}

static int v1_tick(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	ck_assert_int_eq(ev.ce_cpuver, v1_event.ce_cpuver);
	ck_assert_uint_gt(ev.ce_pic[0], 0);
	ck_assert_uint_gt(ev.ce_tsc, 0);
	v1_samples_ok++;
	return 0;
}

static int v1_fini(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	/*
	 * From the presets: 150 ms of CPU time in pic0 (the target spins on
	 * its own CPU clock; start-up and faults add a few ms, tens in an
	 * emulated guest, more under load), no more than the wall time
	 * since the target started (it has one thread); 3000 pages' faults
	 * in pic1 (start-up adds a few hundred, over a thousand with
	 * AddressSanitizer: fewer than 5000).
	 */
	uint64_t ns = ev.ce_pic[0] - v1_event.ce_pic[0];
	uint64_t faults = ev.ce_pic[1] - v1_event.ce_pic[1];
	uint64_t wall = wall_ns() - v1_wall0;
	ck_assert_msg(ns >= 145000000u && ns <= wall,
	    "pic0: %llu ns of task-clock for 150 ms, in %llu ns of wall time",
	    (unsigned long long)ns, (unsigned long long)wall);
	ck_assert_msg(faults >= 3000 && faults < 8000,
	    "pic1: %llu faults for 3000 pages", (unsigned long long)faults);
	ck_assert_int_eq(ev.ce_pes[0], v1_event.ce_pes[0]);
	ck_assert_int_eq(ev.ce_pes[1], v1_event.ce_pes[1]);
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid), 0);
	/*
	 * Unbound: EINVAL while libpctx still knows the LWP, ESRCH (as
	 * for any missing LWP) once it has exited.
	 */
	int known = pctx_lwp_tid(pctx, lwpid) >= 0;
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), -1);
	ck_assert_int_eq(errno, known ? EINVAL : ESRCH);
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid), known ? 0 : -1);
	return 0;
}

START_TEST(v1_pctx_interfaces)
{
	const char *argv[] = { target, "spin", "150", "pages", "3000", NULL };
	int cpuver = cpc_getcpuver();
	ck_assert_int_eq(cpc_strtoevent(cpuver,
			     "pic0=task-clock,pic1=page-faults,sys1", &v1_event),
	    0);
	v1_event.ce_pic[0] = 1ULL << 50;	/* presets */
	v1_event.ce_pic[1] = 1ULL << 40;
	v1_wall0 = wall_ns();
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, v1_init,
			     PCTX_FINI_LWP_EVENT, v1_fini, PCTX_NULL_EVENT), 0);
	v1_samples_ok = 0;
	capture_errors();
	ck_assert_int_eq(pctx_run(pctx, 40, 0, v1_tick), 0);
	ck_assert_int_ge(v1_samples_ok, 1);
	pctx_release(pctx);
	/* Without libpctx's context. */
	cpc_event_t ev = v1_event;
	ck_assert_int_eq(cpc_pctx_take_sample(NULL, 1, &ev), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_rele(NULL, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* May this user count with perf at all (perf_event_paranoid)? */
static int perf_allowed(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static Suite *suite(void)
{
	Suite *s = suite_create("pctx");
	TCase *tc = tcase_create("libpctx");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	if (!perf_allowed()) {
		/* Process contexts count through perf: refused here. */
		printf("SKIP counting tests of test_pctx: perf_event_paranoid "
		       "refuses perf to this user\n");
		tcase_add_test(tc, capture_refused);
		tcase_add_test(tc, create_errors);
		suite_add_tcase(s, tc);
		return s;
	}
	tcase_add_test(tc, counts_of_a_known_workload);
	tcase_add_test(tc, threads_are_followed);
	tcase_add_test(tc, fork_not_followed);
	tcase_add_test(tc, fork_followed);
	tcase_add_test(tc, exec_is_followed);
	tcase_add_test(tc, exec_from_a_thread);
	tcase_add_test(tc, exec_ends_tracking);
	tcase_add_test(tc, terminate_releases);
	tcase_add_test(tc, nsamples_ends_the_run);
	tcase_add_test(tc, capture_a_running_process);
	tcase_add_test(tc, capture_numbers_threads);
	tcase_add_test(tc, shell_is_lwp_1);
	tcase_add_test(tc, capture_refused);
	tcase_add_test(tc, create_errors);
	tcase_add_test(tc, bind_pctx_errors);
	tcase_add_test(tc, emt_request_in_a_process_context);
	tcase_add_test(tc, v1_pctx_interfaces);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
