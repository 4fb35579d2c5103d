/* SPDX-License-Identifier: MIT */
/*
 * kmod_test: exercises the libcpc kernel module's device /dev/cpc (see
 * kmod/uapi/cpc_kmod.h) inside a guest that has cpc.ko loaded.
 *
 *	gcc -O2 -Wall -Wextra -static -pthread -o kmod_test \
 *	    tests/kmod/kmod_test.c
 *	kmod_test [--user | --stranger]
 *
 * Prints one line per check and, last, exactly "KMOD-TEST-RESULT: PASS" or
 * "KMOD-TEST-RESULT: FAIL".  --user first drops to uid/gid 65534 in the
 * group of /dev/cpc (when run as root).  The parts that need root (other
 * users, module parameters, the access policy) run only as root.
 * --stranger (uid/gid 1001, in no other group, when run as root) checks
 * only that the default policy keeps a user outside the group out.  The
 * device is expected as the udev rule kmod/60-cpc.rules makes it: root,
 * the group cpc, mode 0660.  Only software events are required: hardware
 * events are checked to fail with ENOENT when the module reports no PMU.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <x86intrin.h>

#include "../../kmod/uapi/cpc_kmod.h"

#define PAGE 4096
#define PARAMS "/sys/module/cpc/parameters/"
/* Statistics and test switches (debugfs; guest-init.sh mounts it). */
#define STATS "/sys/kernel/debug/cpc/"
#define NOBODY 65534
#define STRANGER 1001

static int passed, failed;
static int is_root;
static const char *volatile current_test = "start";

/* A hung test fails instead of hanging the guest. */
static void watchdog(int sig)
{
	static const char msg[] = "FAIL - watchdog: test hung in ";
	const char *t = current_test;

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0 ||
	    write(1, t, strlen(t)) < 0 || write(1, "\n", 1) < 0)
		_exit(1);
	_exit(1);
}

static const char *only;	/* --only NAME: run just that test */

#define RUN(fn, ...)						\
	do {							\
		if (only && strcmp(only, #fn) != 0)		\
			break;					\
		current_test = #fn;				\
		alarm(240);					\
		fn(__VA_ARGS__);				\
	} while (0)

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		passed++;
	else
		failed++;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int open_cpc(void)
{
	return open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
}

/* ioctl returning 0 or the errno. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) == 0 ? 0 : errno;
}

static struct cpc_kreq mkreq(uint32_t kind, uint64_t config, uint32_t flags,
			     uint64_t preset)
{
	struct cpc_kreq r;

	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.config = config;
	r.flags = flags;
	r.preset = preset;
	return r;
}

static void mkbind(struct cpc_kbind *kb, pid_t tid, uint32_t flags,
		   unsigned n, const struct cpc_kreq *reqs)
{
	memset(kb, 0, sizeof(*kb));
	kb->abi = CPC_KMOD_ABI;
	kb->flags = flags;
	kb->tid = tid;
	kb->nreqs = n;
	memcpy(kb->req, reqs, n * sizeof(reqs[0]));
}

static int bind_reqs(int fd, unsigned long cmd, pid_t tid, uint32_t flags,
		     unsigned n, const struct cpc_kreq *reqs)
{
	struct cpc_kbind kb;

	mkbind(&kb, tid, flags, n, reqs);
	return xioctl(fd, cmd, &kb);
}

static int sample(int fd, unsigned long cmd, pid_t tid, struct cpc_ksample *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->abi = CPC_KMOD_ABI;
	ks->tid = tid;
	return xioctl(fd, cmd, ks);
}

static int target(int fd, unsigned long cmd, pid_t tid)
{
	struct cpc_ktarget kt;

	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	kt.tid = tid;
	return xioctl(fd, cmd, &kt);
}

#define TASK_CLOCK(fl, pre) \
	mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, (fl), (pre))
#define CPU_CLOCK(fl, pre) \
	mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, (fl), (pre))
#define PAGE_FAULTS(fl, pre) \
	mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, (fl), (pre))

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Spins in user mode (reading the thread clock is a system call). */
static void spin_ms(unsigned ms)
{
	uint64_t end = thread_cpu_ns() + ms * 1000000ull;
	volatile unsigned long x = 0;
	int i;

	while (thread_cpu_ns() < end)
		for (i = 0; i < 20000; i++)
			x++;
}

/* Touches n fresh anonymous pages: n minor page faults in user mode. */
static void touch_pages(size_t n)
{
	volatile char *p;
	size_t i;

	p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise((void *)p, n * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * PAGE] = 1;
	munmap((void *)p, n * PAGE);
}

/* A statistic or test switch of STATS if there is one, else a parameter. */
static void param_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, STATS "%s", name);
	if (access(path, F_OK) != 0)
		snprintf(path, size, PARAMS "%s", name);
}

static long read_param(const char *name)
{
	char path[256], buf[64];
	ssize_t len;
	int fd;

	param_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return strtol(buf, NULL, 10);
}

static int write_param(const char *name, const char *val)
{
	char path[256];
	int fd, ok;

	param_path(path, sizeof(path), name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* The group of /dev/cpc (cpc, as the udev rule sets it). */
static gid_t device_gid(void)
{
	struct stat st;

	return stat(CPC_KMOD_DEVICE, &st) == 0 ? st.st_gid : 0;
}

/* Becomes uid (and gid) @id, a member of the device's group or not. */
static void become(uid_t id, int member)
{
	gid_t g = device_gid();

	if (setgroups(member ? 1 : 0, &g) != 0 || setresgid(id, id, id) ||
	    setresuid(id, id, id)) {
		perror("drop privileges");
		_exit(100);
	}
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static void drop_to_nobody(void)
{
	become(NOBODY, 1);
}

/*
 * Becomes the stranger (uid 1001, no group of the device) keeping only
 * CAP_PERFMON, and CAP_KILL too if @kill.
 */
static void become_perfmon(int kill)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
		_exit(101);
	become(STRANGER, 0);
	d[CAP_PERFMON / 32].permitted = 1u << (CAP_PERFMON % 32);
	if (kill)
		d[CAP_KILL / 32].permitted |= 1u << (CAP_KILL % 32);
	d[0].effective = d[0].permitted;
	d[1].effective = d[1].permitted;
	if (syscall(SYS_capset, &h, d) != 0)
		_exit(102);
}

/* Runs fn in a forked child; returns its exit status (or 99). */
static int in_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return 99;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 99;
	return WEXITSTATUS(st);
}

/* ------------------------------------------------------------------ */

static int fd;			/* the main open file */

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

static int has_hw_pmu(void)
{
	struct cpc_kinfo info;

	memset(&info, 0, sizeof(info));
	ioctl(fd, CPC_KIOC_INFO, &info);
	return !!(info.caps & CPC_KCAP_HW_PMU);
}

static void test_counting(void)
{
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample a, b;
	uint64_t t0, t1, dtc, dcpu;
	int err;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	check(err == 0, "bind task-clock + page-faults (err %d)", err);
	if (err)
		return;
	t0 = thread_cpu_ns();
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	spin_ms(100);
	sample(fd, CPC_KIOC_SAMPLE, 0, &b);
	t1 = thread_cpu_ns();
	dtc = b.vals[0] - a.vals[0];
	dcpu = t1 - t0;
	check(a.nreqs == 2 && b.nreqs == 2 && b.flags == 0 && b.abi == 1,
	      "sample nreqs %u flags %u", b.nreqs, b.flags);
	check(dtc > dcpu * 0.9 && dtc < dcpu * 1.1,
	      "task-clock %llu ns within 10%% of thread CPU time %llu ns",
	      (unsigned long long)dtc, (unsigned long long)dcpu);
	check(b.ontime_ns >= dtc * 0.9 && b.ontime_ns > a.ontime_ns,
	      "ontime_ns %llu grows with the thread's CPU time",
	      (unsigned long long)b.ontime_ns);

	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	touch_pages(300);
	sample(fd, CPC_KIOC_SAMPLE, 0, &b);
	check(b.vals[1] - a.vals[1] >= 300 && b.vals[1] - a.vals[1] < 400,
	      "page-faults +%llu for 300 fresh pages",
	      (unsigned long long)(b.vals[1] - a.vals[1]));
}

static void test_presets(void)
{
	const uint64_t p0 = 1000000000000ull, p1 = UINT64_MAX - 4;
	struct cpc_kreq r[3] = {
		TASK_CLOCK(CPC_KREQ_USER, p0),
		PAGE_FAULTS(CPC_KREQ_USER, p1),
		PAGE_FAULTS(0, 777),	/* neither mode: counts nothing */
	};
	struct cpc_ksample s;
	int err;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	check(err == 0, "rebind with presets (err %d)", err);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.vals[0] >= p0 && s.vals[0] < p0 + 50000000,
	      "task-clock starts at its preset (%llu)",
	      (unsigned long long)s.vals[0]);
	touch_pages(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.vals[1] - p1 >= 20 && s.vals[1] < 100,
	      "page-faults preset 2^64-5 wraps mod 2^64 (%llu)",
	      (unsigned long long)s.vals[1]);
	check(s.vals[2] == 777, "a request with neither USER nor SYSTEM "
	      "reads its preset (%llu)", (unsigned long long)s.vals[2]);
}

/*
 * Clocks are rebound in place like any event (perf rewrites their
 * counters' attr.type on 6.12: the module goes by the requests), except
 * when they notify overflow: clocks overflow from an hrtimer, and
 * rebound in place they lost overflows under timer storms
 * (tests/hardening/test_stress.c), so they get new counters.
 */
static void test_rebind_clocks(void)
{
	static const struct {
		const char *name;
		int ovf;	/* request 0 notifies overflow */
		int cpu;	/* request 0 is cpu-clock */
	} cases[] = {
		{ "task-clock", 0, 0 }, { "cpu-clock", 0, 1 },
		{ "task-clock notifying overflow", 1, 0 },
		{ "cpu-clock notifying overflow", 1, 1 },
	};
	unsigned c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint32_t fl = CPC_KREQ_USER |
			      (cases[c].ovf ? CPC_KREQ_OVF_EMT : 0);
		uint64_t pre = cases[c].ovf ? -1000000000000ull : 0;
		struct cpc_kreq r[2] = {
			cases[c].cpu ? CPU_CLOCK(fl, pre) : TASK_CLOCK(fl, pre),
			TASK_CLOCK(CPC_KREQ_USER, 0),
		};
		struct cpc_ksample s;
		long n0, n1;
		int e0, e1;

		e0 = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
		n0 = read_param("rebinds_in_place");
		r[1].preset = 5000000000000ull;
		e1 = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
		n1 = read_param("rebinds_in_place");
		sample(fd, CPC_KIOC_SAMPLE, 0, &s);
		check(e0 == 0 && e1 == 0 && n0 >= 0 &&
		      n1 == n0 + !cases[c].ovf &&
		      s.vals[1] >= 5000000000000ull &&
		      s.vals[1] < 5000000000000ull + 1000000000ull,
		      "rebind of %s and task-clock: %s (rebinds_in_place "
		      "%ld -> %ld, count %llu from the new preset)",
		      cases[c].name, cases[c].ovf ? "new counters" :
		      "in place", n0, n1, (unsigned long long)s.vals[1]);
		target(fd, CPC_KIOC_RELE, 0);
	}
}

/*
 * A rebind of the same events keeps their kernel counters: the counts
 * start again at the new presets and the on-CPU time at zero; other
 * events or modes get new counters.
 */
static void test_rebind_in_place(void)
{
	struct cpc_kreq r[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample s;
	long n0;
	int err;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	n0 = read_param("rebinds_in_place");
	spin_ms(30);
	touch_pages(100);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.ontime_ns >= 20000000 && s.vals[1] >= 100,
	      "before the rebind: %llu ns on CPU, %llu faults",
	      (unsigned long long)s.ontime_ns, (unsigned long long)s.vals[1]);
	r[0].preset = 1000;
	r[1].preset = 5000;
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	check(n0 >= 0 && read_param("rebinds_in_place") == n0 + 1,
	      "that rebind kept the counters (rebinds_in_place %ld -> %ld)",
	      n0, read_param("rebinds_in_place"));
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.ontime_ns < 10000000 && s.vals[0] >= 1000 &&
	      s.vals[0] < 1000 + 10000000 && s.vals[1] >= 5000 &&
	      s.vals[1] < 5000 + 50, "rebind of the same events: presets "
	      "and on-CPU time start again (%llu ns, %llu, %llu)",
	      (unsigned long long)s.ontime_ns, (unsigned long long)s.vals[0],
	      (unsigned long long)s.vals[1]);
	touch_pages(100);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(s.vals[1] >= 5100 && s.flags == 0,
	      "and they count on (%llu faults)", (unsigned long long)s.vals[1]);
	/* An overflow request: new counters, from their presets. */
	r[1] = PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -100000ull);
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r);
	sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.vals[1] >= -100000ull &&
	      s.vals[1] < -100000ull + 1000,
	      "rebind with other overflow requests starts at the preset "
	      "(%llu)", (unsigned long long)s.vals[1]);
	target(fd, CPC_KIOC_RELE, 0);
	test_rebind_clocks();
}

/* CLOCK_MONOTONIC in ns. */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Context switches of the calling thread so far. */
static uint64_t switches_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/*
 * A thread sampling its own binding reads every counter after the first
 * without perf's locks (cpc_read_self() in the module, counted by the
 * parameter self_reads); another thread's sample goes through perf.
 * Both must give the same counts: with the bound thread blocked, its
 * user-mode page faults cannot change, so the other thread's sample must
 * equal the thread's own last one exactly.
 */
/*
 * Does the module compute the on-CPU time itself?  As its statistic
 * fast_read_time says (its build-time probes found perf's clock as
 * expected); a module without it did on 6.1-6.12.
 */
static int self_time_kernel(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;
	long v = read_param("fast_read_time");

	if (v >= 0)
		return v == 1;
	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return 0;
	return maj == 6 && min >= 1 && min <= 12;
}

/* Can the module freeze logically (statistic fast_freeze)? */
static int fast_freeze_kernel(void)
{
	long v = read_param("fast_freeze");

	return v >= 0 ? v == 1 : self_time_kernel();
}

static int selfread_pipe[2][2];	/* [0]: main -> helper, [1]: back */
static pid_t selfread_tid;
static struct cpc_ksample selfread_other;

static void *selfread_helper(void *arg)
{
	char c;

	(void)arg;
	while (read(selfread_pipe[0][0], &c, 1) == 1 && c == 's') {
		sample(fd, CPC_KIOC_SAMPLE, selfread_tid, &selfread_other);
		if (write(selfread_pipe[1][1], "d", 1) != 1)
			break;
	}
	return NULL;
}

static void test_self_read(void)
{
	struct cpc_kreq r[3] = {
		TASK_CLOCK(CPC_KREQ_USER, 0),
		PAGE_FAULTS(CPC_KREQ_USER, 0),
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample a, b;
	long before, after, tbefore, tafter;
	uint64_t t0, t1, d, sw0;
	pthread_t helper;
	int err, round, same = 1, tries = 0;
	char c;

	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	check(err == 0, "bind task-clock, page-faults, task-clock (err %d)",
	      err);
	if (err)
		return;
	before = read_param("self_reads");
	tbefore = read_param("self_time_reads");
	/*
	 * Measured again (up to 10 times) when the thread was switched out
	 * and task-clock misses its CPU time: the scheduler and perf charge
	 * a switch's own path to different threads (see
	 * test_self_read_switching).
	 */
	do {
		sw0 = switches_now();
		t0 = thread_cpu_ns();
		sample(fd, CPC_KIOC_SAMPLE, 0, &a);
		spin_ms(100);
		touch_pages(50);
		sample(fd, CPC_KIOC_SAMPLE, 0, &b);
		t1 = thread_cpu_ns();
		d = b.vals[2] - a.vals[2];
	} while (!(d > (t1 - t0) * 0.9 && d < (t1 - t0) * 1.1) &&
		 switches_now() != sw0 && ++tries < 10);
	after = read_param("self_reads");
	tafter = read_param("self_time_reads");
	check(before >= 0 && after - before >= 6,
	      "self_reads %ld -> %ld: two samples of the thread's own three "
	      "counters read them without perf's locks", before, after);
	if (self_time_kernel())
		check(tbefore >= 0 && tafter - tbefore >= 2,
		      "self_time_reads %ld -> %ld: with the on-CPU time",
		      tbefore, tafter);
	else
		check(tbefore >= 0 && tafter == tbefore,
		    "self_time_reads %ld -> %ld: the on-CPU time through "
		    "perf on this kernel",
		    tbefore, tafter);
	check(d > (t1 - t0) * 0.9 && d < (t1 - t0) * 1.1,
	      "task-clock read that way: +%llu ns within 10%% of the thread's "
	      "CPU time %llu ns", (unsigned long long)d,
	      (unsigned long long)(t1 - t0));
	check(b.vals[1] - a.vals[1] >= 50 && b.vals[1] - a.vals[1] < 100,
	      "page-faults read that way: +%llu for 50 fresh pages",
	      (unsigned long long)(b.vals[1] - a.vals[1]));

	selfread_tid = gettid_();
	if (pipe(selfread_pipe[0]) || pipe(selfread_pipe[1]) ||
	    pthread_create(&helper, NULL, selfread_helper, NULL)) {
		check(0, "pipes and a helper thread (%s)", strerror(errno));
		return;
	}
	/* Round 0 warms up the path (its faults); round 1 is checked. */
	for (round = 0; round < 2; round++) {
		sample(fd, CPC_KIOC_SAMPLE, 0, &a);
		if (write(selfread_pipe[0][1], "s", 1) != 1 ||
		    read(selfread_pipe[1][0], &c, 1) != 1) {
			same = 0;
			break;
		}
		same = selfread_other.nreqs == 3 &&
		       selfread_other.vals[1] == a.vals[1] &&
		       selfread_other.vals[2] >= a.vals[2] &&
		       selfread_other.vals[0] >= a.vals[0];
	}
	check(same, "another thread's sample (through perf) of the blocked "
	      "thread: page-faults %llu = its own last %llu, task-clock "
	      "%llu >= %llu", (unsigned long long)selfread_other.vals[1],
	      (unsigned long long)a.vals[1],
	      (unsigned long long)selfread_other.vals[2],
	      (unsigned long long)a.vals[2]);
	/*
	 * The on-CPU time the thread computed for itself lies between its
	 * first task-clock (read just before the time, in the same clock)
	 * and where both stopped when it blocked: a window of the few
	 * microseconds it ran after its sample.  A time in another base
	 * (or off by a stale timestamp) falls outside.
	 */
	check(same && a.vals[0] <= a.ontime_ns &&
	      a.ontime_ns <= selfread_other.ontime_ns &&
	      a.ontime_ns <= selfread_other.vals[0],
	      "the thread's own on-CPU time %llu ns lies between its "
	      "task-clock %llu and the blocked thread's time %llu and "
	      "task-clock %llu read through perf",
	      (unsigned long long)a.ontime_ns, (unsigned long long)a.vals[0],
	      (unsigned long long)selfread_other.ontime_ns,
	      (unsigned long long)selfread_other.vals[0]);
	close(selfread_pipe[0][1]);
	pthread_join(helper, NULL);
	close(selfread_pipe[0][0]);
	close(selfread_pipe[1][0]);
	close(selfread_pipe[1][1]);
	target(fd, CPC_KIOC_RELE, 0);
}

/*
 * Threads that preempt one another (more of them than processors, their
 * samples contending for the file's lock) and migrate, each sampling its
 * own binding between short bursts: the module's quick reads, after every
 * kind of switch.  task-clock's count and the set's on-CPU time
 * (ontime_ns) both advance with the thread's perf context clock while it
 * runs and stand still while it does not, so count minus time changes
 * only by how far apart the two were read inside one sample, which that
 * sample's own wall-clock time bounds (an emulator's host may stall it:
 * then the bound grows with it).  A counter judged stopped, or a time
 * taken from another processor's or thread's context, moves the
 * difference by the time the thread ran.  Comparing with the thread's
 * CPU time instead would not do: the scheduler and perf charge a
 * context switch's own path to different threads, and under an emulator
 * on a loaded host that path can last tens of milliseconds.
 */
#define SWITCH_SAMPLES 60
#define SWITCH_THREADS_MAX 9

struct switch_worker {
	int bound, bad;
	unsigned samples, migrations;
	uint64_t switches;
	char why[200];
};

static void *switch_worker(void *arg)
{
	struct switch_worker *w = arg;
	struct cpc_kreq r[2] = {
	    TASK_CLOCK(CPC_KREQ_USER, 0),
	    PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample prev, cur;
	uint64_t w0, wall, prev_wall = 0, sw0;
	int64_t lag, prev_lag = 0, moved;
	int cpu, prev_cpu = -1, err;
	unsigned k;

	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r))
		return NULL;
	w->bound = 1;
	sw0 = switches_now();
	memset(&prev, 0, sizeof(prev));
	for (k = 0; k < SWITCH_SAMPLES && !w->bad; k++) {
		w0 = mono_ns();
		err = sample(fd, CPC_KIOC_SAMPLE, 0, &cur);
		wall = mono_ns() - w0;
		cpu = sched_getcpu();
		if (err) {
			w->bad = 1;
			snprintf(w->why, sizeof(w->why), "sample %u: %s", k,
			    strerror(err));
			break;
		}
		w->samples++;
		if (prev_cpu >= 0 && cpu != prev_cpu)
			w->migrations++;
		prev_cpu = cpu;
		lag = (int64_t)(cur.ontime_ns - cur.vals[0]);
		moved = lag > prev_lag ? lag - prev_lag : prev_lag - lag;
		if (k > 0 && (cur.vals[0] < prev.vals[0] ||
				 cur.ontime_ns < prev.ontime_ns ||
				 cur.vals[1] < prev.vals[1] ||
				 (uint64_t)moved > wall + prev_wall + 2000)) {
			w->bad = 1;
			snprintf(w->why, sizeof(w->why),
			    "sample %u: task-clock %llu -> %llu, on-CPU "
			    "time %llu -> %llu (apart by %lld, then %lld "
			    "ns; the samples took %llu and %llu ns)",
			    k, (unsigned long long)prev.vals[0],
			    (unsigned long long)cur.vals[0],
			    (unsigned long long)prev.ontime_ns,
			    (unsigned long long)cur.ontime_ns,
			    (long long)prev_lag, (long long)lag,
			    (unsigned long long)prev_wall,
			    (unsigned long long)wall);
		}
		prev = cur;
		prev_lag = lag;
		prev_wall = wall;
		spin_ms(2);
	}
	w->switches = switches_now() - sw0;
	target(fd, CPC_KIOC_RELE, 0);
	return NULL;
}

static void test_self_read_switching(void)
{
	struct switch_worker w[SWITCH_THREADS_MAX];
	pthread_t t[SWITCH_THREADS_MAX];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n, i, bound = 0, bad = 0, samples = 0, migrations = 0;
	uint64_t switches = 0;
	const char *why = "";

	n = ncpu > 0 && ncpu < (SWITCH_THREADS_MAX - 1) / 2
		? (unsigned)ncpu * 2 + 1
		: SWITCH_THREADS_MAX;
	memset(w, 0, sizeof(w));
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, switch_worker, &w[i])) {
			check(0, "thread %u (%s)", i, strerror(errno));
			n = i;
			break;
		}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		bound += w[i].bound;
		samples += w[i].samples;
		migrations += w[i].migrations;
		switches += w[i].switches;
		if (w[i].bad && !bad++)
			why = w[i].why;
	}
	check(
	    bound == n && samples == n * SWITCH_SAMPLES && !bad && switches > 0,
	    "%u threads on %ld processors, each sampling itself %d times "
	    "(%llu context switches, %u migrations between samples): "
	    "task-clock and on-CPU time advance together%s%s",
	    n, ncpu, SWITCH_SAMPLES, (unsigned long long)switches, migrations,
	    bad ? "; " : "", why);
}

/* ---- the state page's time base (CPC_KPAGE_TIME) ------------------- */

struct page_read {
	uint64_t vals[CPC_KMOD_MAX_REQS];
	uint64_t ontime, slack;
	uint32_t nreqs, flags, mask;
};

/*
 * Reads the page as libcpc would: under its sequence counter, with the
 * TSC read between the two reads of seq.  Returns 0 without a time base.
 */
static int page_read_time(const volatile struct cpc_kpage *kp,
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
		    read_param("page_cpu_clock") != 1)
			answers = 0;
	hooks0 = read_param("page_hooks");
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	hooks1 = read_param("page_hooks");
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
	hooks1 = read_param("page_hooks");
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

	ins0 = read_param("page_sched_ins");
	early0 = read_param("page_sched_early");
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
	ins1 = read_param("page_sched_ins");
	early1 = read_param("page_sched_early");
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
		check(read_param("page_time") == 0, "page_time N on a kernel "
		      "where the module does not compute perf's time");
		return;
	}
	if (read_param("page_time") != 1) {
		printf("# skip test_page_time: page_time is N (no stable "
		       "TSC sched clock)\n");
		return;
	}
	if (!clocksource_is_tsc()) {
		printf("# skip test_page_time: the clocksource is not the "
		       "TSC after 10 s (calibration not refined)\n");
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

/*
 * Stopped counters (here frozen by an overflow) are read from their
 * final values without perf's locks (parameter stopped_reads); with the
 * parameter quick_reads off (root), every read goes through perf, and
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
	physical = read_param("logical_freeze") == 1 &&
		   write_param("logical_freeze", "N") == 0;
	freezes = read_param("logical_freezes");
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 3, r);
	spin_ms(20);
	touch_pages(100);	/* the 20th fault freezes the counters */
	before = read_param("stopped_reads");
	sample(fd, CPC_KIOC_SAMPLE, 0, &a);
	spin_ms(20);
	sample(fd, CPC_KIOC_SAMPLE, 0, &b);
	after = read_param("stopped_reads");
	check(err == 0 && (a.flags & CPC_KSAMPLE_FROZEN) &&
	      a.vals[1] == 0 && a.vals[0] > 10000000 &&
	      memcmp(a.vals, b.vals, sizeof(a.vals)) == 0 &&
	      a.ontime_ns == b.ontime_ns, "frozen by the overflow: "
	      "task-clock %llu, page-faults %llu, on-CPU %llu ns, the same "
	      "in the next sample", (unsigned long long)a.vals[0],
	      (unsigned long long)a.vals[1], (unsigned long long)a.ontime_ns);
	stopped = read_param("logical_freezes") > freezes ? 1 : 3;
	check(before >= 0 && after - before >= 2 * stopped &&
	      (stopped == 3 || !physical), "stopped_reads %ld -> %ld: two "
	      "samples of %d stopped counter(s) read them without perf's "
	      "locks", before, after, stopped);
	if (is_root) {
		err = write_param("quick_reads", "N");
		sample(fd, CPC_KIOC_SAMPLE, 0, &c);
		check(err == 0 && read_param("stopped_reads") == after &&
		      memcmp(a.vals, c.vals, sizeof(a.vals)) == 0 &&
		      a.ontime_ns == c.ontime_ns && c.flags == a.flags,
		      "and read through perf (quick_reads=N): the same "
		      "sample (%llu %llu, %llu ns)",
		      (unsigned long long)c.vals[0],
		      (unsigned long long)c.vals[1],
		      (unsigned long long)c.ontime_ns);
		write_param("quick_reads", "Y");
	}
	target(fd, CPC_KIOC_RELE, 0);
	if (physical)
		write_param("logical_freeze", "Y");
	sigaction(SIGSTKFLT, &old, NULL);
}

/* ---- overflow ---------------------------------------------------- */

static volatile int ovf_count, ovf_code, ovf_rebind_err;
static volatile pid_t ovf_tid;
static void *volatile ovf_addr;
static volatile uintptr_t ovf_rip;
static volatile int ovf_addr_mismatch;
static struct cpc_kbind ovf_rebind;	/* rebind from the handler if nreqs */

static void emt_handler(int sig, siginfo_t *si, void *uc_)
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
 * logical_freeze Y and N when the parameter can be written.
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
	long before = read_param("logical_freezes");
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
	if (fast_freeze_kernel() && read_param("logical_freeze") == 1)
		check(read_param("logical_freezes") >= before + 2,
		      "%s: both freezes were logical (%ld -> %ld)", how,
		      before, read_param("logical_freezes"));
	return NULL;
}

static void test_freeze_leak(void)
{
	struct sigaction sa;
	pthread_t t;
	long was = read_param("logical_freeze");

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSTKFLT, &sa, NULL);
	pthread_create(&t, NULL, freeze_leak_thread, "freeze");
	pthread_join(t, NULL);
	if (was == 1 && write_param("logical_freeze", "N") == 0) {
		pthread_create(&t, NULL, freeze_leak_thread,
			       "logical_freeze=N");
		pthread_join(t, NULL);
		write_param("logical_freeze", "Y");
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

/* ---- group aggregate --------------------------------------------- */

static uint64_t group_thread_faults[4];

static void *group_thread(void *arg)
{
	struct cpc_kreq r = PAGE_FAULTS(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	long i = (long)arg;

	int err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	if (err != 0)
		printf("# group thread %ld: BIND failed, err %d\n", i, err);
	touch_pages(500);
	spin_ms(5);
	err = sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	if (err == 0)
		group_thread_faults[i] = s.vals[0];
	else
		printf("# group thread %ld: SAMPLE failed, err %d\n", i, err);
	target(fd, CPC_KIOC_RELE, 0);
	return NULL;
}

static void test_group(void)
{
	struct cpc_kreq r[2] = {
		PAGE_FAULTS(CPC_KREQ_USER, 0),
		TASK_CLOCK(CPC_KREQ_USER, 0),
	};
	struct cpc_ksample s;
	uint64_t sum = 0;
	pthread_t t[4];
	long i;
	int err;

	err = bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r);
	check(err == 0, "GROUP_OPEN (err %d)", err);
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, group_thread, (void *)i);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		sum += group_thread_faults[i];
	}
	err = sample(fd, CPC_KIOC_GROUP_SAMPLE, 0, &s);
	check(err == 0 && s.nreqs == 2 && sum >= 4 * 500 && s.vals[0] >= sum,
	      "group aggregate of 4 exited threads: %llu page faults >= sum "
	      "%llu", (unsigned long long)s.vals[0], (unsigned long long)sum);
	check(s.vals[1] >= 4 * 5000000ull && s.ontime_ns >= 4 * 5000000ull,
	      "group task-clock %llu ns, ontime %llu ns (summed)",
	      (unsigned long long)s.vals[1], (unsigned long long)s.ontime_ns);
	err = target(fd, CPC_KIOC_GROUP_CLOSE, 0);
	check(err == 0 && sample(fd, CPC_KIOC_GROUP_SAMPLE, 0, &s) == EINVAL,
	      "GROUP_CLOSE, then GROUP_SAMPLE is EINVAL");
	r[0].preset = 1;
	check(bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r) == EINVAL,
	      "GROUP_OPEN with a preset: EINVAL");
	r[0].preset = 0;
	r[0].flags |= CPC_KREQ_OVF_EMT;
	check(bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r) == EINVAL,
	      "GROUP_OPEN with OVF_EMT: EINVAL");
	r[0].flags = CPC_KREQ_USER;
	check(bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, CPC_KBIND_START_FROZEN, 2,
			r) == EINVAL, "GROUP_OPEN START_FROZEN: EINVAL");
}

/* ---- bad input ---------------------------------------------------- */

static int bind1(uint32_t kind, uint64_t config, uint32_t flags)
{
	struct cpc_kreq r = mkreq(kind, config, flags, 0);

	return bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
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

/* ---- targets ------------------------------------------------------ */

static volatile int other_stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!other_stop)
		spin_ms(1);
	return NULL;
}

static pid_t spinner_tid;

static void *spinner_tid_thread(void *arg)
{
	spinner_tid = gettid_();
	return spinner(arg);
}

static int child_bind_parent(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	pid_t parent = *(pid_t *)arg;
	struct cpc_ksample s;
	int bad = 0;

	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &r) != 0)
		bad |= 1;
	spin_ms(1);
	if (sample(fd, CPC_KIOC_SAMPLE, parent, &s) != 0)
		bad |= 2;
	if (target(fd, CPC_KIOC_RELE, parent) != 0)
		bad |= 4;
	return bad;
}

/* The parent made itself undumpable: only ptrace rights over it would do. */
static int child_undumpable_parent(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	pid_t parent = *(pid_t *)arg;

	return bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &r) == EPERM ? 0 : 1;
}

static int child_nobody_parent(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	pid_t parent = *(pid_t *)arg;
	struct cpc_ksample s;
	int bad = 0;

	drop_to_nobody();
	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &r) != EPERM)
		bad |= 1;
	if (sample(fd, CPC_KIOC_SAMPLE, parent, &s) != EPERM)
		bad |= 2;
	if (target(fd, CPC_KIOC_RELE, parent) != EPERM)
		bad |= 4;
	if (bind_reqs(fd, CPC_KIOC_GROUP_OPEN, parent, 0, 1, &r) != EPERM)
		bad |= 8;
	/* Its own thread is fine. */
	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		bad |= 16;
	return bad;
}

static void test_targets(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	pid_t me = gettid_(), gone;
	pthread_t t;
	int err, st;

	/* Another thread of this process, by tid. */
	other_stop = 0;
	spinner_tid = 0;
	pthread_create(&t, NULL, spinner_tid_thread, NULL);
	while (!spinner_tid)
		usleep(1000);
	err = bind_reqs(fd, CPC_KIOC_BIND, spinner_tid, 0, 1, &r);
	usleep(50000);
	check(err == 0 && sample(fd, CPC_KIOC_SAMPLE, spinner_tid, &s) == 0 &&
	      s.vals[0] > 1000000, "bind and sample a sibling thread by tid "
	      "(err %d, %llu ns)", err, (unsigned long long)s.vals[0]);
	check(target(fd, CPC_KIOC_RELE, spinner_tid) == 0,
	      "RELE a sibling thread");
	other_stop = 1;
	pthread_join(t, NULL);

	/* A nonexistent thread. */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, &st, 0);
	check(bind_reqs(fd, CPC_KIOC_BIND, gone, 0, 1, &r) == ESRCH &&
	      sample(fd, CPC_KIOC_SAMPLE, gone, &s) == ESRCH &&
	      target(fd, CPC_KIOC_RELE, gone) == ESRCH,
	      "nonexistent tid %d: ESRCH", gone);

	/* A child process of the same user may count its parent. */
	st = in_child(child_bind_parent, &me);
	check(st == 0, "same-user child binds/samples/reles the parent's "
	      "thread (status %d)", st);

	/* Not once the parent is undumpable (ptrace_may_access's rule). */
	if (!is_root && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0) {
		st = in_child(child_undumpable_parent, &me);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		check(st == 0, "same-user child: EPERM on an undumpable "
		      "parent (status %d)", st);
	}

	if (is_root) {
		st = in_child(child_nobody_parent, &me);
		check(st == 0, "uid 65534 child: EPERM on root's thread, its "
		      "own thread works (status %d)", st);
	}
}

/* ---- privilege: allow_system, access, max_contexts ----------------- */

static int child_system(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_SYSTEM, 0);
	int want = *(int *)arg, f, err;

	drop_to_nobody();
	f = open_cpc();
	if (f < 0)
		return 10;
	err = bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &r);
	close(f);
	return err == want ? 0 : 1;
}

static int child_open(void *arg)
{
	gid_t gid = *(gid_t *)arg;
	int f;

	if (gid && setgroups(1, &gid) != 0)
		return 20;
	if (setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return 21;
	f = open_cpc();
	if (f < 0)
		return errno == EACCES ? 2 : 3;
	close(f);
	return 0;
}

static void test_privileges(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_SYSTEM, 0);
	struct cpc_kreq q;
	int want, st, err, f;
	char buf[32];

	if (!is_root) {
		long allow = read_param("allow_system");

		if (allow == 0)
			check(bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) ==
			      EACCES, "unprivileged SYSTEM counting with "
			      "allow_system=0: EACCES");
		return;
	}

	check(bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) == 0,
	      "root may count SYSTEM mode");
	want = EACCES;
	st = in_child(child_system, &want);
	check(st == 0, "uid 65534, allow_system=0: SYSTEM is EACCES (%d)", st);
	if (write_param("allow_system", "1") == 0) {
		want = 0;
		st = in_child(child_system, &want);
		check(st == 0, "uid 65534, allow_system=1: SYSTEM allowed "
		      "(%d)", st);
		write_param("allow_system", "0");
	}

	/* max_contexts: EAGAIN past it. */
	q = TASK_CLOCK(CPC_KREQ_USER, 0);
	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &q);	/* reaps */
	snprintf(buf, sizeof(buf), "%ld", read_param("contexts_in_use") + 1);
	write_param("max_contexts", buf);
	err = bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &q);
	check(err == 0, "max_contexts = in use + 1: one more fits (%d)", err);
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &q);
	check(err == 0, "rebinding does not count again (%d)", err);
	f = open_cpc();
	err = bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &q);
	check(err == EAGAIN, "past max_contexts (another file of the same "
	      "user): EAGAIN (%d)", err);
	err = target(fd, CPC_KIOC_GROUP_CLOSE, 0);
	err = err ? err : bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &q);
	check(err == 0, "after GROUP_CLOSE it fits (%d)", err);
	close(f);
	write_param("max_contexts", "1024");
}

/* ---- the access policy -------------------------------------------- */

enum who { ROOT, MEMBER, STRANGER_, PERFMON, NWHO };

static const char *const who_name[NWHO] = {
	"root", "uid 65534 in the group", "uid 1001 outside it",
	"uid 1001 with CAP_PERFMON",
};

static int child_try_open(void *arg)
{
	int f;

	switch (*(enum who *)arg) {
	case MEMBER:
		become(NOBODY, 1);
		break;
	case STRANGER_:
		become(STRANGER, 0);
		break;
	case PERFMON:
		become_perfmon(0);
		break;
	default:
		break;
	}
	f = open_cpc();
	if (f < 0)
		return errno == EACCES ? 2 : 3;
	close(f);
	return 0;
}

/*
 * CAP_PERFMON counts any thread, but overflow signals to another user's
 * thread need CAP_KILL as well (or ptrace rights).  Uses the inherited
 * file on the parent's (root's) thread.
 */
static int child_perfmon_target(void *arg)
{
	struct cpc_kreq c = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_kreq o = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, 0);
	pid_t parent = ((pid_t *)arg)[0];
	int kill = ((pid_t *)arg)[1], bad = 0;
	struct cpc_ksample s;

	become_perfmon(kill);
	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &c) != 0)
		bad |= 1;
	if (sample(fd, CPC_KIOC_SAMPLE, parent, &s) != 0)
		bad |= 2;
	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &o) !=
	    (kill ? 0 : EPERM))
		bad |= 4;
	if (target(fd, CPC_KIOC_RELE, parent) != 0)
		bad |= 8;
	return bad;
}

static void test_policy(void)
{
	/* opens[device mode 0660, 0666][access 0, 1, 2][who] */
	static const int opens[2][3][NWHO] = {
		{ { 1, 1, 0, 0 }, { 1, 1, 0, 0 }, { 1, 0, 0, 0 } },
		{ { 1, 1, 1, 1 }, { 1, 1, 0, 1 }, { 1, 0, 0, 1 } },
	};
	pid_t args[2];
	struct stat st;
	int m, a, w, r, bad;
	gid_t g;
	char val[8];

	if (!is_root) {
		r = open(STATS "contexts_in_use", O_RDONLY);
		check(r < 0 && errno == EACCES, "contexts_in_use: root only");
		if (r >= 0)
			close(r);
		return;
	}
	check(read_param("access") == 1 && read_param("access_gid") == -1,
	      "default policy: access=1 (the device's group or CAP_PERFMON)");
	check(stat(CPC_KMOD_DEVICE, &st) == 0 && (st.st_mode & 0777) == 0660 &&
	      st.st_uid == 0 && st.st_gid != 0, "device root:%u mode 0%o",
	      (unsigned)st.st_gid, (unsigned)(st.st_mode & 0777));

	for (m = 0; m < 2; m++) {
		chmod(CPC_KMOD_DEVICE, m ? 0666 : 0660);
		for (a = 0; a < 3; a++) {
			snprintf(val, sizeof(val), "%d", a);
			write_param("access", val);
			bad = 0;
			for (w = 0; w < NWHO; w++) {
				r = in_child(child_try_open, &w);
				if (r != (opens[m][a][w] ? 0 : 2)) {
					printf("# %s: status %d\n",
					       who_name[w], r);
					bad++;
				}
			}
			check(!bad, "device mode 0%o, access=%d: root, member, "
			      "stranger, CAP_PERFMON open %d%d%d%d",
			      m ? 0666 : 0660, a, opens[m][a][0],
			      opens[m][a][1], opens[m][a][2], opens[m][a][3]);
		}
	}

	/* access_gid names the group instead of the device's. */
	write_param("access", "1");
	write_param("access_gid", "4242");
	g = 4242;
	r = in_child(child_open, &g);
	g = device_gid();
	bad = in_child(child_open, &g);
	check(r == 0 && bad == 2, "access_gid=4242: its member opens, the "
	      "device group's does not (%d %d)", r, bad);
	write_param("access_gid", "-1");
	chmod(CPC_KMOD_DEVICE, 0660);

	args[0] = gettid_();
	args[1] = 0;
	r = in_child(child_perfmon_target, args);
	check(r == 0, "CAP_PERFMON counts root's thread, but overflow signals "
	      "need CAP_KILL: EPERM (%d)", r);
	args[1] = 1;
	r = in_child(child_perfmon_target, args);
	check(r == 0, "CAP_PERFMON with CAP_KILL: overflow signals allowed "
	      "(%d)", r);
}

/* ---- limits: counters per user, sets per thread -------------------- */

static int child_limit_events(void *arg)
{
	struct cpc_kreq r2[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0), PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	int f, bad = 0;

	(void)arg;
	become(NOBODY, 1);
	f = open_cpc();
	if (f < 0)
		return 64;
	/* max_events = 3 */
	if (bind_reqs(f, CPC_KIOC_BIND, 0, 0, 2, r2) != 0)
		bad |= 1;
	if (bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r2) != EAGAIN)
		bad |= 2;
	if (bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 1, r2) != 0)
		bad |= 4;
	if (bind_reqs(f, CPC_KIOC_BIND, 0, 0, 2, r2) != 0)	/* replaces */
		bad |= 8;
	if (target(f, CPC_KIOC_GROUP_CLOSE, 0) != 0 ||
	    bind_reqs(f, CPC_KIOC_BIND, 0, 0, 2, r2) != 0)
		bad |= 16;
	close(f);
	return bad;
}

static int child_limit_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	int f1, f2, bad = 0;

	(void)arg;
	become(NOBODY, 1);
	f1 = open_cpc();
	f2 = open_cpc();
	if (f1 < 0 || f2 < 0)
		return 64;
	/* max_sets_per_thread = 2 */
	if (bind_reqs(f1, CPC_KIOC_BIND, 0, 0, 1, &r) != 0 ||
	    bind_reqs(f1, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &r) != 0)
		bad |= 1;
	if (bind_reqs(f2, CPC_KIOC_BIND, 0, 0, 1, &r) != EAGAIN)
		bad |= 2;
	if (bind_reqs(f1, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)	/* replaces */
		bad |= 4;
	if (target(f1, CPC_KIOC_RELE, 0) != 0 ||
	    bind_reqs(f2, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		bad |= 8;
	close(f1);
	close(f2);
	return bad;
}

static void test_limits(void)
{
	int st;

	if (!is_root)
		return;
	check(read_param("max_events") == 4096 &&
	      read_param("max_sets_per_thread") == 16,
	      "defaults: max_events 4096, max_sets_per_thread 16");
	write_param("max_events", "3");
	st = in_child(child_limit_events, NULL);
	write_param("max_events", "4096");
	check(st == 0, "max_events=3: 2 counters fit, 2 more are EAGAIN, 1 "
	      "more fits, a replacing bind fits (%d)", st);
	write_param("max_sets_per_thread", "2");
	st = in_child(child_limit_thread, NULL);
	write_param("max_sets_per_thread", "16");
	check(st == 0, "max_sets_per_thread=2: a third set on the thread (of "
	      "another file) is EAGAIN, a replacing bind fits (%d)", st);
}

/* ---- exec: bindings and aggregates stop; the context lives on ------ */

/* Binds the calling thread on f (reaping the file's dead contexts). */
static void *reaper_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);

	return (void *)(intptr_t)bind_reqs(*(int *)arg, CPC_KIOC_BIND, 0, 0,
					   1, &r);
}

/* The exec'ed image of test_exec (kmod_test --after-exec FD). */
static int after_exec(int f)
{
	const volatile struct cpc_kpage *kp;
	struct cpc_ksample a, b, g1, g2;
	struct page_read pr;
	pthread_t t;
	void *ret;
	int bad = 0, stopped;
	/* Without perf's remove_on_exec (before 5.13) they count on. */
	long exec_stop = read_param("exec_stop");

	if (sample(f, CPC_KIOC_SAMPLE, 0, &a) != 0 || a.nreqs != 1)
		bad |= 1;
	if (sample(f, CPC_KIOC_GROUP_SAMPLE, 0, &g1) != 0 || g1.nreqs != 1)
		bad |= 2;
	spin_ms(20);
	if (pthread_create(&t, NULL, reaper_thread, &f) != 0 ||
	    pthread_join(t, &ret) != 0 || ret != NULL)
		bad |= 4;
	if (sample(f, CPC_KIOC_SAMPLE, 0, &b) != 0)
		bad |= 8;
	if (sample(f, CPC_KIOC_GROUP_SAMPLE, 0, &g2) != 0)
		bad |= 16;
	stopped = b.vals[0] == a.vals[0] && g2.vals[0] == g1.vals[0];
	if (exec_stop != 0 ? !stopped :
	    b.vals[0] <= a.vals[0] || g2.vals[0] <= g1.vals[0])
		bad |= 32;	/* both stopped at the exec (or counted on) */
	if (a.vals[0] < 2000000 || g1.vals[0] < 2000000)
		bad |= 64;	/* both counted before it */
	/* The state page has no time base for the stopped binding. */
	kp = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, f, 0);
	usleep(1000);		/* scheduled in again */
	if (kp == MAP_FAILED || page_read_time(kp, &pr) ||
	    kp->vals[0] != b.vals[0])
		bad |= 128;
	if (bad)
		printf("# after exec: %#x, binding %llu -> %llu, aggregate "
		       "%llu -> %llu\n", bad, (unsigned long long)a.vals[0],
		       (unsigned long long)b.vals[0],
		       (unsigned long long)g1.vals[0],
		       (unsigned long long)g2.vals[0]);
	return bad;
}

static const char *exec_self;

/* Binds and aggregates its own thread on a file kept across exec. */
static void *exec_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	int f = open(CPC_KMOD_DEVICE, O_RDWR);	/* no O_CLOEXEC */
	char num[16];

	(void)arg;
	if (f < 0 || bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &r) != 0 ||
	    bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &r) != 0)
		_exit(70);
	spin_ms(5);
	snprintf(num, sizeof(num), "%d", f);
	execl(exec_self, exec_self, "--after-exec", num, (char *)NULL);
	_exit(71);
}

static int child_exec(void *arg)
{
	pthread_t t;

	if (*(int *)arg == 0)
		exec_thread(NULL);	/* the leader execs */
	if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
		return 72;
	pthread_join(t, NULL);	/* the exec ends this thread */
	return 73;
}

static void test_exec(const char *self)
{
	int nonleader = 0, st;

	exec_self = self;
	st = in_child(child_exec, &nonleader);
	check(st == 0, "exec of the leader: binding and group aggregate both "
	      "stop at the exec (count on where exec_stop is 0) and stay "
	      "readable (%d)", st);
	nonleader = 1;
	st = in_child(child_exec, &nonleader);
	check(st == 0, "exec of a non-leader thread (it takes the leader's "
	      "tid): its context is not reaped; binding and aggregate both "
	      "stopped (or counting on, exec_stop 0) (%d)", st);
}

/* ---- thread churn, mmap, reopen, fork ------------------------------ */

static volatile int churn_errors;

static void *churn_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);

	(void)arg;
	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		churn_errors++;
	return NULL;
}

static void test_churn(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	long before, after;
	pthread_t t;
	int i;

	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	before = read_param("contexts_in_use");
	for (i = 0; i < 1000; i++) {
		if (pthread_create(&t, NULL, churn_thread, NULL) != 0) {
			churn_errors++;
			break;
		}
		pthread_join(t, NULL);
	}
	usleep(100000);
	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);	/* reaps */
	after = read_param("contexts_in_use");
	if (!is_root)	/* contexts_in_use is root's: count errors only */
		before = after = 1;
	check(churn_errors == 0 && before > 0 && after == before,
	      "1000 thread create/bind/exit cycles: contexts_in_use %ld -> "
	      "%ld, %d errors", before, after, churn_errors);
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

static int child_fork(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	uint64_t t0, t1;
	int err;

	(void)arg;
	/* The child's thread is not bound: nothing is inherited. */
	if (sample(fd, CPC_KIOC_SAMPLE, 0, &s) != EINVAL)
		return 1;
	if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		return 2;
	t0 = thread_cpu_ns();
	spin_ms(5);
	t1 = thread_cpu_ns();
	err = sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	if (err != 0 || s.vals[0] < 1000000) {
		/* Say which, for a failure seen once and not reproduced. */
		printf("# child_fork: sample err %d, task-clock %llu ns, "
		       "on-CPU %llu ns, thread CPU time %llu ns\n", err,
		       (unsigned long long)s.vals[0],
		       (unsigned long long)s.ontime_ns,
		       (unsigned long long)(t1 - t0));
		fflush(stdout);
		return err ? 3 : 4;
	}
	return 0;		/* exits bound: the parent's file reaps it */
}

static void test_fork_reopen(long base)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	long n;
	int st, err;

	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	st = in_child(child_fork, NULL);
	err = sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(st == 0 && err == 0, "fork: the child shares the file, binds "
	      "its own thread; the parent's binding stays (%d %d)", st, err);

	close(fd);
	n = read_param("contexts_in_use");
	if (is_root)
		check(n == base, "close frees every context (%ld, was %ld)", n,
		      base);
	fd = open_cpc();
	check(fd >= 0, "reopen /dev/cpc");
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r);
	check(err == 0 && sample(fd, CPC_KIOC_SAMPLE, 0, &s) == 0,
	      "bind and sample after reopening (%d)", err);
}

/* ---- lifetime stress: kill, exec and close with overflows pending ---- */

static volatile int stress_fd = -1;
static volatile int stress_stop;

/* Overflow every event; the handler restarts (and so re-arms) at once. */
static void restart_handler(int sig, siginfo_t *si, void *uc)
{
	struct cpc_ktarget kt;

	(void)sig, (void)si, (void)uc;
	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	ioctl(stress_fd, CPC_KIOC_RESTART, &kt);
}

static void install_restart_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = restart_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGSTKFLT, &sa, NULL);
}

static int bind_storm(int f, pid_t tid)
{
	uint32_t sys = is_root ? CPC_KREQ_SYSTEM : 0;
	struct cpc_kreq r[3] = {
		PAGE_FAULTS(CPC_KREQ_USER | sys | CPC_KREQ_OVF_EMT, -1ull),
		TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, -2000000ull),
		mkreq(CPC_KEV_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
		      CPC_KREQ_USER | sys, 0),
	};

	return bind_reqs(f, CPC_KIOC_BIND, tid, 0, 3, r);
}

static void *storm_thread(void *arg)
{
	(void)arg;
	bind_storm(stress_fd, 0);
	while (!stress_stop)
		touch_pages(16);
	return NULL;
}

static void early_overflow(int sig)
{
	(void)sig;
	_exit(4);
}

/* The tids of up to three threads other than the calling one. */
static void storm_tids(pid_t *tids)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	while (d && n < 3 && (de = readdir(d)) != NULL) {
		pid_t tid = atoi(de->d_name);

		if (tid > 0 && tid != gettid_())
			tids[n++] = tid;
	}
	if (d)
		closedir(d);
}

static void test_stress(const char *self)
{
	long before, after;
	int i, st, bad, f;
	pthread_t t[3];
	pid_t pid, tids[3];

	install_restart_handler();
	stress_fd = fd;
	target(fd, CPC_KIOC_RELE, 0);
	before = read_param("contexts_in_use");

	/* SIGKILL while overflow work may be pending. */
	bad = 0;
	for (i = 0; i < 20; i++) {
		pid = fork();
		if (pid == 0) {
			bind_storm(fd, 0);
			for (;;)
				touch_pages(16);
		}
		usleep(2000 + (i % 7) * 3000);
		kill(pid, SIGKILL);
		if (waitpid(pid, &st, 0) != pid || !WIFSIGNALED(st) ||
		    WTERMSIG(st) != SIGKILL)
			bad++;
	}
	check(!bad, "20 children killed amid overflows (%d bad)", bad);

	/*
	 * exec with armed counters that overflow only in the new program
	 * (its start-up faults pages, it spins 100 ms): it must get no
	 * SIGEMT, whose default action would kill it.  An overflow before
	 * the exec exits 4 (inconclusive, reported).
	 */
	bad = 0;
	for (i = 0; i < 3; i++) {
		pid = fork();
		if (pid == 0) {
			struct cpc_kreq r[2] = {
				PAGE_FAULTS(CPC_KREQ_USER | CPC_KREQ_OVF_EMT,
					    -(20ull + 40 * i)),
				TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT,
					   -30000000ull),
			};
			struct sigaction sa;

			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = early_overflow;
			sigaction(SIGSTKFLT, &sa, NULL);
			if (bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 2, r) != 0)
				_exit(5);
			execl(self, self, "--spin", "100", (char *)NULL);
			_exit(3);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 4)) {
			printf("# exec child %d: status %#x\n", i, st);
			bad++;
		} else if (WEXITSTATUS(st) == 4) {
			printf("# exec child %d overflowed before exec\n", i);
		}
	}
	check(!bad, "exec with armed counters: no SIGEMT to the new program "
	      "(%d bad)", bad);

	/* Rebind, release and close from another thread amid overflows. */
	f = open_cpc();
	stress_fd = f;
	stress_stop = 0;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, storm_thread, NULL);
	usleep(20000);
	bad = 0;
	memset(tids, 0, sizeof(tids));
	storm_tids(tids);
	for (i = 0; i < 30; i++) {
		pid_t tid = tids[i % 3];
		int e;

		if (!tid)
			continue;
		e = bind_storm(f, tid);
		if (e && e != EPERM)
			bad++;
		usleep(1000);
		e = target(f, CPC_KIOC_RELE, tid);
		if (e && e != EINVAL)
			bad++;
		e = bind_storm(f, tid);
		if (e)
			bad++;
	}
	close(f);		/* the threads keep overflowing meanwhile */
	usleep(20000);
	stress_stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	check(!bad, "rebind/RELE of overflowing threads, then close (%d bad)",
	      bad);

	stress_fd = fd;
	usleep(50000);
	bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER);
	target(fd, CPC_KIOC_RELE, 0);	/* reaps the killed children */
	after = read_param("contexts_in_use");
	if (is_root)
		check(after == before, "no contexts leaked (%ld -> %ld)",
		      before, after);

	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = emt_handler;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSTKFLT, &sa, NULL);
	}
}

int main(int argc, char **argv)
{
	int user = 0, stranger = 0, repeat = 1, i;
	long base;

	if (argc > 2 && strcmp(argv[1], "--after-exec") == 0)
		return after_exec(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "--spin") == 0) {
		spin_ms(atoi(argv[2]));	/* the exec target of test_stress */
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--user") == 0)
			user = 1;
		else if (strcmp(argv[i], "--stranger") == 0)
			stranger = 1;
		else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
			repeat = atoi(argv[++i]);
	}
	if (user && geteuid() == 0)
		drop_to_nobody();
	if (stranger && geteuid() == 0)
		become(STRANGER, 0);
	is_root = geteuid() == 0;
	printf("# kmod_test as uid %d%s\n", (int)geteuid(),
	       user ? " (--user)" : stranger ? " (--stranger)" : "");

	if (stranger) {
		/* Outside the device's group: the default policy says no. */
		fd = open_cpc();
		check(fd < 0 && errno == EACCES, "a user outside the group "
		      "cannot open " CPC_KMOD_DEVICE " (%s)",
		      fd < 0 ? strerror(errno) : "opened");
		test_policy();	/* not root: contexts_in_use unreadable */
		goto out;
	}

	fd = open_cpc();
	check(fd >= 0, "open " CPC_KMOD_DEVICE " (%s)",
	      fd < 0 ? strerror(errno) : "ok");
	if (fd < 0)
		goto out;
	base = read_param("contexts_in_use");

	signal(SIGALRM, watchdog);
	for (i = 0; i < repeat; i++) {
		RUN(test_info);
		RUN(test_counting);
		RUN(test_presets);
		RUN(test_rebind_in_place);
		RUN(test_self_read);
		RUN(test_self_read_switching);
		RUN(test_page_time);
		RUN(test_stopped_read);
		RUN(test_overflow);
		RUN(test_frozen_restart);
		RUN(test_freeze_leak);
		RUN(test_group);
		RUN(test_bad_input);
		RUN(test_targets);
		RUN(test_privileges);
		RUN(test_policy);
		RUN(test_limits);
		RUN(test_exec, argv[0]);
		RUN(test_churn);
		RUN(test_mmap);
		RUN(test_stress, argv[0]);
		RUN(test_fork_reopen, base);
	}
	alarm(0);
	close(fd);
out:
	printf("kmod_test: %d passed, %d failed\n", passed, failed);
	printf("KMOD-TEST-RESULT: %s\n", failed || !passed ? "FAIL" : "PASS");
	return failed ? 1 : 0;
}
