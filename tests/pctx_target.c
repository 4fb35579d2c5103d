/* SPDX-License-Identifier: MIT */
/*
 * A workload for the libpctx, cputrack and cpustat tests: runs its
 * arguments as steps, in order.
 *
 *   spin MS          burn MS milliseconds of CPU time without a context
 *                    switch (see spin_ms)
 *   pages N          touch N fresh pages (N page faults at least)
 *   threads N MS     run N threads that each spin MS ms; join them
 *   fork MS          fork a child that spins MS ms and exits; wait for it
 *   tfork MS         the same, from a second thread (LWP 2)
 *   cldfork MS       the same, then exit with the number of stops and
 *                    continuations of the child SIGCHLD told of
 *   sleep MS         sleep MS milliseconds
 *   pid              print "pid <pid>" and flush
 *   sigdfl           restore the default action of SIGINT and SIGQUIT
 *                    (which a shell ignores in background commands)
 *   exec PROG ARG..  replace the process by PROG (the rest of the line)
 *   texec PROG ARG.. the same, from a second thread
 *   exit CODE        exit with CODE
 *
 * It links nothing but libc and libpthread, so that it runs as itself
 * under a tracer (no libtool wrapper).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

static uint64_t switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/*
 * Burns MS milliseconds of CPU time in stretches of at most 250 us during
 * which the thread stayed on its processor, and as much more as stretches
 * with a context switch took.  A counter of on-CPU time (task-clock) then
 * counts at least MS ms however loaded the machine: over a stretch
 * without a switch it counts at least the CPU time the thread was
 * charged, but at a switch the scheduler charges the switch's own path
 * (from picking the thread to the counters' sched-in hook at its end) to
 * the thread and the counters do not, a few us natively, milliseconds
 * in an emulated guest on a loaded host (a 100 ms spin counted 94.3 ms
 * through the kernel module so).
 */
static void spin_ms(long ms)
{
	uint64_t want = (uint64_t)ms * 1000000u, clean = 0;

	while (clean < want) {
		uint64_t sw = switches(), t0 = cpu_ns(), t;
		do {
			for (int i = 0; i < 1000; i++)
				sink += (uint64_t)i;
			t = cpu_ns();
		} while (t - t0 < 250000 && t - t0 < want - clean);
		if (switches() == sw)
			clean += t - t0;
	}
}

static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	/* One fault per page: no transparent huge pages (the guest's kernel
	 * gives them to anonymous maps, a fault per 2 MiB). */
	madvise(p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	munmap(p, (size_t)(n * page));
}

static void *thread_main(void *arg)
{
	spin_ms((long)(intptr_t)arg);
	return NULL;
}

static void *fork_main(void *arg)
{
	pid_t c = fork();
	if (c == 0) {
		spin_ms((long)(intptr_t)arg);
		_exit(0);
	}
	waitpid(c, NULL, 0);
	return NULL;
}

static void *exec_main(void *arg)
{
	char **argv = arg;
	execvp(argv[0], argv);
	perror("execvp");
	exit(127);
}

/* SIGCHLDs telling of a child's stop or continuation ("cldfork"). */
static volatile sig_atomic_t cld_stops;

static void on_chld(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	if (si->si_code == CLD_STOPPED || si->si_code == CLD_CONTINUED)
		cld_stops++;
}

static long num(char **argv, int i, int argc)
{
	if (i >= argc) {
		fprintf(stderr, "pctx_target: missing number\n");
		exit(2);
	}
	return strtol(argv[i], NULL, 10);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *step = argv[i];
		if (strcmp(step, "spin") == 0) {
			spin_ms(num(argv, ++i, argc));
		} else if (strcmp(step, "pages") == 0) {
			touch_pages(num(argv, ++i, argc));
		} else if (strcmp(step, "threads") == 0) {
			long n = num(argv, ++i, argc);
			long ms = num(argv, ++i, argc);
			pthread_t t[64];
			if (n > 64)
				n = 64;
			for (long k = 0; k < n; k++)
				pthread_create(&t[k], NULL, thread_main,
				    (void *)(intptr_t)ms);
			for (long k = 0; k < n; k++)
				pthread_join(t[k], NULL);
		} else if (strcmp(step, "fork") == 0) {
			long ms = num(argv, ++i, argc);
			pid_t c = fork();
			if (c == 0) {
				spin_ms(ms);
				_exit(0);
			}
			waitpid(c, NULL, 0);
		} else if (strcmp(step, "tfork") == 0) {
			long ms = num(argv, ++i, argc);
			pthread_t t;
			pthread_create(&t, NULL, fork_main, (void *)(intptr_t)ms);
			pthread_join(t, NULL);
		} else if (strcmp(step, "cldfork") == 0) {
			/* fork as "fork", then exit with the number of
			 * stops and continuations SIGCHLD told of */
			long ms = num(argv, ++i, argc);
			struct sigaction sa;
			memset(&sa, 0, sizeof(sa));
			sa.sa_sigaction = on_chld;
			sa.sa_flags = SA_SIGINFO | SA_RESTART;
			sigaction(SIGCHLD, &sa, NULL);
			pid_t c = fork();
			if (c == 0) {
				spin_ms(ms);
				_exit(0);
			}
			while (waitpid(c, NULL, 0) < 0)
				;
			return (int)cld_stops;
		} else if (strcmp(step, "sleep") == 0) {
			long ms = num(argv, ++i, argc);
			struct timespec ts = { ms / 1000,
				(ms % 1000) * 1000000 };
			nanosleep(&ts, NULL);
		} else if (strcmp(step, "sigdfl") == 0) {
			signal(SIGINT, SIG_DFL);
			signal(SIGQUIT, SIG_DFL);
		} else if (strcmp(step, "pid") == 0) {
			printf("pid %d\n", (int)getpid());
			fflush(stdout);
		} else if (strcmp(step, "exec") == 0) {
			if (i + 1 >= argc)
				return 2;
			execvp(argv[i + 1], &argv[i + 1]);
			perror("execvp");
			return 127;
		} else if (strcmp(step, "texec") == 0) {
			pthread_t t;
			if (i + 1 >= argc)
				return 2;
			pthread_create(&t, NULL, exec_main, &argv[i + 1]);
			for (;;)
				pause();
		} else if (strcmp(step, "exit") == 0) {
			return (int)num(argv, ++i, argc);
		} else {
			fprintf(stderr, "pctx_target: unknown step '%s'\n",
			    step);
			return 2;
		}
	}
	return 0;
}
