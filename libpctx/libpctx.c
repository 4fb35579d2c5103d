/*
 * libpctx for Linux: process contexts controlled with ptrace(2).
 *
 * A context (pctx_t) is one traced process.  Its LWPs are its threads,
 * all seized with PTRACE_SEIZE and followed through clone, exec and exit.
 * They carry Solaris LWP ids, which every callback reports: the main
 * thread is 1 and the others are numbered 2, 3, ... in the order they
 * are created (for a captured process, in thread id order); an exec
 * starts the numbering again.  pctx_lwp_tid maps an LWP id to its thread.  When the process forks, the child is traced too
 * and becomes a context of its own in the same family; it stays traced
 * only if the fork callback registers events for it (pctx_set_events),
 * otherwise it is detached at once.  One pctx_run loop serves the whole
 * family.  Every ptrace request must come from the thread that created or
 * captured the context (the tracer), so a family belongs to that thread.
 *
 * The order of the callbacks, which libcpc and the tools rely on:
 * - a new LWP (clone): lwp_create then init_lwp, the new LWP stopped;
 * - an LWP that exits on its own (pthread_exit): lwp_exit then fini_lwp,
 *   while it still exists;
 * - exec: fini_lwp for every LWP of the old image, exec, then init_lwp
 *   for the new image's LWP, stopped before its first instruction;
 * - fork: fork (given the child's context), then, if the child is
 *   followed, init_lwp for its LWP;
 * - process exit: fini_lwp for every remaining LWP, then exit, once the
 *   process is gone (its counters hold their final values);
 * - release (pctx_release, a callback's non-zero return, pctx_terminate,
 *   nsamples reached): fini_lwp for every remaining LWP, then the process
 *   is detached and runs on untraced.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libpctx.h"

#define TRACE_OPTIONS                                                       \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT |   \
	    PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK)

/* Longest wait between two looks at the traced threads (ms). */
#define MAX_WAIT_MS 100
/* How long a release waits for a running thread to stop (ms). */
#define DETACH_WAIT_MS 2000
/* Solaris PRARGSZ: the arguments string handed to the exec callback. */
#define PSARGS_SIZE 80

struct lwp {
	struct lwp *next;
	pid_t tid;
	__id_t lwpid;	/* Solaris LWP id: the main thread is 1 */
	int is_new;	/* auto-attached, its first stop not yet seen */
	int stopped;	/* in a ptrace-stop we have not resumed */
	int inited;	/* init_lwp done: fini_lwp is owed */
	int finished;	/* fini_lwp done (or never owed) */
	int exiting;	/* reported PTRACE_EVENT_EXIT */
	int dead;	/* reaped */
};

enum proc_state { PS_NEW, PS_LIVE, PS_GONE, PS_RELEASED };

struct family;

struct __pctx {
	struct family *fam;
	struct __pctx *next;	/* in the family, in order of creation */
	struct __pctx *parent;	/* of a fork child */
	pid_t pid;
	__id_t forker;		/* the parent's LWP that forked */
	enum proc_state state;
	int unrun;		/* created, pctx_run not called yet */
	__id_t exiter;		/* the LWP that began the process exit */
	__id_t last_lwpid;	/* the LWP id given last (1: the main one) */
	void *arg;
	int verbose;
	pctx_errfn_t *errfn;
	int events_set;
	pctx_sysc_execfn_t *exec_fn;
	pctx_sysc_forkfn_t *fork_fn;
	pctx_sysc_exitfn_t *exit_fn;
	pctx_sysc_lwp_createfn_t *lwp_create_fn;
	pctx_init_lwpfn_t *init_lwp_fn;
	pctx_fini_lwpfn_t *fini_lwp_fn;
	pctx_sysc_lwp_exitfn_t *lwp_exit_fn;
	struct lwp *lwps;
};

struct family {
	pctx_t *root;
	pctx_t *procs;
	volatile sig_atomic_t terminate;
	int running;
	int (*tick)(pctx_t *, pid_t, __id_t, void *);
};

static _Atomic(void (*)(pctx_t *)) release_hook;

/* ------------------------------------------------------------ errors */

static void default_errfn(const char *fn, const char *fmt, va_list ap)
{
	fprintf(stderr, "libpctx: pctx_%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

static void report(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	(errfn != NULL ? errfn : default_errfn)(fn, fmt, ap);
	va_end(ap);
	errno = saved;
}

/* ------------------------------------------------------------ records */

static struct lwp *add_lwp(pctx_t *p, pid_t tid)
{
	struct lwp *l = calloc(1, sizeof(*l)), **tail = &p->lwps;
	if (l == NULL)
		return NULL;
	l->tid = tid;
	if (p->last_lwpid < 1)
		p->last_lwpid = 1;
	l->lwpid = tid == p->pid ? 1 : ++p->last_lwpid;
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = l;
	return l;
}

static struct lwp *find_lwp(pctx_t *p, pid_t tid)
{
	for (struct lwp *l = p->lwps; l != NULL; l = l->next)
		if (l->tid == tid)
			return l;
	return NULL;
}

static void remove_lwp(pctx_t *p, struct lwp *dead)
{
	for (struct lwp **lp = &p->lwps; *lp != NULL; lp = &(*lp)->next)
		if (*lp == dead) {
			*lp = dead->next;
			free(dead);
			return;
		}
}

static pctx_t *new_context(struct family *fam, pid_t pid, void *arg,
    int verbose, pctx_errfn_t *errfn)
{
	pctx_t *p = calloc(1, sizeof(*p)), **tail;
	if (p == NULL)
		return NULL;
	p->fam = fam;
	p->pid = pid;
	p->arg = arg;
	p->verbose = verbose;
	p->errfn = errfn;
	for (tail = &fam->procs; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = p;
	return p;
}

static pctx_t *new_family(pid_t pid, void *arg, int verbose,
    pctx_errfn_t *errfn)
{
	struct family *fam = calloc(1, sizeof(*fam));
	if (fam == NULL)
		return NULL;
	pctx_t *p = new_context(fam, pid, arg, verbose, errfn);
	if (p == NULL) {
		free(fam);
		return NULL;
	}
	fam->root = p;
	return p;
}

static void free_family(struct family *fam)
{
	void (*hook)(pctx_t *) = atomic_load(&release_hook);
	if (hook != NULL)
		for (pctx_t *p = fam->procs; p != NULL; p = p->next)
			hook(p);
	while (fam->procs != NULL) {
		pctx_t *p = fam->procs;
		fam->procs = p->next;
		while (p->lwps != NULL)
			remove_lwp(p, p->lwps);
		free(p);
	}
	free(fam);
}

/* ------------------------------------------------------------ ptrace */

static void resume(struct lwp *l, int sig)
{
	if (!l->stopped || l->dead)
		return;
	l->stopped = 0;
	(void)ptrace(PTRACE_CONT, l->tid, NULL, (void *)(long)sig);
}

static unsigned long event_msg(pid_t tid)
{
	unsigned long msg = 0;
	(void)ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg);
	return msg;
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU;
}

/* The status an exit callback receives: exit code, or 128 + signal. */
static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

/* Reads one line "Key:\tvalue" of /proc/<pid>/task/<tid>/status. */
static int task_status(pid_t pid, pid_t tid, const char *key, char *val,
    size_t n)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid,
	    (int)tid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int found = -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *v = line + klen + 1;
			v += strspn(v, " \t");
			snprintf(val, n, "%s", v);
			found = 0;
			break;
		}
	fclose(f);
	return found;
}

/* The thread group a task belongs to, or -1. */
static pid_t task_tgid(pid_t tid)
{
	char v[32];
	if (task_status(tid, tid, "Tgid", v, sizeof(v)) != 0)
		return -1;
	return (pid_t)strtol(v, NULL, 10);
}

/*
 * Is thread tid of pid on its way out with the rest of the process: gone,
 * a zombie, or with SIGKILL pending (what exit_group, exec and fatal
 * signals send to the other threads)?
 */
static int task_dying(pid_t pid, pid_t tid)
{
	char v[64];
	if (task_status(pid, tid, "State", v, sizeof(v)) != 0)
		return 1;
	if (v[0] == 'Z' || v[0] == 'X')
		return 1;
	if (task_status(pid, tid, "SigPnd", v, sizeof(v)) != 0)
		return 1;
	unsigned long long pending = strtoull(v, NULL, 16);
	return (pending & (1ULL << (SIGKILL - 1))) != 0;
}

/* ------------------------------------------------------------ callbacks */

static int call_init(pctx_t *p, struct lwp *l)
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

static void call_fini(pctx_t *p, struct lwp *l, pid_t id)
{
	if (!l->inited || l->finished)
		return;
	l->finished = 1;
	if (p->fini_lwp_fn != NULL)
		(void)p->fini_lwp_fn(p, p->pid, id, p->arg);
}

static void fini_all(pctx_t *p)
{
	for (struct lwp *l = p->lwps; l != NULL; l = l->next)
		call_fini(p, l, l->lwpid);
}

/* ------------------------------------------------------------ detaching */

static void detach_lwp(pctx_t *p, struct lwp *l, int sig)
{
	if (ptrace(PTRACE_DETACH, l->tid, NULL, (void *)(long)sig) != 0 &&
	    errno != ESRCH && p->verbose)
		report(p->errfn, "release", "cannot detach lwp %d: %s\n",
		    (int)l->tid, strerror(errno));
	l->stopped = 0;
	l->dead = 1;	/* no longer ours */
}

static void detach_new_child(pctx_t *p, pid_t child);

/*
 * Waits (at most DETACH_WAIT_MS in all) for every thread of p to stop,
 * and detaches each; threads and children born meanwhile are detached
 * too.
 */
static void detach_process(pctx_t *p)
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
				pid_t t = (pid_t)event_msg(l->tid);
				if (task_tgid(t) == p->pid) {
					struct lwp *n = add_lwp(p, t);
					if (n != NULL)
						n->is_new = 1;
				} else {
					detach_new_child(p, t);
				}
			} else if (event == PTRACE_EVENT_FORK ||
			    event == PTRACE_EVENT_VFORK) {
				detach_new_child(p, (pid_t)event_msg(l->tid));
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
				report(p->errfn, "release", "process %d: %d "
				    "lwps did not stop; they are released when "
				    "this process exits\n", (int)p->pid, left);
			break;
		}
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	p->state = PS_RELEASED;
}

/* A child auto-attached while its parent was being released. */
static void detach_new_child(pctx_t *p, pid_t child)
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
	detach_process(&tmp);
	while (l.next != NULL) {
		struct lwp *n = l.next;
		l.next = n->next;
		free(n);
	}
}

/* Stops following p: fini_lwp for its LWPs, then it runs on untraced. */
static void stop_tracking(pctx_t *p)
{
	if (p->state != PS_LIVE && p->state != PS_NEW)
		return;
	if (p->state == PS_LIVE)
		fini_all(p);
	detach_process(p);
}

/* Kills a created process that never ran, and reaps it. */
static void kill_unrun(pctx_t *p)
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

/* The first stop of an auto-attached thread or child. */
static void first_stop(pctx_t *p, struct lwp *l, int sig)
{
	l->is_new = 0;
	if (p->state == PS_NEW) {
		/* A fork child: followed only if the callback says so. */
		pctx_t *parent = p->parent;
		p->state = PS_LIVE;
		if (parent != NULL && parent->fork_fn != NULL)
			parent->fork_fn(p, parent->pid, (__id_t)p->pid,
			    p->forker, parent->arg);
		if (p->state != PS_LIVE)
			return;
		if (!p->events_set || p->fam->terminate) {
			detach_process(p);
			return;
		}
	} else if (p->lwp_create_fn != NULL &&
	    p->lwp_create_fn(p, p->pid, l->lwpid, p->arg) != 0) {
		stop_tracking(p);
		return;
	}
	if (p->state != PS_LIVE)
		return;
	if (call_init(p, l) != 0) {
		stop_tracking(p);
		return;
	}
	resume(l, sig);
}

/* A thread the process created (or a clone that is a new process). */
static void new_task(pctx_t *p, pid_t t, pid_t creator, int is_thread)
{
	if (is_thread) {
		struct lwp *n = add_lwp(p, t);
		if (n != NULL)
			n->is_new = 1;
		return;
	}
	pctx_t *c = new_context(p->fam, t, p->arg, p->verbose, p->errfn);
	struct lwp *n = c != NULL ? add_lwp(c, t) : NULL;
	if (n == NULL) {
		if (c != NULL)
			c->state = PS_RELEASED;
		detach_new_child(p, t);
		return;
	}
	c->state = PS_NEW;
	c->parent = p;
	struct lwp *f = find_lwp(p, creator);
	c->forker = f != NULL ? f->lwpid : 1;
	n->is_new = 1;
}

/* Copies the new image's arguments, space-separated, for the callback. */
static void read_psargs(pid_t pid, char *buf, size_t n)
{
	char path[64];
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return;
	size_t got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = '\0';
	for (size_t i = 0; i < got; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (got > 0 && buf[got - 1] == ' ')
		buf[--got] = '\0';
}

static void on_exec(pctx_t *p, struct lwp *l)
{
	pid_t former = (pid_t)event_msg(l->tid);
	struct lwp *execer = find_lwp(p, former);
	char psargs[PSARGS_SIZE];

	/* The old image's LWPs end, the execing one under its old id. */
	if (execer != NULL)
		call_fini(p, execer, execer->lwpid);
	fini_all(p);
	if (execer != NULL && execer != l)
		remove_lwp(p, execer);
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
	read_psargs(p->pid, psargs, sizeof(psargs));
	if (p->exec_fn != NULL &&
	    p->exec_fn(p, p->pid, l->lwpid, psargs, p->arg) != 0) {
		stop_tracking(p);
		return;
	}
	if (p->state != PS_LIVE)
		return;
	if (call_init(p, l) != 0) {
		stop_tracking(p);
		return;
	}
	resume(l, 0);
}

/*
 * The system call thread tid of pid is in (it is stopped), or -1 if not
 * known.
 */
static long task_syscall(pid_t pid, pid_t tid)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
	    (int)tid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok || buf[0] < '0' || buf[0] > '9')
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * Does l end alone (pthread_exit: the exit system call), rather than with
 * its process (exit_group, a fatal signal, or an exec by another LWP)?
 */
static int exits_alone(pctx_t *p, struct lwp *l)
{
	int others = 0;
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		if (o != l && !o->dead && !o->exiting && !o->is_new)
			others = 1;
	if (!others)
		return 0;
	long nr = task_syscall(p->pid, l->tid);
	if (nr >= 0)
		return nr == SYS_exit;
	/*
	 * Without /proc's answer: the leader's end is taken as the
	 * process's (an exec by another LWP replaces it); for the others,
	 * do the others live on?
	 */
	if (l->tid == p->pid)
		return 0;
	if (WIFSIGNALED((int)event_msg(l->tid)))
		return 0;
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		if (o != l && !o->dead && !o->exiting && !o->is_new &&
		    task_dying(p->pid, o->tid))
			return 0;
	return 1;
}

static void on_lwp_exit(pctx_t *p, struct lwp *l)
{
	int alone = exits_alone(p, l);

	l->exiting = 1;
	if (alone && l->inited && !l->finished) {
		int rc = 0;
		if (p->lwp_exit_fn != NULL)
			rc = p->lwp_exit_fn(p, p->pid, l->lwpid, p->arg);
		call_fini(p, l, l->lwpid);
		if (rc != 0) {
			stop_tracking(p);
			return;
		}
	} else if (!alone && p->exiter == 0 &&
	    task_syscall(p->pid, l->tid) == SYS_exit_group) {
		p->exiter = l->lwpid;
	}
	resume(l, 0);
}

/* The process is gone: its leader was reaped. */
static void on_process_exit(pctx_t *p, int status)
{
	for (struct lwp *o = p->lwps; o != NULL; o = o->next)
		o->dead = 1;
	fini_all(p);
	p->state = PS_GONE;
	if (p->exit_fn != NULL)
		p->exit_fn(p, p->pid, p->exiter != 0 ? p->exiter : 1,
		    exit_code(status), p->arg);
}

/* One wait status of thread l of p. */
static void handle_status(pctx_t *p, struct lwp *l, int st)
{
	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		l->dead = 1;
		l->stopped = 0;
		if (l->tid == p->pid)
			on_process_exit(p, st);
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
		pid_t t = (pid_t)event_msg(l->tid);
		new_task(p, t, l->tid, task_tgid(t) == p->pid);
		resume(l, 0);
		break;
	}
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		new_task(p, (pid_t)event_msg(l->tid), l->tid, 0);
		resume(l, 0);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(p, l);
		break;
	case PTRACE_EVENT_EXIT:
		on_lwp_exit(p, l);
		break;
	case PTRACE_EVENT_STOP:
		if (is_stop_signal(sig)) {
			/* Group-stop: stay stopped until SIGCONT. */
			l->stopped = 0;
			(void)ptrace(PTRACE_LISTEN, l->tid, NULL, NULL);
		} else {
			resume(l, 0);
		}
		break;
	case 0:
		/* Signal-delivery-stop: deliver it. */
		resume(l, sig);
		break;
	default:
		resume(l, 0);
		break;
	}
}

/* ------------------------------------------------------------ creation */

pctx_t *pctx_create(const char *filename, char *const *argv, void *arg,
    int verbose, pctx_errfn_t *errfn)
{
	int go[2], err[2], st;

	if (filename == NULL || argv == NULL) {
		report(errfn, "create", "no program to run\n");
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
		report(errfn, "create", "cannot fork: %s\n", strerror(e));
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
		report(errfn, "create", "cannot trace the new process: %s\n",
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
		report(errfn, "create", "cannot run '%s': %s\n", filename,
		    strerror(e));
		errno = e;
		return NULL;
	}
	pctx_t *p = new_family(child, arg, verbose, errfn);
	struct lwp *l = p != NULL ? add_lwp(p, child) : NULL;
	if (l == NULL) {
		kill(child, SIGKILL);
		while (waitpid(child, &st, __WALL) < 0 && errno == EINTR)
			;
		if (p != NULL)
			free_family(p->fam);
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
		if (find_lwp(p, tid) != NULL)
			continue;
		if (ptrace(PTRACE_SEIZE, tid, NULL,
			(void *)(long)TRACE_OPTIONS) != 0) {
			if (errno == ESRCH && tid != p->pid)
				continue;	/* it exited meanwhile */
			*err = errno;
			closedir(d);
			return -1;
		}
		if (add_lwp(p, tid) == NULL) {
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
		report(errfn, "capture", "cannot trace process %d: %s\n",
		    (int)pid, strerror(EINVAL));
		errno = EINVAL;
		return NULL;
	}
	pctx_t *p = new_family(pid, arg, verbose, errfn);
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
	detach_process(p);
	free_family(p->fam);
	if (e == EPERM || e == EACCES)
		report(errfn, "capture", "cannot trace process %d: %s "
		    "(another user's process, one already traced, or "
		    "refused by /proc/sys/kernel/yama/ptrace_scope)\n",
		    (int)pid, strerror(e));
	else
		report(errfn, "capture", "cannot trace process %d: %s\n",
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
			report(pctx->errfn, "set_events",
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

/* ------------------------------------------------------------ running */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int active(const pctx_t *p)
{
	return p->state == PS_LIVE || p->state == PS_NEW;
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
			pid_t r = waitpid(l->tid, &st, WNOHANG | __WALL);
			if (r == l->tid) {
				handle_status(p, l, st);
				return 1;
			}
			if (r < 0 && errno == ECHILD) {
				/* Gone without a report (an exec's old id). */
				l->dead = 1;
				if (l->tid == p->pid)
					on_process_exit(p, 0);
				return 1;
			}
		}
	}
	return 0;
}

static void tick_all(struct family *fam)
{
	for (pctx_t *p = fam->procs; p != NULL; p = p->next) {
		if (p->state != PS_LIVE)
			continue;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next) {
			if (l->dead || l->is_new || !l->inited || l->finished)
				continue;
			if (fam->tick(p, p->pid, l->lwpid, p->arg) != 0) {
				stop_tracking(p);
				break;
			}
			if (fam->terminate)
				return;
		}
	}
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
		kill_unrun(p);
	else
		stop_tracking(p);
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
	int rc = 0;

	if (pctx == NULL) {
		errno = EINVAL;
		return -1;
	}
	struct family *fam = pctx->fam;
	if (fam->running) {
		report(pctx->errfn, "run", "already running\n");
		errno = EBUSY;
		return -1;
	}
	fam->running = 1;
	fam->tick = tick;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);

	/* The LWPs known before the run start counting now. */
	for (pctx_t *p = fam->procs; p != NULL; p = p->next) {
		if (p->state != PS_LIVE)
			continue;
		p->unrun = 0;
		for (struct lwp *l = p->lwps; l != NULL; l = l->next)
			if (!l->dead && !l->is_new && !l->inited &&
			    p->state == PS_LIVE && call_init(p, l) != 0)
				stop_tracking(p);
		if (p->state == PS_LIVE)
			for (struct lwp *l = p->lwps; l != NULL; l = l->next)
				resume(l, 0);
	}

	int64_t next_tick = now_ms() + msec;
	while (!fam->terminate && any_active(fam)) {
		if (handle_one(fam))
			continue;
		int64_t now = now_ms(), wait = MAX_WAIT_MS;
		if (msec > 0) {
			if (now >= next_tick) {
				if (tick != NULL)
					tick_all(fam);
				samples++;
				if (nsamples > 0 && samples >= nsamples)
					break;
				next_tick += msec;
				if (next_tick <= now)	/* late: skip ahead */
					next_tick = now + msec;
				continue;
			}
			if (next_tick - now < wait)
				wait = next_tick - now;
		}
		struct timespec ts = { wait / 1000, (wait % 1000) * 1000000 };
		if (sigtimedwait(&chld, NULL, &ts) < 0 && errno != EAGAIN &&
		    errno != EINTR) {
			int e = errno;
			report(pctx->errfn, "run", "cannot wait: %s\n",
			    strerror(e));
			rc = -1;
			stop_all(fam);
			errno = e;
			break;
		}
	}
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
	if (pctx != fam->root || fam->running) {
		/* Only that process; the memory goes with the family. */
		if (pctx->unrun)
			kill_unrun(pctx);
		else
			stop_tracking(pctx);
		return;
	}
	release_from(fam->procs);
	free_family(fam);
}

void pctx_terminate(pctx_t *pctx)
{
	if (pctx != NULL)
		pctx->fam->terminate = 1;
}

/* ------------------------------------------------------------ libcpc */

pid_t __pctx_lwp_pid(pctx_t *pctx, __id_t lwpid)
{
	if (pctx != NULL && (pctx->state == PS_LIVE || pctx->state == PS_NEW))
		for (struct lwp *l = pctx->lwps; l != NULL; l = l->next)
			if (l->lwpid == lwpid && !l->dead)
				return pctx->pid;
	errno = ESRCH;
	return -1;
}

pid_t pctx_lwp_tid(pctx_t *pctx, __id_t lwpid)
{
	if (pctx != NULL && (pctx->state == PS_LIVE || pctx->state == PS_NEW))
		for (struct lwp *l = pctx->lwps; l != NULL; l = l->next)
			if (l->lwpid == lwpid && !l->dead)
				return l->tid;
	errno = ESRCH;
	return -1;
}

void __pctx_set_release_hook(void (*hook)(pctx_t *pctx))
{
	atomic_store(&release_hook, hook);
}
