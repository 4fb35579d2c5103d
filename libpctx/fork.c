/* SPDX-License-Identifier: MIT */
/*
 * Following a fork as Solaris's libpctx does: the fork callback runs in a
 * copy of the controller (fork(2), Solaris's fork1), given a new context
 * on the child; it may pctx_run that context (cputrack -f), and once it
 * returns the copy releases the child and exits.
 *
 * Only the tracer thread may trace a process.  The controller keeps the
 * child in its first ptrace-stop while the copy's callback runs, and
 * waits on a socket for the copy's word:
 * - 'R': the copy runs the child.  The controller leaves SIGSTOP pending
 *   and detaches it, so that it stops before running any of its own
 *   instructions, and answers 'D'; the copy seizes it, takes that stop
 *   and, if a group-stop began, ends it with SIGCONT, whose delivery it
 *   swallows.  The child's parent may see that stop and continuation
 *   (SIGCHLD with CLD_STOPPED, CLD_CONTINUED), which Solaris's /proc
 *   does not show;
 * - 'X' or the end of the copy: the child is let go, untraced.
 * The parent waits in its fork meanwhile.  The copy is a grandchild of
 * the controller (the child in between exits at once), so that the
 * controller has no copy to reap.
 */
#include <sys/socket.h>

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

static int get_byte(int fd)
{
	char c;
	ssize_t n;
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? c : -1;
}

static void put_byte(int fd, char c)
{
	while (write(fd, &c, 1) < 0 && errno == EINTR)
		;
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
 * In the copy, before the child's first run: has the controller hand the
 * child over, and seize it, stopped in a ptrace-stop.  0, or -1
 * (reported; the child is then let go).
 */
int __pctx_take_over(pctx_t *p)
{
	int fd = p->handover_fd;
	pid_t child = p->pid;
	if (fd < 0)
		return 0;
	p->handover_fd = -1;
	put_byte(fd, 'R');
	int answer = get_byte(fd);
	close(fd);
	if (answer != 'D') {
		p->state = PS_RELEASED;
		__pctx_report(p->errfn, "run", "cannot follow pid %d\n",
		    (int)child);
		return -1;
	}
	if (ptrace(PTRACE_SEIZE, child, NULL, (void *)(long)TRACE_OPTIONS) !=
	    0) {
		__pctx_report(p->errfn, "run", "cannot follow pid %d: %s\n",
		    (int)child, strerror(errno));
		kill(child, SIGCONT);
		p->state = PS_RELEASED;
		return -1;
	}
	int st = wait_task(child);
	if (st == -1 || WIFEXITED(st) || WIFSIGNALED(st)) {
		p->state = PS_GONE;
		return -1;
	}
	struct lwp *l = p->lwps;
	l->stopped = 1;
	if ((st >> 16) == PTRACE_EVENT_STOP) {
		/* Stopped by the SIGSTOP: end that, keep the ptrace-stop. */
		l->swallow_cont = 1;
		kill(child, SIGCONT);
	}
	/* (a signal-delivery-stop for the SIGSTOP: it is dropped) */
	return 0;
}

/* In the copy: the child was not run; the controller lets it go. */
void __pctx_let_go(pctx_t *p)
{
	if (p->handover_fd < 0)
		return;
	put_byte(p->handover_fd, 'X');
	close(p->handover_fd);
	p->handover_fd = -1;
	p->state = PS_RELEASED;
}

/* In the copy: the fork callback with the child's context, then exit. */
static void run_copy(pctx_t *parent, pid_t child, __id_t forker, int fd)
{
	pctx_sysc_forkfn_t *forkfn = parent->fork_fn;
	pid_t ppid = parent->pid;
	void *arg = parent->arg;

	abandon_family(parent->fam);
	pctx_t *c = __pctx_new_family(child, arg, parent->verbose,
	    parent->errfn);
	if (c == NULL || __pctx_add_lwp(c, child) == NULL)
		_exit(1);	/* (the controller lets the child go) */
	c->state = PS_LIVE;
	c->handover_fd = fd;
	forkfn(c, ppid, (__id_t)child, (pid_t)forker, arg);
	pctx_release(c);
	_exit(0);
}

void __pctx_follow_fork(pctx_t *p, pid_t child, __id_t forker)
{
	int sv[2];
	int st = wait_task(child);
	if (st == -1 || WIFEXITED(st) || WIFSIGNALED(st))
		return;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		__pctx_report(p->errfn, "run", "cannot follow pid %d: %s\n",
		    (int)child, strerror(errno));
		(void)ptrace(PTRACE_DETACH, child, NULL, NULL);
		return;
	}
	fflush(NULL);
	pid_t mid = fork();
	if (mid == 0) {
		close(sv[0]);
		pid_t copy = fork();
		if (copy == 0)
			run_copy(p, child, forker, sv[1]);
		_exit(copy < 0 ? errno : 0);
	}
	close(sv[1]);
	int err = 0;
	if (mid < 0)
		err = errno;
	else if ((st = wait_task(mid)) != 0)
		err = WIFEXITED(st) && WEXITSTATUS(st) != 0 ? WEXITSTATUS(st)
							    : EAGAIN;
	if (err != 0) {
		__pctx_report(p->errfn, "run", "cannot follow pid %d: %s\n",
		    (int)child, strerror(err));
		close(sv[0]);
		(void)ptrace(PTRACE_DETACH, child, NULL, NULL);
		return;
	}
	/* The copy's word: run it (hand it over), or let it go. */
	if (get_byte(sv[0]) == 'R') {
		/* The SIGSTOP stops it as soon as it is detached. */
		(void)syscall(SYS_tgkill, child, child, SIGSTOP);
		(void)ptrace(PTRACE_DETACH, child, NULL, NULL);
		put_byte(sv[0], 'D');
	} else {
		(void)ptrace(PTRACE_DETACH, child, NULL, NULL);
	}
	close(sv[0]);
}
