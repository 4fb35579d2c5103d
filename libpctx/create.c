/* SPDX-License-Identifier: MIT */
/*
 * Creating contexts: pctx_create (a new program, traced from its first
 * instruction), pctx_capture (a running process, every thread seized)
 * and pctx_set_events.
 */
#include "pctx_impl.h"

/* ------------------------------------------------------------ creation */

pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
    int verbose, pctx_errfn_t *errfn)
{
	int go[2], err[2], st;

	if (filename == NULL || argv == NULL) {
		__pctx_report(errfn, "create", "no program to run\n");
		errno = EINVAL;
		return NULL;
	}
	if (pipe2(go, O_CLOEXEC) != 0)
		return NULL;
	if (pipe2(err, O_CLOEXEC) != 0) {
		close(go[0]);
		close(go[1]);
		return NULL;
	}
	pid_t child = fork();
	if (child < 0) {
		int e = errno;
		__pctx_report(errfn, "create", "cannot fork: %s\n", strerror(e));
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		errno = e;
		return NULL;
	}
	if (child == 0) {
		char c;
		ssize_t n;
		close(go[1]);
		close(err[0]);
		/* Wait until traced, then become the program. */
		while ((n = read(go[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n == 1) {
			execvp(filename, argv);
			int e = errno;
			if (write(err[1], &e, sizeof(e)) < 0)
				_exit(127);
		}
		_exit(127);
	}
	close(go[0]);
	close(err[1]);

	int e = 0;
	if (ptrace(PTRACE_SEIZE, child, NULL, (void *)(long)TRACE_OPTIONS) != 0)
		e = errno;
	else if (write(go[1], "", 1) != 1)
		e = errno;
	close(go[1]);	/* without its byte the child exits */
	if (e != 0) {
		while (waitpid(child, &st, 0) < 0 && errno == EINTR)
			;
		close(err[0]);
		__pctx_report(errfn, "create", "cannot trace the new process: %s\n",
		    strerror(e));
		errno = e;
		return NULL;
	}
	/* Wait for the exec to succeed (or the child to exit). */
	for (;;) {
		if (waitpid(child, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			break;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			int code = 0;
			if (read(err[0], &code, sizeof(code)) != sizeof(code))
				code = ENOEXEC;
			e = code;
			break;
		}
		int event = st >> 16;
		if (event == PTRACE_EVENT_EXEC)
			break;
		(void)ptrace(PTRACE_CONT, child, NULL,
		    (void *)(long)(event == 0 ? WSTOPSIG(st) : 0));
	}
	close(err[0]);
	if (e != 0) {
		__pctx_report(errfn, "create", "cannot run '%s': %s\n", filename,
		    strerror(e));
		errno = e;
		return NULL;
	}
	pctx_t *p = __pctx_new_family(child, arg, verbose, errfn);
	struct lwp *l = p != NULL ? __pctx_add_lwp(p, child) : NULL;
	if (l == NULL) {
		kill(child, SIGKILL);
		while (waitpid(child, &st, __WALL) < 0 && errno == EINTR)
			;
		if (p != NULL)
			__pctx_free_family(p->fam);
		errno = ENOMEM;
		return NULL;
	}
	l->stopped = 1;
	p->state = PS_LIVE;
	p->unrun = 1;
	return p;
}

/* Seizes every thread of pid not yet seized: count of new ones, or -1. */
static int seize_threads(pctx_t *p, int *err)
{
	char path[64];
	int added = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	DIR *d = opendir(path);
	if (d == NULL) {
		*err = errno == ENOENT ? ESRCH : errno;
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid_t tid = (pid_t)strtol(de->d_name, NULL, 10);
		if (__pctx_find_lwp(p, tid) != NULL)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, NULL,
			(void *)(long)TRACE_OPTIONS) != 0) {
			if (errno == ESRCH && tid != p->pid)
				continue;	/* it exited meanwhile */
			*err = errno;
			closedir(d);
			return -1;
		}
		if (__pctx_add_lwp(p, tid) == NULL) {
			(void)ptrace(PTRACE_DETACH, tid, NULL, NULL);
			*err = ENOMEM;
			closedir(d);
			return -1;
		}
		added++;
	}
	closedir(d);
	return added;
}

pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	int e = 0, n;

	if (pid <= 0 || pid == getpid()) {
		__pctx_report(errfn, "capture", "cannot trace process %d: %s\n",
		    (int)pid, strerror(EINVAL));
		errno = EINVAL;
		return NULL;
	}
	pctx_t *p = __pctx_new_family(pid, arg, verbose, errfn);
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->state = PS_LIVE;
	while ((n = seize_threads(p, &e)) > 0)
		;
	if (n == 0 && p->lwps != NULL)
		return p;
	if (n == 0)
		e = ESRCH;
	__pctx_detach_process(p);
	__pctx_free_family(p->fam);
	if (e == EPERM || e == EACCES)
		__pctx_report(errfn, "capture", "cannot trace process %d: %s "
		    "(another user's process, one already traced, or "
		    "refused by /proc/sys/kernel/yama/ptrace_scope)\n",
		    (int)pid, strerror(e));
	else
		__pctx_report(errfn, "capture", "cannot trace process %d: %s\n",
		    (int)pid, strerror(e));
	errno = e;
	return NULL;
}

int pctx_set_events(pctx_t *pctx, ...)
{
	va_list ap;
	int rc = 0;

	if (pctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	pctx->exec_fn = NULL;
	pctx->fork_fn = NULL;
	pctx->exit_fn = NULL;
	pctx->lwp_create_fn = NULL;
	pctx->init_lwp_fn = NULL;
	pctx->fini_lwp_fn = NULL;
	pctx->lwp_exit_fn = NULL;
	va_start(ap, pctx);
	for (;;) {
		int ev = va_arg(ap, int);
		if (ev == PCTX_NULL_EVENT)
			break;
		switch (ev) {
		case PCTX_SYSC_EXEC_EVENT:
			pctx->exec_fn = va_arg(ap, pctx_sysc_execfn_t *);
			continue;
		case PCTX_SYSC_FORK_EVENT:
			pctx->fork_fn = va_arg(ap, pctx_sysc_forkfn_t *);
			continue;
		case PCTX_SYSC_EXIT_EVENT:
			pctx->exit_fn = va_arg(ap, pctx_sysc_exitfn_t *);
			continue;
		case PCTX_SYSC_LWP_CREATE_EVENT:
			pctx->lwp_create_fn =
			    va_arg(ap, pctx_sysc_lwp_createfn_t *);
			continue;
		case PCTX_INIT_LWP_EVENT:
			pctx->init_lwp_fn = va_arg(ap, pctx_init_lwpfn_t *);
			continue;
		case PCTX_FINI_LWP_EVENT:
			pctx->fini_lwp_fn = va_arg(ap, pctx_fini_lwpfn_t *);
			continue;
		case PCTX_SYSC_LWP_EXIT_EVENT:
			pctx->lwp_exit_fn =
			    va_arg(ap, pctx_sysc_lwp_exitfn_t *);
			continue;
		default:
			__pctx_report(pctx->errfn, "set_events",
			    "unknown event type %d\n", ev);
			errno = EINVAL;
			rc = -1;
			break;
		}
		break;
	}
	va_end(ap);
	if (rc == 0)
		pctx->events_set = 1;
	return rc;
}
