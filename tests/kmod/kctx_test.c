// SPDX-License-Identifier: MIT
/*
 * The module review's findings of issue 22 (L1-L4, L6, M1, M2), each a
 * test that failed on the module before its fix, and a CAP_PERFMON-only
 * runner for the tools' privilege tests.  Runs in the qemu guest
 * (tests/kmod/vm-run), as root for the tests that change the module's
 * parameters or drop capabilities (they skip otherwise).  Prints one
 * "ok"/"not ok"/"skip" line per test; exit status 1 if any failed.
 *
 *   kctx_test [NAME...]      run the tests (or those named: l1, l4, l3,
 *                            l2, l6-stats, l6-restart, m2, m1,
 *                            cpu-access, cpu-invalidates)
 *   kctx_test --perfmon CMD  run CMD as uid/gid 1001 with CAP_PERFMON
 *                            (root only; for the tools' tests)
 *   kctx_test --as UID GID GROUPS CMD
 *                            run CMD as UID/GID with the supplementary
 *                            groups GROUPS (comma-separated, or "-")
 *
 * The accounting findings (M1, M2) are in kctx_acct.c.  Build with
 * "cc -static -I kmod/uapi tests/kmod/kctx_test.c tests/kmod/kctx_acct.c".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpc_kmod.h"
#include "kctx_test.h"

static int failures;

static int sample(int fd, unsigned long cmd, int tid,
    struct cpc_ksample *ks);

void result(int ok, const char *name, const char *detail)
{
	printf("%s - %s%s%s\n", ok ? "ok" : "not ok", name,
	    detail[0] ? ": " : "", detail);
	if (!ok)
		failures++;
}

void skip(const char *name, const char *why)
{
	printf("skip - %s: %s\n", name, why);
}

int open_dev(void)
{
	return open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
}

void req(struct cpc_kbind *kb, unsigned i, uint32_t kind,
    uint64_t config, uint32_t flags, uint64_t preset)
{
	kb->req[i].kind = kind;
	kb->req[i].config = config;
	kb->req[i].flags = flags;
	kb->req[i].preset = preset;
	if (kb->nreqs < i + 1)
		kb->nreqs = i + 1;
}

void bind_init(struct cpc_kbind *kb, pid_t tid)
{
	memset(kb, 0, sizeof(*kb));
	kb->abi = CPC_KMOD_ABI;
	kb->tid = tid;
}

int target(int fd, unsigned long cmd, pid_t tid)
{
	struct cpc_ktarget kt;
	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	kt.tid = tid;
	return ioctl(fd, cmd, &kt);
}

int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

int read_file(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, n - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* ---- L1: MADV_DOFORK cannot make the state page inheritable ---------- */

static void test_l1_dofork(void)
{
	char d[128];
	struct cpc_kbind kb;
	int fd = open_dev();
	if (fd < 0) {
		skip("L1 state page not inheritable", strerror(errno));
		return;
	}
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER,
	    0);
	if (ioctl(fd, CPC_KIOC_BIND, &kb) != 0) {
		snprintf(d, sizeof(d), "bind: %s", strerror(errno));
		result(0, "L1 state page not inheritable", d);
		close(fd);
		return;
	}
	void *page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		snprintf(d, sizeof(d), "mmap: %s", strerror(errno));
		result(0, "L1 state page not inheritable", d);
		close(fd);
		return;
	}
	int rc = madvise(page, 4096, MADV_DOFORK);
	int err = errno;
	pid_t pid = fork();
	if (pid == 0) {
		/* A read of the parent's page must fault in the child. */
		volatile uint32_t seq = *(volatile uint32_t *)page;
		(void)seq;
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	int child_read = WIFEXITED(st) && WEXITSTATUS(st) == 0;
	snprintf(d, sizeof(d), "madvise(MADV_DOFORK) %s%s, fork child %s",
	    rc == 0 ? "succeeded" : "failed with ",
	    rc == 0 ? "" : strerror(err),
	    child_read ? "read the parent's page" : "got no page (SIGSEGV)");
	result(rc != 0 && err == EINVAL && !child_read,
	    "L1 state page not inheritable", d);
	munmap(page, 4096);
	close(fd);
}

/* ---- L4: no branch trace store through a period of 1 ---------------- */

static void test_l4_bts(void)
{
	char d[128];
	struct cpc_kbind kb;
	int fd = open_dev();
	if (fd < 0) {
		skip("L4 period 1 on branch-instructions refused",
		    strerror(errno));
		return;
	}
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	    CPC_KREQ_USER | CPC_KREQ_OVF_EMT, UINT64_MAX);
	int rc = ioctl(fd, CPC_KIOC_BIND, &kb);
	int e1 = rc == 0 ? 0 : errno;
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_RAW_X86, 0xc4, CPC_KREQ_USER | CPC_KREQ_OVF_EMT,
	    UINT64_MAX);
	rc = ioctl(fd, CPC_KIOC_BIND, &kb);
	int e2 = rc == 0 ? 0 : errno;
	snprintf(d, sizeof(d), "generic: %s, raw 0xc4: %s",
	    e1 ? strerror(e1) : "bound", e2 ? strerror(e2) : "bound");
	result(e1 == EOPNOTSUPP && e2 == EOPNOTSUPP,
	    "L4 period 1 on branch-instructions refused", d);
	close(fd);
}

/* ---- L2: the overflow handler reads with interrupts off -------------- */

static volatile sig_atomic_t emts;

static void on_emt(int sig)
{
	(void)sig;
	emts++;
}

/*
 * A page-fault limit counter beside a second counter: the handler takes
 * the other counter's snapshot (a logical freeze) in process context.
 * The module warns (a kernel WARNING, which vm-run fails on) if it reads
 * with interrupts on.
 */
static void test_l2_snapshot(void)
{
	char d[160];
	struct cpc_kbind kb;
	int fd = open_dev();
	if (fd < 0) {
		skip("L2 software overflow snapshot", strerror(errno));
		return;
	}
	signal(CPC_KMOD_SIGEMT, on_emt);
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	    CPC_KREQ_USER | CPC_KREQ_SYSTEM | CPC_KREQ_OVF_EMT,
	    UINT64_MAX - 9);
	req(&kb, 1, CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER,
	    0);
	int bound = ioctl(fd, CPC_KIOC_BIND, &kb) == 0;
	int err = errno;
	if (!bound && err == EACCES) {
		/* Kernel mode needs allow_system here: user faults only. */
		kb.req[0].flags = CPC_KREQ_USER | CPC_KREQ_OVF_EMT;
		bound = ioctl(fd, CPC_KIOC_BIND, &kb) == 0;
		err = errno;
	}
	if (!bound) {
		snprintf(d, sizeof(d), "bind: %s", strerror(err));
		result(0, "L2 software overflow snapshot", d);
		close(fd);
		return;
	}
	for (int round = 0; round < 20 && emts < 5; round++) {
		int before = emts;
		for (int i = 0; i < 40 && emts == before; i++) {
			char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m != MAP_FAILED) {
				m[0] = 1;
				munmap(m, 4096);
			}
		}
		if (emts != before)
			target(fd, CPC_KIOC_RESTART, 0);
	}
	snprintf(d, sizeof(d), "%d SIGEMTs (no kernel WARNING: see vm-run)",
	    (int)emts);
	result(emts >= 5, "L2 software overflow snapshot", d);
	signal(CPC_KMOD_SIGEMT, SIG_IGN);
	close(fd);
}

/* ---- L6: statistics, RESTART's check --------------------------------- */

static void test_l6_stats(void)
{
	char d[160];
	struct stat st;
	static const char *const files[] = { "self_reads", "logical_freezes",
		"rebinds_in_place", "page_hooks" };

	if (stat("/sys/kernel/debug/cpc", &st) != 0 && getuid() == 0)
		(void)mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	int bad = 0, seen = 0;
	d[0] = '\0';
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[96];
		snprintf(path, sizeof(path), "/sys/kernel/debug/cpc/%s",
		    files[i]);
		if (stat(path, &st) != 0)
			continue;
		seen++;
		if (st.st_mode & 0044) {
			bad++;
			snprintf(d + strlen(d), sizeof(d) - strlen(d),
			    "%s %o ", files[i], (unsigned)(st.st_mode & 0777));
		}
	}
	if (!seen) {
		skip("L6 statistics root's only", "no /sys/kernel/debug/cpc");
		return;
	}
	result(!bad, "L6 statistics root's only", d);
}

static int cap_set_effective(uint64_t caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];
	if (syscall(SYS_capget, &h, c) != 0)
		return -1;
	c[0].effective = (uint32_t)caps & c[0].permitted;
	c[1].effective = (uint32_t)(caps >> 32) & c[1].permitted;
	return (int)syscall(SYS_capset, &h, c);
}

#define CAPBIT(c) (1ULL << (c))

/*
 * As root: bind another user's thread with overflow notification
 * (CAP_PERFMON with CAP_KILL), then keep CAP_PERFMON alone: a RESTART,
 * which re-arms the signals, is refused as such a bind would be.
 */
static void test_l6_restart(void)
{
	char d[160];
	struct cpc_kbind kb;

	if (getuid() != 0) {
		skip("L6 RESTART checks signal rights", "needs root");
		return;
	}
	int fd = open_dev();
	if (fd < 0) {
		skip("L6 RESTART checks signal rights", strerror(errno));
		return;
	}
	int go[2], ready[2];
	if (pipe(go) != 0)
		return;
	if (pipe(ready) != 0) {
		close(go[0]);
		close(go[1]);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		char c = 1;
		close(go[1]);	/* EOF when the parent closes its end */
		close(ready[0]);
		if (setresgid(1001, 1001, 1001) != 0 ||
		    setresuid(1001, 1001, 1001) != 0)
			_exit(1);
		/* Another user now: tell the parent, then wait for it. */
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	char c;
	close(ready[1]);
	/* One byte once the child is another user; EOF if it failed. */
	ssize_t got = read(ready[0], &c, 1);
	close(ready[0]);
	if (got != 1) {
		result(0, "L6 RESTART checks signal rights",
		    "the child could not become uid 1001");
		close(go[1]);
		waitpid(pid, NULL, 0);
		close(go[0]);
		close(fd);
		return;
	}
	bind_init(&kb, pid);
	req(&kb, 0, CPC_KEV_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	    CPC_KREQ_USER | CPC_KREQ_OVF_EMT, UINT64_MAX - 1000000);
	int rc = ioctl(fd, CPC_KIOC_BIND, &kb);
	if (rc != 0) {
		snprintf(d, sizeof(d), "bind as root: %s", strerror(errno));
		result(0, "L6 RESTART checks signal rights", d);
	} else {
		int r0 = target(fd, CPC_KIOC_RESTART, pid);
		int e0 = errno;
		cap_set_effective(CAPBIT(CAP_PERFMON));
		int r1 = target(fd, CPC_KIOC_RESTART, pid);
		int e1 = errno;
		cap_set_effective(~0ULL);
		snprintf(d, sizeof(d),
		    "with every capability: %s; CAP_PERFMON alone: %s",
		    r0 == 0 ? "restarted" : strerror(e0),
		    r1 == 0 ? "restarted" : strerror(e1));
		result(r0 == 0 && r1 != 0 && e1 == EPERM,
		    "L6 RESTART checks signal rights", d);
	}
	close(go[1]);
	waitpid(pid, NULL, 0);
	close(go[0]);
	close(fd);
}

/* ---- L3: a refused period fails the rebind in place ------------------ */

/*
 * With the simulated PMU refusing new periods below min_period (as x86
 * refuses periods below an event's limit): a binding of instructions
 * with a period far beyond the test, rebound with the same events and a
 * period of 1000.  perf refuses that period to the existing counter; the
 * module must then bind anew (a new counter takes it), so the overflow
 * signal comes after about 1000 more events.  Kept in place with its
 * old period, the count passes 2^64 - 1 without a signal.
 */
static void test_l3_period(void)
{
	char d[200], minp[32] = "";
	struct cpc_kbind kb;
	struct cpc_ksample ks;

	if (read_file("/sys/module/simpmu/parameters/min_period", minp,
		sizeof(minp)) != 0 || atoi(minp) <= 1000) {
		skip("L3 refused period rebinds anew",
		    "needs simpmu.ko min_period > 1000");
		return;
	}
	int fd = open_dev();
	if (fd < 0)
		return;
	emts = 0;
	signal(CPC_KMOD_SIGEMT, on_emt);
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	    CPC_KREQ_USER | CPC_KREQ_OVF_EMT, 0ULL - (1ULL << 40));
	int b1 = ioctl(fd, CPC_KIOC_BIND, &kb) == 0 ? 0 : errno;
	kb.req[0].preset = 0ULL - 1000;
	int b2 = b1 ? b1 : ioctl(fd, CPC_KIOC_BIND, &kb) == 0 ? 0 : errno;
	uint64_t wrapped = 0;
	for (int i = 0; i < 400 && !b2 && emts == 0; i++) {
		usleep(1000);
		for (volatile int j = 0; j < 100000; j++)
			;
		if (sample(fd, CPC_KIOC_SAMPLE, 0, &ks) == 0 &&
		    ks.vals[0] < (1ULL << 62))
			wrapped = ks.vals[0];	/* past 2^64 - 1 */
	}
	snprintf(d, sizeof(d), "binds: %s, %s; %s%s",
	    b1 ? strerror(b1) : "ok", b2 ? strerror(b2) : "ok",
	    emts ? "SIGEMT came" : "no SIGEMT",
	    wrapped && !emts ? " though the count wrapped" : "");
	result(!b1 && !b2 && emts > 0, "L3 refused period rebinds anew", d);
	signal(CPC_KMOD_SIGEMT, SIG_IGN);
	close(fd);
}

/* ---- processor contexts ---------------------------------------------- */

static int cpu_bind(int fd, int cpu, uint32_t kind, uint64_t config,
    unsigned nreqs)
{
	struct cpc_kbind kb;
	bind_init(&kb, cpu);
	for (unsigned i = 0; i < nreqs; i++)
		req(&kb, i, kind, config, CPC_KREQ_USER, 0);
	return ioctl(fd, CPC_KIOC_CPU_BIND, &kb) == 0 ? 0 : errno;
}

static int sample(int fd, unsigned long cmd, int tid, struct cpc_ksample *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->abi = CPC_KMOD_ABI;
	ks->tid = tid;
	return ioctl(fd, cmd, ks) == 0 ? 0 : errno;
}

/*
 * Counts cpu-clock on processor 0 through @fd while this thread sleeps
 * and wakes there (the time counted there, user mode or not): 0 and the
 * count in *ns, or CPU_BIND's or CPU_SAMPLE's errno.
 */
static int cpu_clock_on_0(int fd, uint64_t *ns)
{
	struct cpc_ksample ks;
	cpu_set_t one, was;
	int err;

	*ns = 0;
	err = cpu_bind(fd, 0, CPC_KEV_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1);
	if (err)
		return err;
	sched_getaffinity(0, sizeof(was), &was);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < 5; i++)
		usleep(2000);
	sched_setaffinity(0, sizeof(was), &was);
	err = sample(fd, CPC_KIOC_CPU_SAMPLE, 0, &ks);
	if (!err)
		*ns = ks.vals[0];
	return err;
}

/*
 * In a child as the cpc member (groups 990, without CAP_PERFMON): 0 if
 * it counted cpu-clock on processor 0 (a non-zero count), 102 if it was
 * bound but counted nothing, else CPU_BIND's or CPU_SAMPLE's errno.
 */
static int member_cpu_bind(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		gid_t g = 990;
		uint64_t ns;
		if (setgroups(1, &g) != 0 || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		int fd = open_dev();
		if (fd < 0)
			_exit(101);
		int err = cpu_clock_on_0(fd, &ns);
		_exit(err ? err : ns > 0 ? 0 : 102);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static const char *cpu_verdict(int err)
{
	return err == 0 ? "counted" : err == 102 ? "counted nothing" :
	    strerror(err);
}

/*
 * Processor contexts: CAP_PERFMON (root) counts; a member of the device's
 * group (without CAP_PERFMON) is refused (EACCES) unless the administrator
 * sets cpu_access, and then counts, although perf_event_paranoid forbids
 * perf's CPU-wide counters to that user.
 */
static void test_cpu_access(void)
{
	char d[200], old[8] = "";
	const char *p = "/sys/module/cpc/parameters/cpu_access";
	uint64_t ns;

	if (getuid() != 0 || read_file(p, old, sizeof(old)) != 0) {
		skip("processor contexts: who may", "needs root and cpu_access");
		return;
	}
	int fd = open_dev();
	int root = cpu_clock_on_0(fd, &ns);
	close(fd);
	write_file(p, "0");
	int off = member_cpu_bind();
	write_file(p, "1");
	int on = member_cpu_bind();
	write_file(p, old);
	snprintf(d, sizeof(d), "root: %s (%llu ns of cpu-clock); member: "
	    "cpu_access=0 %s, cpu_access=1 %s", cpu_verdict(root),
	    (unsigned long long)ns, cpu_verdict(off), cpu_verdict(on));
	result(!root && ns > 0 && off == EACCES && on == 0,
	    "processor contexts: who may", d);
}

/*
 * A processor context's pinned hardware counters take the PMU from a
 * thread's binding there: its samples read EIO (invalidated), not wrong
 * counts.  Needs a (simulated) hardware PMU.
 */
static void test_cpu_invalidates(void)
{
	char d[200];
	struct cpc_kbind kb;
	struct cpc_ksample ks;
	cpu_set_t one;

	if (getuid() != 0) {
		skip("processor context invalidates threads", "needs root");
		return;
	}
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	int fd = open_dev(), cfd = open_dev();
	bind_init(&kb, 0);
	req(&kb, 0, CPC_KEV_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	    CPC_KREQ_USER, 0);
	if (ioctl(fd, CPC_KIOC_BIND, &kb) != 0) {
		skip("processor context invalidates threads",
		    "no hardware PMU (vm-run --sim-pmu)");
		close(fd);
		close(cfd);
		return;
	}
	int before = sample(fd, CPC_KIOC_SAMPLE, 0, &ks);
	int cb = cpu_bind(cfd, 0, CPC_KEV_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	    CPC_KMOD_MAX_REQS);
	usleep(20000);
	int after = sample(fd, CPC_KIOC_SAMPLE, 0, &ks);
	/* Released: a new binding counts again. */
	target(cfd, CPC_KIOC_CPU_RELE, 0);
	usleep(20000);
	int rebound = ioctl(fd, CPC_KIOC_BIND, &kb) == 0 ? 0 : errno;
	int later = rebound ? rebound : sample(fd, CPC_KIOC_SAMPLE, 0, &ks);
	snprintf(d, sizeof(d), "thread's sample before: %s; CPU bind: %s; "
	    "after: %s; rebound after the release: %s",
	    before ? strerror(before) : "ok", cb ? strerror(cb) : "bound",
	    after ? strerror(after) : "ok", later ? strerror(later) : "ok");
	result(!before && !cb && after == EIO && !later,
	    "processor context invalidates threads", d);
	close(cfd);
	close(fd);
}

/* ---- the CAP_PERFMON-only stranger, for the tools' tests -------------- */

static int run_perfmon(char **argv)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct c[2];

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 ||
	    setgroups(0, NULL) != 0 || setresgid(1001, 1001, 1001) != 0 ||
	    setresuid(1001, 1001, 1001) != 0) {
		perror("kctx_test --perfmon");
		return 126;
	}
	memset(c, 0, sizeof(c));
	c[CAP_PERFMON / 32].permitted = 1u << (CAP_PERFMON % 32);
	c[CAP_PERFMON / 32].effective = c[CAP_PERFMON / 32].permitted;
	c[CAP_PERFMON / 32].inheritable = c[CAP_PERFMON / 32].permitted;
	if (syscall(SYS_capset, &h, c) != 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_PERFMON, 0, 0) !=
		0) {
		perror("kctx_test --perfmon: capabilities");
		return 126;
	}
	execvp(argv[0], argv);
	perror("kctx_test --perfmon: exec");
	return 127;
}

static int run_as(char **argv)
{
	gid_t groups[16];
	int n = 0;
	char *list = argv[2], *save = NULL;

	for (char *g = strcmp(list, "-") ? strtok_r(list, ",", &save) : NULL;
	    g != NULL && n < 16; g = strtok_r(NULL, ",", &save))
		groups[n++] = (gid_t)atoi(g);
	if (setgroups((size_t)n, groups) != 0 ||
	    setresgid((gid_t)atoi(argv[1]), (gid_t)atoi(argv[1]),
		(gid_t)atoi(argv[1])) != 0 ||
	    setresuid((uid_t)atoi(argv[0]), (uid_t)atoi(argv[0]),
		(uid_t)atoi(argv[0])) != 0) {
		perror("kctx_test --as");
		return 126;
	}
	execvp(argv[3], argv + 3);
	perror("kctx_test --as: exec");
	return 127;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && strcmp(argv[1], "--perfmon") == 0)
		return run_perfmon(argv + 2);
	if (argc > 5 && strcmp(argv[1], "--as") == 0)
		return run_as(argv + 2);
	/* A stray overflow signal (a module without a fix) must not kill us. */
	signal(CPC_KMOD_SIGEMT, SIG_IGN);
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "l1", test_l1_dofork }, { "l4", test_l4_bts },
		{ "l3", test_l3_period }, { "l2", test_l2_snapshot },
		{ "l6-stats", test_l6_stats }, { "l6-restart", test_l6_restart },
		{ "m2", test_m2_userns }, { "m1", test_m1_inherit },
		{ "cpu-access", test_cpu_access },
		{ "cpu-invalidates", test_cpu_invalidates },
	};
	const size_t n = sizeof(tests) / sizeof(tests[0]);

	printf("# kctx_test as uid %d\n", (int)getuid());
	for (int a = 1; a < argc; a++) {
		size_t i = 0;
		while (i < n && strcmp(argv[a], tests[i].name) != 0)
			i++;
		if (i == n) {
			fprintf(stderr, "kctx_test: no test %s\n", argv[a]);
			return 2;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int want = argc == 1;
		for (int a = 1; a < argc; a++)
			want |= strcmp(argv[a], tests[i].name) == 0;
		if (want)
			tests[i].fn();
	}
	return failures ? 1 : 0;
}
