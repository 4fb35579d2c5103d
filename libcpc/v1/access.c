/* SPDX-License-Identifier: MIT */
/* cpc_access: can this process count at all? */
#include <errno.h>
#include <string.h>

#include "libcpc.h"
#include "error.h"
#include "lwpctx.h"
#include "policy.h"

int cpc_access(void)
{
	const char *why = NULL;
	int err = -__cpc_lwp_probe(&why);

	if (why != NULL) {	/* no backend */
		__cpc_report("access", "%s\n", why);
		errno = ENOSYS;
		return -1;
	}
	if (err == 0)
		return 0;
	switch (err) {
	case EAGAIN:
		__cpc_report("access", "Another process may be sampling "
				     "system-wide CPU statistics\n");
		break;
	case EACCES:
	case EPERM: {
		/* Refused by policy: the Solaris text, then cause and remedy. */
		char why_text[512];
		__cpc_policy_explain(why_text, sizeof(why_text));
		__cpc_report("access", "CPU performance counters are "
				     "inaccessible on this machine\n");
		__cpc_report("access", "%s\n", why_text);
		err = ENOSYS;
		break;
	}
	case ENOSYS:
	case ENOENT:
		__cpc_report("access", "CPU performance counters are "
				     "inaccessible on this machine\n");
		err = ENOSYS;
		break;
	default:
		__cpc_report("access", "%s\n", strerror(err));
		break;
	}
	errno = err;
	return -1;
}
