/* SPDX-License-Identifier: MIT */
/*
 * Following a fork as Solaris's libpctx does: the fork callback runs in a
 * copy of the controller (fork(2), Solaris's fork1), given a new context
 * that captures the child; it may pctx_run that context (cputrack -f),
 * and once it returns the copy releases the child and exits.
 *
 * Only the tracer thread may trace a process, so the child is handed
 * over: the controller catches the child's first stop, leaves SIGSTOP
 * pending and detaches it, so that it stops before running any of its
 * own instructions; the copy seizes it, takes that stop and, if a
 * group-stop began, ends it with SIGCONT, whose delivery it swallows.
 * The child's parent may see that stop and continuation (SIGCHLD with
 * CLD_STOPPED, CLD_CONTINUED), which Solaris's /proc does not show.
 * The copy is a grandchild of the controller (the child in between
 * exits at once), so that the controller has no copy to reap.
 */
#include "pctx_impl.h"

volatile sig_atomic_t __pctx_copy_terminate;

/*
 * Waits for a stop (or the end) of tid, which we trace: its wait status,
 * or -1.
 */
static int wait_task(pid_t tid)
{
	int st;
	while (waitpid(tid, &st, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/*
 * In the copy: the controller's contexts are not ours; pctx_terminate on
 * them ends this copy's runs, and libcpc lets go of them (as illumos's
 * pctx_free of the parent's context).
 */
static void abandon_family(struct family *fam)
{
	fam->abandoned = 1;
	fam->running = 0;
	for (pctx_t *p = fam->procs; p != NULL; p = p->next) {
		p->state = PS_RELEASED;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next) {
			l->dead = 1;
			l->stopped = 0;
		}
	}
	__pctx_release_family_hook(fam);
}

/*
 * In the copy: a context for the stopped child, traced by us and stopped
 * in a ptrace-stop; NULL if it cannot be had (reported).
 */
static pctx_t *adopt(pid_t child, void *arg, int verbose, pctx_errfn_t *errfn)
{
	if (ptrace(PTRACE_SEIZE, child, NULL, (void *)(long)TRACE_OPTIONS) !=
	    0) {
		__pctx_report(errfn, "run", "cannot follow pid %d: %s\n",
		    (int)child, strerror(errno));
		kill(child, SIGCONT);
		return NULL;
	}
	int st = wait_task(child);
	if (st == -1 || WIFEXITED(st) || WIFSIGNALED(st))
		return NULL;
	int group_stop = (st >> 16) == PTRACE_EVENT_STOP;
	pctx_t *p = __pctx_new_family(child, arg, verbose, errfn);
	struct lwp *l = p != NULL ? __pctx_add_lwp(p, child) : NULL;
	if (l == NULL) {
		(void)ptrace(PTRACE_DETACH, child, NULL, NULL);
		kill(child, SIGCONT);
		if (p != NULL)
			__pctx_free_family(p->fam);
		return NULL;
	}
	l->stopped = 1;
	if (group_stop) {
		/* Stopped by the SIGSTOP: end that, keep the ptrace-stop. */
		l->swallow_cont = 1;
		kill(child, SIGCONT);
	}
	/* (a signal-delivery-stop for the SIGSTOP: it is dropped) */
	p->state = PS_LIVE;
	return p;
}

/* In the copy: the fork callback with the child's context, then exit. */
static void run_copy(pctx_t *parent, pid_t child, __id_t forker)
{
	pctx_sysc_forkfn_t *forkfn = parent->fork_fn;
	pid_t ppid = parent->pid;
	void *arg = parent->arg;
	int verbose = parent->verbose;
	pctx_errfn_t *errfn = parent->errfn;

	abandon_family(parent->fam);
	pctx_t *c = adopt(child, arg, verbose, errfn);
	if (c == NULL)
		_exit(1);
	forkfn(c, ppid, (__id_t)child, (pid_t)forker, arg);
	pctx_release(c);
	_exit(0);
}

void __pctx_follow_fork(pctx_t *p, pid_t child, __id_t forker)
{
	int st = wait_task(child);
	if (st == -1 || WIFEXITED(st) || WIFSIGNALED(st))
		return;
	/* The SIGSTOP stops it as soon as it is detached. */
	(void)syscall(SYS_tgkill, child, child, SIGSTOP);
	if (ptrace(PTRACE_DETACH, child, NULL, NULL) != 0) {
		__pctx_detach_new_child(p, child);
		return;
	}
	fflush(NULL);
	pid_t mid = fork();
	if (mid == 0) {
		pid_t copy = fork();
		if (copy == 0)
			run_copy(p, child, forker);
		_exit(copy < 0 ? errno : 0);
	}
	int err = 0;
	if (mid < 0)
		err = errno;
	else if ((st = wait_task(mid)) != 0)
		err = WIFEXITED(st) && WEXITSTATUS(st) != 0 ? WEXITSTATUS(st)
							    : EAGAIN;
	if (err != 0) {
		__pctx_report(p->errfn, "run", "cannot follow pid %d: %s\n",
		    (int)child, strerror(err));
		kill(child, SIGCONT);
	}
}
