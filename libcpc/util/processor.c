/* SPDX-License-Identifier: MIT */
/*
 * Solaris processor_bind(2), p_online(2), pset_bind(2) and pset_assign(2)
 * for Linux: a binding is a scheduler affinity of exactly one processor
 * (sched_setaffinity), unbinding restores the affinity the process
 * started with, processor states come from sysfs, and there are no
 * processor sets (every query answers PS_NONE).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sys/processor.h>
#include <sys/pset.h>

/* The affinity the process started with: what PBIND_NONE restores. */
static cpu_set_t unbound_mask;

__attribute__((constructor)) static void processor_init(void)
{
	if (sched_getaffinity(0, sizeof(unbound_mask), &unbound_mask) != 0) {
		CPU_ZERO(&unbound_mask);
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, &unbound_mask);
	}
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* P_ONLINE, P_OFFLINE, or -1 if there is no such processor. */
static int cpu_state(processorid_t cpu)
{
	char path[80];
	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", (int)cpu);
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
	    (int)cpu);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return P_ONLINE; /* a processor that cannot go offline */
	char c = '1';
	ssize_t n = read(fd, &c, 1);
	close(fd);
	return n == 1 && c == '0' ? P_OFFLINE : P_ONLINE;
}

/* The processor thread tid is bound to, or PBIND_NONE; -errno. */
static int thread_binding(pid_t tid, processorid_t *out)
{
	cpu_set_t set;
	if (sched_getaffinity(tid, sizeof(set), &set) != 0)
		return -errno;
	*out = PBIND_NONE;
	if (CPU_COUNT(&set) == 1)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				*out = c;
	return 0;
}

/* Queries, then (unless PBIND_QUERY) changes one thread's binding. */
static int bind_thread(pid_t tid, processorid_t cpu, processorid_t *old)
{
	int rc = thread_binding(tid, old);
	if (rc != 0 || cpu == PBIND_QUERY)
		return rc;
	cpu_set_t one, *mask = &unbound_mask;
	if (cpu != PBIND_NONE) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		mask = &one;
	}
	if (sched_setaffinity(tid, sizeof(*mask), mask) != 0)
		return -errno;
	return 0;
}

/* Is tid a thread of process pid? */
static int thread_of(pid_t pid, pid_t tid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return tid > 0 && stat(path, &st) == 0;
}

static int bind_process(pid_t pid, processorid_t cpu, processorid_t *obind)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return -ESRCH;
	int rc = 0, seen = 0;
	struct dirent *e;
	/* The main thread first, so that obind reports its binding. */
	processorid_t old = PBIND_NONE;
	if (thread_of(pid, pid)) {
		rc = bind_thread(pid, cpu, &old);
		seen = rc == 0;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
		processorid_t o;
		if (tid <= 0 || tid == pid)
			continue;
		rc = bind_thread(tid, cpu, &o);
		if (rc == -ESRCH) /* it exited meanwhile */
			rc = 0;
		else if (rc == 0 && !seen++)
			old = o;
	}
	closedir(d);
	if (rc == 0 && !seen)
		rc = -ESRCH;
	if (rc == 0 && obind != NULL)
		*obind = old;
	return rc;
}

int processor_bind(idtype_t idtype, id_t id, processorid_t processorid,
    processorid_t *obind)
{
	if (processorid != PBIND_NONE && processorid != PBIND_QUERY &&
	    cpu_state(processorid) != P_ONLINE)
		return fail(EINVAL);
	pid_t self = getpid();
	int rc;
	if (idtype == P_LWPID) {
		pid_t tid = (int)id == P_MYID ? (pid_t)syscall(SYS_gettid)
					      : (pid_t)id;
		if (!thread_of(self, tid))
			return fail(ESRCH);
		processorid_t old;
		rc = bind_thread(tid, processorid, &old);
		if (rc == 0 && obind != NULL)
			*obind = old;
	} else if (idtype == P_PID) {
		pid_t pid = (int)id == P_MYID ? self : (pid_t)id;
		if (pid <= 0)
			return fail(ESRCH);
		rc = bind_process(pid, processorid, obind);
	} else {
		return fail(EINVAL);
	}
	return rc == 0 ? 0 : fail(-rc);
}

/* Writes "0" or "1" to the processor's sysfs online file; -errno. */
static int set_online(processorid_t cpu, int online)
{
	char path[80];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
	    (int)cpu);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -EBUSY : errno == EACCES ? -EPERM
								 : -errno;
	int rc = write(fd, online ? "1" : "0", 1) == 1 ? 0 : -errno;
	close(fd);
	return rc;
}

int p_online(processorid_t processorid, int flag)
{
	int state = cpu_state(processorid);
	if (state < 0)
		return fail(EINVAL);
	switch (flag & ~P_FORCED) {
	case P_STATUS:
		if (flag & P_FORCED)
			return fail(EINVAL);
		return state;
	case P_ONLINE:
	case P_OFFLINE:
		if ((flag & ~P_FORCED) != state) {
			int rc = set_online(processorid, flag != P_ONLINE);
			if (rc != 0)
				return fail(-rc);
		}
		return state;
	case P_NOINTR:
	case P_SPARE:
	case P_FAULTED:
		return fail(ENOTSUP); /* no such states on Linux */
	default:
		return fail(EINVAL);
	}
}

/* Does the LWP or process that (idtype, id) names exist? 0 or errno. */
static int pset_target(idtype_t idtype, id_t id)
{
	pid_t self = getpid();
	if (idtype == P_LWPID) {
		pid_t tid = (int)id == P_MYID ? (pid_t)syscall(SYS_gettid)
					      : (pid_t)id;
		return thread_of(self, tid) ? 0 : ESRCH;
	}
	if (idtype == P_PID) {
		pid_t pid = (int)id == P_MYID ? self : (pid_t)id;
		return pid > 0 && thread_of(pid, pid) ? 0 : ESRCH;
	}
	return EINVAL;
}

int pset_bind(psetid_t pset, idtype_t idtype, id_t id, psetid_t *opset)
{
	int err = pset_target(idtype, id);
	if (err != 0)
		return fail(err);
	/* No processor sets: everything is in none, and no set exists. */
	if (pset != PS_QUERY && pset != PS_NONE && pset != PS_MYID)
		return fail(EINVAL);
	if (opset != NULL)
		*opset = PS_NONE;
	return 0;
}

int pset_assign(psetid_t pset, processorid_t cpu, psetid_t *opset)
{
	if (cpu_state(cpu) < 0)
		return fail(EINVAL);
	if (pset != PS_QUERY && pset != PS_NONE)
		return fail(EINVAL);
	if (opset != NULL)
		*opset = PS_NONE;
	return 0;
}
