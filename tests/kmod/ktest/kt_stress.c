/* SPDX-License-Identifier: MIT */
/*
 * kt_stress.c: lifetime stress: kill, exec, rebind, release and close
 * with overflows pending.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

/* ---- lifetime stress: kill, exec and close with overflows pending ---- */

static volatile int stress_fd = -1;
static volatile int stress_stop;

/* Overflow every event; the handler restarts (and so re-arms) at once. */
static void restart_handler(int sig, siginfo_t *si, void *uc)
{
	struct cpc_ktarget kt;

	(void)sig, (void)si, (void)uc;
	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	ioctl(stress_fd, CPC_KIOC_RESTART, &kt);
}

static void install_restart_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = restart_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGSTKFLT, &sa, NULL);
}

static int bind_storm(int f, pid_t tid)
{
	uint32_t sys = is_root ? CPC_KREQ_SYSTEM : 0;
	struct cpc_kreq r[3] = {
		PAGE_FAULTS(CPC_KREQ_USER | sys | CPC_KREQ_OVF_EMT, -1ull),
		TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -2000000ull),
		mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
		      CPC_KREQ_USER | sys, 0),
	};

	return bind_reqs(f, CPC_KIOC_BIND, tid, 0, 3, r);
}

static void *storm_thread(void *arg)
{
	(void)arg;
	bind_storm(stress_fd, 0);
	while (!stress_stop)
		touch_pages(16);
	return NULL;
}

static void early_overflow(int sig)
{
	(void)sig;
	_exit(4);
}

/* The tids of up to three threads other than the calling one. */
static void storm_tids(pid_t *tids)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (d && n < 3 && (de = readdir(d)) != NULL) {
		pid_t tid = atoi(de->d_name);

		if (tid > 0 && tid != gettid_())
			tids[n++] = tid;
	}
	if (d)
		closedir(d);
}

static void test_stress(void)
{
	const char *self = kt_self;
	long before, after;
	int i, st, bad, f, left;
	pthread_t t[3];
	pid_t pid, tids[3];

	install_restart_handler();
	stress_fd = fd;
	target(fd, CPC_KIOC_RELE, 0);
	before = kt_stat("contexts_in_use");

	/* SIGKILL while overflow work may be pending. */
	bad = 0;
	for (i = 0; i < 20; i++) {
		pid = fork();
		if (pid == 0) {
			bind_storm(fd, 0);
			for (;;)
				touch_pages(16);
		}
		usleep(2000 + (i % 7) * 3000);
		kill(pid, SIGKILL);
		if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
		    WTERMSIG(st) != SIGKILL)
			bad++;
	}
	check(!bad, "20 children killed amid overflows (%d bad)", bad);

	/*
	 * exec with armed counters that overflow only in the new program
	 * (its start-up faults pages, it spins 100 ms): it must get no
	 * SIGEMT, whose default action would kill it.  An overflow before
	 * the exec exits 4 (inconclusive, reported).
	 */
	bad = 0;
	for (i = 0; i < 3; i++) {
		pid = fork();
		if (pid == 0) {
			struct cpc_kreq r[2] = {
				PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT,
					    -(20ull + 40 * i)),
				TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT,
					   -30000000ull),
			};
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = early_overflow;
			sigaction(SIGSTKFLT, &sa, NULL);
			if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r) != 0)
				_exit(5);
			execl(self, self, "--spin", "100", (char *)NULL);
			_exit(3);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 4)) {
			printf("# exec child %d: status %#x\n", i, st);
			bad++;
		} else if (WEXITSTATUS(st) == 4) {
			printf("# exec child %d overflowed before exec\n", i);
		}
	}
	check(!bad, "exec with armed counters: no SIGEMT to the new program "
	      "(%d bad)", bad);

	/* Rebind, release and close from another thread amid overflows. */
	f = open_cpc();
	stress_fd = f;
	stress_stop = 0;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, storm_thread, NULL);
	usleep(20000);
	bad = 0;
	memset(tids, 0, sizeof(tids));
	storm_tids(tids);
	for (i = 0; i < 30; i++) {
		pid_t tid = tids[i % 3];
		int e;

		if (!tid)
			continue;
		e = bind_storm(f, tid);
		if (e && e != EPERM)
			bad++;
		usleep(1000);
		e = target(f, CPC_KIOC_RELE, tid);
		if (e && e != EINVAL)
			bad++;
		e = bind_storm(f, tid);
		if (e)
			bad++;
	}
	close(f);		/* the threads keep overflowing meanwhile */
	usleep(20000);
	stress_stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	check(!bad, "rebind/RELE of overflowing threads, then close (%d bad)",
	      bad);

	stress_fd = fd;
	left = wait_threads_gone();	/* exited, for the reaping */
	bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER);
	target(fd, CPC_KIOC_RELE, 0);	/* reaps the killed children */
	after = kt_stat("contexts_in_use");
	if (is_root)
		check(after == before && left == 0, "no contexts leaked "
		      "(%ld -> %ld; %d threads not gone)", before, after, left);

	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = emt_handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSTKFLT, &sa, NULL);
	}
}

static const struct kt_test tests[] = {
	{ "stress", test_stress, 0,
	  "kill, exec, rebind, release and close amid overflows" },
};
KT_SUITE(stress, tests);
