/* SPDX-License-Identifier: MIT */
/*
 * cpustat: system-wide CPU performance counter statistics, per processor,
 * through cpc_bind_cpu (which needs CAP_PERFMON, or root, or
 * perf_event_paranoid <= 0).
 *
 * One thread per processor the caller may run on binds its own sets to
 * that processor, samples every interval and prints a line.  With one set
 * each line shows the counts since the previous line; with several the
 * sets take turns, one per interval, and each line shows the counts of
 * the set just measured.  At the end, one total line per set.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "cmdutil.h"
#include "strtoset.h"

static struct {
	int soak;
	char timestamp;		/* 'u', 'd' or 0 */
	double period;		/* seconds, 0: none */
	int64_t interval_ms;
	long count;		/* samples per CPU, -1: unlimited */
} opts = { .interval_ms = 5000, .count = -1 };

struct cpu_thread {
	pthread_t thread;
	int cpu;
	int failed;
	cpc_buf_t **total;	/* per set */
	int *hasdata;
};

static cpc_t *cpc;
static struct cmd_setgrp grp;

/* The per-CPU records (their buffers go with the handle). */
static void free_cpus(struct cpu_thread *cts, int ncpu)
{
	for (int k = 0; k < ncpu; k++) {
		free(cts[k].total);
		free(cts[k].hasdata);
	}
	free(cts);
}
static hrtime_t start;
static struct timespec start_mono;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int *soaking;	/* per CPU: a system-only set is measured */

/* illumos's text, line by line (-O is documented in cpustat(8) only). */
static void usage(FILE *fp)
{
	fprintf(fp, "Usage:\n"
		    "\t%s -c spec [-c spec]... [-p period] [-T u|d]\n"
		    "\t\t[-sntD] [interval [count]]\n\n"
		    "\t-c spec\t  specify processor events to be monitored\n"
		    "\t-n\t  suppress titles\n"
		    "\t-p period cycle through event list periodically\n"
		    "\t-s\t  run user soaker thread for system-only events\n"
		    "\t-t\t  include %s register\n"
		    "\t-T d|u\t  Display a timestamp in date (d) or unix "
		    "time_t (u)\n"
		    "\t-D\t  enable debug mode\n"
		    "\t-h\t  print extended usage information\n\n"
		    "\tUse cputrack(1) to monitor per-process statistics.\n",
	    cmd_prog, CPC_TICKREG_NAME);
}


static void emit(struct cmd_line *l)
{
	pthread_mutex_lock(&out_lock);
	const char *p = l->buf;
	size_t n = l->len;
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		p += w;
		n -= (size_t)w;
	}
	pthread_mutex_unlock(&out_lock);
}

static void timestamp(struct cmd_line *l)
{
	time_t now = time(NULL);
	if (opts.timestamp == 'u') {
		if (cmd_opts.csv)
			cmd_line_add(l, "%ld", (long)now);
		else
			cmd_line_add(l, "%ld\n", (long)now);
	} else if (opts.timestamp == 'd') {
		char date[64];
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(date, sizeof(date), "%a %b %e %H:%M:%S %Z %Y", &tm);
		if (cmd_opts.csv)
			cmd_line_csv(l, date);
		else
			cmd_line_add(l, "%s\n", date);
	}
}

static void print_title(void)
{
	struct cmd_line l;
	cmd_line_init(&l);
	if (cmd_opts.csv) {
		if (opts.timestamp)
			cmd_line_csv(&l, "timestamp");
		const char *cols[] = { "time", "cpu", "event", "tsc", "set" };
		for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
			cmd_line_csv(&l, cols[i]);
		cmd_line_csv_pics(&l, cpc_npic(cpc));
	} else {
		cmd_line_add(&l, "%7s %3s %5s ", "time", "cpu", "event");
		if (cmd_opts.tsc)
			cmd_line_add(&l, "%9s ", CPC_TICKREG_NAME);
		cmd_line_header(&l, &grp.sets[0]);
	}
	cmd_line_add(&l, "\n");
	emit(&l);
}

static void print_sample(int cpu, const char *label, cpc_buf_t *buf, int i,
    int stamp)
{
	struct cmd_line l;
	const struct cmd_set *s = &grp.sets[i];
	double t = cmd_seconds(cpc_buf_hrtime(cpc, buf), start);

	cmd_line_init(&l);
	if (stamp)
		timestamp(&l);
	if (cmd_opts.csv) {
		char f[32];
		snprintf(f, sizeof(f), "%.3f", t);
		cmd_line_csv(&l, f);
		snprintf(f, sizeof(f), "%d", cpu);
		cmd_line_csv(&l, f);
		cmd_line_csv(&l, label);
		snprintf(f, sizeof(f), "%" PRIu64, cpc_buf_tick(cpc, buf));
		cmd_line_csv(&l, f);
		cmd_line_csv(&l, s->spec);
		cmd_line_csv_values(&l, cpc, buf, s, cpc_npic(cpc));
		cmd_line_add(&l, "\n");
	} else {
		cmd_line_add(&l, "%7.3f %3d %5s ", t, cpu, label);
		if (cmd_opts.tsc)
			cmd_line_add(&l, "%9" PRId64 " ",
			    (int64_t)cpc_buf_tick(cpc, buf));
		cmd_line_values(&l, cpc, buf, s);
		if (grp.nsets > 1)
			cmd_line_add(&l, " # %s\n", s->spec);
		else
			cmd_line_add(&l, "\n");
	}
	emit(&l);
}

static void add_ms(struct timespec *ts, int64_t ms)
{
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

static void cpu_error(int cpu, int err)
{
	const char *why = cpc_linux_errnote(cpc);
	fprintf(stderr, "%s: cpu%d - %s\n", cmd_prog, cpu, strerror(err));
	if (why != NULL)
		fprintf(stderr, "%s: %s\n", cmd_prog, why);
}

static void *cpu_main(void *arg)
{
	struct cpu_thread *ct = arg;
	int n = grp.nsets, cur = 0;
	cpc_set_t **sets = calloc((size_t)n, sizeof(*sets));
	cpc_buf_t **last = calloc((size_t)n, sizeof(*last));
	cpc_buf_t **now = calloc((size_t)n, sizeof(*now));
	cpc_buf_t **diff = calloc((size_t)n, sizeof(*diff));

	if (sets == NULL || last == NULL || now == NULL || diff == NULL) {
		cpu_error(ct->cpu, ENOMEM);
		ct->failed = 1;
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		sets[i] = cmd_set_new(cpc, &grp.sets[i]);
		if (sets[i] == NULL) {
			ct->failed = 1;
			return NULL;
		}
		last[i] = cpc_buf_create(cpc, sets[i]);
		now[i] = cpc_buf_create(cpc, sets[i]);
		diff[i] = cpc_buf_create(cpc, sets[i]);
	}
	if (cpc_bind_cpu(cpc, ct->cpu, sets[0], 0) != 0 ||
	    cpc_set_sample(cpc, sets[0], last[0]) != 0) {
		cpu_error(ct->cpu, errno);
		ct->failed = 1;
		return NULL;
	}
	if (soaking != NULL)
		soaking[ct->cpu] = grp.sets[0].sysonly;

	struct timespec deadline = start_mono;
	/* With -p, count is in rounds of all the sets. */
	long total_samples = opts.count < 0 ? -1
	    : opts.period > 0		     ? opts.count * n
					     : opts.count;
	for (long k = 0; total_samples < 0 || k < total_samples; k++) {
		add_ms(&deadline, opts.interval_ms);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
			   &deadline, NULL) == EINTR)
			;
		if (cpc_set_sample(cpc, sets[cur], now[cur]) != 0) {
			cpu_error(ct->cpu, errno);
			ct->failed = 1;
			break;
		}
		cpc_buf_t *shown = now[cur];
		/* One set bound all along: each tick is the difference. */
		if (n == 1 && opts.period <= 0) {
			cpc_buf_sub(cpc, diff[0], now[0], last[0]);
			cpc_buf_copy(cpc, last[0], now[0]);
			shown = diff[0];
		}
		print_sample(ct->cpu, "tick", shown, cur, 1);
		cpc_buf_add(cpc, ct->total[cur], ct->total[cur], shown);
		ct->hasdata[cur] = 1;
		if (n > 1 || opts.period > 0) {
			if (total_samples >= 0 && k + 1 >= total_samples)
				break;
			cpc_unbind(cpc, sets[cur]);
			if (soaking != NULL)
				soaking[ct->cpu] = 0;
			cur = (cur + 1) % n;
			/*
			 * With -p: a rest after each round of all the sets,
			 * with nothing bound (as illumos's gtick), so the
			 * next set counts its interval only.
			 */
			if (opts.period > 0 && cur == 0) {
				int64_t rest = (int64_t)(opts.period * 1000) -
				    opts.interval_ms * n;
				if (rest > 0) {
					add_ms(&deadline, rest);
					while (clock_nanosleep(CLOCK_MONOTONIC,
						   TIMER_ABSTIME, &deadline,
						   NULL) == EINTR)
						;
				}
			}
			if (cpc_bind_cpu(cpc, ct->cpu, sets[cur], 0) != 0) {
				cpu_error(ct->cpu, errno);
				ct->failed = 1;
				break;
			}
			if (soaking != NULL)
				soaking[ct->cpu] = grp.sets[cur].sysonly;
		}
	}
	if (soaking != NULL)
		soaking[ct->cpu] = 0;
	for (int i = 0; i < n; i++) {
		cpc_set_destroy(cpc, sets[i]);
		cpc_buf_destroy(cpc, last[i]);
		cpc_buf_destroy(cpc, now[i]);
		cpc_buf_destroy(cpc, diff[i]);
	}
	free(sets);
	free(last);
	free(now);
	free(diff);
	return NULL;
}

/* -s: spins at the lowest priority while a system-only set is measured. */
static void *soaker_main(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	struct sched_param sp = { 0 };
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	for (;;) {
		if (soaking[cpu]) {
			for (volatile int i = 0; i < 100000; i++)
				;
		} else {
			struct timespec ts = { 0, 5000000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

/* Parses a whole number of seconds (fraction allowed): 0, or -1. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return (end == s || *end != '\0' || errno != 0) ? -1 : 0;
}

/* ------------------------------------------------------------ parse */

/* The options and operands; exits with the usage on a mistake. */
static void parse(int argc, char **argv)
{
	int errors = 0, c;

	while (errors == 0 &&
	    (c = getopt(argc, argv, "+Dc:hntT:sp:O:")) != -1) {
		switch (c) {
		case 'T':
			if (strcmp(optarg, "u") == 0 ||
			    strcmp(optarg, "d") == 0)
				opts.timestamp = optarg[0];
			else
				errors++;
			break;
		case 's':
			opts.soak = 1;
			break;
		case 'p':
			if (parse_seconds(optarg, &opts.period) != 0 ||
			    opts.period < 0) {
				fprintf(stderr, "%s: invalid parameter \"%s\"\n",
				    cmd_prog, optarg);
				errors++;
			}
			break;
		default:
			if (!cmd_common_option(cpc, &grp, c, optarg,
				&errors))
				errors++;
			break;
		}
	}
	/* As illumos's: the count is checked first, then the interval. */
	int operands = argc - optind;
	if (operands == 2) {
		char *end;
		errno = 0;
		opts.count = strtol(argv[optind + 1], &end, 10);
		if (end == argv[optind + 1] || *end != '\0' || errno != 0) {
			fprintf(stderr, "%s: invalid argument \"%s\"\n",
			    cmd_prog, argv[optind + 1]);
			errors++;
		} else if (opts.count <= 0) {
			errors++;
		}
	}
	if ((operands == 1 || operands == 2) && errors == 0) {
		double secs;
		if (parse_seconds(argv[optind], &secs) != 0) {
			fprintf(stderr, "%s: invalid argument \"%s\"\n",
			    cmd_prog, argv[optind]);
			errors++;
		} else if (secs < 0 || (int64_t)(secs * 1000) <= 0) {
			errors++;
		} else {
			opts.interval_ms = (int64_t)(secs * 1000);
		}
	}
	if (operands > 2)
		errors++;
	if (errors > 0 || cmd_opts.help || grp.nsets == 0)
		cmd_usage_error(cpc, usage);
}

/* ------------------------------------------------------------ set up */

/*
 * One thread state per processor this process may run on, once binding
 * on the first one worked (privilege); starts the soakers.  NULL when it
 * cannot go on (reported).
 */
static struct cpu_thread *setup(int *ncpu_out)
{
	cpu_set_t mask;
	if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
		fprintf(stderr, "%s: cannot list processors: %s\n", cmd_prog,
		    strerror(errno));
		return NULL;
	}
	int ncpu = CPU_COUNT(&mask), maxcpu = 0;
	struct cpu_thread *cts = calloc((size_t)ncpu, sizeof(*cts));
	if (cts == NULL)
		return NULL;
	for (int cpu = 0, k = 0; cpu < CPU_SETSIZE && k < ncpu; cpu++)
		if (CPU_ISSET(cpu, &mask)) {
			cts[k++].cpu = cpu;
			maxcpu = cpu;
		}

	/* Privilege: try the first processor before anything is printed. */
	cpc_set_t *probe = cmd_set_new(cpc, &grp.sets[0]);
	if (probe == NULL) {
		free_cpus(cts, ncpu);
		return NULL;
	}
	if (cpc_bind_cpu(cpc, cts[0].cpu, probe, 0) != 0) {
		cpu_error(cts[0].cpu, errno);
		free_cpus(cts, ncpu);
		return NULL;
	}
	cpc_set_destroy(cpc, probe);

	int sysonly = 0;
	for (int i = 0; i < grp.nsets; i++)
		sysonly |= grp.sets[i].sysonly;
	if (opts.soak && sysonly) {
		soaking = calloc((size_t)maxcpu + 1, sizeof(*soaking));
		for (int k = 0; soaking != NULL && k < ncpu; k++) {
			pthread_t t;
			pthread_create(&t, NULL, soaker_main,
			    (void *)(intptr_t)cts[k].cpu);
			pthread_detach(t);
		}
	}
	*ncpu_out = ncpu;
	return cts;
}

/* ------------------------------------------------------------ run */

/*
 * Prints the title and runs one sampling thread per processor until they
 * end.  Returns the number of threads started, or -1 when out of memory;
 * *failed is set when a processor failed.
 */
static int run(struct cpu_thread *cts, int ncpu, int *failed)
{
	if (!cmd_opts.notitle)
		print_title();
	start = gethrtime();
	clock_gettime(CLOCK_MONOTONIC, &start_mono);
	int started = 0;
	for (int k = 0; k < ncpu; k++) {
		cts[k].total = calloc((size_t)grp.nsets, sizeof(cpc_buf_t *));
		cts[k].hasdata = calloc((size_t)grp.nsets, sizeof(int));
		if (cts[k].total == NULL || cts[k].hasdata == NULL)
			return -1;
		for (int i = 0; i < grp.nsets; i++) {
			cts[k].total[i] = cpc_buf_create(cpc,
			    grp.sets[i].proto);
			cpc_buf_zero(cpc, cts[k].total[i]);
		}
		if (pthread_create(&cts[k].thread, NULL, cpu_main,
			&cts[k]) != 0) {
			cpu_error(cts[k].cpu, errno);
			cts[k].failed = 1;
			cts[k].thread = 0;
			continue;
		}
		started++;
	}
	*failed = 0;
	for (int k = 0; k < ncpu; k++) {
		if (cts[k].thread != 0)
			pthread_join(cts[k].thread, NULL);
		*failed |= cts[k].failed;
	}
	return started;
}

/* ------------------------------------------------------------ report */

/* The total line of every set, over all processors. */
static void report(const struct cpu_thread *cts, int ncpu, int started)
{
	for (int i = 0; i < grp.nsets; i++) {
		cpc_buf_t *sum = cpc_buf_create(cpc, grp.sets[i].proto);
		int any = 0;
		cpc_buf_zero(cpc, sum);
		for (int k = 0; k < ncpu; k++)
			if (cts[k].hasdata[i]) {
				cpc_buf_add(cpc, sum, sum, cts[k].total[i]);
				any = 1;
			}
		/* Sums keep the latest time: that of the last sample. */
		if (any)
			print_sample(started, "total", sum, i, 0);
		cpc_buf_destroy(cpc, sum);
	}
}

int main(int argc, char **argv)
{
	int ncpu = 0, failed = 0;

	cmd_set_prog(argv[0]);
	cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL) {
		fprintf(stderr, "%s: cannot access performance counters - %s\n",
		    cmd_prog, strerror(errno));
		return 1;
	}
	cpc_seterrhndlr(cpc, cmd_errfn);
	strtoset_handler(cmd_errfn);

	parse(argc, argv);
	struct cpu_thread *cts = setup(&ncpu);
	if (cts == NULL)
		return 1;
	int started = run(cts, ncpu, &failed);
	if (started >= 0)
		report(cts, ncpu, started);
	free_cpus(cts, ncpu);
	if (started < 0)
		return 1;
	cpc_close(cpc);
	return failed ? 1 : 0;
}
