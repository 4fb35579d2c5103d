/* SPDX-License-Identifier: MIT */
/*
 * ktest.h: the harness of kmod_test, the tests of libcpc's kernel module
 * (/dev/cpc, kmod/uapi/cpc_kmod.h), and the helpers its tests share.
 *
 * Each kt_*.c file holds the tests of one concern and ends with its
 * suite: a table of named tests that kt_main.c runs, alone or all, with
 * TAP output (see kt_main.c).  A test asserts with check(); it may call
 * kt_skip() instead when it cannot run here, and must do one or the
 * other (a test that asserts nothing fails).  Every test gets a fresh
 * open file of the device in fd (unless its suite says otherwise) and
 * SIGEMT (SIGSTKFLT) at its default action.
 *
 * Where the module keeps its statistics, test switches and policy
 * parameters is known only to kt_knobs.c.
 */
#ifndef KTEST_H
#define KTEST_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "cpc_kmod.h"	/* kmod/uapi: -I that directory */

#define PAGE 4096
#define NOBODY 65534
#define STRANGER 1001

/* ---- the harness (kt_main.c) ---- */

struct kt_test {
	const char *name;	/* unique among all suites */
	void (*fn)(void);
	unsigned flags;		/* KT_* */
	const char *what;	/* one line for kmod_test -l */
};

#define KT_NO_DEVICE 0x1	/* runs without an open file (fd -1) */
#define KT_STRANGER 0x2		/* runs under --stranger as well */

struct kt_suite {
	const char *name;
	const struct kt_test *tests;
	unsigned ntests;
};

#define KT_SUITE(id, tbl) \
	const struct kt_suite kt_suite_##id = { #id, tbl, \
						sizeof(tbl) / sizeof(tbl[0]) }

/* The suites, in the order they run (each defined by its file). */
extern const struct kt_suite kt_suite_abi, kt_suite_bind, kt_suite_selfread,
	kt_suite_page, kt_suite_overflow, kt_suite_access, kt_suite_ids,
	kt_suite_lifetime, kt_suite_stress;

/* One assertion of the running test (thread-safe; never from a handler). */
void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The running test cannot run here, for this reason (printf format). */
void kt_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

extern int fd;			/* the test's open file of the device */
extern int is_root;		/* running as root */
extern int kt_stranger;		/* --stranger: outside the device's group */
extern const char *kt_self;	/* argv[0], for the tests that exec it */
extern long kt_contexts_base;	/* contexts_in_use at start, -1 unknown */

/* ---- the module's statistics, switches and policy (kt_knobs.c) ---- */

/* A statistic or capability the module reports; -1 if unreadable. */
long kt_stat(const char *name);
/* Root: the statistics readable by the test users (but contexts_in_use). */
void kt_stats_open(void);
/* 0 if the statistic can be opened for reading, else the errno. */
int kt_stat_open_errno(const char *name);
/* A test switch: 1 on, 0 off, -1 unreadable; set: 0 or -1. */
long kt_switch(const char *name);
int kt_set_switch(const char *name, int on);
/* An access or limit policy parameter (numbers; -1 when unreadable). */
long kt_param(const char *name);
int kt_set_param(const char *name, const char *val);
/* Does the module compute a thread's on-CPU time itself (fast_read_time)? */
int self_time_kernel(void);
/* Can it freeze a binding logically at an overflow (fast_freeze)? */
int kt_fast_freeze(void);

/* ---- requests, ioctls, identities, work (kt_util.c) ---- */

pid_t gettid_(void);
int open_cpc(void);
int xioctl(int f, unsigned long cmd, void *arg);
struct cpc_kreq mkreq(uint32_t kind, uint64_t config, uint32_t flags,
		      uint64_t preset);
void mkbind(struct cpc_kbind *kb, pid_t tid, uint32_t flags, unsigned n,
	    const struct cpc_kreq *reqs);
int bind_reqs(int f, unsigned long cmd, pid_t tid, uint32_t flags,
	      unsigned n, const struct cpc_kreq *reqs);
int sample(int f, unsigned long cmd, pid_t tid, struct cpc_ksample *ks);
int target(int f, unsigned long cmd, pid_t tid);
int bind1(uint32_t kind, uint64_t config, uint32_t flags);
int has_hw_pmu(void);

#define TASK_CLOCK(fl, pre) \
	mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, (fl), (pre))
#define CPU_CLOCK(fl, pre) \
	mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, (fl), (pre))
#define PAGE_FAULTS(fl, pre) \
	mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, (fl), (pre))

uint64_t thread_cpu_ns(void);
uint64_t mono_ns(void);
uint64_t switches_now(void);
void spin_ms(unsigned ms);
void touch_pages(size_t n);
int wait_threads_gone(void);

/* A task-clock request measured against the thread's CPU time. */
struct clock_check {
	struct cpc_ksample a, b;	/* the samples around the work */
	uint64_t counted;		/* request req's b - a */
	uint64_t inner, outer;		/* CPU time inside, around them */
	int tries, err;
};
int clock_nested(int f, unsigned req, void (*work)(void),
		 struct clock_check *cc);

gid_t device_gid(void);
void become(uid_t id, int member);
void drop_to_nobody(void);
void become_perfmon(int kill);
int in_child(int (*fn)(void *), void *arg);

/* ---- the state page (kt_page.c) ---- */

struct page_read {
	uint64_t vals[CPC_KMOD_MAX_REQS];
	uint64_t ontime, slack;
	uint32_t nreqs, flags, mask;
};

int page_read_time(const volatile struct cpc_kpage *kp, struct page_read *pr);

/* ---- overflow signals (kt_overflow.c) ---- */

void emt_handler(int sig, siginfo_t *si, void *uc_);

/* ---- the exec'ed images (kt_lifetime.c, kt_main.c) ---- */

int after_exec(int f);

#endif
