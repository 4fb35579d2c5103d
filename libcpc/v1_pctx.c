/*
 * The version 1 process-context interfaces (cpc_pctx_*).  They need
 * libpctx, which this version does not provide yet: each fails cleanly
 * with ENOTSUP and says so through the error function.
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
