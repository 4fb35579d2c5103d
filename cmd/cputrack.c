/* SPDX-License-Identifier: MIT */
/*
 * cputrack: per-process (per-LWP) CPU performance counter statistics of a
 * command it runs, or of a process it captures, through libpctx and the
 * current libcpc interfaces.
 *
 * Every LWP of the target gets sets of its own, one per -c argument,
 * bound with cpc_bind_pctx.  With one set each tick prints the counts
 * since the LWP's previous line; with several the LWP's sets take turns,
 * one per interval, and each line shows the counts of the set just
 * measured.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>
#include <libpctx.h>

#include "cmdutil.h"
#include "cputrack.h"
#include "strtoset.h"

/* The counts of one LWP. */
struct lwp_state {
	struct lwp_state *next;
	pid_t pid;
	__id_t lwpid;
	int cur;		/* the set bound now, or -1 */
	int finished;		/* fini_lwp took its totals (in accum) */
	int shown;		/* the set bound last (fini_lwp's line) */
	cpc_set_t **sets;
	cpc_buf_t **accum;	/* per set: counts of its finished turns */
	cpc_buf_t **last;	/* per set: at the previous line */
	cpc_buf_t **scratch;
	int *hasdata;
};

/* The totals of one process, over its LWPs that are gone. */
struct proc_state {
	struct proc_state *next;
	pid_t pid;
	cpc_buf_t **total;
	int *hasdata;
};

struct cputrack_opts opts = { .interval_ms = 1000 };

static cpc_t *cpc;
static struct cmd_setgrp grp;
static struct lwp_state *lwps;
static struct proc_state *procs;
static pctx_t *volatile root;
static hrtime_t start;
static int failed;
static volatile sig_atomic_t interrupted;

/* ------------------------------------------------------------ state */

static struct lwp_state *find_lwp(pid_t pid, __id_t lwpid)
{
	for (struct lwp_state *s = lwps; s != NULL; s = s->next)
		if (s->pid == pid && s->lwpid == lwpid)
			return s;
	return NULL;
}

static cpc_buf_t *new_buf(int i)
{
	cpc_buf_t *b = cpc_buf_create(cpc, grp.sets[i].proto);
	if (b == NULL) {
		fprintf(stderr, "%s: cannot allocate a buffer: %s\n", cmd_prog,
		    strerror(errno));
		exit(1);
	}
	return b;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (p == NULL) {
		fprintf(stderr, "%s: out of memory\n", cmd_prog);
		exit(1);
	}
	return p;
}

static struct proc_state *find_proc(pid_t pid)
{
	for (struct proc_state *p = procs; p != NULL; p = p->next)
		if (p->pid == pid)
			return p;
	struct proc_state *p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->total = xcalloc((size_t)grp.nsets, sizeof(*p->total));
	p->hasdata = xcalloc((size_t)grp.nsets, sizeof(*p->hasdata));
	for (int i = 0; i < grp.nsets; i++)
		p->total[i] = new_buf(i);
	p->next = procs;
	procs = p;
	return p;
}

static void reset_proc(struct proc_state *p)
{
	for (int i = 0; i < grp.nsets; i++) {
		cpc_buf_zero(cpc, p->total[i]);
		p->hasdata[i] = 0;
	}
}

static void free_proc(pid_t pid)
{
	for (struct proc_state **pp = &procs; *pp != NULL; pp = &(*pp)->next)
		if ((*pp)->pid == pid) {
			struct proc_state *p = *pp;
			*pp = p->next;
			for (int i = 0; i < grp.nsets; i++)
				cpc_buf_destroy(cpc, p->total[i]);
			free(p->total);
			free(p->hasdata);
			free(p);
			return;
		}
}

static void free_lwp(struct lwp_state *s)
{
	for (struct lwp_state **sp = &lwps; *sp != NULL; sp = &(*sp)->next)
		if (*sp == s) {
			*sp = s->next;
			break;
		}
	for (int i = 0; i < grp.nsets; i++) {
		if (s->sets[i] != NULL)
			cpc_set_destroy(cpc, s->sets[i]);
		cpc_buf_destroy(cpc, s->accum[i]);
		cpc_buf_destroy(cpc, s->last[i]);
		cpc_buf_destroy(cpc, s->scratch[i]);
	}
	free(s->sets);
	free(s->accum);
	free(s->last);
	free(s->scratch);
	free(s->hasdata);
	free(s);
}

/* ------------------------------------------------------------ output */

static void emit(struct cmd_line *l)
{
	fputs(l->buf, opts.out);
	if (ferror(opts.out) && !interrupted) {
		fprintf(stderr, "%s: cannot write the output: %s\n", cmd_prog,
		    strerror(errno));
		exit(1);
	}
}

static void print_title(void)
{
	struct cmd_line l;
	cmd_line_init(&l);
	if (cmd_opts.csv) {
		const char *cols[] = { "time", "pid", "lwp", "event", "tsc",
			"set" };
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			cmd_line_csv(&l, cols[i]);
		cmd_line_csv_pics(&l, cpc_npic(cpc));
		cmd_line_csv(&l, "info");
	} else {
		cmd_line_add(&l, "%7s ", "time");
		if (opts.follow_fork)
			cmd_line_add(&l, "%6s ", "pid");
		cmd_line_add(&l, "%3s %10s ", "lwp", "event");
		if (cmd_opts.tsc)
			cmd_line_add(&l, "%9s ", CPC_TICKREG_NAME);
		cmd_line_header(&l, &grp.sets[0]);
	}
	cmd_line_add(&l, "\n");
	emit(&l);
}

/* The columns before the counts. */
static void line_start(struct cmd_line *l, hrtime_t t, pid_t pid,
    __id_t lwpid, const char *label)
{
	cmd_line_init(l);
	if (cmd_opts.csv) {
		char f[32];
		snprintf(f, sizeof(f), "%.3f", cmd_seconds(t, start));
		cmd_line_csv(l, f);
		snprintf(f, sizeof(f), "%d", (int)pid);
		cmd_line_csv(l, f);
		snprintf(f, sizeof(f), "%d", (int)lwpid);
		cmd_line_csv(l, f);
		cmd_line_csv(l, label);
		return;
	}
	cmd_line_add(l, "%7.3f ", cmd_seconds(t, start));
	if (opts.follow_fork)
		cmd_line_add(l, "%6d ", (int)pid);
	cmd_line_add(l, "%3d %10s ", (int)lwpid, label);
}

/*
 * A line of counts of set i, at the time of the sample in buf, or now
 * for totals (when is_total).
 */
static void print_sample(pid_t pid, __id_t lwpid, const char *label,
    cpc_buf_t *buf, int i, int is_total)
{
	struct cmd_line l;
	const struct cmd_set *s = &grp.sets[i];

	line_start(&l, is_total ? gethrtime() : cpc_buf_hrtime(cpc, buf), pid,
	    lwpid, label);
	if (cmd_opts.csv) {
		char f[32];
		snprintf(f, sizeof(f), "%" PRIu64, cpc_buf_tick(cpc, buf));
		cmd_line_csv(&l, f);
		cmd_line_csv(&l, s->spec);
		cmd_line_csv_values(&l, cpc, buf, s, cpc_npic(cpc));
		cmd_line_csv(&l, "");
		cmd_line_add(&l, "\n");
	} else {
		if (cmd_opts.tsc)
			cmd_line_add(&l, "%9" PRId64 " ",
			    (int64_t)cpc_buf_tick(cpc, buf));
		cmd_line_values(&l, cpc, buf, s);
		if (grp.nsets > 1)
			cmd_line_add(&l, " # %s\n", s->spec);
		else
			cmd_line_add(&l, "\n");
	}
	emit(&l);
}

/* A line without counts (exec, fork), with a note at its end. */
static void print_note(pid_t pid, __id_t lwpid, const char *label,
    const char *note)
{
	struct cmd_line l;
	line_start(&l, gethrtime(), pid, lwpid, label);
	if (cmd_opts.csv) {
		cmd_line_csv(&l, "");
		cmd_line_csv(&l, "");
		for (uint_t i = 0; i < cpc_npic(cpc); i++)
			cmd_line_csv(&l, "");
		cmd_line_csv(&l, note);
		cmd_line_add(&l, "\n");
	} else {
		if (cmd_opts.tsc)
			cmd_line_add(&l, "%9s ", "");
		cmd_line_add(&l, "%9s %9s # %s\n", "", "", note);
	}
	emit(&l);
}

/* ------------------------------------------------------------ counting */

static int bind_set(pctx_t *pctx, struct lwp_state *s, int i)
{
	s->shown = i;
	if (cpc_bind_pctx(cpc, pctx, s->lwpid, s->sets[i], 0) != 0)
		return -1;
	s->cur = i;
	s->hasdata[i] = 1;
	cpc_buf_zero(cpc, s->last[i]);
	return 0;
}

/* A failed sample or bind in tick or fini_lwp, in illumos's words. */
static void report_lost(const char *where, const char *what,
    struct lwp_state *s)
{
	if (errno == EAGAIN)
		fprintf(stderr, "%6d: %s: lwp%d: perf counter contents "
				"invalidated\n",
		    (int)s->pid, where, (int)s->lwpid);
	else
		fprintf(stderr, "%6d: %s: lwp%d: can't access %s - %s\n",
		    (int)s->pid, where, (int)s->lwpid, what, strerror(errno));
	failed = 1;
}

static int init_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)arg;
	if (interrupted)
		return 0;
	struct lwp_state *s = find_lwp(pid, lwpid);
	if (s != NULL)
		free_lwp(s);	/* an LWP id used again (exec) */
	s = xcalloc(1, sizeof(*s));
	size_t n = (size_t)grp.nsets;
	s->pid = pid;
	s->lwpid = lwpid;
	s->cur = -1;
	s->sets = xcalloc(n, sizeof(*s->sets));
	s->accum = xcalloc(n, sizeof(*s->accum));
	s->last = xcalloc(n, sizeof(*s->last));
	s->scratch = xcalloc(n, sizeof(*s->scratch));
	s->hasdata = xcalloc(n, sizeof(*s->hasdata));
	s->next = lwps;
	lwps = s;
	for (int i = 0; i < grp.nsets; i++) {
		s->sets[i] = cmd_set_new(cpc, &grp.sets[i]);
		s->accum[i] = new_buf(i);
		s->last[i] = new_buf(i);
		s->scratch[i] = new_buf(i);
	}
	if (s->sets[0] == NULL || bind_set(pctx, s, 0) != 0 ||
	    cpc_set_sample(cpc, s->sets[0], s->last[0]) != 0) {
		int err = errno;
		const char *why = cpc_linux_errnote(cpc);
		fprintf(stderr, "%6d: init_lwp: can't bind perf counters to "
				"lwp%d - %s\n",
		    (int)pid, (int)lwpid, strerror(err));
		if (why != NULL)
			fprintf(stderr, "%s: %s\n", cmd_prog, why);
		failed = 1;
		free_lwp(s);
		return -1;
	}
	if (opts.verbose)
		print_sample(pid, lwpid, "init_lwp", s->last[0], 0, 0);
	return 0;
}

static int tick(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)arg;
	struct lwp_state *s = find_lwp(pid, lwpid);
	if (interrupted || s == NULL || s->cur < 0 || s->finished)
		return 0;
	int i = s->cur;
	if (cpc_set_sample(cpc, s->sets[i], s->scratch[i]) != 0) {
		report_lost("tick", "perf counter", s);
		return -1;
	}
	if (grp.nsets == 1) {
		cpc_buf_t *delta = s->accum[0];	/* always zero here: reuse */
		cpc_buf_sub(cpc, delta, s->scratch[0], s->last[0]);
		print_sample(pid, lwpid, "tick", delta, 0, 0);
		cpc_buf_zero(cpc, delta);
		cpc_buf_copy(cpc, s->last[0], s->scratch[0]);
		return 0;
	}
	cpc_buf_add(cpc, s->accum[i], s->accum[i], s->scratch[i]);
	cpc_unbind(cpc, s->sets[i]);
	s->cur = -1;
	int next = (i + 1) % grp.nsets;
	if (bind_set(pctx, s, next) != 0 && errno != ESRCH) {
		/* (ESRCH: the thread is on its way out; fini_lwp follows) */
		report_lost("tick", "perf counter", s);
		return -1;
	}
	print_sample(pid, lwpid, "tick", s->scratch[i], i, 0);
	return 0;
}

static int lwp_create(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg;
	if (interrupted)
		return 0;
	cpc_buf_t *zero = new_buf(0);
	cpc_buf_zero(cpc, zero);
	/* No sample behind it: stamp it now. */
	struct cmd_line l;
	line_start(&l, gethrtime(), pid, lwpid, "lwp_create");
	if (cmd_opts.csv) {
		cmd_line_csv(&l, "0");
		cmd_line_csv(&l, grp.sets[0].spec);
		cmd_line_csv_values(&l, cpc, zero, &grp.sets[0], cpc_npic(cpc));
		cmd_line_csv(&l, "");
		cmd_line_add(&l, "\n");
	} else {
		if (cmd_opts.tsc)
			cmd_line_add(&l, "%9d ", 0);
		cmd_line_values(&l, cpc, zero, &grp.sets[0]);
		if (grp.nsets > 1)
			cmd_line_add(&l, " # %s\n", grp.sets[0].spec);
		else
			cmd_line_add(&l, "\n");
	}
	emit(&l);
	cpc_buf_destroy(cpc, zero);
	return 0;
}

/*
 * fini_lwp: the LWP's final counts, kept in its accum buffers for
 * lwp_exit, printed with -v and added to its process's totals; its sets
 * are unbound.  As on Solaris it comes before lwp_exit.
 */
static int fini_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg;
	struct lwp_state *s = find_lwp(pid, lwpid);
	if (s == NULL || s->finished || interrupted)
		return 0;
	s->finished = 1;
	int i = s->cur;
	if (i >= 0) {
		if (cpc_set_sample(cpc, s->sets[i], s->scratch[i]) != 0) {
			report_lost("fini_lwp", "perf counters", s);
			return -1;
		}
		cpc_buf_add(cpc, s->accum[i], s->accum[i], s->scratch[i]);
		cpc_unbind(cpc, s->sets[i]);
		s->cur = -1;
	}
	/* (-v: as on Solaris, the line of the set measured last) */
	if (opts.verbose)
		print_sample(pid, lwpid, "fini_lwp", s->accum[s->shown],
		    s->shown, 1);
	struct proc_state *p = find_proc(pid);
	for (int k = 0; k < grp.nsets; k++) {
		if (!s->hasdata[k])
			continue;
		cpc_buf_add(cpc, p->total[k], p->total[k], s->accum[k]);
		p->hasdata[k] = 1;
	}
	return 0;
}

/* lwp_exit: the totals fini_lwp kept, one line per set that counted. */
static int lwp_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)arg;
	struct lwp_state *s = find_lwp(pid, lwpid);
	if (s == NULL)
		return 0;
	if (!interrupted && s->finished)
		for (int k = 0; k < grp.nsets; k++)
			if (s->hasdata[k])
				print_sample(pid, lwpid, "lwp_exit",
				    s->accum[k], k, 1);
	free_lwp(s);
	return 0;
}

/* Forgets the LWPs of pid (after its exec or exit). */
static void free_lwps_of(pid_t pid)
{
	struct lwp_state *s = lwps, *next;
	for (; s != NULL; s = next) {
		next = s->next;
		if (s->pid == pid)
			free_lwp(s);
	}
}

static void print_proc_totals(pid_t pid, __id_t lwpid, const char *label)
{
	struct proc_state *p = find_proc(pid);
	for (int i = 0; i < grp.nsets; i++)
		if (p->hasdata[i])
			print_sample(pid, lwpid, label, p->total[i], i, 1);
}

static void proc_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, int status,
    void *arg)
{
	(void)pctx, (void)status, (void)arg;
	if (!interrupted)
		print_proc_totals(pid, lwpid, "exit");
	free_proc(pid);
	free_lwps_of(pid);
}

static int proc_exec(pctx_t *pctx, pid_t pid, __id_t lwpid, char *psargs,
    void *arg)
{
	(void)pctx, (void)arg;
	if (interrupted)
		return -1;
	print_proc_totals(pid, lwpid, "exec");
	char note[128];
	snprintf(note, sizeof(note), "'%s'", psargs);
	print_note(pid, lwpid, "exec", cmd_opts.csv ? psargs : note);
	reset_proc(find_proc(pid));
	free_lwps_of(pid);
	return opts.follow_exec ? 0 : -1;
}

static void set_events(pctx_t *pctx);

/*
 * A fork: this runs in a copy of cputrack (libpctx's fork copy) with a
 * new context on the child, which -f follows there, as on Solaris.
 */
static void proc_fork(pctx_t *pctx, pid_t ppid, __id_t child, pid_t lwpid,
    void *arg)
{
	(void)arg;
	if (interrupted)
		return;
	char note[32];
	snprintf(note, sizeof(note), "%d", (int)child);
	print_note(ppid, (__id_t)lwpid, "fork", note);
	if (!opts.follow_fork)
		return;
	/* The parent's LWPs and totals are the other copy's. */
	while (lwps != NULL)
		free_lwp(lwps);
	while (procs != NULL)
		free_proc(procs->pid);
	root = pctx;
	set_events(pctx);
	(void)pctx_run(pctx, opts.interval_ms, opts.nsamples, tick);
	root = NULL;
}

static void set_events(pctx_t *pctx)
{
	if (pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
		PCTX_FINI_LWP_EVENT, fini_lwp, PCTX_SYSC_LWP_CREATE_EVENT,
		lwp_create, PCTX_SYSC_LWP_EXIT_EVENT, lwp_exit,
		PCTX_SYSC_EXEC_EVENT, proc_exec, PCTX_SYSC_FORK_EVENT,
		proc_fork, PCTX_SYSC_EXIT_EVENT, proc_exit,
		PCTX_NULL_EVENT) != 0) {
		fprintf(stderr, "%s: can't bind process context ops to "
				"process\n",
		    cmd_prog);
		exit(1);
	}
}

/* ------------------------------------------------------------ main */

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
	cpc_terminate(cpc);
	pctx_terminate(root);
}

static void catch_signals(void)
{
	static const int maybe[] = { SIGHUP, SIGINT, SIGQUIT };
	static const int always[] = { SIGPIPE, SIGTERM };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: waits end */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(maybe) / sizeof(maybe[0]); i++)
		if (sigaction(maybe[i], NULL, &old) == 0 &&
		    old.sa_handler != SIG_IGN)
			sigaction(maybe[i], &sa, NULL);
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		sigaction(always[i], &sa, NULL);
}


/* ------------------------------------------------------------ set up */

/*
 * Can each set be counted here?  A trial bind on this thread, with the
 * library's message and explanation when not: 0, or -1 (reported).
 */
static int preflight(void)
{
	for (int i = 0; i < grp.nsets; i++) {
		cpc_set_t *set = cmd_set_new(cpc, &grp.sets[i]);
		if (set != NULL && cpc_bind_curlwp(cpc, set, 0) == 0) {
			(void)cpc_unbind(cpc, set);
			cpc_set_destroy(cpc, set);
			continue;
		}
		int err = errno;
		const char *why = cpc_linux_errnote(cpc);
		fprintf(stderr, "%s: cannot count '%s' on this system - %s\n",
		    cmd_prog, grp.sets[i].spec, strerror(err));
		if (why != NULL)
			fprintf(stderr, "%s: %s\n", cmd_prog, why);
		if (set != NULL)
			cpc_set_destroy(cpc, set);
		return -1;
	}
	return 0;
}

/*
 * The output, the signals, and the target: the command started, or the
 * process captured.  0, or -1 (reported).
 */
static int setup(int have_command, char **argv)
{
	setvbuf(opts.out, NULL, _IOLBF, 0);
	catch_signals();

	/* Linux: sets this system cannot count fail before the target. */
	if (preflight() != 0)
		return -1;

	if (have_command) {
		root = pctx_create(argv[optind], &argv[optind], NULL, 1,
		    cmd_pctx_errfn);
		if (root == NULL) {
			fprintf(stderr, "%s: failed to start program '%s'\n",
			    cmd_prog, argv[optind]);
			return -1;
		}
	} else {
		root = pctx_capture(opts.pid, NULL, 1, cmd_pctx_errfn);
		if (root == NULL) {
			fprintf(stderr, "%s: failed to capture pid %d\n",
			    cmd_prog, (int)opts.pid);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------------ run */

/* Counts in the target until it ends: pctx_run's result. */
static int run(void)
{
	set_events(root);
	if (!cmd_opts.notitle)
		print_title();
	start = gethrtime();
	if (interrupted)
		pctx_terminate(root);
	return pctx_run(root, opts.interval_ms, opts.nsamples, tick);
}

/* ------------------------------------------------------------ report */

/* Releases the target and ends the output: the exit status. */
static int report(int rc)
{
	pctx_t *done = root;
	root = NULL;
	pctx_release(done);
	if (fflush(opts.out) != 0 || (opts.out != stdout && fclose(opts.out)))
		failed = 1;
	cpc_close(cpc);
	return rc != 0 || failed ? 1 : 0;
}

int main(int argc, char **argv)
{

	cmd_set_prog(argv[0]);
	opts.out = stdout;
	cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL) {
		fprintf(stderr, "%s: cannot access performance counter "
				"library - %s\n",
		    cmd_prog, strerror(errno));
		return 1;
	}
	cpc_seterrhndlr(cpc, cmd_errfn);
	strtoset_handler(cmd_errfn);

	int have_command = cputrack_parse(argc, argv, cpc, &grp);
	if (setup(have_command, argv) != 0)
		return 1;
	return report(run());
}
