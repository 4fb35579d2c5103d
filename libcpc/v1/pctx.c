/* SPDX-License-Identifier: MIT */
/*
 * The version 1 process-context interfaces (cpc_pctx_*): counting in the
 * LWPs of a process controlled through libpctx, from the controlling
 * process, on the core's process contexts (pctxctx.h).
 *
 * The bindings are kept here, one per (context, LWP), until
 * cpc_pctx_rele, a rebind, or the release of the context by libpctx.
 * Solaris cpc_pctx_invalidate makes the target's own next cpc_take_sample
 * fail with EAGAIN; a Linux process cannot reach into another's
 * counters, so here it invalidates the controller's binding of that LWP:
 * its next cpc_pctx_take_sample fails with EAGAIN until it is bound again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"
#include "v1.h"
#include "error.h"
#include "pctxctx.h"
#include "pes.h"
#include "platform_events.h"

struct v1_pctx_binding {
	struct v1_pctx_binding *next;
	pctx_t *pctx;
	__id_t lwpid;
	int invalid;
	int cpuver;
	uint32_t pes[2];
	struct cpc_pctxctx ctx;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct v1_pctx_binding *bindings;

/* The binding of (pctx, lwpid), with the lock held; or NULL. */
static struct v1_pctx_binding **find(pctx_t *pctx, __id_t lwpid)
{
	for (struct v1_pctx_binding **bp = &bindings; *bp != NULL;
	    bp = &(*bp)->next)
		if ((*bp)->pctx == pctx && (*bp)->lwpid == lwpid)
			return bp;
	return NULL;
}

static void drop(struct v1_pctx_binding **bp)
{
	struct v1_pctx_binding *b = *bp;
	*bp = b->next;
	__cpc_pctx_close(&b->ctx);
	free(b);
}

/* Drops the bindings of a context libpctx is releasing. */
static void forget(pctx_t *pctx)
{
	pthread_mutex_lock(&lock);
	for (struct v1_pctx_binding **bp = &bindings; *bp != NULL;)
		if ((*bp)->pctx == pctx)
			drop(bp);
		else
			bp = &(*bp)->next;
	pthread_mutex_unlock(&lock);
}

/* Checks an event for a process context and builds its request set. */
static int build_set(const cpc_event_t *ev, struct cpc_reqset *set,
    const char *fn)
{
	for (int i = 0; i < 2; i++)
		if (ev->ce_pes[i] & PES_INT) {
			__cpc_note(fn, "pic%d: 'int' is not available for "
			    "process contexts\n", i);
			return EINVAL;
		}
	return __cpc_v1_build_set(ev, 0, set, fn);
}

/* Explains why counting could not start in LWP lwpid. */
static void report_open_error(const char *fn, const cpc_event_t *ev,
    __id_t lwpid, int err, int bad)
{
	char name[CPC_MAX_EVENT_LEN] = "";

	if (bad >= 0 && bad <= 1 &&
	    __cpc_pes_event_name(ev->ce_cpuver, bad, ev->ce_pes[bad], name,
		sizeof(name)) != 0)
		name[0] = '\0';
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
		__cpc_note(fn, "pic%d: event '%s' cannot be counted on this "
		    "system (no hardware PMU or no such event)\n", bad, name);
		break;
	case EACCES:
	case EPERM:
		__cpc_note(fn, "lwp %d: not permitted to count (see "
		    "/proc/sys/kernel/perf_event_paranoid)\n", (int)lwpid);
		break;
	case ESRCH:
		__cpc_note(fn, "lwp %d: no such lwp\n", (int)lwpid);
		break;
	default:
		__cpc_note(fn, "lwp %d: cannot count: %s\n", (int)lwpid,
		    strerrordesc_np(err));
		break;
	}
}

/* The thread of LWP lwpid, or -1 with errno (reported). */
static int target(const char *fn, pctx_t *pctx, __id_t lwpid, pid_t *tid)
{
	int rc = __cpc_pctx_target(pctx, lwpid, tid);
	if (rc == 0)
		rc = __cpc_pctx_on_release(forget);
	if (rc == 0)
		return 0;
	if (rc == -ENOTSUP)
		__cpc_note(fn, "libpctx is not loaded in this process\n");
	return __cpc_fail(-rc);
}

int cpc_pctx_bind_event(pctx_t *pctx, __id_t lwpid, cpc_event_t *event,
    int flags)
{
	static const char fn[] = "pctx_bind_event";
	int saved = errno;
	struct cpc_reqset set;
	pid_t tid;
	int bad;

	/* No event: a release, with its result (both originals). */
	if (event == NULL)
		return cpc_pctx_rele(pctx, lwpid);
	/* Like cpc_bind_event, a failed bind leaves the LWP unbound. */
	(void)cpc_pctx_rele(pctx, lwpid);
	errno = saved;
	/* As illumos: no flag at all, not even CPC_BIND_LWP_INHERIT. */
	if (flags != 0) {
		__cpc_note(fn, "invalid flags 0x%x\n", (unsigned)flags);
		return __cpc_fail(EINVAL);
	}
	int err = build_set(event, &set, fn);
	if (err != 0)
		return __cpc_fail(err);
	if (target(fn, pctx, lwpid, &tid) != 0)
		return -1;
	struct v1_pctx_binding *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return __cpc_fail(ENOMEM);
	int rc = __cpc_pctx_open(&b->ctx, &set, tid, &bad);
	if (rc != 0) {
		free(b);
		report_open_error(fn, event, lwpid, -rc, bad);
		return __cpc_fail(-rc == ENOENT || -rc == EOPNOTSUPP ? EINVAL : -rc);
	}
	b->pctx = pctx;
	b->lwpid = lwpid;
	b->cpuver = event->ce_cpuver;
	b->pes[0] = event->ce_pes[0];
	b->pes[1] = event->ce_pes[1];
	pthread_mutex_lock(&lock);
	struct v1_pctx_binding **old = find(pctx, lwpid);
	if (old != NULL)
		drop(old);
	b->next = bindings;
	bindings = b;
	pthread_mutex_unlock(&lock);
	errno = saved;
	return 0;
}

int cpc_pctx_take_sample(pctx_t *pctx, __id_t lwpid, cpc_event_t *event)
{
	int saved = errno;
	uint64_t vals[2], tick = 0;

	if (event == NULL)
		return __cpc_fail(EINVAL);
	pthread_mutex_lock(&lock);
	struct v1_pctx_binding **bp = find(pctx, lwpid);
	if (bp == NULL) {
		/* No such LWP: ESRCH, as the originals; else not bound. */
		pthread_mutex_unlock(&lock);
		pid_t tid;
		if (target("pctx_take_sample", pctx, lwpid, &tid) != 0)
			return -1;
		return __cpc_fail(EINVAL);
	}
	int rc = bp == NULL ? -EINVAL
	    : (*bp)->invalid ? -EAGAIN
			     : __cpc_pctx_read(&(*bp)->ctx, vals, 2, &tick);
	if (rc == 0) {
		memset(event, 0, sizeof(*event));
		event->ce_cpuver = (*bp)->cpuver;
		event->ce_pes[0] = (*bp)->pes[0];
		event->ce_pes[1] = (*bp)->pes[1];
		event->ce_hrt = gethrtime();
		event->ce_tsc = tick;
		event->ce_pic[0] = vals[0];
		event->ce_pic[1] = vals[1];
	}
	pthread_mutex_unlock(&lock);
	if (rc != 0)
		return __cpc_fail(-rc);
	errno = saved;
	return 0;
}

int cpc_pctx_rele(pctx_t *pctx, __id_t lwpid)
{
	int saved = errno;
	pthread_mutex_lock(&lock);
	struct v1_pctx_binding **bp = find(pctx, lwpid);
	int bound = bp != NULL;
	if (bound)
		drop(bp);
	pthread_mutex_unlock(&lock);
	/*
	 * As on Solaris 8, releasing an unbound LWP is not an error; an LWP
	 * that does not exist is (ESRCH, as both originals).
	 */
	pid_t tid;
	if (!bound && target("pctx_rele", pctx, lwpid, &tid) != 0)
		return -1;
	errno = saved;
	return 0;
}

int cpc_pctx_invalidate(pctx_t *pctx, __id_t lwpid)
{
	static const char fn[] = "pctx_invalidate";
	int saved = errno;
	pid_t tid;

	pthread_mutex_lock(&lock);
	struct v1_pctx_binding **bp = find(pctx, lwpid);
	if (bp != NULL)
		(*bp)->invalid = 1;
	pthread_mutex_unlock(&lock);
	if (bp == NULL && target(fn, pctx, lwpid, &tid) != 0)
		return -1;
	errno = saved;
	return 0;
}
