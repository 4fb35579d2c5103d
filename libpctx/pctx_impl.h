/* SPDX-License-Identifier: MIT */
/*
 * libpctx for Linux: process contexts controlled with ptrace(2).
 * Internals shared by its files (records.c, task.c, events.c, create.c,
 * run.c); none of these names is exported (libpctx.map).
 *
 * A context (pctx_t) is one traced process.  Its LWPs are its threads,
 * all seized with PTRACE_SEIZE and followed through clone, exec and exit.
 * They carry Solaris LWP ids, which every callback reports: the main
 * thread is 1 and the others are numbered 2, 3, ... in the order they
 * are created (for a captured process, in thread id order); an exec
 * starts the numbering again.  pctx_lwp_tid maps an LWP id to its thread.
 * Every ptrace request must come from the thread that created or
 * captured the context (the tracer), so a context belongs to that thread.
 *
 * A fork is followed as on Solaris (fork.c): the fork callback runs in a
 * copy of the controller made with fork(2), with a new context on the
 * child; if the callback pctx_runs it, the controller hands the child
 * over to the copy; then the copy releases the child and exits.  Without
 * a fork callback the child is let go at once.
 *
 * The order of the callbacks (illumos pctx_run), which libcpc and the
 * tools rely on:
 * - a new LWP (clone): init_lwp then lwp_create, the new LWP stopped;
 * - an LWP that exits on its own (pthread_exit): fini_lwp then lwp_exit,
 *   while it still exists (their results are not looked at);
 * - exec: fini_lwp for every LWP of the old image, exec, then init_lwp
 *   for the new image's LWP, stopped before its first instruction;
 * - process exit (exit, exit_group): fini_lwp for every remaining LWP,
 *   then exit, once the process is gone; a process killed by a signal
 *   gets neither, and pctx_run returns -1;
 * - release (pctx_release, a callback's non-zero return, pctx_terminate,
 *   nsamples reached): no callback; the process runs on untraced.
 * pctx_run returns -1 when a callback fails (init_lwp, lwp_create, exec,
 * tick, fini_lwp at exit) or the process dies of a signal, 0 when it
 * ran to its exit, nsamples ticks were taken, or pctx_terminate ended it.
 */
#ifndef LIBPCTX_PCTX_IMPL_H
#define LIBPCTX_PCTX_IMPL_H
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
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
	int swallow_cont;	/* the SIGCONT of a fork hand-over is ours */
};

enum proc_state { PS_LIVE, PS_GONE, PS_RELEASED };

struct family;

struct __pctx {
	struct family *fam;
	struct __pctx *next;	/* in the family, in order of creation */
	pid_t pid;
	enum proc_state state;
	int unrun;		/* created, pctx_run not called yet */
	int handover_fd;	/* a fork copy's child still traced by the
				   controller: the socket to ask for it, or -1 */
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
	int abandoned;	/* a fork copy's: traced by the controller, not us */
	int running;
	int done;	/* the run is over (result is its value) */
	int result;
	int (*tick)(pctx_t *, pid_t, __id_t, void *);
};

/* records.c: contexts, families, LWPs; errors */
void __pctx_report(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
struct lwp *__pctx_add_lwp(pctx_t *p, pid_t tid);
struct lwp *__pctx_find_lwp(pctx_t *p, pid_t tid);
void __pctx_remove_lwp(pctx_t *p, struct lwp *dead);
pctx_t *__pctx_new_context(struct family *fam, pid_t pid, void *arg,
    int verbose, pctx_errfn_t *errfn);
pctx_t *__pctx_new_family(pid_t pid, void *arg, int verbose,
    pctx_errfn_t *errfn);
void __pctx_free_family(struct family *fam);
void __pctx_release_family_hook(struct family *fam);

/* task.c: what the kernel says of a traced thread */
void __pctx_resume(struct lwp *l, int sig);
unsigned long __pctx_event_msg(pid_t tid);
int __pctx_is_stop_signal(int sig);
int __pctx_exit_code(int status);
pid_t __pctx_task_tgid(pid_t tid);
int __pctx_task_dying(pid_t pid, pid_t tid);
void __pctx_read_psargs(pid_t pid, char *buf, size_t n);
long __pctx_task_syscall(pid_t pid, pid_t tid);

/* fork.c: following a fork in a copy of the controller */
extern volatile sig_atomic_t __pctx_copy_terminate;
void __pctx_follow_fork(pctx_t *p, pid_t child, __id_t forker);
int __pctx_take_over(pctx_t *p);
void __pctx_let_go(pctx_t *p);
void __pctx_detach_new_child(pctx_t *p, pid_t child);

/* events.c: callbacks, ptrace stops, detaching */
void __pctx_end_run(pctx_t *p, int result);
int __pctx_call_init(pctx_t *p, struct lwp *l);
int __pctx_fini_all(pctx_t *p);
void __pctx_detach_process(pctx_t *p);
void __pctx_stop_tracking(pctx_t *p);
void __pctx_kill_unrun(pctx_t *p);
void __pctx_on_process_exit(pctx_t *p, int status);
void __pctx_handle_status(pctx_t *p, struct lwp *l, int st);

#endif
