/* SPDX-License-Identifier: MIT */
/*
 * libpctx: process contexts for libcpc (Solaris <libpctx.h>).
 *
 * Part of libcpc for Linux.  A process context is a process controlled
 * with ptrace(2): created (pctx_create) or captured (pctx_capture), then
 * run (pctx_run) with callbacks at its LWP, exec, fork and exit events.
 * LWP ids are Solaris's: per process, the main thread is 1 and the others
 * are numbered in creation order; pctx_lwp_tid() gives an LWP's Linux
 * thread id.
 */
#ifndef _LIBPCTX_H
#define _LIBPCTX_H

#include <sys/types.h>
#include <fcntl.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(uint_t) && !defined(_LIBCPC_UINT_T_DEFINED)
#define _LIBCPC_UINT_T_DEFINED
typedef unsigned int uint_t;
#endif

typedef struct __pctx pctx_t;

typedef void(pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

typedef enum {
	PCTX_NULL_EVENT = 0,
	PCTX_SYSC_EXEC_EVENT,
	PCTX_SYSC_FORK_EVENT,
	PCTX_SYSC_EXIT_EVENT,
	PCTX_SYSC_LWP_CREATE_EVENT,
	PCTX_INIT_LWP_EVENT,
	PCTX_FINI_LWP_EVENT,
	PCTX_SYSC_LWP_EXIT_EVENT
} pctx_event_t;

/*
 * Callback types (function types, as on Solaris).  The fork callback is
 * called as (pctx, parent pid, child pid, forking LWP, arg), whatever the
 * order of its declared parameters suggests.
 */
typedef int(pctx_sysc_execfn_t)(pctx_t *, pid_t, __id_t, char *, void *);
typedef void(pctx_sysc_forkfn_t)(pctx_t *, pid_t, __id_t, pid_t, void *);
typedef void(pctx_sysc_exitfn_t)(pctx_t *, pid_t, __id_t, int, void *);
typedef int(pctx_sysc_lwp_createfn_t)(pctx_t *, pid_t, __id_t, void *);
typedef int(pctx_init_lwpfn_t)(pctx_t *, pid_t, __id_t, void *);
typedef int(pctx_fini_lwpfn_t)(pctx_t *, pid_t, __id_t, void *);
typedef int(pctx_sysc_lwp_exitfn_t)(pctx_t *, pid_t, __id_t, void *);

extern pctx_t *pctx_create(const char *filename, char *const *argv,
    void *arg, int verbose, pctx_errfn_t *errfn);
extern pctx_t *pctx_capture(pid_t pid, void *arg, int verbose,
    pctx_errfn_t *errfn);
/* (pctx_event_t, callback) pairs, ended by PCTX_NULL_EVENT. */
extern int pctx_set_events(pctx_t *pctx, ...);
extern int pctx_run(pctx_t *pctx, uint_t msec, uint_t nsamples,
    int (*tick)(pctx_t *, pid_t, __id_t, void *));
extern void pctx_release(pctx_t *pctx);
extern void pctx_terminate(pctx_t *pctx);

/*
 * Linux extension: the Linux thread id (gettid(2)) of LWP lwpid of the
 * process of pctx, or -1 with errno ESRCH if it has no such live LWP.
 */
extern pid_t pctx_lwp_tid(pctx_t *pctx, __id_t lwpid);

/*
 * Linux port, private to libcpc (not for applications): the process of
 * LWP lwpid of a context, or -1 with errno ESRCH; and the function called
 * with each context just before pctx_release frees it.
 */
extern pid_t __pctx_lwp_pid(pctx_t *pctx, __id_t lwpid);
extern void __pctx_set_release_hook(void (*hook)(pctx_t *pctx));

#ifdef __cplusplus
}
#endif

#endif /* _LIBPCTX_H */
