/* cpc_access: can this process count at all? */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

#include "libcpc.h"
#include "backend.h"
#include "error.h"

int cpc_access(void)
{
	const char *why = NULL;
	const struct cpc_backend *be = cpc_backend_get(&why);
	struct cpc_reqset set;
	int err;

	if (be == NULL) {
		cpc_report("access", "%s\n", why);
		errno = ENOSYS;
		return -1;
	}
	/* A user-mode software event: what every binding can rely on. */
	memset(&set, 0, sizeof(set));
	set.nreqs = 1;
	set.req[0].sel.type = PERF_TYPE_SOFTWARE;
	set.req[0].sel.config = PERF_COUNT_SW_TASK_CLOCK;
	set.req[0].flags = CPC_COUNT_USER;
	err = -be->probe(&set);
	if (err == 0)
		return 0;
	switch (err) {
	case EAGAIN:
		cpc_report("access", "Another process may be sampling "
				     "system-wide CPU statistics\n");
		break;
	case ENOSYS:
	case EACCES:
	case EPERM:
	case ENOENT:
		cpc_report("access", "CPU performance counters are "
				     "inaccessible on this machine\n");
		err = ENOSYS;
		break;
	default:
		cpc_report("access", "%s\n", strerror(err));
		break;
	}
	errno = err;
	return -1;
}
