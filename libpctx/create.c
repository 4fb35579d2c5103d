/* SPDX-License-Identifier: MIT */
/*
 * Creating contexts: pctx_create (a new program, traced from its first
 * instruction), pctx_capture (a running process, every thread seized)
 * and pctx_set_events.
 */
#include "pctx_impl.h"

/* ------------------------------------------------------------ creation */

/*
 * The file execvp would run for filename (a name without '/' is looked
 * for in PATH) into path: 0, or -1 if there is none (exec will say why).
 */
static int resolve_program(const char *filename, char *path, size_t n)
{
	struct stat st;
	if (strchr(filename, '/') != NULL) {
		snprintf(path, n, "%s", filename);
		return 0;
	}
	const char *dirs = getenv("PATH");
	if (dirs == NULL)
		dirs = "/bin:/usr/bin";
	while (*dirs != '\0') {
		size_t len = strcspn(dirs, ":");
		snprintf(path, n, "%.*s%s%s", (int)len, dirs, len > 0 ? "/" : "",
		    filename);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(path, X_OK) == 0)
			return 0;
		dirs += len + (dirs[len] == ':');
	}
	return -1;
}

/*
 * As Solaris's Pcreate: an unprivileged caller may not trace a set-id
 * program (Linux would run it without its privileges) nor one it cannot
 * read.  Reported in illumos's words; 1 if refused.
 */
static int program_refused(const char *filename, pctx_errfn_t *errfn)
{
	char path[4096];
	struct stat st;
	if (geteuid() == 0 || resolve_program(filename, path, sizeof(path)) ||
	    stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    access(path, X_OK) != 0)
		return 0;
	int setid = ((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid());
	if (!setid && access(path, R_OK) == 0)
		return 0;
	__pctx_report(errfn, "create", "cannot trace set-id or unreadable "
	    "program '%s'\n", filename);
	return 1;
}

/* Why the program could not be started, in illumos's words. */
static void report_create(pctx_errfn_t *errfn, const char *filename, int e)
{
	switch (e) {
	case ENOENT:
	case ENOTDIR:
		/* (sic: illumos's text has no space there) */
		__pctx_report(errfn, "create", "cannot findprogram '%s'\n",
		    filename);
		break;
	case EACCES:
	case ENOEXEC:
		__pctx_report(errfn, "create", "cannot execute program '%s'\n",
		    filename);
		break;
	case EPERM:
		__pctx_report(errfn, "create", "cannot trace set-id or "
		    "unreadable program '%s'\n", filename);
		break;
	default:
		__pctx_report(errfn, "create", "%s, program '%s'\n",
		    strerror(e), filename);
		break;
	}
}

pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
    int verbose, pctx_errfn_t *errfn)
{
	int go[2], err[2], st;

	if (filename == NULL || argv == NULL) {
		__pctx_report(errfn, "create", "no program to run\n");
		errno = EINVAL;
		return NULL;
	}
	if (program_refused(filename, errfn)) {
		errno = EPERM;
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
		__pctx_report(errfn, "create", "cannot fork, program '%s'\n",
		    filename);
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
		__pctx_report(errfn, "create", "%s, program '%s'\n",
		    strerror(e), filename);
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
		report_create(errfn, filename, e);
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

/* Reads field key of /proc/<pid>/status into val: 0, or -1. */
static int proc_status(pid_t pid, const char *key, char *val, size_t n)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int rc = -1;
	while (rc != 0 && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			snprintf(val, n, "%s", line + klen + 1 +
			    strspn(line + klen + 1, " \t"));
			rc = 0;
		}
	fclose(f);
	return rc;
}

/* Is pid a kernel thread (PF_KTHREAD in /proc/<pid>/stat's flags)? */
static int is_kernel_thread(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return 0;
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[got] = '\0';
	const char *p = strrchr(buf, ')');
	unsigned long flags = 0;
	if (p == NULL || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu",
			     &flags) != 1)
		return 0;
	return (flags & 0x00200000UL) != 0;
}

/*
 * Why pid cannot be captured, in illumos's words (Pgrab's reasons):
 * errno for the failure, or 0 when the capture may go on.
 */
static int capture_refused(pid_t pid, pctx_errfn_t *errfn)
{
	char v[64];
	if (pid == getpid()) {
		__pctx_report(errfn, "capture", "cannot capture self!\n");
		return EINVAL;
	}
	if (pid == 0 || (pid > 0 && is_kernel_thread(pid))) {
		__pctx_report(errfn, "capture", "pid %d is a system process\n",
		    (int)pid);
		return EPERM;
	}
	if (pid < 0 || proc_status(pid, "State", v, sizeof(v)) != 0) {
		__pctx_report(errfn, "capture", "pid %d doesn't exist\n",
		    (int)pid);
		return ESRCH;
	}
	if (v[0] == 'Z' || v[0] == 'X') {
		__pctx_report(errfn, "capture", "pid %d is a zombie\n",
		    (int)pid);
		return ESRCH;
	}
	if (proc_status(pid, "TracerPid", v, sizeof(v)) == 0 && atoi(v) != 0) {
		__pctx_report(errfn, "capture",
		    "pid %d is already being traced\n", (int)pid);
		return EBUSY;
	}
	return 0;
}

pctx_t *pctx_capture(pid_t pid, void *arg, int verbose, pctx_errfn_t *errfn)
{
	int e = capture_refused(pid, errfn), n;

	if (e != 0) {
		errno = e;
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
		__pctx_report(errfn, "capture", "pid %d: permission denied\n",
		    (int)pid);
	else if (e == ESRCH)
		__pctx_report(errfn, "capture", "pid %d doesn't exist\n",
		    (int)pid);
	else
		__pctx_report(errfn, "capture", "%s: pid %d\n", strerror(e),
		    (int)pid);
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
	/* As on Solaris, the events not named keep their callbacks. */
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
			    "unknown event type %x\n", (unsigned)ev);
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
