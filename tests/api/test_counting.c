/* SPDX-License-Identifier: MIT */
/*
 * Counting against the real kernel with the version 1 per-LWP interfaces:
 * software events, presets, user/system selection, the clocks, and
 * errors.  Threads, fork and signal handlers: test_counting_threads.c;
 * the choice of backend: test_backend_selection.c.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"
#include "v1_fixture.h"

/*
 * Can this process count in system mode?  Not as an ordinary user when
 * perf_event_paranoid >= 2, nor through the kernel module's default.
 */
/*
 * May this process count in system mode?  Decided from the environment
 * (what perf_event_open(2) grants), never by asking the library under
 * test: root, or perf_event_paranoid < 2.
 */
static int system_mode_allowed(void)
{
	return geteuid() == 0 || perf_paranoid_level() < 2;
}

static int has_hw_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;
}

START_TEST(access_ok)
{
	ck_assert_msg(cpc_access() == 0, "cpc_access: %s", captured_errors());
}
END_TEST

/*
 * Samples a and b around 2 ms of burnt CPU time.  task-clock, in pic0 to
 * pic(npic - 1), counts this thread's CPU time between the two samples:
 * no less than the CPU time measured inside them, no more than the time
 * it can have been on its processor around them (nested_open in
 * testutil.c has the derivation).  Exact while the thread stays on its
 * processor; a stretch in which it was switched out is measured again.
 */
static void sample_around_burn(cpc_event_t *a, cpc_event_t *b, int npic)
{
	struct nested_clock n;
	int in_bounds, tries = 0;
	do {
		nested_open(&n);
		sample(a);
		nested_in(&n);
		burn_cpu_ns(2000000);
		nested_out(&n);
		sample(b);
		nested_close(&n);
		in_bounds = 1;
		for (int i = 0; i < npic; i++)
			in_bounds = in_bounds &&
			    nested_holds(&n, (double)(b->ce_pic[i] - a->ce_pic[i]));
	} while (!in_bounds && n.switched && ++tries < NESTED_TRIES);
	for (int i = 0; i < npic; i++) {
		double counted = (double)(b->ce_pic[i] - a->ce_pic[i]);
		ck_assert_msg(nested_holds(&n, counted),
		    "pic%d: task-clock %.0f ns vs thread CPU time %llu ns "
		    "(at most %llu ns around the samples; %s, try %d)",
		    i, counted, (unsigned long long)n.inner,
		    (unsigned long long)n.outer,
		    n.switched ? "switched out" : "never switched out", tries);
	}
}

START_TEST(task_clock_tracks_cpu_time)
{
	cpc_event_t a, b;
	bind_spec("pic0=task-clock,pic1=page-faults");
	sample_around_burn(&a, &b, 1);
	/* Sample metadata. */
	ck_assert_int_eq(b.ce_cpuver, ev.ce_cpuver);
	ck_assert_uint_eq(b.ce_pes[0], ev.ce_pes[0]);
	ck_assert_uint_eq(b.ce_pes[1], ev.ce_pes[1]);
}
END_TEST

/* A statistic of the kernel module (debugfs), or -1. */
static long module_param(const char *name)
{
	char path[128], buf[32];
	snprintf(path, sizeof(path), "/sys/kernel/debug/cpc/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return buf[0] == 'Y' ? 1 : buf[0] == 'N' ? 0 : strtol(buf, NULL, 10);
}

/* The module backend, with a state page that can carry a time base? */
static int kmod_page_time(void)
{
	const char *b = getenv("LIBCPC_BACKEND");
	return b != NULL && strcmp(b, "kmod") == 0 &&
	    module_param("page_time") == 1;
}

/*
 * With the kernel module, a binding of clocks alone (task-clock,
 * cpu-clock) is sampled from the thread's state page (CPC_KPAGE_TIME),
 * without a system call after its first sample (which checks the page
 * against the ioctl): the
 * module's count of counters it read for a thread's own samples
 * (self_reads) stays where it was, while the counts follow the thread's
 * CPU time as through the ioctl and never go back, across schedulings
 * out and in.
 */
static void clocks_from_state_page(const char *spec)
{
	cpc_event_t a, b, prev, cur;
	bind_spec(spec);
	/* The first sample is the ioctl's (it checks the page). */
	sample(&a);
	long reads0 = module_param("self_reads");
	sample_around_burn(&a, &b, 2);
	prev = b;
	for (int i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			usleep(200);	/* scheduled out and in again */
		sample(&cur);
		ck_assert_msg(cur.ce_pic[0] >= prev.ce_pic[0] &&
			cur.ce_pic[1] >= prev.ce_pic[1],
		    "sample %d went back: %llu %llu after %llu %llu", i,
		    (unsigned long long)cur.ce_pic[0],
		    (unsigned long long)cur.ce_pic[1],
		    (unsigned long long)prev.ce_pic[0],
		    (unsigned long long)prev.ce_pic[1]);
		prev = cur;
	}
	long reads1 = module_param("self_reads");
	ck_assert_msg(reads0 >= 0 && reads1 == reads0,
	    "%s: self_reads %ld -> %ld: the module read the counters for "
	    "samples that the state page answers", spec, reads0, reads1);
}

START_TEST(task_clock_from_state_page)
{
	clocks_from_state_page("pic0=task-clock,pic1=task-clock");
}
END_TEST

/* cpu-clock too, alone and with task-clock (page_cpu_clock Y). */
START_TEST(cpu_clock_from_state_page)
{
	clocks_from_state_page("pic0=cpu-clock,pic1=cpu-clock");
	clocks_from_state_page("pic0=cpu-clock,pic1=task-clock");
}
END_TEST

START_TEST(page_faults_count_touched_pages)
{
	cpc_event_t a, b;
	const size_t n = 2000;
	bind_spec("pic0=page-faults,pic1=minor-faults");
	sample(&a);
	touch_fresh_pages(n);
	sample(&b);
	uint64_t d0 = b.ce_pic[0] - a.ce_pic[0];
	uint64_t d1 = b.ce_pic[1] - a.ce_pic[1];
	ck_assert_msg(d0 >= n && d0 < n + 200, "page-faults %llu for %zu pages",
	    (unsigned long long)d0, n);
	ck_assert_msg(d1 >= n && d1 < n + 200, "minor-faults %llu",
	    (unsigned long long)d1);
}
END_TEST

START_TEST(counts_start_at_presets)
{
	cpc_event_t a, b;
	clear_errors();
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=page-faults,pic1=page-faults", &ev), 0);
	ev.ce_pic[0] = 1000000;
	ev.ce_pic[1] = UINT64_MAX - 9;	/* wraps after 10 events */
	ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);
	sample(&a);
	ck_assert_uint_ge(a.ce_pic[0], 1000000);
	ck_assert_uint_lt(a.ce_pic[0], 1000000 + 100);
	touch_fresh_pages(500);
	sample(&b);
	ck_assert_uint_ge(b.ce_pic[0] - 1000000, 500);
	/* The second counter passed UINT64_MAX and wrapped (mod 2^64). */
	ck_assert_uint_lt(b.ce_pic[1], 1000);
	ck_assert_uint_ge(b.ce_pic[1] - (UINT64_MAX - 9), 500);
	ck_assert_uint_eq(b.ce_pic[1] - (UINT64_MAX - 9),
	    b.ce_pic[0] - 1000000);
}
END_TEST

/* Makes n fresh pages fault in kernel mode: read() fills them. */
static void kernel_faults(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	madvise(p, n * pg, MADV_NOHUGEPAGE);
	int fd = open("/dev/zero", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	/* The raw system call: a sanitizer's read() would touch the shadow
	 * of the buffer in user mode first. */
	ck_assert_int_eq(syscall(SYS_read, fd, p, n * pg), (long)(n * pg));
	close(fd);
	munmap(p, n * pg);
}

START_TEST(user_and_system_selection)
{
	cpc_event_t a, b, c;
	const size_t n = 1000;
	if (!system_mode_allowed()) {
		/* Refused with EACCES and a clear message, then skipped. */
		cpc_event_t ev;
		cpc_strtoevent(cpc_getcpuver(), "page-faults,page-faults,sys", &ev);
		clear_errors();
		ck_assert_int_eq(cpc_bind_event(&ev, 0), -1);
		ck_assert_int_eq(errno, EACCES);
		/* Silent, as Solaris: the explanation is in the note. */
		ck_assert_int_eq(captured_count(), 0);
		ck_assert_ptr_nonnull(strstr(cpc_linux_errnote(NULL),
		    "not permitted"));
		printf("SKIP user_and_system_selection: system mode not "
		       "permitted for this user (checked the refusal)\n");
		return;
	}
	bind_spec("pic0=page-faults,pic1=page-faults,nouser1,sys1");
	sample(&a);
	touch_fresh_pages(n);	/* user-mode faults */
	sample(&b);
	kernel_faults(n);	/* kernel-mode faults */
	sample(&c);
	uint64_t usr_user = b.ce_pic[0] - a.ce_pic[0];
	uint64_t sys_user = b.ce_pic[1] - a.ce_pic[1];
	uint64_t usr_kern = c.ce_pic[0] - b.ce_pic[0];
	uint64_t sys_kern = c.ce_pic[1] - b.ce_pic[1];
	ck_assert_msg(usr_user >= n, "user counter saw %llu of %zu user faults",
	    (unsigned long long)usr_user, n);
	ck_assert_msg(sys_user < n / 10, "system counter saw %llu user faults",
	    (unsigned long long)sys_user);
	ck_assert_msg(sys_kern >= n, "system counter saw %llu of %zu kernel "
	    "faults", (unsigned long long)sys_kern, n);
	ck_assert_msg(usr_kern < n / 10, "user counter saw %llu kernel faults",
	    (unsigned long long)usr_kern);
}
END_TEST

START_TEST(toggle_user_and_system)
{
	cpc_event_t a, b, c, d;
	const size_t n = 1000;
	bind_spec("pic0=page-faults,pic1=task-clock");
	touch_fresh_pages(n);
	sample(&a);
	ck_assert_uint_ge(a.ce_pic[0], n);
	/* Off: counts are kept but do not grow. */
	ck_assert_int_eq(cpc_count_usr_events(0), 0);
	touch_fresh_pages(n);
	sample(&b);
	ck_assert_uint_ge(b.ce_pic[0], a.ce_pic[0]);
	ck_assert_uint_lt(b.ce_pic[0] - a.ce_pic[0], 20);
	ck_assert_uint_eq(b.ce_pes[0] & (1u << CPC_P6_PES_USR), 0);
	/* The tick count is not reset by the internal rebind. */
	ck_assert_uint_ge(b.ce_tsc, a.ce_tsc);
	/* On again. */
	ck_assert_int_eq(cpc_count_usr_events(1), 0);
	touch_fresh_pages(n);
	sample(&c);
	ck_assert_uint_ge(c.ce_pic[0] - b.ce_pic[0], n);
	/* System counting adds kernel-mode faults. */
	if (!system_mode_allowed()) {
		printf("SKIP toggle_user_and_system (system part): not "
		       "permitted for this user\n");
		return;
	}
	bind_spec("pic0=page-faults,pic1=task-clock");
	sample(&c);
	ck_assert_int_eq(cpc_count_sys_events(1), 0);
	kernel_faults(n);
	sample(&d);
	ck_assert_uint_ge(d.ce_pic[0] - c.ce_pic[0], n);
	ck_assert_uint_ne(d.ce_pes[0] & (1u << CPC_P6_PES_OS), 0);
}
END_TEST

START_TEST(tsc_and_hrt)
{
	cpc_event_t a, b;
	bind_spec("pic0=task-clock,pic1=cpu-clock");
	hrtime_t h0, h1;
	uint64_t r0, r0b, r1a, r1, c0, c1;
	struct nested_clock n;
	double rate, err, ticks, lo, hi;
	int tries = 0;
	do {
		nested_open(&n);
		sample(&a);
		h0 = gethrtime();
		/* Each TSC reading between two raw clock readings. */
		r0 = raw_ns();
		c0 = __builtin_ia32_rdtsc();
		r0b = raw_ns();
		nested_in(&n);
		burn_cpu_ns(2000000);
		nested_out(&n);
		r1a = raw_ns();
		c1 = __builtin_ia32_rdtsc();
		r1 = raw_ns();
		h1 = gethrtime();
		sample(&b);
		nested_close(&n);
		ck_assert(a.ce_hrt <= h0 && b.ce_hrt >= h1);
		/*
		 * ce_tsc counts on-CPU time in TSC ticks: the TSC's rate
		 * times the thread's task-clock between the samples, which
		 * lies in [n.inner, n.outer] (sample_around_burn).  The
		 * rate, from the TSC readings' brackets in
		 * CLOCK_MONOTONIC_RAW (never slewed), is known to
		 * (r0b - r0 + r1 - r1a) / span; the library's own rate to
		 * 100 ppm (__cpc_tsc_khz_measure's bound, against the same
		 * raw clock; perf's time_mult, where perf gives it, is the
		 * kernel's own TSC scale, exact to 2^-32).
		 */
		double span = (double)(r1a - r0b);
		err = (double)(r0b - r0 + r1 - r1a) / span + 100e-6;
		rate = (double)(c1 - c0) /
		       ((double)(r1a + r1) / 2 - (double)(r0 + r0b) / 2);
		ticks = (double)(b.ce_tsc - a.ce_tsc);
		lo = rate * (1 - err) * (double)n.inner;
		hi = rate * (1 + err) * (double)n.outer;
	} while (!(ticks >= lo && ticks <= hi) && n.switched &&
		 ++tries < NESTED_TRIES);
	ck_assert_msg(ticks >= lo && ticks <= hi,
	    "ce_tsc grew %.0f, expected %.0f to %.0f (TSC %.4f/ns +- %.4f%%, "
	    "CPU %llu ns inside, at most %llu around; %s)", ticks, lo, hi,
	    rate, err * 100, (unsigned long long)n.inner,
	    (unsigned long long)n.outer,
	    n.switched ? "switched out" : "never switched out");
	/* A new bind starts ce_tsc from zero. */
	ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);
	sample(&a);
	ck_assert_uint_lt(a.ce_tsc, b.ce_tsc - (uint64_t)(lo / 2));
}
END_TEST

START_TEST(hrtime_is_monotonic_time)
{
	struct timespec ts;
	bind_spec("task-clock,page-faults");	/* calibrates the TSC */
	hrtime_t last = gethrtime();
	for (int i = 0; i < 100000; i++) {
		hrtime_t h = gethrtime();
		ck_assert(h >= last);
		last = h;
	}
	/*
	 * It is CLOCK_MONOTONIC itself: every reading lies between two
	 * CLOCK_MONOTONIC readings taken around it, however long the process
	 * has run.  A clock extrapolated from a calibrated TSC rate leaves
	 * this window within a second (100 ppm is 100 us a second).
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	hrtime_t start = (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	hrtime_t m1, m2, h = 0;
	int rounds = 0;
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		m1 = (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		h = gethrtime();
		clock_gettime(CLOCK_MONOTONIC, &ts);
		m2 = (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		ck_assert_msg(m1 <= h && h <= m2,
		    "gethrtime %lld outside CLOCK_MONOTONIC [%lld, %lld] after "
		    "%lld ns", (long long)h, (long long)m1, (long long)m2,
		    (long long)(m1 - start));
		rounds++;
		usleep(20000);
	} while (m2 - start < 1500000000LL);
	ck_assert_int_ge(rounds, 2);
}
END_TEST

START_TEST(errors_without_binding)
{
	cpc_event_t e;
	cpc_rele();
	errno = 0;
	ck_assert_int_eq(cpc_take_sample(&e), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_rele(), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_count_usr_events(1), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_count_sys_events(0), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* NULL event releases, and succeeds even with nothing bound. */
	ck_assert_int_eq(cpc_bind_event(NULL, 0), 0);

	bind_spec("task-clock,page-faults");
	ck_assert_int_eq(cpc_take_sample(&e), 0);
	errno = 0;
	ck_assert_int_eq(cpc_take_sample(NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_event(NULL, 0), 0);
	errno = 0;
	ck_assert_int_eq(cpc_take_sample(&e), -1);
	ck_assert_int_eq(errno, EINVAL);

	bind_spec("task-clock,page-faults");
	ck_assert_int_eq(cpc_rele(), 0);
	errno = 0;
	ck_assert_int_eq(cpc_take_sample(&e), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static void expect_bind_error(cpc_event_t *e, int flags, int err,
    const char *text)
{
	clear_errors();
	(void)cpc_linux_errnote(NULL);
	errno = 0;
	ck_assert_int_eq(cpc_bind_event(e, flags), -1);
	ck_assert_int_eq(errno, err);
	/* Nothing through the error function (Solaris); the note explains. */
	ck_assert_msg(captured_count() == 0, "spoke: %s", captured_errors());
	const char *note = cpc_linux_errnote(NULL);
	ck_assert_msg(note != NULL && strstr(note, text) != NULL,
	    "note '%s' lacks '%s'", note != NULL ? note : "(none)", text);
	cpc_event_t s;
	ck_assert_int_eq(cpc_take_sample(&s), -1);
}

START_TEST(bind_errors)
{
	cpc_event_t e;
	int cpuver = cpc_getcpuver();
	ck_assert_int_eq(cpc_strtoevent(cpuver, "task-clock,page-faults", &e), 0);
	expect_bind_error(&e, 0x100, EINVAL, "invalid flags");
	expect_bind_error(&e, -1, EINVAL, "invalid flags");

	cpc_event_t bad = e;
	bad.ce_cpuver = 9999;
	expect_bind_error(&bad, 0, EINVAL, "unknown cpuver 9999");

	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM, "data_read,data_write",
			     &bad), 0);
	expect_bind_error(&bad, 0, EINVAL, "Pentium (P5)");

	ck_assert_int_eq(cpc_strtoevent(cpuver, "task-clock,page-faults,int0",
			     &bad), 0);
	expect_bind_error(&bad, 0, EINVAL, "requires CPC_BIND_EMT_OVF");
	ck_assert_int_eq(cpc_strtoevent(cpuver,
			     "task-clock,page-faults,int1,sys1", &bad), 0);
	expect_bind_error(&bad, CPC_BIND_EMT_OVF, EINVAL, "cannot be combined");

	/* An extended word naming nothing. */
	bad = e;
	bad.ce_pes[1] = (1u << CPC_PES_LINUX_EXT) | 0x7fu << 24 | 3;
	expect_bind_error(&bad, 0, EINVAL, "pic1: invalid event selection");
	bad.ce_pes[1] = (1u << CPC_PES_LINUX_EXT) | 4u << 24 | 0xfff0;
	expect_bind_error(&bad, 0, EINVAL, "pic1: invalid event selection");

	/* A failed bind leaves nothing bound. */
	ck_assert_int_eq(cpc_bind_event(&e, 0), 0);
	expect_bind_error(&bad, 0, EINVAL, "invalid event selection");
}
END_TEST

START_TEST(hardware_events)
{
	cpc_event_t e, a, b;
	int cpuver = cpc_getcpuver();
	ck_assert_int_eq(cpc_strtoevent(cpuver, "PAPI_tot_ins,task-clock", &e), 0);
	clear_errors();
	int rc = cpc_bind_event(&e, 0);
	int err = errno;
	if (!has_hw_pmu()) {
		/* No PMU: a clear error, never a silent zero count. */
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(err, EINVAL);
		ck_assert_int_eq(captured_count(), 0);
		ck_assert_ptr_nonnull(strstr(cpc_linux_errnote(NULL),
		    "pic0: event 'PAPI_tot_ins' cannot be counted on this system"));
		printf("SKIP hardware_events counting: no hardware PMU here "
		       "(checked the error instead)\n");
		return;
	}
	ck_assert_int_eq(rc, 0);
	sample(&a);
	burn_cpu_ns(10000000);
	sample(&b);
	ck_assert_uint_gt(b.ce_pic[0] - a.ce_pic[0], 1000000);
}
END_TEST

START_TEST(errno_preserved_on_success)
{
	cpc_event_t e;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(), "task-clock,cs", &e), 0);
	errno = EDOM;
	ck_assert_int_eq(cpc_bind_event(&e, 0), 0);
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(cpc_take_sample(&e), 0);
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(cpc_count_usr_events(1), 0);
	ck_assert_int_eq(errno, EDOM);
	ck_assert_int_eq(cpc_rele(), 0);
	ck_assert_int_eq(errno, EDOM);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counting");
	TCase *tc = tcase_create("v1");
	tcase_add_checked_fixture(tc, v1_setup, v1_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, access_ok);
	tcase_add_test(tc, task_clock_tracks_cpu_time);
	tcase_add_test(tc, page_faults_count_touched_pages);
	tcase_add_test(tc, counts_start_at_presets);
	tcase_add_test(tc, user_and_system_selection);
	tcase_add_test(tc, toggle_user_and_system);
	tcase_add_test(tc, tsc_and_hrt);
	tcase_add_test(tc, hrtime_is_monotonic_time);
	tcase_add_test(tc, errors_without_binding);
	tcase_add_test(tc, bind_errors);
	tcase_add_test(tc, hardware_events);
	tcase_add_test(tc, errno_preserved_on_success);
	/* Only where it applies: the module with its page's time base. */
	if (kmod_page_time()) {
		tcase_add_test(tc, task_clock_from_state_page);
		/* cpu-clock only where perf reschedules it with the hook. */
		if (module_param("page_cpu_clock") == 1)
			tcase_add_test(tc, cpu_clock_from_state_page);
	}
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
