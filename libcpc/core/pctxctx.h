/* SPDX-License-Identifier: MIT */
/*
 * Process contexts: counting in a thread of another process controlled
 * through libpctx (cpc_bind_pctx, and the version 1 cpc_pctx_*
 * interfaces), through the backend that serves them (__cpc_backend_for).
 *
 * libcpc does not link libpctx: it reaches the few libpctx functions it
 * needs through weak references, which are set whenever a process context
 * exists (libpctx is then loaded).
 */
#ifndef LIBCPC_PCTXCTX_H
#define LIBCPC_PCTXCTX_H

#include <stdint.h>
#include <sys/types.h>

#include "counters.h"
#include "libpctx.h"
#include "reqset.h"

struct cpc_pctxctx {
	struct cpc_counters ctr;
	pid_t tid;
};

/*
 * Checks that LWP id belongs to pctx and gives its thread: 0, -ENOTSUP
 * (libpctx not loaded), -EINVAL or -ESRCH.
 */
int __cpc_pctx_target(pctx_t *pctx, __id_t id, pid_t *tid);

/*
 * Starts counting set (without overflow notification) in thread tid, in
 * c, a zeroed or closed context.  0, or -errno with *bad the failing
 * request (or -1).
 */
int __cpc_pctx_open(struct cpc_pctxctx *c, const struct cpc_reqset *set,
    pid_t tid, int *bad);

/* The n counts and the thread's on-CPU TSC ticks: 0 or -errno. */
int __cpc_pctx_read(struct cpc_pctxctx *c, uint64_t *vals, unsigned n,
    uint64_t *tick);

/* Stops counting; idempotent. */
void __cpc_pctx_close(struct cpc_pctxctx *c);

/*
 * Calls fn with every process context libpctx releases, so that the
 * interface layers drop their bindings in it (at most a few callers;
 * registering twice is harmless).  0, or -ENOSPC.
 */
int __cpc_pctx_on_release(void (*fn)(pctx_t *pctx));

/*
 * Records that owner (an interface object) has a binding in pctx, until
 * libpctx releases pctx; __cpc_pctx_terminate_owner ends the pctx_run of
 * every context recorded for owner.  Lock-free: a signal handler may
 * terminate.
 */
void __cpc_pctx_link(const void *owner, pctx_t *pctx);
void __cpc_pctx_terminate_owner(const void *owner);

#endif
