/* SPDX-License-Identifier: MIT */
/*
 * kt_util.c: kmod_test's helpers: requests and ioctls, the thread's clocks
 * and work, identities (become another user) and child processes.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktest.h"

pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

int open_cpc(void)
{
	return open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
}

/* ioctl returning 0 or the errno. */
int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : errno;
}

struct cpc_kreq mkreq(uint32_t kind, uint64_t config, uint32_t flags,
			     uint64_t preset)
{
	struct cpc_kreq r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.config = config;
	r.flags = flags;
	r.preset = preset;
	return r;
}

void mkbind(struct cpc_kbind *kb, pid_t tid, uint32_t flags,
		   unsigned n, const struct cpc_kreq *reqs)
{
	memset(kb, 0, sizeof(*kb));
	kb->abi = CPC_KMOD_ABI;
	kb->flags = flags;
	kb->tid = tid;
	kb->nreqs = n;
	memcpy(kb->req, reqs, n * sizeof(reqs[0]));
}

int bind_reqs(int fd, unsigned long cmd, pid_t tid, uint32_t flags,
		     unsigned n, const struct cpc_kreq *reqs)
{
	struct cpc_kbind kb;

	mkbind(&kb, tid, flags, n, reqs);
	return xioctl(fd, cmd, &kb);
}

int sample(int fd, unsigned long cmd, pid_t tid, struct cpc_ksample *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->abi = CPC_KMOD_ABI;
	ks->tid = tid;
	return xioctl(fd, cmd, ks);
}

int target(int fd, unsigned long cmd, pid_t tid)
{
	struct cpc_ktarget kt;

	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	kt.tid = tid;
	return xioctl(fd, cmd, &kt);
}

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Spins in user mode (reading the thread clock is a system call). */
void spin_ms(unsigned ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;
	volatile unsigned long x = 0;
	int i;

	while (thread_cpu_ns() < end)
		for (i = 0; i < 20000; i++)
			x++;
}

/*
 * Task-clock and the thread's CPU time read one clock: perf's clock and
 * the scheduler's run-queue clock are both sched_clock on the thread's
 * processor (these kernels have no IRQ time accounting, and an emulated
 * guest no steal time), so over the same stretch on the processor they
 * agree to the nanosecond.  They differ only at context switches, where
 * each samples the clock at another point of the switch's path.  So with
 * no context switch, reading the CPU time inside the two samples and
 * around them gives exact bounds: inner <= counted <= outer.  Measured
 * again, up to 20 times, while a context switch came in between (in the
 * guest one comes every few hundred ms: kernel threads wake up).
 * Returns whether the bounds held (cc->err: a sample's error).
 */
int clock_nested(int f, unsigned req, void (*work)(void),
		 struct clock_check *cc)
{
	uint64_t sw, o0, i0, i1, o1;
	int ok;

	cc->tries = 0;
	do {
		sw = switches_now();
		o0 = thread_cpu_ns();
		cc->err = sample(f, CPC_KIOC_SAMPLE, 0, &cc->a);
		i0 = thread_cpu_ns();
		work();
		i1 = thread_cpu_ns();
		if (!cc->err)
			cc->err = sample(f, CPC_KIOC_SAMPLE, 0, &cc->b);
		o1 = thread_cpu_ns();
		cc->counted = cc->b.vals[req] - cc->a.vals[req];
		cc->inner = i1 - i0;
		cc->outer = o1 - o0;
		ok = !cc->err && cc->counted >= cc->inner &&
		     cc->counted <= cc->outer;
	} while (!ok && !cc->err && switches_now() != sw &&
		 ++cc->tries < 20);
	return ok;
}

/*
 * Waits until this process has no thread but the calling one.  A joined
 * thread is not yet gone: pthread_join returns when the thread's exit
 * clears its tid word (at the release of its memory), before exit_notify
 * marks it exited, which is what the module's reaping of contexts looks
 * at; its /proc/self/task entry goes after that.  Returns the threads
 * left if that takes more than 10 s (a hang, not a wait for speed).
 */
int wait_threads_gone(void)
{
	int n = 0, i;

	for (i = 0; i < 10000; i++) {
		DIR *d = opendir("/proc/self/task");
		struct dirent *e;

		if (!d)
			return -1;
		n = 0;
		while ((e = readdir(d)) != NULL)
			n += e->d_name[0] != '.';
		closedir(d);
		if (n <= 1)
			return 0;
		usleep(1000);
	}
	return n - 1;
}

/* Touches n fresh anonymous pages: n minor page faults in user mode. */
void touch_pages(size_t n)
{
	volatile char *p;
	size_t i;

	p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise((void *)p, n * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * PAGE] = 1;
	munmap((void *)p, n * PAGE);
}

/* The group of /dev/cpc (cpc, as the udev rule sets it). */
gid_t device_gid(void)
{
	struct stat st;

	return stat(CPC_KMOD_DEVICE, &st) == 0 ? st.st_gid : 0;
}

/* Becomes uid (and gid) @id, a member of the device's group or not. */
void become(uid_t id, int member)
{
	gid_t g = device_gid();

	if (setgroups(member ? 1 : 0, &g) != 0 || setresgid(id, id, id) ||
	    setresuid(id, id, id)) {
		perror("drop privileges");
		_exit(100);
	}
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

void drop_to_nobody(void)
{
	become(NOBODY, 1);
}

/*
 * Becomes the stranger (uid 1001, no group of the device) keeping only
 * CAP_PERFMON, and CAP_KILL too if @kill.
 */
void become_perfmon(int kill)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
		_exit(101);
	become(STRANGER, 0);
	d[CAP_PERFMON / 32].permitted = 1u << (CAP_PERFMON % 32);
	if (kill)
		d[CAP_KILL / 32].permitted |= 1u << (CAP_KILL % 32);
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	if (syscall(SYS_capset, &h, d) != 0)
		_exit(102);
}

/* Runs fn in a forked child; returns its exit status (or 99). */
int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 99;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 99;
	return WEXITSTATUS(st);
}

int has_hw_pmu(void)
{
	struct cpc_kinfo info;

	memset(&info, 0, sizeof(info));
	ioctl(fd, CPC_KIOC_INFO, &info);
	return !!(info.caps & CPC_KCAP_HW_PMU);
}

/* CLOCK_MONOTONIC in ns. */
uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Context switches of the calling thread so far. */
uint64_t switches_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

int bind1(uint32_t kind, uint64_t config, uint32_t flags)
{
	struct cpc_kreq r = mkreq(kind, config, flags, 0);

	return bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
}
