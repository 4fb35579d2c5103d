/*
 * cpc_bind_pctx: binding a set to an LWP of a process controlled through
 * libpctx.  Not provided by this version: it fails cleanly.
 */
#include <errno.h>

#include "v2.h"

static int fail(int err)
{
	errno = err;
	return -1;
}

int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, __id_t id, cpc_set_t *set,
    uint_t flags)
{
	(void)pctx, (void)id;
	if (flags != 0 || set == NULL || set->nreqs == 0 ||
	    !v2_owns_set(cpc, set))
		return fail(EINVAL);
	v2_note(cpc, "cpc_bind_pctx", "process contexts (libpctx) are not "
				       "supported by this version of libcpc");
	return fail(ENOTSUP);
}
