/*
 * System-wide counting on one processor: cpc_bind_cpu, and sampling and
 * unbinding such a set.  Like Solaris, the calling LWP is bound to that
 * processor while the set is bound (and its old affinity is restored at
 * unbind); counting uses per-CPU perf events, which need privilege
 * (CAP_PERFMON, or perf_event_paranoid <= 0).
 *
 * Unlike Solaris, binding a CPU does not invalidate the per-LWP contexts
 * of other processes: perf lets both kinds of counting run together.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpuinfo.h"
#include "v2.h"

#define FN_CPU "cpc_bind_cpu"

struct cpu_binding {
	int cpu;
	cpu_set_t old_affinity;
	uint64_t tsc_at_bind;
	_Alignas(8) unsigned char priv[CPC_BACKEND_PRIV_SIZE];
};

static int fail(int err)
{
	errno = err;
	return -1;
}

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	struct cpc_reqset rs;
	int bad;

	if (flags != 0 || set == NULL || set->nreqs == 0 ||
	    !v2_owns_set(cpc, set))
		return fail(EINVAL);
	for (struct v2_req *r = set->reqs; r != NULL; r = r->next)
		if (r->bind_subcode > 0) {
			v2_report(cpc, FN_CPU, r->bind_subcode);
			return fail(r->bind_errno);
		}
	if (set->state != V2_UNBOUND)
		v2_unbind_set(set);

	struct cpu_binding *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return fail(ENOMEM);
	b->cpu = id;
	if (sched_getaffinity(0, sizeof(b->old_affinity), &b->old_affinity) != 0) {
		free(b);
		return fail(errno);
	}
	cpu_set_t one;
	CPU_ZERO(&one);
	if (id < 0 || id >= CPU_SETSIZE) {
		free(b);
		return fail(EINVAL);
	}
	CPU_SET(id, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0) {
		int e = errno;
		v2_report(cpc, FN_CPU, CPC_PBIND_FAILED);
		free(b);
		return fail(e);
	}
	v2_compile(set, &rs);
	for (unsigned i = 0; i < rs.nreqs; i++)
		rs.req[i].flags &= ~CPC_OVF_NOTIFY_EMT;
	(void)cpc_tsc_khz();
	int rc = cpc_perf_cpu_open(b->priv, &rs, id, &bad);
	if (rc != 0) {
		sched_setaffinity(0, sizeof(b->old_affinity), &b->old_affinity);
		free(b);
		if (rc == -EACCES || rc == -EPERM) {
			v2_note(cpc, FN_CPU, "counting on a processor needs "
			    "CAP_PERFMON or perf_event_paranoid <= 0");
			return fail(EACCES);
		}
		if (rc == -ENODEV || rc == -EINVAL)
			return fail(EINVAL);	/* no such processor */
		v2_report(cpc, FN_CPU, CPC_RESOURCE_UNAVAIL);
		return fail(-rc == ENOENT || -rc == ENOSPC ? EINVAL : -rc);
	}
	b->tsc_at_bind = cpc_rdtsc();
	set->bound_priv = b;
	set->state = V2_BOUND_CPU;
	return 0;
}

/* Samples a CPU-bound set: 0 or -errno. */
int v2_cpu_sample(cpc_set_t *set, cpc_buf_t *buf)
{
	struct cpu_binding *b = set->bound_priv;
	uint64_t ns;
	int rc = cpc_perf_backend.sample(b->priv, buf->vals,
	    (unsigned)buf->nvals, &ns);
	if (rc != 0)
		return rc;
	buf->tick = cpc_rdtsc() - b->tsc_at_bind;
	buf->hrtime = gethrtime();
	return 0;
}

void v2_cpu_unbind(cpc_set_t *set)
{
	struct cpu_binding *b = set->bound_priv;
	if (b == NULL)
		return;
	cpc_perf_backend.release(b->priv);
	sched_setaffinity(0, sizeof(b->old_affinity), &b->old_affinity);
	free(b);
	set->bound_priv = NULL;
}
