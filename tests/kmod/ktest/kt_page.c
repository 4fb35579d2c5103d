/* SPDX-License-Identifier: MIT */
/*
 * kt_page.c: the state page (mmap of the device): its contents, its
 * mapping rules and its time base (CPC_KPAGE_TIME) with the scheduler
 * hook that publishes it.
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
#include <x86intrin.h>

#include "ktest.h"

/*
 * Reads the page as libcpc would: under its sequence counter, with the
 * TSC read between the two reads of seq.  Returns 0 without a time base.
 */
int page_read_time(const volatile struct cpc_kpage *kp,
			  struct page_read *pr)
{
	uint32_t seq, i;
	uint64_t tsc, d = 0;

	memset(pr, 0, sizeof(*pr));
	do {
		seq = kp->seq;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		pr->nreqs = kp->nreqs;
		pr->flags = kp->time_flags;
		pr->mask = kp->time_mask;
		for (i = 0; i < CPC_KMOD_MAX_REQS; i++)
			pr->vals[i] = kp->vals[i];
		pr->ontime = kp->ontime_ns;
		pr->slack = kp->time_slack_ns;
		_mm_lfence();
		tsc = __rdtsc();
		d = tsc > kp->time_tsc ? tsc - kp->time_tsc : 0;
		d = (uint64_t)(((unsigned __int128)d * kp->time_mult) >>
			       kp->time_shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || kp->seq != seq);
	if (!(pr->flags & CPC_KPAGE_TIME))
		return 0;
	for (i = 0; i < pr->nreqs && i < CPC_KMOD_MAX_REQS; i++)
		if (pr->mask & (1u << i))
			pr->vals[i] += d;
	pr->ontime += d;
	return 1;
}

/* Waits until the clocksource is the TSC (calibration refined). */
static int clocksource_is_tsc(void)
{
	char buf[32] = "";
	int i, f;

	for (i = 0; i < 200; i++) {
		f = open("/sys/devices/system/clocksource/clocksource0/"
			 "current_clocksource", O_RDONLY);
		if (f >= 0) {
			ssize_t n = read(f, buf, sizeof(buf) - 1);

			close(f);
			buf[n > 0 ? n : 0] = 0;
			if (strcmp(buf, "tsc\n") == 0)
				return 1;
		}
		usleep(50000);
	}
	return 0;
}

static int pmu_type(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 name);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atoi(buf);
}

/*
 * A binding of clocks only (task-clock, cpu-clock) is answered by its
 * state page: the counts and the on-CPU time as of the thread's last
 * scheduling in (or its own last ioctl), advanced by the TSC.  The
 * module creates the scheduler hook that publishes them at the first
 * sample after the page is mapped (page_hooks), not at bind.  Each page
 * read lies between two SAMPLE ioctls around it, within the clock's
 * resolution the page states (time_slack_ns, the module's clock and TSC
 * reads apart, plus rounding): a - slack - 1 <= page <= b + 1, whatever
 * the scheduling in between.  Requests 0 and 2 are clocks, 1 counts
 * nothing.
 */
/*
 * Each time perf takes the clocks off and adds them back (here: a pinned
 * cpu-clock perf event opened on the thread makes perf reschedule), the
 * hook must publish again: the page must never run ahead of the ioctl
 * that follows it.  Root only (perf_event_open under paranoid 3).
 */
static void page_resched_case(const char *name,
			      const volatile struct cpc_kpage *kp)
{
	struct perf_event_attr pa;
	struct cpc_ksample a, b;
	struct page_read pr;
	uint64_t worst = 0;
	int i, j, ahead = 0, none = 0, rounds = 200;

	if (!is_root)
		return;
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.config = PERF_COUNT_SW_CPU_CLOCK;
	pa.pinned = 1;
	for (i = 0; i < rounds; i++) {
		long pfd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);

		if (pfd < 0) {
			check(0, "%s: perf_event_open of a pinned cpu-clock "
			      "(%s)", name, strerror(errno));
			return;
		}
		if (!page_read_time(kp, &pr)) {
			none++;
		} else {
			sample(fd, CPC_KIOC_SAMPLE, 0, &b);
			for (j = 0; j < 3; j += 2)
				if (pr.vals[j] > b.vals[j] + 1) {
					ahead++;
					if (pr.vals[j] - b.vals[j] > worst)
						worst = pr.vals[j] - b.vals[j];
				}
		}
		close((int)pfd);
		sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	}
	check(ahead == 0 && none < rounds, "%s: a pinned cpu-clock perf event "
	      "opened on the thread %d times: the page never ahead of the "
	      "ioctl after it (%d times, by up to %llu ns; %d reads without "
	      "a time base)", name, rounds, ahead, (unsigned long long)worst,
	      none);
}

static void page_time_case(const char *name, const struct cpc_kreq *r)
{
	const volatile struct cpc_kpage *kp;
	struct cpc_ksample a, b;
	struct page_read pr, p0;
	long ins0, ins1, early0, early1, hooks0, hooks1;
	uint64_t t0, t1, d, worst_lo = 0, worst_slack = 0;
	int err, i, bad = 0, rounds = 3000, ok0, answers = 1;

	for (i = 0; i < 3; i++)
		if (r[i].config == PERF_COUNT_SW_CPU_CLOCK &&
		    kt_stat("page_cpu_clock") != 1)
			answers = 0;
	hooks0 = kt_stat("page_hooks");
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	hooks1 = kt_stat("page_hooks");
	check(err == 0 && hooks0 >= 0 && hooks1 == hooks0,
	      "%s: bind and samples without the page mapped create no hook "
	      "(err %d, page_hooks %ld -> %ld)", name, err, hooks0, hooks1);
	if (err)
		return;
	kp = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check(kp != MAP_FAILED, "%s: mmap the state page", name);
	if (kp == MAP_FAILED) {
		target(fd, CPC_KIOC_RELE, 0);
		return;
	}
	ok0 = page_read_time(kp, &pr);
	check(!ok0 && pr.nreqs == 3, "%s: no time base before the first "
	      "sample after mapping", name);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	hooks1 = kt_stat("page_hooks");
	if (!answers) {
		/* page_cpu_clock N: cpu-clock stays on the ioctl. */
		check(!page_read_time(kp, &pr) && hooks1 == hooks0,
		      "%s: no hook and no time base where page_cpu_clock is "
		      "N (page_hooks +%ld)", name, hooks1 - hooks0);
		target(fd, CPC_KIOC_RELE, 0);
		munmap((void *)kp, PAGE);
		return;
	}
	ok0 = page_read_time(kp, &pr);
	check(ok0 && hooks1 == hooks0 + 1 && pr.mask == 0x5 &&
	      pr.nreqs == 3 && pr.vals[1] == 777 && kp->time_mult &&
	      kp->time_shift, "%s: the page has a time base after that "
	      "sample (page_hooks +%ld, flags %#x, mask %#x, mult %u "
	      "shift %u, slack %llu ns)", name, hooks1 - hooks0, pr.flags,
	      pr.mask, kp->time_mult, kp->time_shift,
	      (unsigned long long)pr.slack);

	ins0 = kt_stat("page_sched_ins");
	early0 = kt_stat("page_sched_early");
	for (i = 0; i < rounds; i++) {
		unsigned j;
		int ok;

		if (i % 100 == 50)
			usleep(1000);	/* scheduled out and in again */
		sample(fd, CPC_KIOC_SAMPLE, 0, &a);
		if (!page_read_time(kp, &pr)) {
			bad++;
			continue;
		}
		sample(fd, CPC_KIOC_SAMPLE, 0, &b);
		ok = pr.vals[1] == 777;
		for (j = 0; j < 3; j += 2) {
			ok &= a.vals[j] <= pr.vals[j] + pr.slack + 1 &&
			      pr.vals[j] <= b.vals[j] + 1;
			if (a.vals[j] > pr.vals[j] &&
			    a.vals[j] - pr.vals[j] > worst_lo)
				worst_lo = a.vals[j] - pr.vals[j];
		}
		ok &= a.ontime_ns <= pr.ontime + pr.slack + 1 &&
		      pr.ontime <= b.ontime_ns + 1;
		if (pr.slack > worst_slack)
			worst_slack = pr.slack;
		if (!ok && bad++ < 3)
			printf("# round %d: ioctl %llu %llu %llu / page %llu "
			       "%llu %llu (slack %llu) / ioctl %llu %llu "
			       "%llu\n", i,
			       (unsigned long long)a.vals[0],
			       (unsigned long long)a.vals[2],
			       (unsigned long long)a.ontime_ns,
			       (unsigned long long)pr.vals[0],
			       (unsigned long long)pr.vals[2],
			       (unsigned long long)pr.ontime,
			       (unsigned long long)pr.slack,
			       (unsigned long long)b.vals[0],
			       (unsigned long long)b.vals[2],
			       (unsigned long long)b.ontime_ns);
	}
	ins1 = kt_stat("page_sched_ins");
	early1 = kt_stat("page_sched_early");
	check(bad == 0, "%s: %d page reads each between the ioctl samples "
	      "around them (within slack + 1 below, 1 above): %d outside; "
	      "page below the first ioctl by at most %llu ns, slack up to "
	      "%llu ns", name, rounds, bad, (unsigned long long)worst_lo,
	      (unsigned long long)worst_slack);
	/*
	 * Not one per sleep: under TCG a short sleep's timer can expire
	 * before the thread gets to schedule().
	 */
	check(ins0 >= 0 && ins1 > ins0,
	      "%s: page_sched_ins %ld -> %ld over %d sleeps: the hook "
	      "published at the thread's schedulings in (page_sched_early "
	      "+%ld: before perf had added the first counter back)", name,
	      ins0, ins1, rounds / 100, early1 - early0);

	/* Between ioctls, the page alone follows the thread's CPU time. */
	page_read_time(kp, &p0);
	t0 = thread_cpu_ns();
	spin_ms(50);
	usleep(1000);
	spin_ms(50);
	t1 = thread_cpu_ns();
	check(page_read_time(kp, &pr), "%s: still a time base after "
	      "spinning", name);
	for (i = 0; i < 3; i += 2) {
		d = pr.vals[i] - p0.vals[i];
		check(d > (t1 - t0) * 0.9 && d < (t1 - t0) * 1.1,
		      "%s: the page alone: request %d +%llu ns within 10%% "
		      "of the thread's CPU time %llu ns", name, i,
		      (unsigned long long)d, (unsigned long long)(t1 - t0));
	}
	page_resched_case(name, kp);
	target(fd, CPC_KIOC_RELE, 0);
	munmap((void *)kp, PAGE);
}

static void test_page_time(void)
{
	struct cpc_kreq r[3] = {
		TASK_CLOCK(CPC_KREQ_USER, 1000),
		PAGE_FAULTS(0, 777),	/* counts nothing */
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	const struct cpc_kreq rc[3] = {
		CPU_CLOCK(CPC_KREQ_USER, 1000),
		PAGE_FAULTS(0, 777),
		CPU_CLOCK(CPC_KREQ_USER, 0),
	};
	const struct cpc_kreq rm[3] = {
		CPU_CLOCK(CPC_KREQ_USER, 1000),
		PAGE_FAULTS(0, 777),
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	const volatile struct cpc_kpage *kp;
	struct cpc_ksample a;
	struct page_read pr;
	int err, type, ok0;

	if (!self_time_kernel()) {
		check(kt_stat("page_time") == 0, "page_time N on a kernel "
		      "where the module does not compute perf's time");
		return;
	}
	if (kt_stat("page_time") != 1) {
		kt_skip("page_time is N (no stable TSC sched clock)");
		return;
	}
	if (!clocksource_is_tsc()) {
		kt_skip("the clocksource is not the TSC after 10 s "
			"(calibration not refined)");
		return;
	}
	page_time_case("task-clock", r);
	page_time_case("cpu-clock", rc);
	page_time_case("cpu-clock and task-clock", rm);

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, CPC_KBIND_START_FROZEN, 3, r);
	kp = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check(err == 0 && kp != MAP_FAILED, "bind started frozen, mmap "
	      "(err %d)", err);
	if (err || kp == MAP_FAILED) {
		target(fd, CPC_KIOC_RELE, 0);
		return;
	}
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	check(!page_read_time(kp, &pr),
	      "a binding started frozen has no time base");
	err = target(fd, CPC_KIOC_RESTART, 0);
	ok0 = page_read_time(kp, &pr);
	check(err == 0 && ok0 && pr.vals[0] >= 1000,
	      "after RESTART it has one again (err %d, task-clock %llu)", err,
	      (unsigned long long)pr.vals[0]);
	r[1] = PAGE_FAULTS(CPC_KREQ_USER, 0);
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	check(err == 0 && !page_read_time(kp, &pr),
	      "a binding that also counts page faults has none (err %d)",
	      err);
	target(fd, CPC_KIOC_RELE, 0);
	munmap((void *)kp, PAGE);

	type = pmu_type("cpc_sched");
	check(type > 0, "the module's PMU cpc_sched is registered (type %d)",
	      type);
	if (type > 0 && is_root) {
		struct perf_event_attr pa;
		long pfd;

		memset(&pa, 0, sizeof(pa));
		pa.size = sizeof(pa);
		pa.type = (uint32_t)type;
		pfd = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
		check(pfd < 0 && errno == EACCES,
		      "perf_event_open of cpc_sched from user space: EACCES "
		      "(%s)", pfd < 0 ? strerror(errno) : "opened");
		if (pfd >= 0)
			close((int)pfd);
	}
}

static void *mapped_page;

static int child_unmapped(void *arg)
{
	unsigned char v;

	(void)arg;
	return mincore(mapped_page, PAGE, &v) == -1 && errno == ENOMEM ? 0 : 1;
}

static void test_mmap(void)
{
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 5),
		PAGE_FAULTS(CPC_KREQ_USER, 7),
	};
	const volatile struct cpc_kpage *kp;
	struct cpc_ksample s;
	uint32_t seq0, seq1;
	uint64_t upd0;
	void *p;
	int err, same;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	kp = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check(err == 0 && kp != MAP_FAILED, "mmap the state page");
	if (kp == MAP_FAILED)
		return;
	seq0 = kp->seq;
	upd0 = kp->updates;
	check(seq0 % 2 == 0 && kp->nreqs == 2 && kp->vals[0] == 5 &&
	      kp->vals[1] == 7 && kp->index[0] == 0 && upd0 >= 1,
	      "page after bind: seq %u nreqs %u vals %llu %llu updates %llu",
	      seq0, kp->nreqs, (unsigned long long)kp->vals[0],
	      (unsigned long long)kp->vals[1], (unsigned long long)upd0);
	spin_ms(5);
	touch_pages(10);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	seq1 = kp->seq;
	same = kp->vals[0] == s.vals[0] && kp->vals[1] == s.vals[1] &&
	       kp->ontime_ns == s.ontime_ns;
	check(seq1 == seq0 + 2 && kp->updates == upd0 + 1 && same &&
	      kp->flags == 0, "page after SAMPLE: seq %u, vals equal the "
	      "sample's (%llu %llu)", seq1, (unsigned long long)kp->vals[0],
	      (unsigned long long)kp->vals[1]);
	mapped_page = (void *)kp;
	check(in_child(child_unmapped, NULL) == 0, "fork: the child has no "
	      "mapping of the state page (VM_DONTCOPY)");
	check(mprotect((void *)kp, PAGE, PROT_READ | PROT_WRITE) != 0 &&
	      errno == EACCES, "mprotect PROT_WRITE refused");
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check(p == MAP_FAILED && errno == EPERM, "mmap PROT_WRITE: EPERM");
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, PAGE);
	check(p == MAP_FAILED && errno == EINVAL, "mmap offset 4096: EINVAL");
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check(p == MAP_FAILED && errno == EINVAL, "mmap 2 pages: EINVAL");
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	check(p == MAP_FAILED && errno == EINVAL, "mmap MAP_PRIVATE: EINVAL");
	target(fd, CPC_KIOC_RELE, 0);
	check(kp->nreqs == 0, "page after RELE: nreqs 0");
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check(p == MAP_FAILED && errno == EINVAL, "mmap when unbound: EINVAL");

	/*
	 * A page still mapped is never handed to a later binding; one no
	 * one maps is kept for the file's next bind: its sequence counter
	 * then goes on from where it was (bind, RELE and the context's end
	 * each add 2).
	 */
	r[0].preset = 11;
	r[1].preset = 13;
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	check(err == 0 && p != MAP_FAILED && kp->nreqs == 0 &&
	      kp->seq % 2 == 0, "a new binding leaves the old mapped page "
	      "alone (nreqs %u)", kp->nreqs);
	if (p != MAP_FAILED) {
		const volatile struct cpc_kpage *kp2 = p;

		seq1 = kp2->seq;
		check(kp2->nreqs == 2 && kp2->vals[0] == 11 &&
		      kp2->vals[1] == 13 && seq1 % 2 == 0 &&
		      kp2->updates == 1, "and gets another page (seq %u, "
		      "vals %llu %llu)", seq1,
		      (unsigned long long)kp2->vals[0],
		      (unsigned long long)kp2->vals[1]);
		munmap(p, PAGE);
	}
	target(fd, CPC_KIOC_RELE, 0);
	r[0].preset = 17;
	r[1].preset = 19;
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED) {
		const volatile struct cpc_kpage *kp3 = p;

		check(err == 0 && kp3->nreqs == 2 && kp3->vals[0] == 17 &&
		      kp3->vals[1] == 19 && kp3->seq == seq1 + 6 &&
		      kp3->updates == 1 && kp3->ontime_ns == 0 &&
		      kp3->flags == 0, "an unmapped page is reused by the "
		      "next bind: seq %u (was %u), vals %llu %llu, updates "
		      "%llu", kp3->seq, seq1,
		      (unsigned long long)kp3->vals[0],
		      (unsigned long long)kp3->vals[1],
		      (unsigned long long)kp3->updates);
		munmap(p, PAGE);
	} else {
		check(0, "mmap after rebinding (%s)", strerror(errno));
	}
	target(fd, CPC_KIOC_RELE, 0);
	munmap((void *)kp, PAGE);
}

static const struct kt_test tests[] = {
	{ "page_time", test_page_time, 0,
	  "the page's time base against the ioctl, and its scheduler hook" },
	{ "mmap", test_mmap, 0, "the page's contents, mapping rules and reuse" },
};
KT_SUITE(page, tests);
