/* SPDX-License-Identifier: MIT */
/*
 * The backends themselves: for backend.c, which chooses among them, and
 * for their own files.  Everything else reaches counters through
 * __cpc_backend_for (backend.h); lwpctx.c only tells the perf backend
 * apart, to call its sample inline (perf_sample.h).
 */
#ifndef LIBCPC_BACKENDS_H
#define LIBCPC_BACKENDS_H

struct cpc_backend;

extern const struct cpc_backend __cpc_perf_backend;
extern const struct cpc_backend __cpc_kmod_backend;

/* Opens the kernel module's device for the kmod backend: 0 or -errno. */
int __cpc_kmod_open(void);

#endif
