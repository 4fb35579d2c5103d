/* SPDX-License-Identifier: MIT */
/*
 * kmod_fuzz: random and mutated requests to /dev/cpc for a bounded time,
 * from several threads that exit in the middle of their calls, with forks
 * and execs in between.  The module must answer every one with a clean
 * error or success; the guest's kernel log (checked by check-kmod.sh)
 * must stay free of oopses and warnings, and the module must unload
 * afterwards.  Prints "KMOD-FUZZ-RESULT: PASS <n> calls".
 *
 * Usage: kmod_fuzz [seconds]     (built static by tests/kmod/check-kmod.sh)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/cpc_kmod.h"

static int dev = -1;
static volatile int stop;
static unsigned long calls;

static unsigned rnd(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* A valid binding to start mutations from. */
static void valid_bind(struct cpc_kbind *kb, unsigned *seed)
{
	memset(kb, 0, sizeof(*kb));
	kb->abi = CPC_KMOD_ABI;
	kb->nreqs = 1 + rnd(seed) % 3;
	for (unsigned i = 0; i < kb->nreqs; i++) {
		kb->req[i].kind = CPC_KEV_SOFTWARE;
		kb->req[i].config = rnd(seed) % 9;
		kb->req[i].flags = CPC_KREQ_USER |
		    (rnd(seed) % 4 == 0 ? CPC_KREQ_OVF_EMT : 0);
		kb->req[i].preset = rnd(seed) % 2 ? 0 : UINT64_MAX - rnd(seed) % 1000;
	}
}

static void mutate(void *p, size_t n, unsigned *seed)
{
	unsigned char *b = p;
	int flips = 1 + rnd(seed) % 4;
	for (int i = 0; i < flips; i++) {
		size_t at = rnd(seed) % n;
		switch (rnd(seed) % 4) {
		case 0:
			b[at] ^= (unsigned char)(1u << (rnd(seed) % 8));
			break;
		case 1:
			b[at] = (unsigned char)rnd(seed);
			break;
		case 2:
			b[at] = 0xff;
			break;
		default:
			b[at] = 0;
			break;
		}
	}
}

static void one_call(unsigned *seed)
{
	static const unsigned long cmds[] = { CPC_KIOC_INFO, CPC_KIOC_BIND,
		CPC_KIOC_SAMPLE, CPC_KIOC_RELE, CPC_KIOC_RESTART,
		CPC_KIOC_GROUP_OPEN, CPC_KIOC_GROUP_SAMPLE,
		CPC_KIOC_GROUP_CLOSE };
	union {
		struct cpc_kbind kb;
		struct cpc_ksample ks;
		struct cpc_ktarget kt;
		struct cpc_kinfo ki;
		unsigned char raw[sizeof(struct cpc_kbind) + 64];
	} u;
	unsigned long cmd = cmds[rnd(seed) % 8];
	memset(&u, 0, sizeof(u));
	valid_bind(&u.kb, seed);
	if (cmd != CPC_KIOC_BIND && cmd != CPC_KIOC_GROUP_OPEN) {
		memset(&u, 0, sizeof(u));
		u.ks.abi = CPC_KMOD_ABI;
	}
	if (rnd(seed) % 3 != 0)
		mutate(&u, sizeof(u.kb), seed);
	switch (rnd(seed) % 16) {
	case 0:		/* an unknown command */
		cmd = _IOWR(CPC_KIOC_TYPE, 8 + rnd(seed) % 8, struct cpc_kbind);
		break;
	case 1:		/* a bad pointer: unmapped low memory, or the kernel's */
		ioctl(dev, cmd, rnd(seed) % 2
			? (void *)(uintptr_t)(rnd(seed) % 0x10000)
			: (void *)(uintptr_t)(0xffff888000000000ULL +
			      rnd(seed) * 4096ULL));
		__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
		return;
	case 2:		/* another thread id, maybe not ours */
		u.kt.tid = (int)(rnd(seed) % 4096);
		break;
	default:
		break;
	}
	ioctl(dev, cmd, &u);
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (rnd(seed) % 64 == 0) {
		void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, dev, 0);
		if (m != MAP_FAILED)
			munmap(m, 4096);
	}
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	int n = 50 + (int)(rnd(&seed) % 200);
	for (int i = 0; i < n && !stop; i++)
		one_call(&seed);
	return NULL;	/* exits with whatever it bound */
}

static void on_signal(int sig)
{
	(void)sig;	/* overflow signals of the fuzzed bindings */
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 10;
	if (argc > 1 && strcmp(argv[1], "child-exec") == 0)
		return 0;
	signal(16, on_signal);
	dev = open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		printf("KMOD-FUZZ-RESULT: FAIL cannot open %s: %s\n",
		    CPC_KMOD_DEVICE, strerror(errno));
		return 1;
	}
	time_t end = time(NULL) + seconds;
	unsigned seed = (unsigned)getpid();
	int rounds = 0;
	while (time(NULL) < end) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, worker,
			    (void *)(uintptr_t)rnd(&seed));
		for (int i = 0; i < 50; i++)
			one_call(&seed);
		if (rounds % 8 == 0) {
			pid_t pid = fork();
			if (pid == 0) {
				for (int i = 0; i < 20; i++)
					one_call(&seed);
				if (rnd(&seed) % 2)
					execl("/proc/self/exe", argv[0],
					    "child-exec", (char *)NULL);
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		if (rounds % 16 == 0) {	/* a new file, the old one closed */
			close(dev);
			dev = open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
			if (dev < 0)
				break;
		}
		rounds++;
	}
	stop = 1;
	if (dev >= 0)
		close(dev);
	printf("KMOD-FUZZ-RESULT: PASS %lu calls in %d rounds\n", calls, rounds);
	return 0;
}
