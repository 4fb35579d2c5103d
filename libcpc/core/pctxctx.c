/* SPDX-License-Identifier: MIT */
/* Process contexts: see pctxctx.h. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cpuinfo.h"
#include "libcpc.h"
#include "pctxctx.h"

/* libpctx, when loaded (see pctxctx.h). */
extern __typeof__(__pctx_lwp_pid) __pctx_lwp_pid __attribute__((weak));
extern __typeof__(__pctx_set_release_hook) __pctx_set_release_hook
    __attribute__((weak));
extern __typeof__(pctx_terminate) pctx_terminate __attribute__((weak));
extern __typeof__(pctx_lwp_tid) pctx_lwp_tid __attribute__((weak));

/* The contexts owners have bindings in, kept without locks. */
#define MAX_LINKS 64

struct link {
	_Atomic(const void *) owner;	/* NULL: a free slot */
	_Atomic(pctx_t *) pctx;
};

static struct link links[MAX_LINKS];

#define MAX_RELEASE_FNS 4
static void (*_Atomic release_fns[MAX_RELEASE_FNS])(pctx_t *);

static pthread_once_t hook_once = PTHREAD_ONCE_INIT;

static void on_release(pctx_t *pctx)
{
	for (int i = 0; i < MAX_LINKS; i++)
		if (atomic_load(&links[i].pctx) == pctx) {
			atomic_store(&links[i].pctx, NULL);
			atomic_store(&links[i].owner, NULL);
		}
	for (int i = 0; i < MAX_RELEASE_FNS; i++) {
		void (*fn)(pctx_t *) = atomic_load(&release_fns[i]);
		if (fn != NULL)
			fn(pctx);
	}
}

static void install_hook(void)
{
	__pctx_set_release_hook(on_release);
}

int __cpc_pctx_on_release(void (*fn)(pctx_t *pctx))
{
	for (int i = 0; i < MAX_RELEASE_FNS; i++) {
		void (*expect)(pctx_t *) = NULL;
		if (atomic_compare_exchange_strong(&release_fns[i], &expect,
			fn) ||
		    expect == fn)
			return 0;
	}
	return -ENOSPC;
}

void __cpc_pctx_link(const void *owner, pctx_t *pctx)
{
	for (int i = 0; i < MAX_LINKS; i++)
		if (atomic_load(&links[i].owner) == owner &&
		    atomic_load(&links[i].pctx) == pctx)
			return;
	for (int i = 0; i < MAX_LINKS; i++) {
		const void *free_slot = NULL;
		if (atomic_compare_exchange_strong(&links[i].owner, &free_slot,
			owner)) {
			atomic_store(&links[i].pctx, pctx);
			return;
		}
	}
	/* Full: __cpc_pctx_terminate_owner will not reach this context. */
}

void __cpc_pctx_terminate_owner(const void *owner)
{
	if (pctx_terminate == NULL)
		return;
	for (int i = 0; i < MAX_LINKS; i++) {
		pctx_t *pctx = atomic_load(&links[i].pctx);
		if (pctx != NULL && atomic_load(&links[i].owner) == owner)
			pctx_terminate(pctx);
	}
}

int __cpc_pctx_target(pctx_t *pctx, __id_t id, pid_t *tid)
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

int __cpc_pctx_open(struct cpc_pctxctx *c, const struct cpc_reqset *set,
    pid_t tid, int *bad)
{
	int rc = __cpc_counters_open(&c->ctr, CPC_SCOPE_TASK, set, tid, bad);
	if (rc == 0)
		c->tid = tid;
	return rc;
}

int __cpc_pctx_read(struct cpc_pctxctx *c, uint64_t *vals, unsigned n,
    uint64_t *tick)
{
	uint64_t ns = 0;
	int rc = __cpc_counters_read(&c->ctr, vals, n, &ns);
	if (rc != 0)
		return rc;
	*tick = __cpc_ns_to_tsc(ns);
	return 0;
}

void __cpc_pctx_close(struct cpc_pctxctx *c)
{
	__cpc_counters_close(&c->ctr);
}
