/* SPDX-License-Identifier: MIT */
/*
 * Running contexts: pctx_run's loop over the whole family, the ticks,
 * release and termination.
 */
#include "pctx_impl.h"

/* ------------------------------------------------------------ running */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int active(const pctx_t *p)
{
	return p->state == PS_LIVE;
}

/* pctx_terminate was called for the family (or, in a fork copy, for the
 * controller's contexts it inherited). */
static int terminating(const struct family *fam)
{
	return fam->terminate || __pctx_copy_terminate;
}

/*
 * What is pending for the leader tid of a process, looked at without
 * reaping it: -1 nothing, 0 a stop (for waitpid to take), 1 its end (its
 * whole process's), with its wait status in *st.  Its parent learns of
 * the end only once it is reaped, so the exit callbacks run first, as on
 * Solaris, where they run at the exit system call.
 */
static int leader_pending(pid_t tid, int *st)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)tid, &si, WEXITED | WSTOPPED | WNOHANG |
		WNOWAIT | __WALL) != 0)
		return errno == ECHILD ? 0 : -1;	/* (waitpid says) */
	if (si.si_pid != tid)
		return -1;
	if (si.si_code == CLD_EXITED)
		*st = (si.si_status & 0xff) << 8;
	else if (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED)
		*st = si.si_status & 0x7f;
	else
		return 0;
	return 1;
}

/*
 * Handles one pending wait status of the family, if any: 1 if one was
 * handled, 0 if none was pending.
 */
static int handle_one(struct family *fam)
{
	for (pctx_t *p = fam->procs; p != NULL; p = p->next) {
		if (!active(p))
			continue;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next) {
			int st;
			if (l->dead)
				continue;
			if (l->tid == p->pid) {
				int what = leader_pending(l->tid, &st);
				if (what < 0)
					continue;
				if (what == 1) {
					__pctx_handle_status(p, l, st);
					while (waitpid(l->tid, &st, __WALL) <
						0 && errno == EINTR)
						;
					return 1;
				}
			}
			pid_t r = waitpid(l->tid, &st, WNOHANG | __WALL);
			if (r == l->tid) {
				__pctx_handle_status(p, l, st);
				return 1;
			}
			if (r < 0 && errno == ECHILD) {
				/* Gone without a report (an exec's old id). */
				l->dead = 1;
				if (l->tid == p->pid)
					__pctx_on_process_exit(p, 0);
				return 1;
			}
		}
	}
	return 0;
}

/* tick for every LWP (all of them, as on Solaris); one failing ends the
 * run with -1. */
static void tick_all(struct family *fam)
{
	for (pctx_t *p = fam->procs; p != NULL; p = p->next) {
		if (p->state != PS_LIVE)
			continue;
		int failed = 0;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next) {
			if (l->dead || l->is_new || !l->inited || l->finished)
				continue;
			if (fam->tick(p, p->pid, l->lwpid, p->arg) != 0)
				failed = 1;
			if (terminating(fam))
				return;
		}
		if (failed)
			__pctx_end_run(p, -1);
	}
}

/*
 * init_lwp for the LWPs known before the run (all of them, as on
 * Solaris): 0, or -1 if one failed, reported as a lost process.
 */
static int discover(struct family *fam)
{
	for (pctx_t *p = fam->procs; p != NULL; p = p->next) {
		if (p->state != PS_LIVE)
			continue;
		p->unrun = 0;
		int failed = 0;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next)
			if (!l->dead && !l->is_new && !l->inited &&
			    __pctx_call_init(p, l) != 0)
				failed = 1;
		if (failed) {
			if (p->verbose)
				__pctx_report(p->errfn, "run",
				    "%d: lwp discovery failed\n", (int)p->pid);
			__pctx_report(p->errfn, "run",
			    "lost control of pid %d\n", (int)p->pid);
			return -1;
		}
		for (struct lwp *l = p->lwps; l != NULL; l = l->next)
			__pctx_resume(l, 0);
	}
	return 0;
}

static int any_active(struct family *fam)
{
	for (pctx_t *p = fam->procs; p != NULL; p = p->next)
		if (active(p))
			return 1;
	return 0;
}

/*
 * Releases p and the contexts after it, newest first: a vfork parent
 * cannot stop before its child is let go.
 */
static void release_from(pctx_t *p)
{
	if (p == NULL)
		return;
	release_from(p->next);
	if (p->unrun)
		__pctx_kill_unrun(p);
	else
		__pctx_stop_tracking(p);
}

static void stop_all(struct family *fam)
{
	release_from(fam->procs);
}

int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
    int (*tick)(pctx_t *, pid_t, __id_t, void *))
{
	sigset_t chld, old;
	uint_t samples = 0;

	if (pctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	struct family *fam = pctx->fam;
	if (fam->running) {
		__pctx_report(pctx->errfn, "run", "already running\n");
		errno = EBUSY;
		return -1;
	}
	/* A fork copy's child: have the controller hand it over first. */
	if (pctx->handover_fd >= 0 && __pctx_take_over(pctx) != 0)
		return -1;
	fam->running = 1;
	fam->tick = tick;
	fam->done = 0;
	fam->result = 0;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);

	if (discover(fam) != 0) {
		fam->done = 1;
		fam->result = -1;
	}
	int64_t next_tick = now_ms() + msec;
	while (!terminating(fam) && !fam->done && any_active(fam)) {
		if (handle_one(fam))
			continue;
		int64_t now = now_ms(), wait = MAX_WAIT_MS;
		if (msec > 0) {
			if (now >= next_tick) {
				if (tick != NULL)
					tick_all(fam);
				samples++;
				if (nsamples > 0 && samples >= nsamples)
					__pctx_end_run(pctx, 0);
				/*
				 * Late: skip ahead.  As on Solaris, each
				 * interval missed counts toward nsamples, but
				 * the last sample is still taken.
				 */
				now = now_ms();
				for (next_tick += msec; next_tick <= now;
				    next_tick += msec)
					if (nsamples > 0 && samples + 1 < nsamples)
						samples++;
				continue;
			}
			if (next_tick - now < wait)
				wait = next_tick - now;
		}
		struct timespec ts = { wait / 1000, (wait % 1000) * 1000000 };
		if (sigtimedwait(&chld, NULL, &ts) < 0 && errno != EAGAIN &&
		    errno != EINTR) {
			__pctx_report(pctx->errfn, "run", "cannot wait: %s\n",
			    strerror(errno));
			__pctx_end_run(pctx, -1);
		}
	}
	int rc = terminating(fam) ? 0 : fam->result;
	stop_all(fam);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fam->running = 0;
	return rc;
}

void pctx_release(pctx_t *pctx)
{
	if (pctx == NULL)
		return;
	struct family *fam = pctx->fam;
	__pctx_let_go(pctx);	/* (a fork copy's child never run) */
	if (pctx != fam->root || fam->running) {
		/* Only that process; the memory goes with the family. */
		if (pctx->unrun)
			__pctx_kill_unrun(pctx);
		else
			__pctx_stop_tracking(pctx);
		return;
	}
	release_from(fam->procs);
	__pctx_free_family(fam);
}

void pctx_terminate(pctx_t *pctx)
{
	if (pctx == NULL)
		return;
	pctx->fam->terminate = 1;
	if (pctx->fam->abandoned)
		__pctx_copy_terminate = 1;
}
