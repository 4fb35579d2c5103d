/* SPDX-License-Identifier: MIT */
/* Counters outside the calling LWP: see counters.h. */
#include <errno.h>
#include <string.h>

#include "backends.h"
#include "counters.h"
#include "cpuinfo.h"
#include "libcpc.h"
#include "policy.h"

int __cpc_counters_open(struct cpc_counters *c, enum cpc_scope scope,
    const struct cpc_reqset *set, int target, int *bad)
{
	const struct cpc_backend *be = __cpc_backend_for(scope, NULL);
	struct cpc_reqset plain = *set;
	int rc;

	*bad = -1;
	for (unsigned i = 0; i < plain.nreqs; i++)
		plain.req[i].flags &= ~CPC_OVF_NOTIFY_EMT;
	/* Calibrate the TSC once, before anything counts. */
	(void)__cpc_tsc_khz();
	memset(c->priv, 0, sizeof(c->priv));
	switch (scope) {
	case CPC_SCOPE_TASK:
		rc = be->task_open(c->priv, &plain, (pid_t)target, bad);
		break;
	case CPC_SCOPE_CPU:
		rc = be->cpu_open(c->priv, &plain, target, bad);
		/*
		 * The module refuses processors to users the administrator
		 * did not grant them (or has none): perf may allow them
		 * (perf_event_paranoid <= 0).
		 */
		if ((rc == -EACCES || rc == -EPERM || rc == -ENOTTY) &&
		    be != &__cpc_perf_backend) {
			int prc;
			be = &__cpc_perf_backend;
			memset(c->priv, 0, sizeof(c->priv));
			prc = be->cpu_open(c->priv, &plain, target, bad);
			if (prc == 0 || rc == -ENOTTY)
				rc = prc;
		}
		break;
	default:
		return -EINVAL;
	}
	if (rc == 0)
		c->be = be;
	return rc;
}

int __cpc_counters_read(struct cpc_counters *c, uint64_t *vals, unsigned n,
    uint64_t *ns)
{
	if (c->be == NULL)
		return -EINVAL;
	return c->be->sample(c->priv, vals, n, ns);
}

void __cpc_counters_close(struct cpc_counters *c)
{
	if (c->be != NULL) {
		c->be->release(c->priv);
		c->be = NULL;
	}
}

void __cpc_counters_refusal(enum cpc_scope scope, char *buf, size_t n)
{
	const struct cpc_backend *be = __cpc_backend_for(scope, NULL);
	int kmod = be != NULL && strcmp(be->name, "kmod") == 0;

	if (scope == CPC_SCOPE_CPU)
		__cpc_policy_cpu(buf, n, kmod);
	else
		__cpc_policy_task(buf, n, kmod);
}
