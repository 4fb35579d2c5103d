/* SPDX-License-Identifier: MIT */
/*
 * kt_abi.c: the device's interface (kmod/uapi/cpc_kmod.h): INFO, and
 * every malformed request, pointer and command refused with its errno.
 */
#define _GNU_SOURCE
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

/* The device opens (the other tests get their own open file). */
static void test_open(void)
{
	int f = open_cpc();

	check(f >= 0, "open " CPC_KMOD_DEVICE " (%s)",
	      f < 0 ? strerror(errno) : "ok");
	if (f >= 0)
		close(f);
}

static void test_info(void)
{
	struct cpc_kinfo info;

	memset(&info, 0xff, sizeof(info));
	check(xioctl(fd, CPC_KIOC_INFO, &info) == 0, "INFO succeeds");
	check(info.abi == CPC_KMOD_ABI && info.max_reqs == CPC_KMOD_MAX_REQS,
	      "INFO abi %u max_reqs %u", info.abi, info.max_reqs);
	check(info.caps & CPC_KCAP_OVERFLOW, "INFO caps 0x%x has OVERFLOW",
	      info.caps);
	check(info.signo == 16, "INFO signo %u == 16 (SIGEMT)", info.signo);
	check(info.reserved[0] == 0 && info.reserved[1] == 0,
	      "INFO reserved zeroed");
	printf("# hardware PMU: %s\n",
	       (info.caps & CPC_KCAP_HW_PMU) ? "yes" : "no");
}

static void test_bad_input(void)
{
	static const int raw_bad_bits[] = { 16, 17, 19, 20, 21, 22, 36, 63 };
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_kbind kb;
	struct cpc_ksample ks;
	struct cpc_ktarget kt;
	void *ro;
	unsigned i;
	int bad;

	mkbind(&kb, 0, 0, 1, &r);
	kb.abi = 2;
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL, "BIND abi 2: EINVAL");
	mkbind(&kb, 0, 0, 1, &r);
	kb.reserved[1] = 1;
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL,
	      "BIND reserved != 0: EINVAL");
	mkbind(&kb, 0, 0, 1, &r);
	kb.req[0].reserved[0] = 1;
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL,
	      "request reserved != 0: EINVAL");
	mkbind(&kb, 0, 0, 1, &r);
	kb.req[5].config = 1;
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL,
	      "nonzero request past nreqs: EINVAL");
	mkbind(&kb, 0, 0, 1, &r);
	kb.nreqs = 0;
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL, "nreqs 0: EINVAL");
	kb.nreqs = 17;
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL, "nreqs 17: EINVAL");
	mkbind(&kb, 0, 0x2, 1, &r);
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL,
	      "unknown bind flag: EINVAL");
	mkbind(&kb, -1, 0, 1, &r);
	check(xioctl(fd, CPC_KIOC_BIND, &kb) == EINVAL, "tid -1: EINVAL");

	check(bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0x8) == EINVAL,
	      "unknown request flag: EINVAL");
	check(bind1(0, 0, CPC_KREQ_USER) == EINVAL, "kind 0: EINVAL");
	check(bind1(5, 0, CPC_KREQ_USER) == EINVAL, "kind 5: EINVAL");
	check(bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_DUMMY, CPC_KREQ_USER) ==
	      EINVAL, "software DUMMY: EINVAL");
	check(bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,
		    CPC_KREQ_USER) == EINVAL, "software BPF_OUTPUT: EINVAL");
	check(bind1(CPC_KEV_SOFTWARE, 1ull << 32, CPC_KREQ_USER) == EINVAL,
	      "software config 2^32: EINVAL");
	bad = 0;
	for (i = 0; i < sizeof(raw_bad_bits) / sizeof(raw_bad_bits[0]); i++)
		if (bind1(CPC_KEV_RAW_X86, 0x3c | 1ull << raw_bad_bits[i],
			  CPC_KREQ_USER) != EINVAL)
			bad++;
	check(!bad, "raw x86 with USR/OS/INT/EN/ANY/PC/high bits: EINVAL");
	check(bind1(CPC_KEV_HARDWARE, PERF_COUNT_HW_MAX, CPC_KREQ_USER) ==
	      EINVAL, "hardware config HW_MAX: EINVAL");
	check(bind1(CPC_KEV_HW_CACHE, PERF_COUNT_HW_CACHE_MAX,
		    CPC_KREQ_USER) == EINVAL, "cache id MAX: EINVAL");
	check(bind1(CPC_KEV_HW_CACHE, PERF_COUNT_HW_CACHE_OP_MAX << 8,
		    CPC_KREQ_USER) == EINVAL, "cache op MAX: EINVAL");
	check(bind1(CPC_KEV_HW_CACHE, PERF_COUNT_HW_CACHE_RESULT_MAX << 16,
		    CPC_KREQ_USER) == EINVAL, "cache result MAX: EINVAL");
	check(bind1(CPC_KEV_HW_CACHE, 1ull << 24, CPC_KREQ_USER) == EINVAL,
	      "cache extra bits: EINVAL");
	if (!has_hw_pmu()) {
		int e1 = bind1(CPC_KEV_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
			       CPC_KREQ_USER);
		int e2 = bind1(CPC_KEV_RAW_X86, 0x3c, CPC_KREQ_USER);

		check(e1 == ENOENT && e2 == ENOENT, "no PMU: hardware and raw "
		      "events fail with ENOENT (%d %d)", e1, e2);
	}

	memset(&ks, 0, sizeof(ks));
	ks.abi = 0;
	check(xioctl(fd, CPC_KIOC_SAMPLE, &ks) == EINVAL,
	      "SAMPLE abi 0: EINVAL");
	ks.abi = CPC_KMOD_ABI;
	ks.reserved[0] = 1;
	check(xioctl(fd, CPC_KIOC_SAMPLE, &ks) == EINVAL,
	      "SAMPLE reserved: EINVAL");
	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	kt.reserved = 1;
	check(xioctl(fd, CPC_KIOC_RELE, &kt) == EINVAL &&
	      xioctl(fd, CPC_KIOC_RESTART, &kt) == EINVAL &&
	      xioctl(fd, CPC_KIOC_GROUP_CLOSE, &kt) == EINVAL,
	      "target reserved: EINVAL");

	check(xioctl(fd, _IO(CPC_KIOC_TYPE, 99), NULL) == ENOTTY,
	      "unknown ioctl: ENOTTY");
	check(xioctl(fd, _IOW(CPC_KIOC_TYPE, 1, int), &bad) == ENOTTY,
	      "BIND number with a wrong size: ENOTTY");
	check(xioctl(fd, CPC_KIOC_BIND, NULL) == EFAULT &&
	      xioctl(fd, CPC_KIOC_SAMPLE, (void *)1) == EFAULT &&
	      xioctl(fd, CPC_KIOC_INFO, NULL) == EFAULT &&
	      xioctl(fd, CPC_KIOC_RELE, NULL) == EFAULT &&
	      xioctl(fd, CPC_KIOC_GROUP_OPEN, (void *)-4096L) == EFAULT,
	      "bad pointers: EFAULT");

	/* A valid SAMPLE in read-only memory: the copy out faults. */
	bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER);
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(ro, 0, sizeof(ks));
	((struct cpc_ksample *)ro)->abi = CPC_KMOD_ABI;
	mprotect(ro, PAGE, PROT_READ);
	check(xioctl(fd, CPC_KIOC_SAMPLE, ro) == EFAULT,
	      "SAMPLE into read-only memory: EFAULT");
	munmap(ro, PAGE);

	check(target(fd, CPC_KIOC_RELE, 0) == 0, "RELE");
	check(sample(fd, CPC_KIOC_SAMPLE, 0, &ks) == EINVAL &&
	      target(fd, CPC_KIOC_RESTART, 0) == EINVAL &&
	      target(fd, CPC_KIOC_RELE, 0) == EINVAL,
	      "unbound: SAMPLE, RESTART, RELE are EINVAL");
}

static const struct kt_test tests[] = {
	{ "open", test_open, KT_NO_DEVICE, "the device opens" },
	{ "info", test_info, 0, "INFO: ABI, limits, capabilities, signal" },
	{ "bad_input", test_bad_input, 0,
	  "malformed requests, pointers and commands: their errno" },
};
KT_SUITE(abi, tests);
