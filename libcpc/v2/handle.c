/* SPDX-License-Identifier: MIT */
/*
 * Handles of the current interfaces: cpc_open, cpc_close, the handle's
 * descriptions (cpc_npic, cpc_caps, cpc_cciname, cpc_cpuref), its error
 * handler (cpc_seterrhndlr) and cpc_terminate.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuinfo.h"
#include "error.h"
#include "lwpctx.h"
#include "native_events.h"
#include "pctxctx.h"
#include "v2.h"

/* Counters a set may use: the PMU's, or a fixed number for software events. */
static uint_t count_pics(void)
{
	int has_pmu = access("/sys/bus/event_source/devices/cpu/type", F_OK) ==
		0 ||
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;
	int n = has_pmu ? __cpc_native_counters() : 0;
	if (n < 2)
		n = 8;
	if (n > CPC_MAX_REQS)
		n = CPC_MAX_REQS;
	return (uint_t)n;
}

cpc_t *cpc_open(int ver)
{
	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	/* Can this process count at all? */
	const char *why = NULL;
	int rc = __cpc_lwp_probe(&why);
	if (rc != 0) {
		/* Counters inaccessible (no backend, or policy): ENOSYS. */
		errno = why != NULL || rc == -EACCES || rc == -EPERM ||
			rc == -ENOENT || rc == -ENOSYS
		    ? ENOSYS
		    : -rc;
		return NULL;
	}
	cpc_t *cpc = calloc(1, sizeof(*cpc));
	if (cpc == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&cpc->lock, NULL);
	cpc->cpuver = cpc_getcpuver();
	/* What the original's back end reports for this processor. */
	struct cpc_cpuinfo ci;
	__cpc_cpuinfo_read(&ci);
	__cpc_identity(&ci, &cpc->id);
	cpc->npic = cpc->id.npic != 0 ? cpc->id.npic : count_pics();
	if (cpc->npic > CPC_MAX_REQS)
		cpc->npic = CPC_MAX_REQS;
	cpc->caps = cpc->id.caps;
	return cpc;
}

int cpc_close(cpc_t *cpc)
{
	if (cpc == NULL) {
		errno = EINVAL;
		return -1;
	}
	while (cpc->sets != NULL)
		cpc_set_destroy(cpc, cpc->sets);
	while (cpc->bufs != NULL)
		cpc_buf_destroy(cpc, cpc->bufs);
	pthread_mutex_destroy(&cpc->lock);
	free(cpc);
	return 0;
}

uint_t cpc_npic(cpc_t *cpc)
{
	return cpc != NULL ? cpc->npic : 0;
}

uint_t cpc_caps(cpc_t *cpc)
{
	return cpc != NULL ? cpc->caps : 0;
}

const char *cpc_linux_errnote(cpc_t *cpc)
{
	static _Thread_local char last[sizeof(((cpc_t *)0)->note)];
	if (cpc == NULL)	/* the calling thread's version 1 note */
		return __cpc_take_note();
	if (cpc->note[0] == '\0')
		return NULL;
	memcpy(last, cpc->note, sizeof(last));
	cpc->note[0] = '\0';
	return last;
}

const char *cpc_cciname(cpc_t *cpc)
{
	return cpc != NULL ? cpc->id.cciname : NULL;
}

const char *cpc_cpuref(cpc_t *cpc)
{
	return cpc != NULL ? cpc->id.cpuref : NULL;
}

int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	if (cpc != NULL)
		cpc->errfn = fn;
	return 0;
}

void cpc_terminate(cpc_t *cpc)
{
	/* Ends the pctx_run of every process context a set is bound in. */
	if (cpc != NULL)
		__cpc_pctx_terminate_owner(cpc);
}
