/* SPDX-License-Identifier: MIT */
/* The explanation of a policy refusal of the counters: see policy.h. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "policy.h"
#include "safefmt.h"

/* The value of kernel.perf_event_paranoid, or 99 if it cannot be read. */
static int paranoid_level(void)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/perf_event_paranoid",
	    O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 99;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 99;
	buf[n] = '\0';
	int sign = 1, v = 0, i = 0;
	if (buf[0] == '-') {
		sign = -1;
		i = 1;
	}
	for (; buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + (buf[i] - '0');
	return sign * v;
}

void __cpc_policy_explain_at(char *buf, size_t n, int level, int system)
{
	/* perf_event_paranoid 2 allows user mode, 1 also system mode. */
	int needed = system ? 1 : 2;

	if (level > needed) {
		__cpc_safe_fmt(buf, n,
		    "the kernel refuses perf_event_open%s to this process "
		    "(kernel.perf_event_paranoid is %d); load the libcpc "
		    "kernel module (modprobe cpc), or allow counting with "
		    "\"sysctl kernel.perf_event_paranoid=%d\", or give the "
		    "program CAP_PERFMON",
		    system ? " in system mode" : "", level, needed);
		return;
	}
	/* The sysctl allows it already: something else refuses. */
	__cpc_safe_fmt(buf, n,
	    "the kernel refuses perf_event_open%s to this process although "
	    "kernel.perf_event_paranoid is %d (a security module or seccomp "
	    "policy); give the program CAP_PERFMON, or load the libcpc "
	    "kernel module (modprobe cpc)",
	    system ? " in system mode" : "", level);
}

void __cpc_policy_explain(char *buf, size_t n, int system)
{
	__cpc_policy_explain_at(buf, n, paranoid_level(), system);
}

void __cpc_kmod_explain(char *buf, size_t n, int system)
{
	if (system)
		__cpc_safe_fmt(buf, n,
		    "the libcpc kernel module counts system mode only for "
		    "programs with CAP_PERFMON, or for everyone once its "
		    "parameter allow_system is 1 "
		    "(/sys/module/cpc/parameters/allow_system)");
	else
		__cpc_safe_fmt(buf, n,
		    "the libcpc kernel module refuses this counting to this "
		    "process (CAP_PERFMON allows it)");
}
