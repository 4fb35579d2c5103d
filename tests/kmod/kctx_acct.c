// SPDX-License-Identifier: MIT
/*
 * kctx_test's accounting findings of issue 22: a user namespace's users
 * are charged to its owner (M2), and what group aggregates copy into
 * new threads is bounded (M1).  See kctx_test.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpc_kmod.h"
#include "kctx_test.h"

/* ---- M2: a user namespace's users are charged to its owner ----------- */

static int write_proc(pid_t pid, const char *what, const char *val)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	return write_file(path, val);
}

/*
 * As root, with max_contexts=1 and a device everyone may open: root
 * binds itself (its one context), then a process in a user namespace
 * that root owns, running as a mapped uid (kuid 200000), binds: that
 * context is root's second, past the limit (EAGAIN).  Charged to the
 * namespace's uid instead, it would pass.
 */
void test_m2_userns(void)
{
	char d[160], old_max[32] = "", old_access[32] = "";
	const char *pmax = "/sys/module/cpc/parameters/max_contexts";
	const char *pacc = "/sys/module/cpc/parameters/access";
	struct cpc_kbind kb;
	struct stat st;

	if (getuid() != 0) {
		skip("M2 user namespace charged to its owner", "needs root");
		return;
	}
	if (read_file(pmax, old_max, sizeof(old_max)) != 0 ||
	    read_file(pacc, old_access, sizeof(old_access)) != 0 ||
	    stat(CPC_KMOD_DEVICE, &st) != 0) {
		skip("M2 user namespace charged to its owner",
		    "no module parameters");
		return;
	}
	int fd = open_dev();
	if (fd < 0)
		return;
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER,
	    0);
	if (ioctl(fd, CPC_KIOC_BIND, &kb) != 0) {
		result(0, "M2 user namespace charged to its owner", "bind");
		close(fd);
		return;
	}
	write_file(pmax, "1");
	write_file(pacc, "0");
	chmod(CPC_KMOD_DEVICE, 0666);

	int go[2], back[2];
	if (pipe(go) != 0 || pipe(back) != 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		char c = 0;
		close(go[1]);
		close(back[0]);
		if (unshare(CLONE_NEWUSER) != 0)
			_exit(10);
		(void)write(back[1], &c, 1);
		if (read(go[0], &c, 1) != 1)
			_exit(11);
		if (setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0)
			_exit(12);
		int cfd = open_dev();
		if (cfd < 0)
			_exit(13);
		struct cpc_kbind ckb;
		bind_init(&ckb, 0);
		req(&ckb, 0, CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		    CPC_KREQ_USER, 0);
		if (ioctl(cfd, CPC_KIOC_BIND, &ckb) == 0)
			_exit(0);
		_exit(errno == EAGAIN ? 20 : 21);
	}
	char c;
	int setup = read(back[0], &c, 1) == 1 &&
	    write_proc(pid, "setgroups", "deny") == 0 &&
	    write_proc(pid, "uid_map", "0 200000 1000") == 0 &&
	    write_proc(pid, "gid_map", "0 200000 1000") == 0;
	(void)write(go[1], "g", 1);
	int status = 0;
	waitpid(pid, &status, 0);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;

	chmod(CPC_KMOD_DEVICE, st.st_mode & 07777);
	write_file(pacc, old_access);
	write_file(pmax, old_max);
	close(fd);
	snprintf(d, sizeof(d), "the namespace's bind %s",
	    !setup ? "could not be set up" : code == 20 ? "was refused (EAGAIN)"
		: code == 0			  ? "passed the owner's limit"
						  : "failed otherwise");
	if (!setup)
		skip("M2 user namespace charged to its owner", d);
	else
		result(code == 20, "M2 user namespace charged to its owner",
		    d);
}

/* ---- M1: what group aggregates copy into new threads is bounded ------ */

static int group_open(int fd, unsigned nreqs)
{
	struct cpc_kbind kb;
	bind_init(&kb, 0);
	for (unsigned i = 0; i < nreqs; i++)
		req(&kb, i, CPC_KEV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
		    CPC_KREQ_USER, 0);
	return ioctl(fd, CPC_KIOC_GROUP_OPEN, &kb) == 0 ? 0 : errno;
}

static void *nested_open(void *arg)
{
	int *fdp = arg;
	/* This thread inherits its creator's aggregates. */
	fdp[1] = group_open(fdp[0], 1);
	return NULL;
}

/*
 * Five aggregates of 16 counters on one thread, from five files: every
 * thread it creates would carry 80 counters.  With max_inherited 64
 * (the default) the fifth is refused, and a thread created under four
 * cannot open one of its own.
 */
void test_m1_inherit(void)
{
	char d[160], old[32] = "";
	const char *pmax = "/sys/module/cpc/parameters/max_inherited";
	int fds[5], codes[5], nested[2] = { -1, -1 };
	pthread_t t;

	for (int i = 0; i < 5; i++) {
		fds[i] = open_dev();
		if (fds[i] < 0) {
			skip("M1 inherited counters bounded", strerror(errno));
			return;
		}
	}
	if (read_file(pmax, old, sizeof(old)) == 0 && strcmp(old, "64") &&
	    getuid() == 0)
		write_file(pmax, "64");
	for (int i = 0; i < 5; i++)
		codes[i] = group_open(fds[i], 16);
	/* Four stay open: a new thread inherits their 64 counters. */
	if (codes[4] == 0)
		target(fds[4], CPC_KIOC_GROUP_CLOSE, 0);
	int sixth = open_dev();
	nested[0] = sixth;
	if (pthread_create(&t, NULL, nested_open, nested) == 0)
		pthread_join(t, NULL);
	snprintf(d, sizeof(d),
	    "aggregates of 16: %s %s %s %s %s; a thread created under four "
	    "opening one more: %s",
	    codes[0] ? strerror(codes[0]) : "ok",
	    codes[1] ? strerror(codes[1]) : "ok",
	    codes[2] ? strerror(codes[2]) : "ok",
	    codes[3] ? strerror(codes[3]) : "ok",
	    codes[4] ? strerror(codes[4]) : "ok",
	    nested[1] ? strerror(nested[1]) : "ok");
	result(!codes[0] && !codes[1] && !codes[2] && !codes[3] &&
		codes[4] == EAGAIN && nested[1] == EAGAIN,
	    "M1 inherited counters bounded", d);
	for (int i = 0; i < 5; i++)
		close(fds[i]);
	close(sixth);
	if (old[0] && strcmp(old, "64") && getuid() == 0)
		write_file(pmax, old);
}

