/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check test programs. */
#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <libcpc.h>

#include "testutil.h"

static char errbuf[8192];
static size_t errlen;
static int errcount;

static void record(const char *fn, const char *fmt, va_list ap)
{
	int n = snprintf(errbuf + errlen, sizeof(errbuf) - errlen, "%s: ", fn);
	if (n > 0 && (size_t)n < sizeof(errbuf) - errlen)
		errlen += (size_t)n;
	n = vsnprintf(errbuf + errlen, sizeof(errbuf) - errlen, fmt, ap);
	if (n > 0)
		errlen += (size_t)n < sizeof(errbuf) - errlen
		    ? (size_t)n : sizeof(errbuf) - errlen - 1;
	errcount++;
}

void capture_errors(void)
{
	cpc_seterrfn(record);
	clear_errors();
}

void clear_errors(void)
{
	errbuf[0] = '\0';
	errlen = 0;
	errcount = 0;
}

const char *captured_errors(void)
{
	return errbuf;
}

int captured_count(void)
{
	return errcount;
}

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int stress_scaled(int n)
{
	const char *d = getenv("LIBCPC_STRESS_DIVISOR");
	int div = d != NULL ? atoi(d) : 1;
	if (div < 1)
		div = 1;
	return n / div > 0 ? n / div : 1;
}

uint64_t thread_switches(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

uint64_t raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * With the TSC as the clock source (stable), sched_clock and the clock
 * source scale the same TSC, so they agree but for CLOCK_MONOTONIC's NTP
 * slew (MONOTONIC_SLEW; the raw clock has none).  Where the kernel found
 * the TSC unstable (an emulated guest's watchdog switches to hpet),
 * sched_clock_cpu keeps each processor's clock between the
 * CLOCK_MONOTONIC of its last tick and one tick after it: two ticks
 * either way over a stretch, 10 ms each at HZ = 100, the lowest.
 */
uint64_t sched_clock_slack_ns(void)
{
	char cs[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
			"current_clocksource", "r");
	if (f != NULL) {
		if (fgets(cs, sizeof(cs), f) == NULL)
			cs[0] = '\0';
		fclose(f);
	}
	return strcmp(cs, "tsc\n") == 0 ? 0 : 2 * 10000000u;
}

/*
 * Why [inner, outer] is exact.  Task-clock and cpu-clock count the time
 * the thread's perf context (or the module's context) is scheduled in,
 * read from the processor's sched_clock (local_clock); the thread's CPU
 * time (sum_exec_runtime) is the scheduler's run-queue task clock, the
 * same sched_clock less the time a hypervisor stole from the virtual
 * processor (CONFIG_PARAVIRT_TIME_ACCOUNTING; no IRQ time accounting in
 * the kernels we run).  Reading the thread's CPU time brings it up to
 * date (task_sched_runtime), and so does reading the count.
 *  - Lower bound: between i0 and i1 the thread was on its processor at
 *    least the CPU time it was charged, and the count covers [i0, i1].
 *  - Upper bound: with no context switch between raw0 and the end, the
 *    thread was on its processor all along, so the count cannot exceed
 *    the wall time around the samples (raw clock: the TSC scaled like
 *    sched_clock, never slewed).  With no stolen time it also cannot
 *    exceed the CPU time around them (the same clock); outer is the
 *    larger of the two, so it holds in a guest with a clock source that
 *    is not the TSC (no steal there) and on a host that steals (a TSC
 *    clock source there).  Measured on the 6.18 Firecracker host: the
 *    count exceeded the outer CPU time by up to 10 us of stolen time in
 *    stretches of 1 ms without a switch, never the wall time.
 *  - With a context switch neither is sure: the scheduler charges the
 *    switch's path (from picking the thread to perf's sched-in at the
 *    end of the switch) to the thread, perf does not, a few us natively
 *    and tens of ms under an emulator on a loaded host, and the wall
 *    time includes time off the processor (it would hide a count too
 *    high: outer is then the CPU time around alone).  A switched stretch
 *    that misses [inner, outer] is measured again.  (In the emulated
 *    guest, touching fresh pages switches the thread out every time,
 *    so a switched stretch must be able to pass.)
 */
void nested_open(struct nested_clock *n)
{
	sched_yield();	/* a fresh slice: short stretches fit in one */
	n->sw = thread_switches();
	n->raw0 = raw_ns();
	n->cpu0 = thread_cpu_ns();
}

void nested_in(struct nested_clock *n)
{
	n->in0 = thread_cpu_ns();
}

void nested_out(struct nested_clock *n)
{
	n->inner = thread_cpu_ns() - n->in0;
}

void nested_close(struct nested_clock *n)
{
	uint64_t cpu = thread_cpu_ns() - n->cpu0;
	uint64_t wall = raw_ns() - n->raw0;
	n->switched = thread_switches() != n->sw;
	/* With a switch, the wall time includes time off the processor. */
	n->outer = n->switched || cpu > wall ? cpu : wall;
}

int nested_holds(const struct nested_clock *n, double counted)
{
	return counted >= (double)n->inner && counted <= (double)n->outer;
}

static volatile uint64_t burn_sink;

void burn_cpu_ns(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;
	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			burn_sink += (uint64_t)i;
}

/*
 * Not instrumented by AddressSanitizer: its check of each store reads the
 * shadow memory, whose own first touches would count as extra page
 * faults (one per 8 pages) in "make check-sanitizers".
 */
#if defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize_address))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif

NO_ASAN void touch_fresh_pages(size_t npages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, npages * pg, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	/* One fault per page: no transparent huge pages here. */
	madvise((void *)p, npages * pg, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < npages; i++)
		p[i * pg] = 1;
	munmap((void *)p, npages * pg);
}

int count_open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n - 3;	/* ".", ".." and the directory's own fd */
}

int perf_paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 2;
	if (f != NULL) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level;
}

int perf_self_permitted(void)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Number of perf_event file descriptors this process holds. */
int count_perf_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char target[64];
		if (e->d_name[0] == '.')
			continue;
		ssize_t len = readlinkat(dirfd(d), e->d_name, target,
		    sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]") == 0)
			n++;
	}
	closedir(d);
	return n;
}

int process_counting_permitted(void)
{
	if (perf_self_permitted())
		return 1;
	const char *be = getenv("LIBCPC_BACKEND");
	if (be != NULL && *be != '\0' && strcmp(be, "kmod") != 0)
		return 0;
	int fd = open("/dev/cpc", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int system_mode_permitted(void)
{
	int ok = 0;
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL)
		return 0;
	cpc_set_t *set = cpc_set_create(cpc);
	if (set != NULL &&
	    cpc_set_add_request(cpc, set, "page-faults", 0,
		CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == 0 &&
	    cpc_bind_curlwp(cpc, set, 0) == 0) {
		ok = 1;
		(void)cpc_unbind(cpc, set);
	}
	cpc_close(cpc);
	return ok;
}
