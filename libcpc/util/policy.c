/* SPDX-License-Identifier: MIT */
/* The explanation of a policy refusal of the counters: see policy.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpc_kmod.h"
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

/*
 * The capability that passes perf's check at a paranoid level: above 2
 * the level is a distribution's patch (Debian's default 3), which asks
 * for CAP_SYS_ADMIN; CAP_PERFMON passes Linux's own levels.
 */
static const char *perf_cap(int level)
{
	return level > 2 ? "CAP_SYS_ADMIN (at level 3, a distribution's "
			   "setting, CAP_PERFMON is not enough)" :
			   "CAP_PERFMON";
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
		    "program %s",
		    system ? " in system mode" : "", level, needed,
		    perf_cap(level));
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

/*
 * The name of group gid from /etc/group (read without the C library's
 * name services, which are not async-signal-safe), else "" .
 */
static void group_name(unsigned gid, char *name, size_t n)
{
	char buf[8192];
	name[0] = '\0';
	int fd = open("/etc/group", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return;
	buf[len] = '\0';
	for (char *line = buf; line != NULL && *line != '\0';) {
		char *end = strchr(line, '\n');
		if (end != NULL)
			*end = '\0';
		/* name:password:gid:members */
		char *c1 = strchr(line, ':');
		char *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
		if (c2 != NULL) {
			unsigned v = 0;
			const char *d = c2 + 1;
			for (; *d >= '0' && *d <= '9'; d++)
				v = v * 10 + (unsigned)(*d - '0');
			if (*d == ':' && d > c2 + 1 && v == gid &&
			    (size_t)(c1 - line) < n) {
				memcpy(name, line, (size_t)(c1 - line));
				name[c1 - line] = '\0';
				return;
			}
		}
		line = end != NULL ? end + 1 : NULL;
	}
}

void __cpc_policy_explain(char *buf, size_t n, int system)
{
	struct stat st;

	if (stat(CPC_KMOD_DEVICE, &st) == 0 && S_ISCHR(st.st_mode)) {
		/* The module is loaded: does its device refuse this user? */
		int fd = open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
		int err = fd < 0 ? errno : 0;
		if (fd < 0) {
			char grp[64];
			group_name((unsigned)st.st_gid, grp, sizeof(grp));
			__cpc_safe_fmt(buf, n,
			    "the libcpc kernel module's device %s is not open "
			    "to this user (%s): an administrator may add the "
			    "user to its group %s (then log in again); and "
			    "the kernel refuses perf_event_open%s to this "
			    "process (kernel.perf_event_paranoid is %d; "
			    "%s allows it)",
			    CPC_KMOD_DEVICE, strerrordesc_np(err),
			    grp[0] != '\0' ? grp : "(ls -l /dev/cpc)",
			    system ? " in system mode" : "", paranoid_level(),
			    perf_cap(paranoid_level()));
			return;
		}
		close(fd);
	}
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

void __cpc_policy_task(char *buf, size_t n, int kmod)
{
	if (kmod)
		__cpc_safe_fmt(buf, n,
		    "the libcpc kernel module counts in another process only "
		    "for a user with ptrace rights over it (the same user, "
		    "and a program that is not set-user-ID, set-group-ID or "
		    "undumpable) or with CAP_PERFMON");
	else
		__cpc_safe_fmt(buf, n,
		    "see /proc/sys/kernel/perf_event_paranoid, which is %d: "
		    "2 or less, CAP_PERFMON or the libcpc kernel module "
		    "allows it", paranoid_level());
}

void __cpc_policy_cpu(char *buf, size_t n, int kmod)
{
	if (kmod)
		__cpc_safe_fmt(buf, n,
		    "the libcpc kernel module counts on a processor for "
		    "CAP_PERFMON, and for the users of %s where the "
		    "administrator allows it (echo 1 > "
		    "/sys/module/cpc/parameters/cpu_access); perf events "
		    "need kernel.perf_event_paranoid <= 0 (it is %d)",
		    CPC_KMOD_DEVICE, paranoid_level());
	else
		__cpc_safe_fmt(buf, n,
		    "counting on a processor needs CAP_PERFMON or "
		    "kernel.perf_event_paranoid <= 0 (it is %d)%s",
		    paranoid_level(),
		    access(CPC_KMOD_DEVICE, F_OK) == 0 ? "" :
		    "; or load the libcpc kernel module (modprobe cpc)");
}
