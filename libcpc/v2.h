/*
 * Private structures of the current (version 2) interfaces: handles, sets,
 * requests and buffers.  Sets are compiled into the core's request sets
 * at bind time.
 */
#ifndef LIBCPC_V2_H
#define LIBCPC_V2_H

#include <pthread.h>

#include "libcpc.h"
#include "reqset.h"

enum v2_set_state { V2_UNBOUND, V2_BOUND_LWP, V2_BOUND_CPU, V2_BOUND_PCTX };

struct v2_req {
	struct v2_req *next;	/* newest first, as on Solaris */
	int index;		/* order of addition */
	char *event;
	uint64_t preset;
	uint_t flags;
	int nattrs;
	cpc_attr_t *attrs;	/* private copies */
	/* Resolved at add time, so binding needs no allocation: */
	struct cpc_req req;	/* event, preset and flags for the core */
	int bind_subcode;	/* > 0: what binding must report */
	int bind_errno;
};

struct __cpc_set {
	cpc_t *cpc;
	struct __cpc_set *next;
	struct v2_req *reqs;
	int nreqs;
	volatile int state;	/* enum v2_set_state */
	void *bound_priv;	/* CPU or pctx binding (v2_cpu.c, v2_pctx.c) */
};

struct __cpc_buf {
	cpc_t *cpc;
	struct __cpc_buf *next;
	int nvals;
	hrtime_t hrtime;
	uint64_t tick;
	uint64_t vals[];
};

struct __cpc {
	pthread_mutex_t lock;
	cpc_errhndlr_t *errfn;
	struct __cpc_set *sets;
	struct __cpc_buf *bufs;
	int cpuver;
	uint_t npic;
	uint_t caps;
};

/* Locks the handle with SIGEMT held, so an overflow handler cannot deadlock. */
void v2_lock(cpc_t *cpc, sigset_t *saved);
void v2_unlock(cpc_t *cpc, const sigset_t *saved);

/* Reports subcode for function fn through the handle's error handler. */
void v2_report(cpc_t *cpc, const char *fn, int subcode);

/*
 * Reports a Linux-specific problem (a message without a final newline)
 * through the handle's error handler, with subcode -1.
 */
void v2_note(cpc_t *cpc, const char *fn, const char *msg);

/* 1 if set belongs to cpc (takes the lock). */
int v2_owns_set(cpc_t *cpc, const cpc_set_t *set);

/*
 * Resolves an event name and its attributes for counter picno (-1: any
 * counter) into a core request.  Returns 0, or the subcode to report:
 * CPC_INVALID_EVENT, CPC_PIC_NOT_CAPABLE.  Attribute values are checked
 * later (v2_check_attrs).
 */
int v2_resolve(cpc_t *cpc, const char *event, int picno, struct cpc_req *out,
    int *plain);

/* Is the event valid on counter picno? */
int v2_event_on_pic(cpc_t *cpc, const char *event, uint_t picno);

/* Is name an attribute of this platform (including "picnum")? */
int v2_known_attr(cpc_t *cpc, const char *name);

/*
 * Applies the attributes to a resolved request: 0, or the subcode and
 * errno that binding must report.
 */
int v2_apply_attrs(cpc_t *cpc, struct cpc_req *req, int plain,
    int nattrs, const cpc_attr_t *attrs, int *err);

/* CPU-bound sets (v2_cpu.c): sample (0 or -errno) and release. */
int v2_cpu_sample(cpc_set_t *set, cpc_buf_t *buf);
void v2_cpu_unbind(cpc_set_t *set);

/*
 * Process contexts (v2_pctx.c, v1_pctx.c).  cpc_pctx_target checks that
 * LWP id belongs to pctx and gives its thread: 0, -ENOTSUP (libpctx not
 * loaded), -EINVAL or -ESRCH.  cpc_pctx_open, _read and _close count a
 * request set in that thread in the backend state priv
 * (CPC_BACKEND_PRIV_SIZE bytes); _read gives the counts and the thread's
 * on-CPU time in TSC ticks (0 or -errno).
 */
int cpc_pctx_target(pctx_t *pctx, __id_t id, pid_t *tid);
int cpc_pctx_open(void *priv, const struct cpc_reqset *set, pid_t tid,
    int *bad);
int cpc_pctx_read(void *priv, uint64_t *vals, unsigned n, uint64_t *tick);
void cpc_pctx_close(void *priv);
/* Drops the version 1 bindings of a context libpctx is releasing. */
void cpc_pctx_v1_forget(pctx_t *pctx);
/* pctx-bound sets: sample (0 or -errno) and release. */
int v2_pctx_sample(cpc_set_t *set, cpc_buf_t *buf);
void v2_pctx_unbind(cpc_set_t *set);
/* Ends the pctx_run of every context a set of cpc is bound in. */
void v2_pctx_terminate(cpc_t *cpc);

/* Releases whatever binding the set has; it becomes unbound. */
void v2_unbind_set(cpc_set_t *set);

/* Builds the core request set of a set, in request-index order. */
void v2_compile(const cpc_set_t *set, struct cpc_reqset *out);

#endif
