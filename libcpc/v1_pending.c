/*
 * The version 1 process-context (cpc_pctx_*) and system-wide
 * (cpc_shared_*) interfaces.  They need libpctx and per-CPU counting,
 * which this version does not provide yet: each fails cleanly with
 * ENOTSUP and says so through the error function.
 */
#include <errno.h>

#include "libcpc.h"
#include "error.h"

static int unsupported(const char *fn, const char *what)
{
	cpc_report(fn, "%s are not supported by this version of libcpc\n",
	    what);
	errno = ENOTSUP;
	return -1;
}

#define PCTX "process contexts (libpctx)"
#define SHARED "system-wide (per-CPU) counters"

int cpc_pctx_bind_event(pctx_t *pctx, __id_t lwpid, cpc_event_t *event,
    int flags)
{
	(void)pctx, (void)lwpid, (void)event, (void)flags;
	return unsupported("pctx_bind_event", PCTX);
}

int cpc_pctx_take_sample(pctx_t *pctx, __id_t lwpid, cpc_event_t *event)
{
	(void)pctx, (void)lwpid, (void)event;
	return unsupported("pctx_take_sample", PCTX);
}

int cpc_pctx_rele(pctx_t *pctx, __id_t lwpid)
{
	(void)pctx, (void)lwpid;
	return unsupported("pctx_rele", PCTX);
}

int cpc_pctx_invalidate(pctx_t *pctx, __id_t lwpid)
{
	(void)pctx, (void)lwpid;
	return unsupported("pctx_invalidate", PCTX);
}

int cpc_shared_open(void)
{
	return unsupported("shared_open", SHARED);
}

void cpc_shared_close(int fd)
{
	(void)fd;
	errno = EBADF;
}

int cpc_shared_bind_event(int fd, cpc_event_t *event, int flags)
{
	(void)fd, (void)event, (void)flags;
	return unsupported("shared_bind_event", SHARED);
}

int cpc_shared_take_sample(int fd, cpc_event_t *event)
{
	(void)fd, (void)event;
	return unsupported("shared_take_sample", SHARED);
}

int cpc_shared_rele(int fd)
{
	(void)fd;
	return unsupported("shared_rele", SHARED);
}
