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

/* task.c: what the kernel says of a traced thread */
void __pctx_resume(struct lwp *l, int sig);
unsigned long __pctx_event_msg(pid_t tid);
int __pctx_is_stop_signal(int sig);
int __pctx_exit_code(int status);
pid_t __pctx_task_tgid(pid_t tid);
int __pctx_task_dying(pid_t pid, pid_t tid);
void __pctx_read_psargs(pid_t pid, char *buf, size_t n);
long __pctx_task_syscall(pid_t pid, pid_t tid);

/* events.c: callbacks, ptrace stops, detaching */
int __pctx_call_init(pctx_t *p, struct lwp *l);
void __pctx_detach_process(pctx_t *p);
void __pctx_stop_tracking(pctx_t *p);
void __pctx_kill_unrun(pctx_t *p);
void __pctx_on_process_exit(pctx_t *p, int status);
void __pctx_handle_status(pctx_t *p, struct lwp *l, int st);

#endif
