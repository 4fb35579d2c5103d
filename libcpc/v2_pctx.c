/*
 * cpc_bind_pctx: binding a set to an LWP of a process controlled through
 * libpctx, and sampling and unbinding such a set.
 *
 * On Linux the controlling process opens perf events on the target
 * thread itself (it may, being its tracer), so the counts live in the
 * controller and the target is not disturbed.  libcpc does not link
 * libpctx: it reaches the few libpctx functions it needs through weak
 * references, which are set whenever a process context exists (libpctx
 * is then loaded).  Also the version 1 cpc_pctx_* interfaces (v1_pctx.c)
 * are built on the helpers here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpuinfo.h"
#include "v2.h"

#define FN_PCTX "cpc_bind_pctx"

/* libpctx, when loaded (see the top of this file). */
extern __typeof__(__pctx_lwp_pid) __pctx_lwp_pid __attribute__((weak));
extern __typeof__(__pctx_set_release_hook) __pctx_set_release_hook
    __attribute__((weak));
extern __typeof__(pctx_terminate) pctx_terminate __attribute__((weak));
extern __typeof__(pctx_lwp_tid) pctx_lwp_tid __attribute__((weak));

struct pctx_binding {
	_Alignas(8) unsigned char priv[CPC_BACKEND_PRIV_SIZE];
	pid_t tid;
};

/*
 * The contexts that have bindings, per handle, for cpc_terminate; kept
 * without locks so that a signal handler may walk them.
 */
#define MAX_LINKS 64

struct link {
	_Atomic(cpc_t *) cpc;	/* NULL: a free slot */
	_Atomic(pctx_t *) pctx;
};

static struct link links[MAX_LINKS];
static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void forget_pctx(pctx_t *pctx)
{
	for (int i = 0; i < MAX_LINKS; i++)
		if (atomic_load(&links[i].pctx) == pctx) {
			atomic_store(&links[i].pctx, NULL);
			atomic_store(&links[i].cpc, NULL);
		}
	cpc_pctx_v1_forget(pctx);
}

static void install_hook(void)
{
	__pctx_set_release_hook(forget_pctx);
}

static void remember(cpc_t *cpc, pctx_t *pctx)
{
	for (int i = 0; i < MAX_LINKS; i++)
		if (atomic_load(&links[i].cpc) == cpc &&
		    atomic_load(&links[i].pctx) == pctx)
			return;
	for (int i = 0; i < MAX_LINKS; i++) {
		cpc_t *free_slot = NULL;
		if (atomic_compare_exchange_strong(&links[i].cpc, &free_slot,
			cpc)) {
			atomic_store(&links[i].pctx, pctx);
			return;
		}
	}
	/* Full: cpc_terminate will not reach this context. */
}

int cpc_pctx_target(pctx_t *pctx, __id_t id, pid_t *tid)
{
	if (__pctx_lwp_pid == NULL || __pctx_set_release_hook == NULL ||
	    pctx_lwp_tid == NULL)
		return -ENOTSUP;
	if (pctx == NULL)
		return -EINVAL;
	pthread_once(&hook_once, install_hook);
	/* id is a Solaris LWP id (1 is the main thread): find its thread. */
	pid_t t = pctx_lwp_tid(pctx, id);
	if (t < 0)
		return -ESRCH;
	*tid = t;
	return 0;
}

/*
 * Process contexts count through perf (perf_event_open on the target
 * thread), whatever the backend of the process's own LWPs: they need the
 * permission perf_event_paranoid gives for another thread.
 */
static const struct cpc_backend *pctx_backend(void)
{
	return &cpc_perf_backend;
}

int cpc_pctx_open(void *priv, const struct cpc_reqset *set, pid_t tid,
    int *bad)
{
	(void)cpc_tsc_khz();
	memset(priv, 0, CPC_BACKEND_PRIV_SIZE);
	return pctx_backend()->task_open(priv, set, tid, bad);
}

int cpc_pctx_read(void *priv, uint64_t *vals, unsigned n, uint64_t *tick)
{
	uint64_t ns = 0;
	int rc = pctx_backend()->sample(priv, vals, n, &ns);
	if (rc != 0)
		return rc;
	*tick = cpc_ns_to_tsc(ns);
	return 0;
}

void cpc_pctx_close(void *priv)
{
	pctx_backend()->release(priv);
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* Names the request that cannot be counted here. */
static void explain(cpc_t *cpc, const cpc_set_t *set, int bad)
{
	char msg[CPC_MAX_EVENT_LEN + 96];
	for (const struct v2_req *r = set->reqs; r != NULL; r = r->next)
		if (r->index == bad) {
			snprintf(msg, sizeof(msg), "event '%s' cannot be "
			    "counted on this system (no hardware PMU or no "
			    "such event)", r->event);
			v2_note(cpc, FN_PCTX, msg);
		}
}

int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, __id_t id, cpc_set_t *set,
    uint_t flags)
{
	int saved = errno;
	struct cpc_reqset rs;
	pid_t tid;
	int bad;

	if (flags != 0 || set == NULL || set->nreqs == 0 ||
	    !v2_owns_set(cpc, set))
		return fail(EINVAL);
	for (struct v2_req *r = set->reqs; r != NULL; r = r->next) {
		if (r->bind_subcode > 0) {
			v2_report(cpc, FN_PCTX, r->bind_subcode);
			return fail(r->bind_errno);
		}
		if (r->req.flags & CPC_OVF_NOTIFY_EMT) {
			v2_note(cpc, FN_PCTX, "overflow notification is not "
			    "available for process contexts");
			return fail(ENOTSUP);
		}
	}
	int rc = cpc_pctx_target(pctx, id, &tid);
	if (rc == -ENOTSUP) {
		v2_note(cpc, FN_PCTX, "libpctx is not loaded in this process");
		return fail(ENOTSUP);
	}
	if (rc != 0)
		return fail(-rc);
	if (set->state != V2_UNBOUND)
		v2_unbind_set(set);

	struct pctx_binding *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return fail(ENOMEM);
	v2_compile(set, &rs);
	rc = cpc_pctx_open(b->priv, &rs, tid, &bad);
	if (rc != 0) {
		free(b);
		switch (-rc) {
		case EACCES:
		case EPERM:
			v2_note(cpc, FN_PCTX, "not permitted to count in that "
					      "process (see /proc/sys/kernel/"
					      "perf_event_paranoid)");
			return fail(EACCES);
		case ESRCH:
			return fail(ESRCH);
		case ENOENT:
		case EOPNOTSUPP:
		case EBUSY:
			v2_report(cpc, FN_PCTX, CPC_RESOURCE_UNAVAIL);
			explain(cpc, set, bad);
			return fail(EINVAL);
		default:
			return fail(-rc);
		}
	}
	b->tid = tid;
	remember(cpc, pctx);
	set->bound_priv = b;
	set->state = V2_BOUND_PCTX;
	errno = saved;
	return 0;
}

int v2_pctx_sample(cpc_set_t *set, cpc_buf_t *buf)
{
	struct pctx_binding *b = set->bound_priv;
	uint64_t tick;
	int rc = cpc_pctx_read(b->priv, buf->vals, (unsigned)buf->nvals, &tick);
	if (rc != 0)
		return rc;
	buf->tick = tick;
	buf->hrtime = gethrtime();
	return 0;
}

void v2_pctx_unbind(cpc_set_t *set)
{
	struct pctx_binding *b = set->bound_priv;
	if (b == NULL)
		return;
	cpc_pctx_close(b->priv);
	free(b);
	set->bound_priv = NULL;
}

void v2_pctx_terminate(cpc_t *cpc)
{
	if (pctx_terminate == NULL)
		return;
	for (int i = 0; i < MAX_LINKS; i++) {
		pctx_t *pctx = atomic_load(&links[i].pctx);
		if (pctx != NULL && atomic_load(&links[i].cpc) == cpc)
			pctx_terminate(pctx);
	}
}
