/* SPDX-License-Identifier: MIT */
/* Solaris shims: gethrtime() and _lwp_self(). */
#include <sys/syscall.h>
#include <unistd.h>

#include "libcpc.h"
#include "cpuinfo.h"

hrtime_t gethrtime(void)
{
	return (hrtime_t)__cpc_hrtime();
}

__id_t _lwp_self(void)
{
	return (__id_t)syscall(SYS_gettid);
}
