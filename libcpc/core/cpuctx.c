/* SPDX-License-Identifier: MIT */
/* Processor contexts: see cpuctx.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cpuctx.h"
#include "cpuinfo.h"
#include "libcpc.h"

/*
 * The processors taken for system-wide counting in this process, and for
 * each a socket bound to the abstract address "libcpc-cpu-N" (fd + 1;
 * 0: none), which no other process can bind while it is open: the
 * machine-wide claim, released by the kernel when the last descriptor
 * closes (a fork's copy keeps it, as a copy of the original's open
 * device does).
 */
static cpu_set_t claimed;
static int claim_sock[CPU_SETSIZE];
static pthread_mutex_t claimed_lock = PTHREAD_MUTEX_INITIALIZER;

/* The socket that holds cpu machine-wide; -EAGAIN if another holds it. */
static int claim_machine_wide(int cpu)
{
	struct sockaddr_un addr;
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	/* sun_path[0] stays 0: an abstract address, no file. */
	int len = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1,
	    "libcpc-cpu-%d", cpu);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr,
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    (size_t)len)) != 0) {
		int e = errno;
		close(fd);
		return e == EADDRINUSE ? -EAGAIN : -e;
	}
	return fd;
}

int __cpc_cpu_claim(int cpu)
{
	return __cpc_cpu_claim_fd(cpu, NULL);
}

int __cpc_cpu_claim_fd(int cpu, int *sock)
{
	if (sock != NULL)
		*sock = -1;
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -EINVAL;
	int saved = errno, rc = 0;
	pthread_mutex_lock(&claimed_lock);
	if (CPU_ISSET(cpu, &claimed)) {
		rc = -EAGAIN;
	} else {
		int fd = claim_machine_wide(cpu);
		/*
		 * Without a socket (no descriptor left, say) the claim holds
		 * within the process only.
		 */
		if (fd == -EAGAIN) {
			rc = -EAGAIN;
		} else if (sock != NULL) {
			*sock = fd >= 0 ? fd : -1;	/* the caller's to close */
			CPU_SET(cpu, &claimed);
		} else {
			claim_sock[cpu] = fd >= 0 ? fd + 1 : 0;
			CPU_SET(cpu, &claimed);
		}
	}
	pthread_mutex_unlock(&claimed_lock);
	errno = saved;
	return rc;
}

void __cpc_cpu_unclaim(int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	int saved = errno;
	pthread_mutex_lock(&claimed_lock);
	if (claim_sock[cpu] > 0)
		close(claim_sock[cpu] - 1);
	claim_sock[cpu] = 0;
	CPU_CLR(cpu, &claimed);
	pthread_mutex_unlock(&claimed_lock);
	errno = saved;
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
