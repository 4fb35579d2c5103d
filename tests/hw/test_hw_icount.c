/* SPDX-License-Identifier: MIT */
/*
 * Counts of known work, in a guest booted with qemu's -icount (vm-run
 * --icount), where the simulated PMU counts executed instructions: each
 * instruction the counted LWP executes in a counted mode is one
 * instruction event and two cycles (tests/kmod/simpmu/README.md, icount
 * mode).  Skips (77) elsewhere.
 *
 * The work is assembly (tests/hw/icount_loop.S) whose instruction count
 * is known exactly.  What else a counted window holds:
 *  - the library's own user-mode instructions between the two samples
 *    (the return from the first, the call of the second) and, per system
 *    call, the kernel's entry and exit instructions outside the simulated
 *    PMU's sys_enter/sys_exit probes, which it counts as user mode: both
 *    are the same deterministic code in every window, so they cancel in
 *    the difference of two windows that differ only in the amount of
 *    work.  The differences are therefore asserted EXACT.
 *  - interrupts, faults and preemptions: their kernel instructions are
 *    counted as user mode from the interrupt's first instruction to its
 *    first update point (the PMU has no probe at interrupt entry), so a
 *    window they hit is not exact.  A window is used only if no interrupt,
 *    page fault or context switch of this thread happened between two
 *    snapshots taken before the first sample and after the second (the
 *    sum of /proc/interrupts, getrusage(RUSAGE_THREAD)); others are
 *    measured again (a window of 1.2M instructions meets the 250 Hz tick,
 *    one per 4M instructions at shift=0, about one time in three).
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <libcpc.h>

#include "hwutil.h"
#include "testutil.h"

/* tests/hw/icount_loop.S */
void hw_icount_loop(unsigned long n);
void hw_icount_sysloop(unsigned long n);
void hw_icount_sysloop12(unsigned long n);
extern const char hw_icount_body[], hw_icount_body_end[];
#define LOOP_K 4	/* instructions per iteration of hw_icount_loop */
#define SYS_K 6		/* user instructions per iteration of hw_icount_sysloop */
#define SYS12_K 12	/* ... of hw_icount_sysloop12 */

#define TRIES 40

#ifndef __x86_64__
/* Never called (main skips): the assembly is x86-64 only. */
void hw_icount_loop(unsigned long n) { (void)n; }
void hw_icount_sysloop(unsigned long n) { (void)n; }
void hw_icount_sysloop12(unsigned long n) { (void)n; }
const char hw_icount_body[1], hw_icount_body_end[1];
#define REG_R8 0
#endif

/* The first of the names that version 2 takes on this processor. */
static const char *pick(const char *const *names, const char **memo)
{
	if (*memo != NULL)
		return *memo;
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	for (int i = 0; names[i] != NULL && *memo == NULL; i++) {
		cpc_set_t *set = cpc_set_create(cpc);
		ck_assert_ptr_nonnull(set);
		if (cpc_set_add_request(cpc, set, names[i], 0, CPC_COUNT_USER,
			0, NULL) == 0)
			*memo = names[i];
		cpc_set_destroy(cpc, set);
	}
	cpc_close(cpc);
	ck_assert_msg(*memo != NULL, "no name for %s", names[0]);
	return *memo;
}

/* The platform's names (the vendor's tables), else the generic ones. */
static const char *ins_name(void)
{
	static const char *memo;
	static const char *const names[] = { "inst_retired",
		"FR_retired_x86_instr_w_excp_intr", "ExRetInstr",
		"PAPI_tot_ins", NULL };
	return pick(names, &memo);
}

static const char *cyc_name(void)
{
	static const char *memo;
	static const char *const names[] = { "cpu_clk_unhalted",
		"BU_cpu_clk_unhalted", "LsNotHaltedCyc", "PAPI_tot_cyc", NULL };
	return pick(names, &memo);
}

/* ------------------------------------------------- quiet windows */

#define IRQ_LINES 64
struct snap {
	uint64_t irqs;
	uint64_t line[IRQ_LINES];
	char name[IRQ_LINES][8];
	long nvcsw, nivcsw, minflt, majflt;
};

static void snapshot(struct snap *s)
{
	char line[1024];
	FILE *f = fopen("/proc/interrupts", "r");
	struct rusage ru;
	int k = 0;
	memset(s, 0, sizeof(*s));
	s->irqs = 0;
	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			char *p = strchr(line, ':');
			const char *nm = line + strspn(line, " ");
			/* IRQ work: perf's signal after an overflow (the
			 * names are right-aligned: "  IWI:"). */
			if (p == NULL || strncmp(nm, "IWI:", 4) == 0)
				continue;
			uint64_t v = strtoull(p + 1, NULL, 10);
			s->irqs += v;
			if (k < IRQ_LINES) {
				s->line[k] = v;
				snprintf(s->name[k++], 8, "%.*s",
				    (int)(p - line), line);
			}
		}
		fclose(f);
	}
	getrusage(RUSAGE_THREAD, &ru);
	s->nvcsw = ru.ru_nvcsw;
	s->nivcsw = ru.ru_nivcsw;
	s->minflt = ru.ru_minflt;
	s->majflt = ru.ru_majflt;
}

static char why_not[256];

/* Nothing but this thread's code ran between a and b (irqs: allowed). */
static int quiet(const struct snap *a, const struct snap *b, uint64_t irqs)
{
	int len = snprintf(why_not, sizeof(why_not),
	    "%" PRIu64 " interrupts, %ld+%ld switches, %ld+%ld faults:",
	    b->irqs - a->irqs, b->nvcsw - a->nvcsw, b->nivcsw - a->nivcsw,
	    b->minflt - a->minflt, b->majflt - a->majflt);
	for (int k = 0; k < IRQ_LINES && len < (int)sizeof(why_not) - 16; k++)
		if (b->line[k] != a->line[k])
			len += snprintf(why_not + len, sizeof(why_not) - (size_t)len,
			    " %s+%" PRIu64, a->name[k], b->line[k] - a->line[k]);
	return b->irqs - a->irqs == irqs && a->nvcsw == b->nvcsw &&
	    a->nivcsw == b->nivcsw && a->minflt == b->minflt &&
	    a->majflt == b->majflt;
}

struct counter {
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *b0, *b1;
};

/* Instructions (index 0) and cycles (1) of this LWP in the modes given. */
static void counter_open(struct counter *c, unsigned modes)
{
	c->cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(c->cpc);
	c->set = cpc_set_create(c->cpc);
	ck_assert_ptr_nonnull(c->set);
	ck_assert_int_eq(cpc_set_add_request(c->cpc, c->set, ins_name(), 0,
			     modes, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(c->cpc, c->set, cyc_name(), 0,
			     modes, 0, NULL), 1);
	c->b0 = cpc_buf_create(c->cpc, c->set);
	c->b1 = cpc_buf_create(c->cpc, c->set);
	ck_assert_msg(cpc_bind_curlwp(c->cpc, c->set, 0) == 0, "bind: %s",
	    strerror(errno));
}

/*
 * The instructions counted around work(n) in a quiet window, checking
 * that the cycles are exactly twice as many.
 */
static uint64_t window(struct counter *c, void (*work)(unsigned long),
    unsigned long n)
{
	for (int t = 0; t < TRIES; t++) {
		struct snap a, b;
		uint64_t i0, i1, c0, c1;
		snapshot(&a);
		ck_assert_int_eq(cpc_set_sample(c->cpc, c->set, c->b0), 0);
		work(n);
		ck_assert_int_eq(cpc_set_sample(c->cpc, c->set, c->b1), 0);
		snapshot(&b);
		if (!quiet(&a, &b, 0))
			continue;
		cpc_buf_get(c->cpc, c->b0, 0, &i0);
		cpc_buf_get(c->cpc, c->b1, 0, &i1);
		cpc_buf_get(c->cpc, c->b0, 1, &c0);
		cpc_buf_get(c->cpc, c->b1, 1, &c1);
		ck_assert_msg(c1 - c0 == 2 * (i1 - i0),
		    "%" PRIu64 " cycles for %" PRIu64 " instructions: not 2 each",
		    c1 - c0, i1 - i0);
		return i1 - i0;
	}
	ck_abort_msg("no quiet window in %d tries (last: %s)", TRIES, why_not);
	return 0;
}

static void setup(void)
{
	capture_errors();
}

static void teardown(void)
{
	cpc_rele();
}

/* ------------------------------------------------------- the tests */

#define N 100000UL

/*
 * N and 3N iterations of 4 instructions: the windows differ by exactly
 * 8N instructions (user mode), and the overhead common to both (the
 * library between the samples, the sampling system calls' entry and
 * exit outside the probes, the call of the loop) is the same small
 * number in every window: below 1% of the 4N of work.
 */
START_TEST(known_loop_exact)
{
	struct counter c;
	counter_open(&c, CPC_COUNT_USER);
	hw_icount_loop(10);	/* warm: the code and the data are mapped */
	/* The first window after the bind holds more (the library's first read). */
	(void)window(&c, hw_icount_loop, N);
	uint64_t w1 = window(&c, hw_icount_loop, N);
	uint64_t w3 = window(&c, hw_icount_loop, 3 * N);
	uint64_t w1b = window(&c, hw_icount_loop, N);
	printf("known_loop_exact: %lu iterations: %" PRIu64 ", %lu: %" PRIu64
	       ", expected difference %lu, measured %" PRIu64
	       ", overhead %" PRIu64 "\n",
	    N, w1, 3 * N, w3, 2 * N * LOOP_K, w3 - w1, w1 - N * LOOP_K);
	ck_assert_uint_eq(w1b, w1);
	ck_assert_uint_eq(w3 - w1, 2 * N * LOOP_K);
	ck_assert_uint_ge(w1, N * LOOP_K);
	ck_assert_uint_lt(w1 - N * LOOP_K, N * LOOP_K / 100);
	cpc_close(c.cpc);
}
END_TEST

struct lwp {
	unsigned long n;
	uint64_t count, base;
};

static void *lwp_main(void *arg)
{
	struct lwp *w = arg;
	struct counter c;
	counter_open(&c, CPC_COUNT_USER);
	hw_icount_loop(10);
	(void)window(&c, hw_icount_loop, 1);
	/* The overhead of an empty loop call, measured by this LWP. */
	w->base = window(&c, hw_icount_loop, 1) - LOOP_K;
	w->count = window(&c, hw_icount_loop, w->n);
	cpc_close(c.cpc);
	return NULL;
}

/*
 * Two LWPs, 1x and 3x the work, at the same time: each counts its own
 * instructions only (the other's, run while it is switched out, never
 * reach it), less the overhead it measured alike: exactly 1:3.
 */
START_TEST(two_lwps_ratio_three)
{
	struct lwp w[2] = { { .n = N }, { .n = 3 * N } };
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, lwp_main, &w[i]), 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
	printf("two_lwps_ratio_three: %" PRIu64 " - %" PRIu64 " and %" PRIu64
	       " - %" PRIu64 "\n",
	    w[0].count, w[0].base, w[1].count, w[1].base);
	ck_assert_uint_eq(w[0].count - w[0].base, N * LOOP_K);
	ck_assert_uint_eq(w[1].count - w[1].base, 3 * N * LOOP_K);
	ck_assert_uint_eq(3 * (w[0].count - w[0].base), w[1].count - w[1].base);
}
END_TEST

#define M 200UL

/*
 * The instructions counted in each of the n modes (one set, so that the
 * simulated PMU's probes and reads do the same work for every count)
 * around work(M) (w[0]) and work(3M) (w[1]), in quiet windows.
 */
static void sysloop_windows(void (*work)(unsigned long),
    const unsigned *modes, int n, uint64_t w[2][3])
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(cpc_set_add_request(cpc, set, ins_name(), 0,
				     modes[i], 0, NULL), i);
	cpc_buf_t *b0 = cpc_buf_create(cpc, set), *b1 = cpc_buf_create(cpc, set);
	ck_assert_msg(cpc_bind_curlwp(cpc, set, 0) == 0, "bind: %s",
	    strerror(errno));
	work(10);
	for (int k = -1; k < 2; k++) {
		unsigned long iters = k == 1 ? 3 * M : M;
		int t;
		for (t = 0; t < TRIES; t++) {
			struct snap a, b;
			snapshot(&a);
			ck_assert_int_eq(cpc_set_sample(cpc, set, b0), 0);
			work(iters);
			ck_assert_int_eq(cpc_set_sample(cpc, set, b1), 0);
			snapshot(&b);
			if (quiet(&a, &b, 0))
				break;
		}
		ck_assert_msg(t < TRIES, "no quiet window in %d tries (last: %s)",
		    TRIES, why_not);
		for (int i = 0; k >= 0 && i < n; i++) {
			uint64_t v0, v1;
			cpc_buf_get(cpc, b0, i, &v0);
			cpc_buf_get(cpc, b1, i, &v1);
			w[k][i] = v1 - v0;
		}
	}
	cpc_close(cpc);
}

/* User-mode instructions per iteration of work: the same in each. */
static uint64_t user_per_iteration(void (*work)(unsigned long))
{
	static const unsigned user = CPC_COUNT_USER;
	uint64_t w[2][3];
	sysloop_windows(work, &user, 1, w);
	ck_assert_msg((w[1][0] - w[0][0]) % (2 * M) == 0,
	    "%" PRIu64 " user-mode instructions for %lu more iterations: "
	    "not the same number in each", w[1][0] - w[0][0], 2 * M);
	return (w[1][0] - w[0][0]) / (2 * M);
}

/*
 * Loops of 6 and of 12 user instructions and a getppid() system call
 * (raw, in assembly), in windows of M and 3M iterations.  User mode
 * counts the same whole number of instructions in each iteration: the
 * loop's user instructions plus e, the kernel's entry and exit
 * instructions outside the simulated PMU's sys_enter/sys_exit probes
 * (from syscall to the first probe's clock read, and from the second
 * probe's clock read to sysret: tests/kmod/simpmu/README.md), which it
 * counts as user mode.  e is a constant of the kernel's system-call path,
 * not of the user code: the 12-instruction loop counts EXACTLY 6 more
 * per iteration, and a loop with no system call counts its user
 * instructions exactly (known_loop_exact).  (e as measured, printed:
 * 325 to 491 on 5.10 to 7.3.)
 * As root, with three counters, each instruction of a window is counted
 * in exactly one mode: user + system == both, window by window.  (The
 * kernel-mode count per iteration is not asserted constant: the kernel's
 * own path varies, 144405 for 400 calls once on 5.10.)
 */
START_TEST(user_only_excludes_system_calls)
{
	uint64_t u6 = user_per_iteration(hw_icount_sysloop);
	uint64_t u12 = user_per_iteration(hw_icount_sysloop12);
	printf("user_only_excludes_system_calls: user mode per iteration: "
	       "%" PRIu64 " = %d user + %" PRIu64 " entry/exit; %" PRIu64
	       " = %d user + %" PRIu64 "; expected difference %d, measured %"
	       PRIu64 "\n", u6, SYS_K, u6 - SYS_K, u12, SYS12_K,
	    u12 - SYS12_K, SYS12_K - SYS_K, u12 - u6);
	ck_assert_uint_ge(u6, SYS_K);
	ck_assert_uint_eq(u12 - u6, SYS12_K - SYS_K);
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	int npic = (int)cpc_npic(cpc);
	cpc_close(cpc);
	if (geteuid() != 0 || npic < 3)
		return;
	static const unsigned modes[3] = { CPC_COUNT_USER, CPC_COUNT_SYSTEM,
		CPC_COUNT_USER | CPC_COUNT_SYSTEM };
	uint64_t w[2][3];
	sysloop_windows(hw_icount_sysloop, modes, 3, w);
	for (int k = 0; k < 2; k++) {
		printf("user_only_excludes_system_calls: %lu iterations: user "
		       "%" PRIu64 " + system %" PRIu64 " = %" PRIu64
		       ", both counted %" PRIu64 "\n", k ? 3 * M : M, w[k][0],
		    w[k][1], w[k][0] + w[k][1], w[k][2]);
		ck_assert_uint_eq(w[k][0] + w[k][1], w[k][2]);
		ck_assert_uint_gt(w[k][1], (k ? 3 * M : M));
	}
	/* User mode in this set: the same as counted alone, per iteration. */
	ck_assert_uint_eq((w[1][0] - w[0][0]) % (2 * M), 0);
}
END_TEST

/* -------------------------------------------------------- overflow */

static volatile sig_atomic_t sig_n;
static const char *sig_pc;
static unsigned long sig_r8;

static void emt(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	(void)sig;
	if (sig_n++ == 0) {
		sig_pc = si->si_addr;
		sig_r8 = (unsigned long)uc->uc_mcontext.gregs[REG_R8];
	}
}

/*
 * Instructions of hw_icount_loop(n) executed before pc, with r8 the
 * loop's counter there: the mov, 4 per finished iteration, and those of
 * the current one before pc (nop, nop, dec %r8, jnz: byte offsets 0, 1,
 * 2 and 5 of the body; r8 counts down at the dec).
 */
static long loop_position(unsigned long n, const char *pc, unsigned long r8)
{
	static const int offs[LOOP_K] = { 0, 1, 2, 5 };
	for (int i = 0; i < LOOP_K; i++) {
		if (pc != hw_icount_body + offs[i])
			continue;
		unsigned long done = n - r8 - (i == 3 ? 1 : 0);
		return 1 + (long)done * LOOP_K + i;
	}
	return -1;
}

/*
 * Where the overflow of a preset of 2^64 - p user-mode instructions hits
 * in the loop (a quiet run: one interrupt, the overflow's).
 */
static long overflow_at(uint64_t p)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGEMT, &sa, NULL);
	/* Version 1's names: version 2's, or the platform's. */
	const char *pairs[][2] = { { ins_name(), cyc_name() },
		{ "FR_retired_x86_instr_w_excp_intr", "BU_cpu_clk_unhalted" },
		{ "inst_retired", "cpu_clk_unhalted" } };
	char spec[128];
	cpc_event_t ev;
	int ok = 0;
	for (unsigned i = 0; i < 3 && !ok; i++) {
		snprintf(spec, sizeof(spec), "pic0=%s,pic1=%s", pairs[i][0],
		    pairs[i][1]);
		ok = cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0;
	}
	ck_assert_msg(ok, "no version 1 names for instructions and cycles");
	/* The loop ends 8000 instructions after p: one overflow only. */
	const unsigned long n = p / LOOP_K + 2000;
	for (int t = 0; t < TRIES; t++) {
		struct snap a, b;
		hw_icount_loop(10);
		sig_n = 0;
		ev.ce_pic[0] = UINT64_MAX - p + 1;
		ev.ce_pic[1] = 0;
		snapshot(&a);
		ck_assert_msg(cpc_bind_event(&ev, CPC_BIND_EMT_OVF) == 0,
		    "bind: %s", strerror(errno));
		hw_icount_loop(n);
		snapshot(&b);
		cpc_rele();
		ck_assert_int_ge(sig_n, 1);
		if (!quiet(&a, &b, 1))
			continue;
		long pos = loop_position(n, sig_pc, sig_r8);
		ck_assert_msg(pos >= 0, "overflow at %p, not in the loop body %p",
		    (const void *)sig_pc, (const void *)hw_icount_body);
		return pos;
	}
	ck_abort_msg("no quiet run in %d tries (last: %s)", TRIES, why_not);
	return -1;
}

/*
 * Presets 2^64 - P and 2^64 - (P + D): the second overflow hits exactly
 * D instructions further into the loop, up to the granularity of the
 * guest's timer (the simulated PMU's overflow is an hrtimer programmed
 * for the predicted instruction): one TSC tick with the TSC-deadline
 * timer, 16 (qemu's APIC timer at 1 GHz divided by Linux's 16) with the
 * APIC's one-shot timer, each run late by less than that, plus one for
 * the rounding of the conversion to ns: |difference - D| <= 17.
 */
START_TEST(overflow_at_the_predicted_instruction)
{
	const uint64_t p = 200000, d = 12345;
	const char *be = getenv("LIBCPC_BACKEND");
	if (be != NULL && strcmp(be, "kmod") == 0) {
		/*
		 * Not asserted yet: through the kernel module (its limit
		 * counter, perf_event_refresh) the overflow lands at the
		 * predicted instruction since simpmu keeps an overflow that
		 * is due at sched out (7 runs on 7.3: 197107, 197123 and
		 * 197043 for 2^64-200000, D within the bound), but one of
		 * those 7 runs got no SIGEMT at all (cause not found yet).
		 */
		printf("overflow_at_the_predicted_instruction: not run on "
		       "the kernel module backend (open issue)\n");
		return;
	}
	long x = overflow_at(p);
	long y = overflow_at(p + d);
	long z = overflow_at(p);
	printf("overflow_at_the_predicted_instruction: preset 2^64-%" PRIu64
	       " at loop instruction %ld (again: %ld), 2^64-%" PRIu64
	       " at %ld: %ld further, expected %" PRIu64 "\n",
	    p, x, z, p + d, y, y - x, d);
	long y2 = overflow_at(p + 8 * d);
	printf("overflow_at_the_predicted_instruction: 2^64-%" PRIu64
	       " at %ld: %ld further, expected %" PRIu64 "\n",
	    p + 8 * d, y2, y2 - x, 8 * d);
	ck_assert_int_le(labs(y - x - (long)d), 17);
	ck_assert_int_le(labs(y2 - x - 8 * (long)d), 17);
	ck_assert_int_le(labs(z - x), 17);
	/* Before it, the library's code since the counter started. */
	ck_assert_int_le(x, (long)p);
}
END_TEST

/* The icount mode's shift from /sys/kernel/simpmu/info, or -1. */
static int icount_shift(void)
{
	char buf[256];
	int shift = -1;
	FILE *f = fopen("/sys/kernel/simpmu/info", "r");
	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) != NULL) {
		const char *p = strstr(buf, "icount_shift=");
		if (p != NULL)
			shift = atoi(p + strlen("icount_shift="));
	}
	fclose(f);
	return shift;
}

int main(void)
{
#ifndef __x86_64__
	printf("test_hw_icount: SKIP: its work is x86-64 assembly\n");
	return 77;
#endif
	hw_require("test_hw_icount");
	if (icount_shift() < 0) {
		printf("test_hw_icount: SKIP: the simulated PMU counts time, "
		       "not instructions (boot with vm-run --icount)\n");
		return 77;
	}
	struct timespec t0, t1;
	char dev[64] = "?";
	FILE *f = fopen("/sys/devices/system/clockevents/clockevent0/"
			"current_device", "r");
	if (f != NULL) {
		if (fgets(dev, sizeof(dev), f) != NULL)
			dev[strcspn(dev, "\n")] = '\0';
		fclose(f);
	}
	printf("test_hw_icount: icount shift %d, timer %s\n", icount_shift(),
	    dev);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	Suite *s = suite_create("hw_icount");
	TCase *tc = tcase_create("icount");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, known_loop_exact);
	tcase_add_test(tc, two_lwps_ratio_three);
	tcase_add_test(tc, user_only_excludes_system_calls);
	tcase_add_test(tc, overflow_at_the_predicted_instruction);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("test_hw_icount: %.3f s of guest time\n",
	    (double)(t1.tv_sec - t0.tv_sec) +
		(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
