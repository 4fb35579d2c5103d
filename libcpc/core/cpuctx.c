/* Processor contexts: see cpuctx.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <string.h>

#include "cpuctx.h"
#include "cpuinfo.h"
#include "libcpc.h"

int __cpc_cpu_pin(struct cpc_cpuctx *c, int cpu)
{
	cpu_set_t one;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	if (sched_getaffinity(0, sizeof(c->old_affinity), &c->old_affinity))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return -errno;
	c->pinned = 1;
	return 0;
}

int __cpc_cpu_open(struct cpc_cpuctx *c, const struct cpc_reqset *set, int cpu,
    int *bad)
{
	const struct cpc_backend *be = __cpc_backend_for(CPC_SCOPE_CPU, NULL);
	struct cpc_reqset plain = *set;

	for (unsigned i = 0; i < plain.nreqs; i++)
		plain.req[i].flags &= ~CPC_OVF_NOTIFY_EMT;
	/* Calibrate the TSC once, before anything counts. */
	(void)__cpc_tsc_khz();
	memset(c->priv, 0, sizeof(c->priv));
	int rc = be->cpu_open(c->priv, &plain, cpu, bad);
	if (rc != 0)
		return rc;
	c->be = be;
	c->tsc_at_bind = __cpc_rdtsc();
	return 0;
}

int __cpc_cpu_sample(struct cpc_cpuctx *c, uint64_t *vals, unsigned n,
    uint64_t *tick)
{
	uint64_t ns;

	if (c->be == NULL)
		return -EINVAL;
	int rc = c->be->sample(c->priv, vals, n, &ns);
	if (rc != 0)
		return rc;
	*tick = __cpc_rdtsc() - c->tsc_at_bind;
	return 0;
}

void __cpc_cpu_close(struct cpc_cpuctx *c)
{
	if (c->be != NULL) {
		c->be->release(c->priv);
		c->be = NULL;
	}
	if (c->pinned) {
		sched_setaffinity(0, sizeof(c->old_affinity), &c->old_affinity);
		c->pinned = 0;
	}
}

int __cpc_cpu_probe(void)
{
	struct cpc_cpuctx c;
	struct cpc_reqset set;
	int bad;

	memset(&c, 0, sizeof(c));
	memset(&set, 0, sizeof(set));
	set.nreqs = 1;
	set.req[0].sel.type = PERF_TYPE_SOFTWARE;
	set.req[0].sel.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	set.req[0].flags = CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	int cpu = sched_getcpu();
	int rc = __cpc_cpu_open(&c, &set, cpu < 0 ? 0 : cpu, &bad);
	if (rc == 0)
		__cpc_cpu_close(&c);
	return rc;
}
