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
#ifdef HAVE_PAPI
#include <papi.h>
#endif

#define MAXROWS 64

static int batches = 201;	/* median over this many batches */
static int batch = 200;		/* calls per batch */

struct row {
	char name[48];
	double median_ns;
	int have;
};

static struct row rows[MAXROWS];
static int nrows;

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

static struct row *row(const char *name)
{
	for (int i = 0; i < nrows; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	struct row *r = &rows[nrows++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

static void record(const char *name, double ns)
{
	struct row *r = row(name);
	r->median_ns = ns;
	r->have = 1;
}

static void missing(const char *name)
{
	row(name)->have = 0;
}

/*
 * Times several operations in interleaved batches (so that drift affects
 * all alike) and records each one's median ns per call.
 */
typedef void (*op_fn)(void *);

struct op {
	const char *name;
	op_fn fn;
	void *arg;
	double *samples;
};

static void time_ops(struct op *ops, int nops, int per_batch)
{
	for (int i = 0; i < nops; i++)
		ops[i].samples = calloc((size_t)batches, sizeof(double));
	for (int w = 0; w < 3; w++)	/* warm-up */
		for (int i = 0; i < nops; i++)
			for (int k = 0; k < per_batch; k++)
				ops[i].fn(ops[i].arg);
	for (int b = 0; b < batches; b++)
		for (int i = 0; i < nops; i++) {
			double t0 = now_ns();
			for (int k = 0; k < per_batch; k++)
				ops[i].fn(ops[i].arg);
			ops[i].samples[b] = (now_ns() - t0) / per_batch;
		}
	for (int i = 0; i < nops; i++) {
		record(ops[i].name, median(ops[i].samples, batches));
		free(ops[i].samples);
	}
}

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

static void bench_reads(void)
{
	for (int n = 1; n <= 4; n *= 2) {
		char ours[48], raw[48], papi[48];
		struct raw_group g;
		struct cpc_bound b;
		snprintf(ours, sizeof(ours), "set_sample_%dev", n);
		snprintf(raw, sizeof(raw), "raw_group_read_%dev", n);
		snprintf(papi, sizeof(papi), "papi_read_%dev", n);

		raw_group_open(&g, n);
		cpc_bound_make(&b, n);
		if (cpc_bind_curlwp(cpc, b.set, 0) != 0) {
			perror("cpc_bind_curlwp");
			exit(1);
		}
		struct op ops[3] = {
			{ ours, op_set_sample, &b, NULL },
			{ raw, op_raw_read, &g, NULL },
		};
		int nops = 2;
#ifdef HAVE_PAPI
		int es = papi_ok ? papi_set(n) : -1;
		if (es >= 0 && PAPI_start(es) == PAPI_OK) {
			ops[2] = (struct op){ papi, op_papi_read, &es, NULL };
			nops = 3;
		}
#endif
		time_ops(ops, nops, batch);
		if (nops < 3)
			missing(papi);
#ifdef HAVE_PAPI
		if (nops == 3) {
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
	/* The version 1 call, 2 events, against the same two. */
	struct raw_group g;
	raw_group_open(&g, 2);
	cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches",
	    &v1_event);
	cpc_bind_event(&v1_event, 0);
	struct op ops[3] = {
		{ "take_sample_2ev", op_take_sample, NULL, NULL },
		{ "raw_group_read_2ev_v1", op_raw_read, &g, NULL },
	};
	int nops = 2;
#ifdef HAVE_PAPI
	int es = papi_ok ? papi_set(2) : -1;
	if (es >= 0 && PAPI_start(es) == PAPI_OK) {
		ops[2] = (struct op){ "papi_read_2ev_v1", op_papi_read, &es,
			NULL };
		nops = 3;
	}
#endif
	time_ops(ops, nops, batch);
	if (nops < 3)
		missing("papi_read_2ev_v1");
#ifdef HAVE_PAPI
	if (nops == 3) {
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
		missing("set_sample_hw_2ev");
		cpc_set_destroy(cpc, b.set);
		return;
	}
	struct op ops[1] = { { "set_sample_hw_2ev", op_set_sample, &b, NULL } };
	time_ops(ops, 1, batch);
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
	time_ops(ops, nops, batch / 4);
	if (nops < 3)
		missing("papi_start_stop_2ev");
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
	double t0 = now_ns();
	for (int i = 0; i < pages; i++)
		p[i * pg] = 1;
	double t = now_ns() - t0;
	munmap(p, pages * pg);
	return t;
}

static void bench_overflow(void)
{
	const int pages = 2000, reps = batches / 4 + 3;
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
	double base = median(plain, reps);
	/* The cost of one overflow cycle: the fault's time minus a plain one. */
	record("fault_plain", base);
	record("overflow_cycle", median(ours, reps) - base);
	record("raw_overflow_cycle", median(raw, reps) - base);
	free(plain);
	free(ours);
	free(raw);
}

/* Thread creation with and without an inheriting binding. */
static void *nothing(void *arg)
{
	return arg;
}

static double create_join_ns(int n)
{
	double t0 = now_ns();
	for (int i = 0; i < n; i++) {
		pthread_t t;
		pthread_create(&t, NULL, nothing, NULL);
		pthread_join(t, NULL);
	}
	return (now_ns() - t0) / n;
}

static void bench_inherit(void)
{
	const int reps = 31, n = 50;
	double *with = calloc(reps, sizeof(double));
	double *without = calloc(reps, sizeof(double));
	cpc_event_t ev;
	cpc_strtoevent(cpc_getcpuver(), "page-faults,context-switches", &ev);
	for (int r = 0; r < reps; r++) {
		without[r] = create_join_ns(n);
		cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT);
		with[r] = create_join_ns(n);
		cpc_rele();
	}
	record("thread_create_inherit", median(with, reps));
	record("thread_create_plain", median(without, reps));
	free(with);
	free(without);
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

static void ratio(FILE *out, const char *name, const char *a, const char *b)
{
	struct row *x = row(a), *y = row(b);
	if (!x->have || !y->have || y->median_ns <= 0) {
		fprintf(out, "RATIO %s not-built\n", name);
		return;
	}
	fprintf(out, "RATIO %s %.2f\n", name, x->median_ns / y->median_ns);
}

int main(int argc, char **argv)
{
	const char *csv = "bench/results.csv";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0) {
			batches = 41;
			batch = 100;
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
	printf("cpcbench: backend %s, cpu %s\n",
	    backend != NULL && *backend != '\0' ? backend : "default",
	    cpc_cciname(cpc));

	bench_reads();
	bench_hardware();
	bench_bind();
	bench_overflow();
	bench_inherit();
	long rss_bound = peak_rss_kb_of_1000_threads(1);
	long rss_plain = peak_rss_kb_of_1000_threads(0);

	printf("\n%-28s %12s\n", "operation", "median ns");
	for (int i = 0; i < nrows; i++)
		if (rows[i].have)
			printf("%-28s %12.0f\n", rows[i].name, rows[i].median_ns);
		else
			printf("%-28s %12s\n", rows[i].name, "not built");
	printf("%-28s %12ld\n", "peak_rss_kb_1000_bound", rss_bound);
	printf("%-28s %12ld\n", "peak_rss_kb_1000_unbound", rss_plain);
	printf("%-28s %12.0f\n", "bytes_per_bound_lwp",
	    (rss_bound - rss_plain) * 1024.0 / 1000);

	FILE *f = fopen(csv, "w");
	if (f != NULL) {
		fprintf(f, "operation,median_ns\n");
		for (int i = 0; i < nrows; i++)
			if (rows[i].have)
				fprintf(f, "%s,%.1f\n", rows[i].name,
				    rows[i].median_ns);
		fprintf(f, "peak_rss_kb_1000_bound,%ld\n", rss_bound);
		fprintf(f, "peak_rss_kb_1000_unbound,%ld\n", rss_plain);
		fclose(f);
		printf("\ncpcbench: wrote %s\n", csv);
	}

	printf("\n");
	ratio(stdout, "set_sample_1ev/raw_group_read_1ev", "set_sample_1ev",
	    "raw_group_read_1ev");
	ratio(stdout, "set_sample_2ev/raw_group_read_2ev", "set_sample_2ev",
	    "raw_group_read_2ev");
	ratio(stdout, "set_sample_4ev/raw_group_read_4ev", "set_sample_4ev",
	    "raw_group_read_4ev");
	ratio(stdout, "take_sample_2ev/raw_group_read_2ev", "take_sample_2ev",
	    "raw_group_read_2ev_v1");
	ratio(stdout, "set_sample_1ev/papi_read_1ev", "set_sample_1ev",
	    "papi_read_1ev");
	ratio(stdout, "set_sample_2ev/papi_read_2ev", "set_sample_2ev",
	    "papi_read_2ev");
	ratio(stdout, "take_sample_2ev/papi_read_2ev", "take_sample_2ev",
	    "papi_read_2ev_v1");
	ratio(stdout, "set_sample_4ev/papi_read_4ev", "set_sample_4ev",
	    "papi_read_4ev");
	ratio(stdout, "bind_rele_2ev/raw_open_close_2ev", "bind_rele_2ev",
	    "raw_open_close_2ev");
	ratio(stdout, "bind_rele_2ev/papi_start_stop_2ev", "bind_rele_2ev",
	    "papi_start_stop_2ev");
	ratio(stdout, "overflow_cycle/raw_overflow_cycle", "overflow_cycle",
	    "raw_overflow_cycle");
	ratio(stdout, "thread_create_inherit/thread_create_plain",
	    "thread_create_inherit", "thread_create_plain");
	printf("INHERIT_COST_US %.1f\n",
	    (row("thread_create_inherit")->median_ns -
		row("thread_create_plain")->median_ns) / 1000);
	cpc_close(cpc);
	return 0;
}
