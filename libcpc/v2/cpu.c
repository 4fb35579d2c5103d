/* SPDX-License-Identifier: MIT */
/*
 * System-wide counting on one processor: cpc_bind_cpu, on the core's
 * processor contexts (cpuctx.h); sampling and unbinding such a set go
 * through the state dispatch of bind.c.  Like Solaris, the calling LWP is
 * bound to that processor while the set is bound (and its old affinity
 * is restored at unbind); counting uses per-CPU perf events, which need
 * privilege (CAP_PERFMON, or perf_event_paranoid <= 0).
 *
 * Unlike Solaris, binding a CPU does not invalidate the per-LWP contexts
 * of other processes: perf lets both kinds of counting run together.
 *
 * As on Solaris, within the process a processor can be bound by one set
 * at a time, and an LWP with a processor binding cannot bind to itself
 * (EAGAIN); cpubind.c keeps the bindings and the LWPs' affinities.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "cpuctx.h"
#include "error.h"
#include "v2.h"

#define FN_CPU "cpc_bind_cpu"

int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	struct cpc_reqset rs;
	int bad = -1;

	if (flags != 0 || set == NULL || set->nreqs == 0 ||
	    !v2_owns_set(cpc, set))
		return __cpc_fail(EINVAL);
	if (v2_check_reqs(cpc, set, FN_CPU) != 0)
		return -1;
	if (set->state != V2_UNBOUND)
		v2_unbind_set(set);

	struct cpc_cpuctx *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return __cpc_fail(ENOMEM);
	if (id < 0 || id >= CPU_SETSIZE) {
		free(c);
		return __cpc_fail(EINVAL);
	}
	int rc = v2_cpu_claim(set, id);
	if (rc == -EAGAIN) {
		v2_note(cpc, FN_CPU, "the processor is already bound");
		free(c);
		return __cpc_fail(EAGAIN);
	}
	if (rc != 0) {
		v2_report(cpc, FN_CPU, CPC_PBIND_FAILED);
		free(c);
		return __cpc_fail(-rc);
	}
	v2_compile(set, &rs);
	rc = __cpc_cpu_open(c, &rs, id, &bad);
	if (rc != 0) {
		__cpc_cpu_close(c);
		v2_cpu_forget(set);
		free(c);
		if (rc == -EACCES || rc == -EPERM) {
			v2_note(cpc, FN_CPU, "counting on a processor needs "
			    "CAP_PERFMON or perf_event_paranoid <= 0");
			return __cpc_fail(EACCES);
		}
		if (rc == -ENODEV || rc == -EINVAL)
			return __cpc_fail(EINVAL);	/* no such processor */
		if (rc == -ENOENT && bad >= 0)
			v2_note_uncountable(cpc, set, bad);
		v2_report(cpc, FN_CPU, CPC_RESOURCE_UNAVAIL);
		return __cpc_fail(-rc == ENOENT || -rc == ENOSPC ? EINVAL : -rc);
	}
	set->bound_cpu = c;
	set->state = V2_BOUND_CPU;
	return 0;
}
