/* Solaris shims: gethrtime() and _lwp_self(). */
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libcpc.h"

hrtime_t gethrtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__id_t _lwp_self(void)
{
	return (__id_t)syscall(SYS_gettid);
}
