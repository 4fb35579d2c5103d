/* SPDX-License-Identifier: MIT */
/*
 * cpc_bind_pctx: binding a set to an LWP of a process controlled through
 * libpctx, on the core's process contexts (pctxctx.h); sampling and
 * unbinding such a set go through the state dispatch of bind.c.
 *
 * On Linux the controlling process counts in the target thread itself (it
 * may, being its tracer), so the counts live in the controller and the
 * target is not disturbed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pctxctx.h"
#include "error.h"
#include "v2.h"

#define FN_PCTX "cpc_bind_pctx"

int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, __id_t id, cpc_set_t *set,
    uint_t flags)
{
	int saved = errno;
	struct cpc_reqset rs;
	pid_t tid;
	int bad;

	if (flags != 0 || set == NULL || set->nreqs == 0 ||
	    !v2_owns_set(cpc, set))
		return __cpc_fail(EINVAL);
	if (v2_check_reqs(cpc, set, FN_PCTX) != 0)
		return -1;
	int rc = __cpc_pctx_target(pctx, id, &tid);
	if (rc == -ENOTSUP) {
		v2_note(cpc, FN_PCTX, "libpctx is not loaded in this process");
		return __cpc_fail(ENOTSUP);
	}
	if (rc != 0)
		return __cpc_fail(-rc);
	if (set->state != V2_UNBOUND)
		v2_unbind_set(set);

	struct cpc_pctxctx *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return __cpc_fail(ENOMEM);
	v2_compile(set, &rs);
	/*
	 * CPC_OVF_NOTIFY_EMT is accepted, as by illumos, but the counters of
	 * another process count on without notification: the SIGEMT that
	 * presents and freezes an overflow is handled by libcpc in the
	 * process that bound, not in the target (cpc_bind_curlwp(3CPC)).
	 */
	for (unsigned i = 0; i < rs.nreqs; i++)
		rs.req[i].flags &= ~(uint32_t)CPC_OVF_NOTIFY_EMT;
	rc = __cpc_pctx_open(c, &rs, tid, &bad);
	if (rc != 0) {
		free(c);
		switch (-rc) {
		case EACCES:
		case EPERM:
			v2_note(cpc, FN_PCTX, "not permitted to count in that "
					      "process (see /proc/sys/kernel/"
					      "perf_event_paranoid)");
			return __cpc_fail(EACCES);
		case ESRCH:
			return __cpc_fail(ESRCH);
		case ENOENT:
		case EOPNOTSUPP:
		case EBUSY:
		case ENOSPC:
			v2_report(cpc, FN_PCTX, CPC_RESOURCE_UNAVAIL);
			v2_note_uncountable(cpc, set, bad);
			return __cpc_fail(EINVAL);
		default:
			return __cpc_fail(-rc);
		}
	}
	__cpc_pctx_link(cpc, pctx);
	set->bound_pctx = c;
	set->state = V2_BOUND_PCTX;
	errno = saved;
	return 0;
}
