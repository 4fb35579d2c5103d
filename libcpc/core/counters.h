/* SPDX-License-Identifier: MIT */
/*
 * Counters outside the calling LWP: in another thread (process contexts)
 * or on a whole processor.  The caller holds the state; the counters are
 * opened through the backend that serves the scope (__cpc_backend_for),
 * without overflow notification, and read and closed through that same
 * backend.  The common part of cpuctx.c and pctxctx.c.
 */
#ifndef LIBCPC_COUNTERS_H
#define LIBCPC_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "reqset.h"

struct cpc_counters {
	const struct cpc_backend *be;	/* NULL: not counting */
	_Alignas(8) unsigned char priv[CPC_BACKEND_PRIV_SIZE];
};

/*
 * Starts counting set in c (zeroed or closed): in thread `target` for
 * CPC_SCOPE_TASK, on processor `target` for CPC_SCOPE_CPU.  0, or -errno
 * with *bad the failing request (or -1).
 */
int __cpc_counters_open(struct cpc_counters *c, enum cpc_scope scope,
    const struct cpc_reqset *set, int target, int *bad);

/*
 * The n counts and the on-CPU nanoseconds the backend gives: 0, -EINVAL
 * (not counting) or the backend's -errno.
 */
int __cpc_counters_read(struct cpc_counters *c, uint64_t *vals, unsigned n,
    uint64_t *ns);

/* Stops counting; idempotent. */
void __cpc_counters_close(struct cpc_counters *c);

/*
 * Writes why counting in that scope was refused (EACCES, EPERM): the
 * rule of the backend that serves it (policy.h).
 */
void __cpc_counters_refusal(enum cpc_scope scope, char *buf, size_t n);

#endif
