/* SPDX-License-Identifier: MIT */
/*
 * Private structures of the current (version 2) interfaces: handles, sets,
 * requests and buffers.  Sets are compiled into the core's request sets
 * at bind time.
 */
#ifndef LIBCPC_V2_H
#define LIBCPC_V2_H

#include <pthread.h>

#include "libcpc.h"
#include "identity.h"
#include "reqset.h"

struct cpc_cpuctx;
struct cpc_pctxctx;

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
	struct cpc_cpuctx *bound_cpu;	/* V2_BOUND_CPU (cpu.c) */
	struct cpc_pctxctx *bound_pctx;	/* V2_BOUND_PCTX (pctx.c) */
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
	struct cpc_identity id;	/* cciname, cpuref, attributes */
	char note[CPC_MAX_EVENT_LEN + 400];	/* cpc_linux_errnote */
};

/* Locks the handle with SIGEMT held, so an overflow handler cannot deadlock. */
void v2_lock(cpc_t *cpc, sigset_t *saved);
void v2_unlock(cpc_t *cpc, const sigset_t *saved);

/*
 * Takes node (a TYPE *) out of the handle's list head (cpc->sets or
 * cpc->bufs, linked through ->next) under the handle's lock.  rc becomes
 * 0, or -1 with errno EINVAL when node is not on the list.
 */
#define V2_UNLINK(cpc, TYPE, head, node, rc)                                   \
	do {                                                                   \
		sigset_t v2_saved_;                                            \
		(rc) = -1;                                                     \
		v2_lock((cpc), &v2_saved_);                                    \
		for (TYPE **v2_p_ = &(head); *v2_p_ != NULL;                   \
		     v2_p_ = &(*v2_p_)->next)                                  \
			if (*v2_p_ == (node)) {                                \
				*v2_p_ = (node)->next;                         \
				(rc) = 0;                                      \
				break;                                         \
			}                                                      \
		v2_unlock((cpc), &v2_saved_);                                  \
		if ((rc) != 0)                                                 \
			errno = EINVAL;                                        \
	} while (0)

/*
 * Processor bindings (cpubind.c).  v2_cpu_claim records set's binding of
 * processor cpu by the calling LWP and pins it there: 0, -EAGAIN if
 * another set of the process has the processor, or -errno.
 * v2_cpu_lwp_has_binding: does the calling LWP have one, other than
 * set's.  v2_cpu_forget releases set's, restoring its LWP's affinity.
 */
int v2_cpu_claim(const cpc_set_t *set, int cpu);
int v2_cpu_lwp_has_binding(const cpc_set_t *except);
void v2_cpu_forget(const cpc_set_t *set);

/* Reports subcode for function fn through the handle's error handler. */
void v2_report(cpc_t *cpc, const char *fn, int subcode);

/*
 * Records a Linux-specific problem (a message without a final newline)
 * that has no Solaris subcode: as on Solaris nothing is reported, neither
 * through the handle's error handler nor on stderr; the message is the
 * handle's note (cpc_linux_errnote).
 */
void v2_note(cpc_t *cpc, const char *fn, const char *msg);

/* Keeps msg as the handle's note (cpc_linux_errnote), printing nothing. */
void v2_keep_note(cpc_t *cpc, const char *msg);
/* Notes why request bad of set cannot be counted here, with the remedy. */
void v2_note_uncountable(cpc_t *cpc, const cpc_set_t *set, int bad);

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

/*
 * Reports the first problem found when the requests of set were added
 * (for binding function fn): 0, or -1 with errno set.
 */
int v2_check_reqs(cpc_t *cpc, const cpc_set_t *set, const char *fn);

/*
 * Releases whatever binding the set has; it becomes unbound.  bind.c
 * holds the one dispatch on a set's bind state: this, and sampling.
 */
void v2_unbind_set(cpc_set_t *set);

/* Builds the core request set of a set, in request-index order. */
void v2_compile(const cpc_set_t *set, struct cpc_reqset *out);

#endif
