/* SPDX-License-Identifier: MIT */
/* Processor contexts: see cpuctx.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "cpuctx.h"
#include "cpuinfo.h"
#include "libcpc.h"

/* The processors taken for system-wide counting in this process. */
static cpu_set_t claimed;
static pthread_mutex_t claimed_lock = PTHREAD_MUTEX_INITIALIZER;

int __cpc_cpu_claim(int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	pthread_mutex_lock(&claimed_lock);
	int taken = CPU_ISSET(cpu, &claimed);
	if (!taken)
		CPU_SET(cpu, &claimed);
	pthread_mutex_unlock(&claimed_lock);
	return taken ? -EAGAIN : 0;
}

void __cpc_cpu_unclaim(int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	pthread_mutex_lock(&claimed_lock);
	CPU_CLR(cpu, &claimed);
	pthread_mutex_unlock(&claimed_lock);
}

int __cpc_cpu_open(struct cpc_cpuctx *c, const struct cpc_reqset *set,
    int cpu, int *bad)
{
	int rc = __cpc_counters_open(&c->ctr, CPC_SCOPE_CPU, set, cpu, bad);
	if (rc == 0)
		c->tsc_at_bind = __cpc_rdtsc();
	return rc;
}

int __cpc_cpu_sample(struct cpc_cpuctx *c, uint64_t *vals, unsigned n,
    uint64_t *tick)
{
	uint64_t ns;
	int rc = __cpc_counters_read(&c->ctr, vals, n, &ns);
	if (rc != 0)
		return rc;
	*tick = __cpc_rdtsc() - c->tsc_at_bind;
	return 0;
}

void __cpc_cpu_close(struct cpc_cpuctx *c)
{
	__cpc_counters_close(&c->ctr);
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
