/*
 * The version 1 system-wide interfaces (cpc_shared_*).  Not provided by
 * this version yet: each fails cleanly with ENOTSUP and says so through
 * the error function.
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

#define SHARED "system-wide (per-CPU) counters"

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
