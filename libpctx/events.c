/* SPDX-License-Identifier: MIT */
/*
 * How libpctx follows a traced process: the callbacks, in the order the
 * top of pctx_impl.h gives, what each ptrace stop means (clone, exec,
 * fork, exit), and detaching.
 */
#include "pctx_impl.h"

/* ------------------------------------------------------------ callbacks */

int __pctx_call_init(pctx_t *p, struct lwp *l)
{
	int rc = 0;
	if (p->init_lwp_fn != NULL)
		rc = p->init_lwp_fn(p, p->pid, l->lwpid, p->arg);
	if (rc == 0) {
		l->inited = 1;
		l->finished = 0;
	}
	return rc;
}

/* fini_lwp for l if it is owed: its result, or 0. */
static int call_fini(pctx_t *p, struct lwp *l)
{
	if (!l->inited || l->finished)
		return 0;
	l->finished = 1;
	if (p->fini_lwp_fn != NULL)
		return p->fini_lwp_fn(p, p->pid, l->lwpid, p->arg);
	return 0;
}

/* fini_lwp for every LWP that is owed one: -1 if one failed, else 0. */
int __pctx_fini_all(pctx_t *p)
{
	int rc = 0;
	for (struct lwp *l = p->lwps; l != NULL; l = l->next)
		if (call_fini(p, l) != 0)
			rc = -1;
	return rc;
}

/* The run of p's family is over, with this result (unless already). */
void __pctx_end_run(pctx_t *p, int result)
{
	struct family *fam = p->fam;
	if (fam->done)
		return;
	fam->done = 1;
	fam->result = result;
}

/* ------------------------------------------------------------ detaching */

static void detach_lwp(pctx_t *p, struct lwp *l, int sig)
{
	if (ptrace(PTRACE_DETACH, l->tid, NULL, (void *)(long)sig) != 0 &&
	    errno != ESRCH && p->verbose)
		__pctx_report(p->errfn, "release", "cannot detach lwp %d: %s\n",
		    (int)l->tid, strerror(errno));
	l->stopped = 0;
	l->dead = 1;	/* no longer ours */
}

/*
 * Waits (at most DETACH_WAIT_MS in all) for every thread of p to stop,
 * and detaches each; threads and children born meanwhile are detached
 * too.
 */
void __pctx_detach_process(pctx_t *p)
{
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);

	for (struct lwp *l = p->lwps; l != NULL; l = l->next)
		if (!l->dead && !l->stopped)
			(void)ptrace(PTRACE_INTERRUPT, l->tid, NULL, NULL);
	for (;;) {
		int left = 0;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next) {
			int st;
			if (l->dead)
				continue;
			if (l->stopped) {
				detach_lwp(p, l, 0);
				continue;
			}
			pid_t r = waitpid(l->tid, &st, WNOHANG | __WALL);
			if (r == 0) {
				left++;
				continue;
			}
			if (r < 0 || WIFEXITED(st) || WIFSIGNALED(st)) {
				l->dead = 1;
				continue;
			}
			int event = st >> 16, sig = WSTOPSIG(st);
			if (event == PTRACE_EVENT_CLONE) {
				pid_t t = (pid_t)__pctx_event_msg(l->tid);
				if (__pctx_task_tgid(t) == p->pid) {
					struct lwp *n = __pctx_add_lwp(p, t);
					if (n != NULL)
						n->is_new = 1;
				} else {
					__pctx_detach_new_child(p, t);
				}
			} else if (event == PTRACE_EVENT_FORK ||
			    event == PTRACE_EVENT_VFORK) {
				__pctx_detach_new_child(p, (pid_t)__pctx_event_msg(l->tid));
			}
			l->stopped = 1;
			detach_lwp(p, l, event == 0 ? sig : 0);
		}
		if (left == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - start.tv_sec) * 1000 +
		    (now.tv_nsec - start.tv_nsec) / 1000000;
		if (ms > DETACH_WAIT_MS) {
			if (p->verbose)
				__pctx_report(p->errfn, "release", "process %d: %d "
				    "lwps did not stop; they are released when "
				    "this process exits\n", (int)p->pid, left);
			break;
		}
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	p->state = PS_RELEASED;
}

/* A child auto-attached that is not followed: it runs on untraced. */
void __pctx_detach_new_child(pctx_t *p, pid_t child)
{
	struct family fam = { 0 };
	pctx_t tmp;
	memset(&tmp, 0, sizeof(tmp));
	tmp.fam = &fam;
	tmp.pid = child;
	tmp.verbose = p->verbose;
	tmp.errfn = p->errfn;
	struct lwp l = { .tid = child, .is_new = 1 };
	tmp.lwps = &l;
	__pctx_detach_process(&tmp);
	while (l.next != NULL) {
		struct lwp *n = l.next;
		l.next = n->next;
		free(n);
	}
}

/* Stops following p (no callback): it runs on untraced. */
void __pctx_stop_tracking(pctx_t *p)
{
	if (p->state != PS_LIVE)
		return;
	__pctx_detach_process(p);
}

/* Kills a created process that never ran, and reaps it. */
void __pctx_kill_unrun(pctx_t *p)
{
	int st;
	kill(p->pid, SIGKILL);
	for (struct lwp *l = p->lwps; l != NULL; l = l->next)
		if (!l->dead)
			while (waitpid(l->tid, &st, __WALL) < 0 &&
			    errno == EINTR)
				;
	p->state = PS_GONE;
}

/* ------------------------------------------------------------ events */

/*
 * The end of a new LWP's first stop or of an exec: init_lwp for l, then
 * l runs on with sig; a failing init_lwp ends the run (-1), l stopped.
 */
static int init_and_resume(pctx_t *p, struct lwp *l, int sig)
{
	if (p->state != PS_LIVE || p->fam->done)
		return -1;
	if (__pctx_call_init(p, l) != 0) {
		__pctx_end_run(p, -1);
		return -1;
	}
	__pctx_resume(l, sig);
	return 0;
}

/* The first stop of a thread the process created: init_lwp, lwp_create. */
static void first_stop(pctx_t *p, struct lwp *l, int sig)
{
	l->is_new = 0;
	if (p->state != PS_LIVE || p->fam->done)
		return;
	if (__pctx_call_init(p, l) != 0) {
		__pctx_end_run(p, -1);
		return;
	}
	if (p->lwp_create_fn != NULL &&
	    p->lwp_create_fn(p, p->pid, l->lwpid, p->arg) != 0) {
		__pctx_end_run(p, -1);
		return;
	}
	__pctx_resume(l, sig);
}

/* A thread the process created, or a new process (fork, vfork, clone). */
static void new_task(pctx_t *p, pid_t t, pid_t creator, int is_thread)
{
	if (is_thread) {
		struct lwp *n = __pctx_add_lwp(p, t);
		if (n != NULL)
			n->is_new = 1;
		return;
	}
	struct lwp *f = __pctx_find_lwp(p, creator);
	if (p->fork_fn == NULL || p->fam->done)
		__pctx_detach_new_child(p, t);
	else
		__pctx_follow_fork(p, t, f != NULL ? f->lwpid : 1);
}

/* Copies the new image's arguments, space-separated, for the callback. */
static void on_exec(pctx_t *p, struct lwp *l)
{
	pid_t former = (pid_t)__pctx_event_msg(l->tid);
	struct lwp *execer = __pctx_find_lwp(p, former);
	char psargs[PSARGS_SIZE];

	/* The old image's LWPs end, the execing one under its old id. */
	if (execer != NULL)
		(void)call_fini(p, execer);
	(void)__pctx_fini_all(p);
	if (execer != NULL && execer != l)
		__pctx_remove_lwp(p, execer);
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		if (o != l)
			o->finished = 1;
	l->inited = 0;
	l->finished = 0;
	l->exiting = 0;
	l->dead = 0;
	p->exiter = 0;
	/* The new image has one LWP, number 1, as on Solaris. */
	l->lwpid = 1;
	p->last_lwpid = 1;
	if (p->exec_fn == NULL) {
		/* Followed only for init_lwp and fini_lwp: ends the run. */
		if (p->init_lwp_fn != NULL || p->fini_lwp_fn != NULL) {
			__pctx_end_run(p, 0);
			return;
		}
		__pctx_resume(l, 0);
		return;
	}
	__pctx_read_psargs(p->pid, psargs, sizeof(psargs));
	if (p->exec_fn(p, p->pid, l->lwpid, psargs, p->arg) != 0) {
		__pctx_end_run(p, -1);
		return;
	}
	(void)init_and_resume(p, l, 0);
}

/*
 * The system call thread tid of pid is in (it is stopped), or -1 if not
 * known.
 */
static int exits_alone(pctx_t *p, struct lwp *l)
{
	int others = 0;
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		if (o != l && !o->dead && !o->exiting && !o->is_new)
			others = 1;
	if (!others)
		return 0;
	long nr = __pctx_task_syscall(p->pid, l->tid);
	if (nr >= 0)
		return nr == SYS_exit;
	/*
	 * Without /proc's answer: the leader's end is taken as the
	 * process's (an exec by another LWP replaces it); for the others,
	 * do the others live on?
	 */
	if (l->tid == p->pid)
		return 0;
	if (WIFSIGNALED((int)__pctx_event_msg(l->tid)))
		return 0;
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		if (o != l && !o->dead && !o->exiting && !o->is_new &&
		    __pctx_task_dying(p->pid, o->tid))
			return 0;
	return 1;
}

static void on_lwp_exit(pctx_t *p, struct lwp *l)
{
	int alone = exits_alone(p, l);

	l->exiting = 1;
	if (alone && l->inited && !l->finished) {
		/* As on Solaris: fini_lwp, then lwp_exit; neither can fail. */
		(void)call_fini(p, l);
		if (p->lwp_exit_fn != NULL)
			(void)p->lwp_exit_fn(p, p->pid, l->lwpid, p->arg);
	} else if (!alone && p->exiter == 0 &&
	    __pctx_task_syscall(p->pid, l->tid) == SYS_exit_group) {
		p->exiter = l->lwpid;
	}
	__pctx_resume(l, 0);
}

/*
 * The process is gone: its leader was reaped.  An exit: fini_lwp for the
 * LWPs, then exit.  Killed by a signal: no callback, and the run fails.
 */
void __pctx_on_process_exit(pctx_t *p, int status)
{
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		o->dead = 1;
	p->state = PS_GONE;
	if (WIFSIGNALED(status)) {
		if (p->verbose)
			__pctx_report(p->errfn, "run", "%d: process terminated\n",
			    (int)p->pid);
		__pctx_end_run(p, -1);
		return;
	}
	int rc = __pctx_fini_all(p);
	if (p->exit_fn != NULL)
		p->exit_fn(p, p->pid, p->exiter != 0 ? p->exiter : 1,
		    __pctx_exit_code(status), p->arg);
	__pctx_end_run(p, rc);
}

/* One wait status of thread l of p. */
void __pctx_handle_status(pctx_t *p, struct lwp *l, int st)
{
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		l->dead = 1;
		l->stopped = 0;
		if (l->tid == p->pid)
			__pctx_on_process_exit(p, st);
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	l->stopped = 1;
	int event = st >> 16, sig = WSTOPSIG(st);
	if (l->is_new) {
		first_stop(p, l, event == 0 ? sig : 0);
		return;
	}
	switch (event) {
	case PTRACE_EVENT_CLONE: {
		pid_t t = (pid_t)__pctx_event_msg(l->tid);
		new_task(p, t, l->tid, __pctx_task_tgid(t) == p->pid);
		__pctx_resume(l, 0);
		break;
	}
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		new_task(p, (pid_t)__pctx_event_msg(l->tid), l->tid, 0);
		__pctx_resume(l, 0);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(p, l);
		break;
	case PTRACE_EVENT_EXIT:
		on_lwp_exit(p, l);
		break;
	case PTRACE_EVENT_STOP:
		if (__pctx_is_stop_signal(sig)) {
			/* Group-stop: stay stopped until SIGCONT. */
			l->stopped = 0;
			(void)ptrace(PTRACE_LISTEN, l->tid, NULL, NULL);
		} else {
			__pctx_resume(l, 0);
		}
		break;
	case 0:
		/* Signal-delivery-stop: deliver it (not a hand-over's). */
		if (sig == SIGCONT && l->swallow_cont) {
			l->swallow_cont = 0;
			sig = 0;
		}
		__pctx_resume(l, sig);
		break;
	default:
		__pctx_resume(l, 0);
		break;
	}
}
