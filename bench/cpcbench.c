/* SPDX-License-Identifier: MIT */
/*
 * cpcbench: what libcpc costs next to raw perf_event and PAPI, measured
 * side by side in one process.  Prints a table, writes a CSV file, and
 * ends with one "RATIO <name> <value>" line per comparison (our median
 * divided by theirs).  Run by "make bench"; see BENCHMARKS.md.
 *
 * Usage: cpcbench [-q] [-o file.csv]   (-q: fewer repetitions)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "runinfo.h"
#include "timing.h"
#ifdef HAVE_PAPI
#include <papi.h>
#endif

/* ------------------------------------------------ raw perf_event */

static const uint64_t sw_events[4] = { PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	PERF_COUNT_SW_CPU_MIGRATIONS };
static const char *const sw_names[4] = { "page-faults", "context-switches",
	"minor-faults", "cpu-migrations" };

static int raw_open(uint64_t config, int group)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.pinned = group < 0;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group,
	    PERF_FLAG_FD_CLOEXEC);
}

struct raw_group {
	int n;
	int fd[4];
};

static void raw_group_open(struct raw_group *g, int n)
{
	g->n = n;
	for (int i = 0; i < n; i++)
		g->fd[i] = raw_open(sw_events[i], i == 0 ? -1 : g->fd[0]);
}

static void raw_group_close(struct raw_group *g)
{
	for (int i = g->n - 1; i >= 0; i--)
		close(g->fd[i]);
}

static void op_raw_read(void *arg)
{
	struct raw_group *g = arg;
	uint64_t buf[3 + 4];
	if (read(g->fd[0], buf, sizeof(buf)) <= 0)
		abort();
}

/* The raw work of a Solaris sample: the counts and a CLOCK_MONOTONIC time. */
static void op_raw_read_clock(void *arg)
{
	struct timespec ts;
	op_raw_read(arg);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ __volatile__("" : : "r"(&ts) : "memory");
}

static void op_clock(void *arg)
{
	struct timespec ts;
	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ __volatile__("" : : "r"(&ts) : "memory");
}

static void op_raw_open_close(void *arg)
{
	struct raw_group g;
	raw_group_open(&g, *(int *)arg);
	raw_group_close(&g);
}

/* ------------------------------------------------ libcpc */

static cpc_t *cpc;

struct cpc_bound {
	cpc_set_t *set;
	cpc_buf_t *buf;
};

static void cpc_bound_make(struct cpc_bound *b, int n)
{
	b->set = cpc_set_create(cpc);
	for (int i = 0; i < n; i++)
		cpc_set_add_request(cpc, b->set, sw_names[i], 0, CPC_COUNT_USER,
		    0, NULL);
	b->buf = cpc_buf_create(cpc, b->set);
}

static void op_set_sample(void *arg)
{
	struct cpc_bound *b = arg;
	if (cpc_set_sample(cpc, b->set, b->buf) != 0)
		abort();
}

static cpc_event_t v1_event;

static void op_take_sample(void *arg)
{
	cpc_event_t ev;
	(void)arg;
	if (cpc_take_sample(&ev) != 0)
		abort();
}

static void op_bind_rele(void *arg)
{
	(void)arg;
	if (cpc_bind_event(&v1_event, 0) != 0 || cpc_rele() != 0)
		abort();
}

/* ------------------------------------------------ PAPI */

#ifdef HAVE_PAPI
static int papi_ok;

static int papi_set(int n)
{
	int es = PAPI_NULL;
	if (PAPI_create_eventset(&es) != PAPI_OK)
		return -1;
	for (int i = 0; i < n; i++) {
		char name[64];
		snprintf(name, sizeof(name), "perf::%s", sw_names[i]);
		if (PAPI_add_named_event(es, name) != PAPI_OK)
			return -1;
	}
	return es;
}

static void op_papi_read(void *arg)
{
	long long v[4];
	if (PAPI_read(*(int *)arg, v) != PAPI_OK)
		abort();
}

static void op_papi_start_stop(void *arg)
{
	long long v[4];
	if (PAPI_start(*(int *)arg) != PAPI_OK ||
	    PAPI_stop(*(int *)arg, v) != PAPI_OK)
		abort();
}
#endif

/* ------------------------------------------------ the comparisons */

/*
 * A set of one task-clock request (time-derived: the kind of set a
 * syscall-free state page of the kernel module could answer) against a
 * raw read of one task-clock counter.
 */
static void bench_read_taskclock(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.pinned = 1;
	struct raw_group g = { 1,
		{ (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
		    PERF_FLAG_FD_CLOEXEC) } };
	struct cpc_bound b;
	b.set = cpc_set_create(cpc);
	cpc_set_add_request(cpc, b.set, "task-clock", 0, CPC_COUNT_USER, 0,
	    NULL);
	b.buf = cpc_buf_create(cpc, b.set);
	if (g.fd[0] < 0 || cpc_bind_curlwp(cpc, b.set, 0) != 0) {
		perror("task-clock");
		exit(1);
	}
	struct op ops[2] = {
		{ "set_sample_taskclock", op_set_sample, &b, NULL },
		{ "raw_read_taskclock", op_raw_read, &g, NULL },
	};
	bench_time_ops(ops, 2, bench_batch);
	cpc_unbind(cpc, b.set);
	cpc_set_destroy(cpc, b.set);
	raw_group_close(&g);
}

static void bench_reads(void)
{
	for (int n = 1; n <= 4; n *= 2) {
		char ours[48], raw[48], rawclk[48], papi[48];
		struct raw_group g;
		struct cpc_bound b;
		snprintf(ours, sizeof(ours), "set_sample_%dev", n);
		snprintf(raw, sizeof(raw), "raw_group_read_%dev", n);
		snprintf(rawclk, sizeof(rawclk), "raw_read_clock_%dev", n);
		snprintf(papi, sizeof(papi), "papi_read_%dev", n);

		raw_group_open(&g, n);
		cpc_bound_make(&b, n);
		if (cpc_bind_curlwp(cpc, b.set, 0) != 0) {
			perror("cpc_bind_curlwp");
			exit(1);
		}
		struct op ops[5] = {
			{ ours, op_set_sample, &b, NULL },
			{ raw, op_raw_read, &g, NULL },
			{ rawclk, op_raw_read_clock, &g, NULL },
			{ "clock_gettime", op_clock, NULL, NULL },
		};
		int nops = 4;
#ifdef HAVE_PAPI
		int es = papi_ok ? papi_set(n) : -1;
		if (es >= 0 && PAPI_start(es) == PAPI_OK) {
			ops[4] = (struct op){ papi, op_papi_read, &es, NULL };
			nops = 5;
		}
#endif
		bench_time_ops(ops, nops, bench_batch);
		if (nops < 5)
			bench_missing(papi);
#ifdef HAVE_PAPI
		if (nops == 5) {
			long long v[4];
			PAPI_stop(es, v);
			PAPI_cleanup_eventset(es);
			PAPI_destroy_eventset(&es);
		}
#endif
		cpc_unbind(cpc, b.set);
		cpc_set_destroy(cpc, b.set);
		raw_group_close(&g);
	}
	bench_read_taskclock();
	/* The version 1 call, 2 events, against the same two. */
	struct raw_group g;
	raw_group_open(&g, 2);
	cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches",
	    &v1_event);
	cpc_bind_event(&v1_event, 0);
	struct op ops[4] = {
		{ "take_sample_2ev", op_take_sample, NULL, NULL },
		{ "raw_group_read_2ev_v1", op_raw_read, &g, NULL },
		{ "raw_read_clock_2ev_v1", op_raw_read_clock, &g, NULL },
	};
	int nops = 3;
#ifdef HAVE_PAPI
	int es = papi_ok ? papi_set(2) : -1;
	if (es >= 0 && PAPI_start(es) == PAPI_OK) {
		ops[3] = (struct op){ "papi_read_2ev_v1", op_papi_read, &es,
			NULL };
		nops = 4;
	}
#endif
	bench_time_ops(ops, nops, bench_batch);
	if (nops < 4)
		bench_missing("papi_read_2ev_v1");
#ifdef HAVE_PAPI
	if (nops == 4) {
		long long v[4];
		PAPI_stop(es, v);
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
#endif
	cpc_rele();
	raw_group_close(&g);
}

/*
 * Hardware events, where the machine has a PMU: sampling may then use
 * rdpmc through the perf user pages, without a system call.
 */
static void bench_hardware(void)
{
	struct cpc_bound b;
	b.set = cpc_set_create(cpc);
	if (cpc_set_add_request(cpc, b.set, "PAPI_tot_ins", 0, CPC_COUNT_USER,
		0, NULL) < 0 ||
	    cpc_set_add_request(cpc, b.set, "PAPI_tot_cyc", 0, CPC_COUNT_USER,
		0, NULL) < 0 ||
	    (b.buf = cpc_buf_create(cpc, b.set)) == NULL ||
	    cpc_bind_curlwp(cpc, b.set, 0) != 0) {
		printf("cpcbench: hardware events not available here (no "
		       "hardware PMU): rdpmc sampling not measured\n");
		bench_missing("set_sample_hw_2ev");
		cpc_set_destroy(cpc, b.set);
		return;
	}
	struct op ops[1] = { { "set_sample_hw_2ev", op_set_sample, &b, NULL } };
	bench_time_ops(ops, 1, bench_batch);
	uint64_t c0 = __builtin_ia32_rdtsc();
	for (int i = 0; i < 10000; i++)
		op_set_sample(&b);
	printf("RDPMC_SAMPLE_CYCLES %.0f\n",
	    (double)(__builtin_ia32_rdtsc() - c0) / 10000);
	cpc_unbind(cpc, b.set);
	cpc_set_destroy(cpc, b.set);
}

static void bench_bind(void)
{
	int two = 2;
	cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches",
	    &v1_event);
	struct op ops[3] = {
		{ "bind_rele_2ev", op_bind_rele, NULL, NULL },
		{ "raw_open_close_2ev", op_raw_open_close, &two, NULL },
	};
	int nops = 2;
#ifdef HAVE_PAPI
	int es = papi_ok ? papi_set(2) : -1;
	if (es >= 0) {
		ops[2] = (struct op){ "papi_start_stop_2ev", op_papi_start_stop,
			&es, NULL };
		nops = 3;
	}
#endif
	bench_time_ops(ops, nops, bench_batch / 4);
	if (nops < 3)
		bench_missing("papi_start_stop_2ev");
}

/* Overflow: a notification every page fault, handled and re-armed. */
static volatile int ovf_seen;
static int raw_ovf_fd;

static void cpc_ovf_handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t ev;
	(void)sig, (void)si, (void)uc;
	cpc_take_sample(&ev);
	ev.ce_pic[0] = UINT64_MAX;	/* again after the next event */
	cpc_bind_event(&ev, CPC_BIND_EMT_OVF);
	ovf_seen++;
}

static void raw_ovf_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t buf[8];
	(void)sig, (void)si, (void)uc;
	if (read(raw_ovf_fd, buf, sizeof(buf)) < 0)
		abort();
	ioctl(raw_ovf_fd, PERF_EVENT_IOC_REFRESH, 1);
	ovf_seen++;
}

static double fault_pages_ns(int pages)
{
	size_t pg = 4096;
	char *p = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	madvise(p, pages * pg, MADV_NOHUGEPAGE);
	double t0 = bench_now_ns();
	for (int i = 0; i < pages; i++)
		p[i * pg] = 1;
	double t = bench_now_ns() - t0;
	munmap(p, pages * pg);
	return t;
}

static void bench_overflow(void)
{
	const int pages = 2000, reps = bench_batches / 4 + 3;
	double *plain = calloc(reps, sizeof(double));
	double *ours = calloc(reps, sizeof(double));
	double *raw = calloc(reps, sizeof(double));
	struct sigaction sa;

	for (int r = 0; r < reps; r++) {
		plain[r] = fault_pages_ns(pages) / pages;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = cpc_ovf_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(SIGEMT, &sa, NULL);
		cpc_event_t ev;
		cpc_strtoevent(cpc_getcpuver(), "pic0=page-faults,pic1=cs,int0",
		    &ev);
		ev.ce_pic[0] = UINT64_MAX;
		cpc_bind_event(&ev, CPC_BIND_EMT_OVF);
		ovf_seen = 0;
		ours[r] = fault_pages_ns(pages) / pages;
		cpc_rele();

		struct perf_event_attr a;
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_PAGE_FAULTS;
		a.sample_period = 1;
		a.wakeup_events = 1;
		a.disabled = 1;
		a.exclude_kernel = 1;
		raw_ovf_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
		    PERF_FLAG_FD_CLOEXEC);
		struct f_owner_ex owner = { F_OWNER_TID, gettid() };
		fcntl(raw_ovf_fd, F_SETFL, O_ASYNC);
		fcntl(raw_ovf_fd, F_SETOWN_EX, &owner);
		fcntl(raw_ovf_fd, F_SETSIG, SIGRTMIN + 2);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = raw_ovf_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(SIGRTMIN + 2, &sa, NULL);
		ioctl(raw_ovf_fd, PERF_EVENT_IOC_REFRESH, 1);
		raw[r] = fault_pages_ns(pages) / pages;
		close(raw_ovf_fd);
	}
	double base = bench_median(plain, reps);
	/* The cost of one overflow cycle: the fault's time minus a plain one. */
	bench_record("fault_plain", base);
	bench_record("overflow_cycle", bench_median(ours, reps) - base);
	bench_record("raw_overflow_cycle", bench_median(raw, reps) - base);
	free(plain);
	free(ours);
	free(raw);
}

/* Thread creation with and without an inheriting binding. */
static void *nothing(void *arg)
{
	return arg;
}

/* ns per pthread_create + pthread_join of a thread running start. */
static double create_join_ns(void *(*start)(void *), int n)
{
	double t0 = bench_now_ns();
	for (int i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, start, NULL);
		pthread_join(t, NULL);
	}
	return (bench_now_ns() - t0) / n;
}

/*
 * The same work without libcpc: the creating thread holds inheriting
 * events (the group aggregate), and each new thread opens the same group
 * of counters for itself before its work and closes it at its end.
 */
static void *raw_counted(void *arg)
{
	struct raw_group g;
	raw_group_open(&g, 2);
	if (g.fd[0] < 0 || g.fd[1] < 0)
		abort();
	raw_group_close(&g);
	return arg;
}

static int raw_inherit_open(uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.inherit = 1;
	a.inherit_thread = 1;
	a.remove_on_exec = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {	/* before Linux 5.13 */
		a.inherit_thread = 0;
		a.remove_on_exec = 0;
		fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
		    PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static void bench_inherit(void)
{
	const int reps = 31, n = 50;
	double *with = calloc(reps, sizeof(double));
	double *without = calloc(reps, sizeof(double));
	double *raw = calloc(reps, sizeof(double));
	cpc_event_t ev;
	cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches", &ev);
	for (int r = 0; r < reps; r++) {
		without[r] = create_join_ns(nothing, n);
		cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT);
		with[r] = create_join_ns(nothing, n);
		cpc_rele();
		int agg[2] = { raw_inherit_open(sw_events[0]),
			raw_inherit_open(sw_events[1]) };
		raw[r] = create_join_ns(raw_counted, n);
		close(agg[0]);
		close(agg[1]);
	}
	bench_record("thread_create_inherit", bench_median(with, reps));
	bench_record("thread_create_plain", bench_median(without, reps));
	bench_record("thread_create_raw_open", bench_median(raw, reps));
	free(with);
	free(without);
	free(raw);
}

/* Peak memory of a process whose 1000 threads are all bound. */
static pthread_barrier_t all_bound;

static void *bound_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&all_bound);	/* bound by inheritance */
	pthread_barrier_wait(&all_bound);
	return NULL;
}

static long peak_rss_kb_of_1000_threads(int bind)
{
	int pfd[2];
	if (pipe(pfd) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 65536, 65536 };
		setrlimit(RLIMIT_NOFILE, &rl);
		cpc_event_t ev;
		cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches",
		    &ev);
		if (bind && cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT) != 0)
			_exit(1);
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		pthread_barrier_init(&all_bound, NULL, 1001);
		static pthread_t t[1000];
		for (int i = 0; i < 1000; i++)
			if (pthread_create(&t[i], &attr, bound_thread, NULL) != 0)
				_exit(2);
		pthread_barrier_wait(&all_bound);
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		long kb = ru.ru_maxrss;
		pthread_barrier_wait(&all_bound);
		for (int i = 0; i < 1000; i++)
			pthread_join(t[i], NULL);
		if (write(pfd[1], &kb, sizeof(kb)) != sizeof(kb))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	long kb = -1;
	if (read(pfd[0], &kb, sizeof(kb)) != sizeof(kb))
		kb = -1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	return kb;
}

/*
 * One line per target of the sample path: the library's cost over the
 * raw group read (target <= 25 ns), and over the raw read plus the
 * CLOCK_MONOTONIC reading every Solaris sample carries (ce_hrt,
 * cpc_buf_hrtime), which is the raw equivalent of the whole call.
 */
static void sample_lines(FILE *out, const char *ours, const char *raw,
    const char *rawclk, const char *papi, const char *label)
{
	char name[96];
	snprintf(name, sizeof(name), "%s/%s", ours, label);
	bench_ratio(out, name, ours, raw);
	bench_added(out, name, ours, raw);
	snprintf(name, sizeof(name), "%s/raw_read_clock", ours);
	bench_ratio(out, name, ours, rawclk);
	bench_added(out, name, ours, rawclk);
	snprintf(name, sizeof(name), "%s/papi_read", ours);
	bench_ratio(out, name, ours, papi);
}

static void print_ratios(FILE *out)
{
	sample_lines(out, "set_sample_1ev", "raw_group_read_1ev",
	    "raw_read_clock_1ev", "papi_read_1ev", "raw_group_read_1ev");
	sample_lines(out, "set_sample_2ev", "raw_group_read_2ev",
	    "raw_read_clock_2ev", "papi_read_2ev", "raw_group_read_2ev");
	sample_lines(out, "set_sample_4ev", "raw_group_read_4ev",
	    "raw_read_clock_4ev", "papi_read_4ev", "raw_group_read_4ev");
	bench_ratio(out, "set_sample_taskclock/raw_read_taskclock",
	    "set_sample_taskclock", "raw_read_taskclock");
	sample_lines(out, "take_sample_2ev", "raw_group_read_2ev_v1",
	    "raw_read_clock_2ev_v1", "papi_read_2ev_v1",
	    "raw_group_read_2ev");
	bench_ratio(out, "bind_rele_2ev/raw_open_close_2ev", "bind_rele_2ev",
	    "raw_open_close_2ev");
	bench_ratio(out, "bind_rele_2ev/papi_start_stop_2ev", "bind_rele_2ev",
	    "papi_start_stop_2ev");
	bench_ratio(out, "overflow_cycle/raw_overflow_cycle", "overflow_cycle",
	    "raw_overflow_cycle");
	bench_ratio(out, "thread_create_inherit/thread_create_raw_open",
	    "thread_create_inherit", "thread_create_raw_open");
	bench_ratio(out, "thread_create_inherit/thread_create_plain",
	    "thread_create_inherit", "thread_create_plain");
	fprintf(out, "INHERIT_COST_US %.1f\n",
	    (bench_row("thread_create_inherit")->median_ns -
		bench_row("thread_create_plain")->median_ns) / 1000);
	fprintf(out, "RAW_INHERIT_COST_US %.1f\n",
	    (bench_row("thread_create_raw_open")->median_ns -
		bench_row("thread_create_plain")->median_ns) / 1000);
}

int main(int argc, char **argv)
{
	const char *csv = "bench/results.csv";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0) {
			bench_batches = 41;
			bench_batch = 100;
		} else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
			csv = argv[++i];
		} else {
			fprintf(stderr, "usage: cpcbench [-q] [-o file.csv]\n");
			return 2;
		}
	}
	cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL) {
		perror("cpc_open");
		return 1;
	}
#ifdef HAVE_PAPI
	papi_ok = PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT;
	if (!papi_ok)
		fprintf(stderr, "cpcbench: PAPI_library_init failed\n");
#endif
	const char *backend = getenv("LIBCPC_BACKEND");
	printf("cpcbench: backend %s, cpu %s, kernel %s\n",
	    backend != NULL && *backend != '\0' ? backend : "default",
	    cpc_cciname(cpc), bench_kernel_release());

	bench_reads();
	bench_hardware();
	bench_bind();
	bench_overflow();
	bench_inherit();
	long rss_bound = peak_rss_kb_of_1000_threads(1);
	long rss_plain = peak_rss_kb_of_1000_threads(0);

	bench_print_table(stdout);
	printf("%-28s %12ld\n", "peak_rss_kb_1000_bound", rss_bound);
	printf("%-28s %12ld\n", "peak_rss_kb_1000_unbound", rss_plain);
	printf("%-28s %12.0f\n", "bytes_per_bound_lwp",
	    (rss_bound - rss_plain) * 1024.0 / 1000);
	bench_record("peak_rss_kb_1000_bound", (double)rss_bound);
	bench_record("peak_rss_kb_1000_unbound", (double)rss_plain);
	if (bench_write_csv(csv) == 0)
		printf("\ncpcbench: wrote %s\n", csv);

	printf("\n");
	print_ratios(stdout);
	bench_print_kmod_stats(stdout);
	cpc_close(cpc);
	return 0;
}
