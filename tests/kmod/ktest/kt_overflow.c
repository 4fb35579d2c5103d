/* SPDX-License-Identifier: MIT */
/*
 * kt_overflow.c: overflow notification (CPC_KREQ_OVF_EMT): SIGEMT, freezing,
 * RESTART, reads of stopped counters, and what a freeze must not leak.
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
#include <ucontext.h>
#include <unistd.h>

#include "ktest.h"

/*
 * Stopped counters (here frozen by an overflow) are read from their
 * final values without perf's locks (statistic stopped_reads); with the
 * switch quick_reads off (root), every read goes through perf, and
 * must give exactly the same sample.  Root freezes with logical_freeze
 * N (every counter stopped); otherwise, frozen logically, only the
 * overflowing counter is stopped (test_freeze_leak tests the rest).
 */
static void test_stopped_read(void)
{
	struct cpc_kreq r[3] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -20ull),
		TASK_CLOCK(CPC_KREQ_USER, 5),
	};
	struct cpc_ksample a, b, c;
	struct sigaction ign, old;
	long before, after, freezes;
	int err, physical, stopped;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGSTKFLT, &ign, &old);
	physical = kt_switch("logical_freeze") == 1 &&
		   kt_set_switch("logical_freeze", 0) == 0;
	freezes = kt_stat("logical_freezes");
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	spin_ms(20);
	touch_pages(100);	/* the 20th fault freezes the counters */
	before = kt_stat("stopped_reads");
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	spin_ms(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &b);
	after = kt_stat("stopped_reads");
	check(err == 0 && (a.flags & CPC_KSAMPLE_FROZEN) &&
	      a.vals[1] == 0 && a.vals[0] > 10000000 &&
	      memcmp(a.vals, b.vals, sizeof(a.vals)) == 0 &&
	      a.ontime_ns == b.ontime_ns, "frozen by the overflow: "
	      "task-clock %llu, page-faults %llu, on-CPU %llu ns, the same "
	      "in the next sample", (unsigned long long)a.vals[0],
	      (unsigned long long)a.vals[1], (unsigned long long)a.ontime_ns);
	stopped = kt_stat("logical_freezes") > freezes ? 1 : 3;
	check(before >= 0 && after - before >= 2 * stopped &&
	      (stopped == 3 || !physical), "stopped_reads %ld -> %ld: two "
	      "samples of %d stopped counter(s) read them without perf's "
	      "locks", before, after, stopped);
	if (is_root) {
		err = kt_set_switch("quick_reads", 0);
		sample(fd, CPC_KIOC_SAMPLE, 0, &c);
		check(err == 0 && kt_stat("stopped_reads") == after &&
		      memcmp(a.vals, c.vals, sizeof(a.vals)) == 0 &&
		      a.ontime_ns == c.ontime_ns && c.flags == a.flags,
		      "and read through perf (quick_reads=N): the same "
		      "sample (%llu %llu, %llu ns)",
		      (unsigned long long)c.vals[0],
		      (unsigned long long)c.vals[1],
		      (unsigned long long)c.ontime_ns);
		kt_set_switch("quick_reads", 1);
	}
	target(fd, CPC_KIOC_RELE, 0);
	if (physical)
		kt_set_switch("logical_freeze", 1);
	sigaction(SIGSTKFLT, &old, NULL);
}

/* ---- overflow ---------------------------------------------------- */

static volatile int ovf_count, ovf_code, ovf_rebind_err;
static volatile pid_t ovf_tid;
static void *volatile ovf_addr;
static volatile uintptr_t ovf_rip;
static volatile int ovf_addr_mismatch;
static struct cpc_kbind ovf_rebind;	/* rebind from the handler if nreqs */

void emt_handler(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	ovf_count++;
	ovf_code = si->si_code;
	ovf_addr = si->si_addr;
	ovf_rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	if ((uintptr_t)si->si_addr != ovf_rip)
		ovf_addr_mismatch = 1;
	ovf_tid = gettid_();
	if (ovf_rebind.nreqs && ioctl(fd, CPC_KIOC_BIND, &ovf_rebind) != 0)
		ovf_rebind_err = errno;
}

static void ovf_reset(void)
{
	ovf_count = 0;
	ovf_code = 0;
	ovf_addr = NULL;
	ovf_rip = 0;
	ovf_addr_mismatch = 0;
	ovf_tid = 0;
	ovf_rebind_err = 0;
	memset(&ovf_rebind, 0, sizeof(ovf_rebind));
}

static void *overflow_thread(void *arg)
{
	struct cpc_kreq r[2] = {
		PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -1000ull),
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample s1, s2;
	const struct cpc_kpage *kp;
	pid_t me = gettid_();
	int err;

	(void)arg;
	ovf_reset();
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	check(err == 0, "bind page-faults with OVF_EMT, preset 2^64-1000 "
	      "(err %d)", err);
	kp = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	touch_pages(5000);
	check(ovf_count == 1, "exactly one SIGEMT over 5000 pages (%d)",
	      ovf_count);
	check(ovf_code == 1, "si_code %d == EMT_CPCOVF", ovf_code);
	check(ovf_addr != NULL && !ovf_addr_mismatch,
	      "si_addr %p is the interrupted RIP %#lx", ovf_addr,
	      (unsigned long)ovf_rip);
	check(ovf_tid == me, "delivered to the binding thread (%d, %d)",
	      ovf_tid, me);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s1);
	check(s1.flags & CPC_KSAMPLE_FROZEN, "sample flags FROZEN (%u)",
	      s1.flags);
	check(s1.vals[0] < 100, "count wrapped and froze at %llu",
	      (unsigned long long)s1.vals[0]);
	touch_pages(500);
	spin_ms(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s2);
	check(s2.vals[0] == s1.vals[0] && s2.vals[1] == s1.vals[1],
	      "counts stay frozen (%llu %llu)", (unsigned long long)s2.vals[0],
	      (unsigned long long)s2.vals[1]);
	if (kp != MAP_FAILED)
		check(kp->flags & CPC_KSAMPLE_FROZEN, "state page FROZEN");

	/* RESTART: counts read the presets again and overflow re-arms. */
	ovf_reset();
	err = target(fd, CPC_KIOC_RESTART, 0);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s1);
	check(err == 0 && s1.flags == 0 && s1.vals[0] + 1000 < 5 &&
	      s1.vals[1] < 1000000000, "RESTART: counts back at the presets "
	      "(%llu %llu)", (unsigned long long)s1.vals[0],
	      (unsigned long long)s1.vals[1]);
	touch_pages(1500);
	check(ovf_count == 1 && ovf_tid == me,
	      "one SIGEMT after RESTART (%d)", ovf_count);

	/* Rebinding from the handler: about one signal per 1000 pages. */
	ovf_reset();
	mkbind(&ovf_rebind, 0, 0, 2, r);
	err = xioctl(fd, CPC_KIOC_BIND, &ovf_rebind);
	touch_pages(5000);
	check(err == 0 && ovf_count >= 4 && ovf_count <= 6 &&
	      !ovf_rebind_err, "rebind from the handler: %d signals over "
	      "5000 pages (rebind err %d)", ovf_count, ovf_rebind_err);
	memset(&ovf_rebind, 0, sizeof(ovf_rebind));

	/* A timer-based event overflowing in an interrupt. */
	ovf_reset();
	r[0] = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -20000000ull);
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, r);
	spin_ms(200);
	check(err == 0 && ovf_count == 1 && ovf_code == 1 &&
	      !ovf_addr_mismatch && ovf_addr && ovf_tid == me,
	      "task-clock overflow after 20 ms: %d signal(s), si_addr %p "
	      "== RIP", ovf_count, ovf_addr);

	if (kp != MAP_FAILED)
		munmap((void *)kp, PAGE);
	target(fd, CPC_KIOC_RELE, 0);
	return NULL;
}

static void test_overflow(void)
{
	struct sigaction sa;
	struct cpc_kreq r = PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT,
					-1000ull);
	struct cpc_ksample s;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSTKFLT, &sa, NULL);
	pthread_create(&t, NULL, overflow_thread, NULL);
	pthread_join(t, NULL);

	/* An ignored SIGEMT: the counters still freeze, nothing dies. */
	signal(SIGSTKFLT, SIG_IGN);
	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	touch_pages(2000);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.flags & CPC_KSAMPLE_FROZEN, "ignored SIGEMT: still frozen");
	sigaction(SIGSTKFLT, &sa, NULL);
}

/*
 * A frozen binding leaks nothing: its counters that did not overflow
 * (here task-clock, the first request, whose enabled time is the on-CPU
 * time) read the same however long the thread runs while frozen; a
 * rebind in place with the frozen counts as presets goes on from them,
 * and RESTART's on-CPU time goes on from the freeze: the frozen interval
 * is in neither.  The module freezes logically where it can (only the
 * overflowing counter stops in perf, see kmod/cpc_ctx.c): run with
 * logical_freeze Y and N when the switch can be set.
 */
static void *freeze_leak_thread(void *arg)
{
	const uint64_t ms = 1000000, period = 100;
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -period),
	};
	struct cpc_ksample s1, s2, s3;
	const char *how = arg;
	long before = kt_stat("logical_freezes");
	int err;

	ovf_reset();
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	touch_pages(3 * period);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s1);
	check(err == 0 && ovf_count == 1 && (s1.flags & CPC_KSAMPLE_FROZEN),
	      "%s: frozen after one overflow (err %d, %d signals)", how, err,
	      ovf_count);
	spin_ms(100);
	touch_pages(period);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s2);
	check(s2.vals[0] == s1.vals[0] && s2.vals[1] == s1.vals[1] &&
	      s2.ontime_ns == s1.ontime_ns && ovf_count == 1,
	      "%s: 100 ms on the CPU while frozen: task-clock %llu -> %llu, "
	      "on-CPU %llu -> %llu ns", how, (unsigned long long)s1.vals[0],
	      (unsigned long long)s2.vals[0],
	      (unsigned long long)s1.ontime_ns,
	      (unsigned long long)s2.ontime_ns);

	/* Rebound in place from the frozen counts (as libcpc resumes). */
	r[0].preset = s2.vals[0];
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s3);
	check(err == 0 && s3.flags == 0 && s3.vals[0] >= s2.vals[0] &&
	      s3.vals[0] < s2.vals[0] + 50 * ms && s3.ontime_ns < 50 * ms,
	      "%s: rebound from the frozen task-clock %llu: %llu, on-CPU "
	      "%llu ns (the frozen 100 ms not in them)", how,
	      (unsigned long long)s2.vals[0], (unsigned long long)s3.vals[0],
	      (unsigned long long)s3.ontime_ns);
	spin_ms(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s1);
	check(s1.vals[0] >= s3.vals[0] + 15 * ms && s1.ontime_ns >= 15 * ms,
	      "%s: counting goes on after the rebind (%llu -> %llu)", how,
	      (unsigned long long)s3.vals[0], (unsigned long long)s1.vals[0]);

	/* Frozen again, then RESTART: the on-CPU time skips the freeze. */
	touch_pages(3 * period);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s1);
	spin_ms(100);
	err = target(fd, CPC_KIOC_RESTART, 0);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s2);
	check(err == 0 && ovf_count == 2 && (s1.flags & CPC_KSAMPLE_FROZEN) &&
	      s2.flags == 0 && s2.ontime_ns >= s1.ontime_ns &&
	      s2.ontime_ns < s1.ontime_ns + 50 * ms &&
	      s2.vals[0] < r[0].preset + 50 * ms,
	      "%s: RESTART after 100 ms frozen: on-CPU %llu -> %llu ns, "
	      "task-clock from its preset %llu (%d signals)", how,
	      (unsigned long long)s1.ontime_ns,
	      (unsigned long long)s2.ontime_ns,
	      (unsigned long long)s2.vals[0], ovf_count);
	spin_ms(20);
	touch_pages(period / 2);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s3);
	check(s3.vals[0] >= s2.vals[0] + 15 * ms &&
	      s3.vals[1] >= s2.vals[1] + period / 2 && ovf_count == 2,
	      "%s: counting goes on after RESTART (%llu -> %llu, faults "
	      "%llu -> %llu)", how, (unsigned long long)s2.vals[0],
	      (unsigned long long)s3.vals[0], (unsigned long long)s2.vals[1],
	      (unsigned long long)s3.vals[1]);
	target(fd, CPC_KIOC_RELE, 0);
	if (kt_fast_freeze() && kt_switch("logical_freeze") == 1)
		check(kt_stat("logical_freezes") >= before + 2,
		      "%s: both freezes were logical (%ld -> %ld)", how,
		      before, kt_stat("logical_freezes"));
	return NULL;
}

static void test_freeze_leak(void)
{
	struct sigaction sa;
	pthread_t t;
	long was = kt_switch("logical_freeze");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSTKFLT, &sa, NULL);
	pthread_create(&t, NULL, freeze_leak_thread, "freeze");
	pthread_join(t, NULL);
	if (was == 1 && kt_set_switch("logical_freeze", 0) == 0) {
		pthread_create(&t, NULL, freeze_leak_thread,
			       "logical_freeze=N");
		pthread_join(t, NULL);
		kt_set_switch("logical_freeze", 1);
	}
}

static void test_frozen_restart(void)
{
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 111),
		PAGE_FAULTS(CPC_KREQ_USER, 222),
	};
	struct cpc_ksample s;
	uint64_t prev;
	int err;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, CPC_KBIND_START_FROZEN, 2, r);
	spin_ms(10);
	touch_pages(50);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.vals[0] == 111 && s.vals[1] == 222 &&
	      (s.flags & CPC_KSAMPLE_FROZEN), "START_FROZEN reads exactly "
	      "the presets (%llu %llu flags %u)", (unsigned long long)s.vals[0],
	      (unsigned long long)s.vals[1], s.flags);
	err = target(fd, CPC_KIOC_RESTART, 0);
	spin_ms(10);
	touch_pages(50);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.flags == 0 && s.vals[0] > 111 + 5000000 &&
	      s.vals[1] >= 222 + 50, "RESTART runs them (%llu %llu)",
	      (unsigned long long)s.vals[0], (unsigned long long)s.vals[1]);
	spin_ms(300);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	prev = s.vals[0];
	err = target(fd, CPC_KIOC_RESTART, 0);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.vals[0] < prev - 250000000 && s.vals[1] < 222 + 5,
	      "RESTART again: back near the presets (%llu %llu)",
	      (unsigned long long)s.vals[0], (unsigned long long)s.vals[1]);
}

/* ---- a notifying clock at its period's boundaries ------------------ */

static volatile int clk_sigs;
static volatile uint64_t clk_at;	/* mono_ns() in the last handler */

static void clk_handler(int sig)
{
	(void)sig;
	clk_sigs++;
	clk_at = mono_ns();
}

/* Spins until a signal came or @ms of CPU time passed. */
static void spin_for_signal(unsigned ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;

	while (!clk_sigs && thread_cpu_ns() < end)
		spin_ms(1);
}

/*
 * The count at a clock's overflow, sampled frozen: it passed 2^64 - 1
 * (it reads D + v - D = v, small) no later than the handler ran: preset
 * + (D + v) counted ns, at most the ns since @t0 (taken before the bind
 * or restart) when the handler ran.
 */
static void check_clock_freeze(const char *name, uint64_t d, uint64_t t0,
			       const char *when)
{
	struct cpc_ksample s, s2;
	uint64_t v;

	spin_ms(3 * d / 1000000);	/* no second signal: it is frozen */
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	v = s.vals[0];
	check(clk_sigs == 1, "%s %s: exactly one SIGEMT (%d)", name, when,
	      clk_sigs);
	check((s.flags & CPC_KSAMPLE_FROZEN) && v < (1ull << 62) && clk_at &&
	      d + v <= clk_at - t0, "%s %s: frozen %llu ns past 2^64 - 1; "
	      "%llu ns of count <= %llu ns elapsed at the handler", name, when,
	      (unsigned long long)v, (unsigned long long)(d + v),
	      (unsigned long long)(clk_at - t0));
	spin_ms(5);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s2);
	check(s2.vals[0] == v && (s2.flags & CPC_KSAMPLE_FROZEN) &&
	      clk_sigs == 1, "%s %s: stays frozen at %llu", name, when,
	      (unsigned long long)s2.vals[0]);
}

/*
 * A clock that notifies overflow, preset 2^64 - D: one signal when the
 * count passes 2^64 - 1 (D ns of counting), frozen there; RESTART reads
 * the preset again and the next signal comes D ns later, once.  Perf's
 * clocks sample from an hrtimer, not from the count itself, so this is
 * the module's own arithmetic of the period.
 */
static void clock_overflow(uint64_t config, const char *name)
{
	const uint64_t d = 20000000;	/* 20 ms */
	struct cpc_kreq r = mkreq(CPC_KEV_SOFTWARE, config,
				  CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -d);
	struct cpc_ksample s;
	uint64_t t0, t1;
	int err;

	clk_sigs = 0;
	clk_at = 0;
	t0 = mono_ns();
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	check(err == 0, "bind %s with OVF_EMT, preset 2^64 - 20 ms (%d)", name,
	      err);
	if (err)
		return;
	spin_for_signal(2000);
	check_clock_freeze(name, d, t0, "at 2^64");

	clk_sigs = 0;
	clk_at = 0;
	t0 = mono_ns();
	err = target(fd, CPC_KIOC_RESTART, 0);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	t1 = mono_ns();
	check(err == 0 && s.flags == 0 && s.vals[0] >= -d &&
	      s.vals[0] - -d <= t1 - t0, "%s RESTART: the preset again, + %lld "
	      "ns (<= %llu elapsed)", name, (long long)(s.vals[0] + d),
	      (unsigned long long)(t1 - t0));
	spin_for_signal(2000);
	check_clock_freeze(name, d, t0, "after RESTART");
	target(fd, CPC_KIOC_RELE, 0);
}

/*
 * The longest notifying period perf takes is 2^63 - 1 (preset 2^63 + 1);
 * preset 2^63 (a period of 2^63) and below do not notify (cpc(4)).  A
 * period of 2^63 given to perf's clocks would be negative there and fire
 * within microseconds.  Without OVF_EMT a count passes 2^64 silently.
 */
static void clock_no_overflow(uint64_t config, const char *name)
{
	static const uint64_t presets[] = { 1ull << 63, (1ull << 63) + 1 };
	const uint64_t d = 2000000;	/* 2 ms */
	struct cpc_kreq r;
	struct cpc_ksample s;
	uint64_t t0, t1;
	unsigned i;
	int err;

	for (i = 0; i < 2; i++) {
		r = mkreq(CPC_KEV_SOFTWARE, config,
			  CPC_KREQ_USER | CPC_KREQ_OVF_EMT, presets[i]);
		clk_sigs = 0;
		t0 = mono_ns();
		err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
		spin_ms(30);
		sample(fd, CPC_KIOC_SAMPLE, 0, &s);
		t1 = mono_ns();
		check(err == 0 && clk_sigs == 0 && s.flags == 0 &&
		      s.vals[0] > presets[i] &&
		      s.vals[0] - presets[i] <= t1 - t0, "%s OVF_EMT preset "
		      "2^63%s: no signal in 30 ms, counts on from it (+%llu "
		      "ns, %d signals)", name, i ? " + 1" : "",
		      (unsigned long long)(s.vals[0] - presets[i]), clk_sigs);
	}
	r = mkreq(CPC_KEV_SOFTWARE, config, CPC_KREQ_USER, -d);
	clk_sigs = 0;
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	spin_ms(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && clk_sigs == 0 && s.flags == 0 &&
	      s.vals[0] < (1ull << 62) && s.vals[0] >= 10000000,
	      "%s without OVF_EMT, preset 2^64 - 2 ms: wraps silently and "
	      "counts on (%llu, %d signals)", name,
	      (unsigned long long)s.vals[0], clk_sigs);
	target(fd, CPC_KIOC_RELE, 0);
}

static void test_clock_boundary(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = clk_handler;
	sigaction(SIGSTKFLT, &sa, &old);
	clock_overflow(PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	clock_overflow(PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	clock_no_overflow(PERF_COUNT_SW_TASK_CLOCK, "task-clock");
	clock_no_overflow(PERF_COUNT_SW_CPU_CLOCK, "cpu-clock");
	sigaction(SIGSTKFLT, &old, NULL);
}

static const struct kt_test tests[] = {
	{ "stopped_read", test_stopped_read, 0,
	  "counters frozen by an overflow read without perf's locks" },
	{ "overflow", test_overflow, 0,
	  "SIGEMT: once, its siginfo, freezing, RESTART, rebind in the handler" },
	{ "frozen_restart", test_frozen_restart, 0,
	  "START_FROZEN reads the presets; RESTART runs them" },
	{ "clock_boundary", test_clock_boundary, 0,
	  "a notifying clock at 2^64, after RESTART, and at 2^63" },
	{ "freeze_leak", test_freeze_leak, 0,
	  "a frozen binding leaks no counts or time into later ones" },
};
KT_SUITE(overflow, tests);
