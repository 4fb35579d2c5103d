/* SPDX-License-Identifier: MIT */
/* cpc_access: can this process count at all? */
#include <errno.h>
#include <string.h>

#include "libcpc.h"
#include "error.h"
#include "lwpctx.h"

int cpc_access(void)
{
	const char *why = NULL;
	int err = -__cpc_lwp_probe(&why);

	if (why != NULL) {	/* no backend: the Solaris text, why in the note */
		__cpc_note("access", "%s", why);
		__cpc_report("access", "CPU performance counters are "
				     "inaccessible on this machine\n");
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
		/*
		 * Refused by policy: the Solaris text, once, through the
		 * error function; the cause and remedy in the note.
		 */
		char why_text[400];
		__cpc_lwp_explain_refusal(why_text, sizeof(why_text), 0);
		__cpc_note("access", "%s", why_text);
		__cpc_report("access", "CPU performance counters are "
				     "inaccessible on this machine\n");
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
