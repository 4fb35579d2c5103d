/*
 * The calling LWP's counter context: at most one bound request set per
 * LWP, kept in thread-local storage so that binding and sampling need no
 * allocation and no lock (they are async-signal-safe).
 */
#ifndef LIBCPC_LWPCTX_H
#define LIBCPC_LWPCTX_H

#include <signal.h>
#include <stdint.h>

#include "reqset.h"

/*
 * Binds set to the calling LWP, replacing any previous binding.  Returns 0
 * or -errno; on failure *bad is the failing request (or -1) and *why a
 * static explanation when the backend itself is unavailable.
 */
int cpc_lwp_bind(const struct cpc_reqset *set, unsigned bflags, int *bad,
    const char **why);

/*
 * Samples the n counts of the calling LWP's binding and its on-CPU time
 * since bind, converted to TSC ticks.  0, -EINVAL (nothing bound) or
 * -EAGAIN (context lost).
 */
int cpc_lwp_sample(uint64_t *vals, unsigned n, uint64_t *tsc);

/* Releases the calling LWP's binding: 0, or -EINVAL if none. */
int cpc_lwp_release(void);

/* 1 if the calling LWP has a binding. */
int cpc_lwp_is_bound(void);

enum { CPC_OVF_NOT_OURS, CPC_OVF_NEW, CPC_OVF_DUPLICATE };

/*
 * In the SIGEMT handler: is si the overflow notification of the calling
 * LWP's binding?  A new one freezes all its counters until the next bind.
 */
int cpc_lwp_overflow(const siginfo_t *si);

#endif
