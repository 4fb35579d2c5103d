/* SPDX-License-Identifier: MIT */
/*
 * The interface between the library core and a counting backend (Linux
 * perf_event, or the libcpc kernel module).  Every operation acts on the
 * calling LWP and must be async-signal-safe.
 */
#ifndef LIBCPC_BACKEND_H
#define LIBCPC_BACKEND_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "reqset.h"

/* Bytes of per-LWP state a backend may keep (no allocation at bind). */
#define CPC_BACKEND_PRIV_SIZE 256

/*
 * Internal bind flag: open the counters stopped (a new LWP that inherited
 * an overflow context waits, frozen at its presets, for its handler).
 */
#define CPC_BACKEND_START_FROZEN 0x100

struct cpc_backend {
	const char *name;
	/* 1 if the kernel itself sends the Solaris-form SIGEMT (kmod). */
	int kernel_sends_sigemt;
	/*
	 * Binds set to the calling LWP using the zeroed or released state
	 * priv.  Returns 0, or -errno with *bad set to the index of the
	 * request at fault (or -1 when no single request is).
	 */
	int (*bind)(void *priv, const struct cpc_reqset *set, unsigned bflags,
	    int *bad);
	/*
	 * Reads the n virtualised 64-bit counts (preset plus events since
	 * bind) and the LWP's on-CPU nanoseconds since bind.  Returns 0, or
	 * -EAGAIN if the kernel could not keep counting the context.
	 */
	int (*sample)(void *priv, uint64_t *vals, unsigned n,
	    uint64_t *ontime_ns);
	/* Releases a binding made by bind. */
	void (*release)(void *priv);
	/*
	 * Optional: gives a binding of the same events and flags new
	 * presets and restarts it (also when frozen), in place.  0, or
	 * -errno; on -EAGAIN the caller binds from scratch.
	 */
	int (*rearm)(void *priv, const struct cpc_reqset *set);
	/*
	 * 1 if the signal si (SIGEMT) is the overflow notification of the
	 * binding priv.  Called in the signal handler.
	 */
	int (*is_overflow)(void *priv, const siginfo_t *si);
	/* Stops all counters of the binding (after an overflow). */
	void (*freeze)(void *priv);
	/* Optional: 1 if the backend itself froze the binding on overflow. */
	int (*frozen)(void *priv);
	/* 0 if counting the given set would be allowed here, else -errno. */
	int (*probe)(const struct cpc_reqset *set);
	/*
	 * Optional: counting set in another thread tid (process contexts),
	 * without overflow notification; then sample and release apply.
	 * Several contexts on one thread count independently.  NULL when
	 * the backend cannot (see __cpc_backend_for).
	 */
	int (*task_open)(void *priv, const struct cpc_reqset *set, pid_t tid,
	    int *bad);
	/*
	 * Optional: counting set system-wide on one processor cpu (all its
	 * tasks), without overflow notification; then sample and release
	 * apply.  NULL when the backend cannot.
	 */
	int (*cpu_open)(void *priv, const struct cpc_reqset *set, int cpu,
	    int *bad);
	/*
	 * The aggregate of an inheritance group: counts of the calling LWP
	 * and of every LWP created after this call by it or its descendants,
	 * live or exited (presets and overflow flags are ignored).
	 * group_open returns 0 or -errno; group_sample reads the n sums and
	 * the summed on-CPU nanoseconds.
	 */
	int (*group_open)(void *gpriv, const struct cpc_reqset *set);
	int (*group_sample)(void *gpriv, uint64_t *vals, unsigned n,
	    uint64_t *ontime_ns);
	void (*group_close)(void *gpriv);
};

/*
 * The backend chosen for this process: LIBCPC_BACKEND=perf|kmod, or by
 * default the kernel module when its device exists, else perf.  Returns
 * NULL (with *why set) when the requested backend is unavailable.
 */
const struct cpc_backend *__cpc_backend_get(const char **why);

/* What a binding counts. */
enum cpc_scope {
	CPC_SCOPE_LWP,	/* the calling LWP (bind, group_open) */
	CPC_SCOPE_TASK,	/* another thread, process contexts (task_open) */
	CPC_SCOPE_CPU,	/* one processor (cpu_open) */
};

/*
 * The backend that serves a scope: the chosen one (__cpc_backend_get) for
 * LWPs; for the other scopes the chosen one when it has the operation,
 * else perf, which serves every scope.  The kernel module serves LWPs
 * and process contexts (task_open: a file of /dev/cpc per context, the
 * module's access rules - ptrace rights over the thread, or CAP_PERFMON
 * - instead of perf_event_paranoid; its bindings stop at the thread's
 * exec, after which libpctx binds the new image afresh) and processors
 * (cpu_open: CAP_PERFMON, or the module's cpu_access; where the module
 * refuses, counters.c tries perf, which perf_event_paranoid <= 0 allows).
 * NULL (with *why set) only for LWPs when no backend is available.
 */
const struct cpc_backend *__cpc_backend_for(enum cpc_scope scope,
    const char **why);

#endif
