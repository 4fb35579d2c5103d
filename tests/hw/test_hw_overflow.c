/* SPDX-License-Identifier: MIT */
/*
 * Overflow of hardware counters on the (simulated) PMU of the qemu
 * guest, on either backend: SIGEMT with EMT_CPCOVF, si_addr the
 * interrupted PC, both counters frozen, rebinding in the handler
 * (version 1), cpc_set_restart (version 2), the int bits choosing the
 * signalling counter, and overflow in inherited contexts.
 *
 * The simulated PMU counts deterministically: cycles = mhz/1000 per ns of
 * the task's on-CPU time in the counted modes, instructions half of that
 * (tests/kmod/simpmu/README.md).  Skips (77) without it.
 */
#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <libcpc.h>
#include <libcpc_group.h>

#include "hwcount.h"
#include "hwutil.h"
#include "testutil.h"

/* ------------------------------------------------------------ overflow */

static volatile sig_atomic_t sig_count, sig_bad, sig_in_spin, sig_why;
static void *sig_pc;
static volatile sig_atomic_t sig_late;	/* si_addr != the ucontext's PC */
static void *late_pc[64];
static int rebind;			/* the handler rebinds (v1) */
static int restart;			/* the handler restarts (v2) */
static uint64_t rebind_preset;
static cpc_event_t in_handler;
static pid_t my_tid;
static cpc_t *h_cpc;
static cpc_set_t *h_set;
static cpc_buf_t *h_buf;
static uint64_t h_vals[2];

static uint64_t h_ns;			/* CPU time spent in the handler */
static uint64_t h_counted;		/* events the signals account for */
static uint64_t h_period;		/* the rebind/restart period */

/* Every late si_addr lies in code this process has loaded. */
static void check_late_pcs(void)
{
	int n = sig_late < 64 ? (int)sig_late : 64;
	for (int i = 0; i < n; i++) {
		Dl_info info;
		ck_assert_msg(dladdr(late_pc[i], &info) != 0,
		    "si_addr %p of a late SIGEMT is in no loaded object",
		    late_pc[i]);
	}
	/* Most of many signals are delivered at once (see emt_handler). */
	ck_assert_msg(sig_count < 4 || sig_late * 2 <= sig_count,
	    "%d of %d signals had si_addr != the interrupted PC",
	    (int)sig_late, (int)sig_count);
}

#define CHECK_NO_BAD()                                                        \
	do {                                                                  \
		ck_assert_msg(sig_bad == 0,                                   \
		    "%d bad signals, last: reason %d (1 signo, 2 si_code, "   \
		    "4 pc %p not a user address, 5 thread, 600/700/800+errno: "  \
		    "set_sample, set_restart, request_preset, 7 sample, 8 "   \
		    "rebind failed)",                                         \
		    (int)sig_bad, (int)sig_why, sig_pc);                      \
		check_late_pcs();                                             \
	} while (0)

static void emt_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int saved = errno;
	uint64_t t0 = thread_cpu_ns();
	sig_count++;
	/*
	 * si_addr is the PC where the overflow was noticed.  Delivered at
	 * once, that is the interrupted PC, the ucontext's; a signal held
	 * meanwhile (SIGEMT is blocked in this handler, whose rebind may
	 * overflow at once) comes later, elsewhere: then its si_addr must
	 * still be code of this process (checked after the test).
	 */
	if (si->si_addr != (void *)uc->uc_mcontext.gregs[REG_RIP]) {
		if (sig_late < (int)(sizeof(late_pc) / sizeof(late_pc[0])))
			late_pc[sig_late] = si->si_addr;
		sig_late++;
	}
	int why = sig != SIGEMT ? 1
	    : si->si_code != EMT_CPCOVF ? 2
	    : (uintptr_t)si->si_addr == 0 ||
		    (uintptr_t)si->si_addr >= (uintptr_t)1 << 47 ? 4
	    : gettid() != my_tid ? 5
	    : 0;
	if (why != 0) {
		sig_bad++;
		sig_why = why;
		sig_pc = si->si_addr;
	}
	if (hw_in_spin(si->si_addr))
		sig_in_spin++;
	if (h_cpc != NULL) {
		if (cpc_set_sample(h_cpc, h_set, h_buf) != 0)
			sig_bad++, sig_why = 600 + errno;
		cpc_buf_get(h_cpc, h_buf, 0, &h_vals[0]);
		h_counted += h_period + h_vals[0];
		if (restart && cpc_request_preset(h_cpc, 0, rebind_preset) != 0)
			sig_bad++, sig_why = 800 + errno;
		else if (restart && cpc_set_restart(h_cpc, h_set) != 0)
			sig_bad++, sig_why = 700 + errno;
	} else {
		if (cpc_take_sample(&in_handler) != 0)
			sig_bad++, sig_why = 7;
		h_counted += h_period + in_handler.ce_pic[0];
		if (rebind) {
			cpc_event_t again = in_handler;
			again.ce_pic[0] = rebind_preset;
			again.ce_pic[1] = 0;
			if (cpc_bind_event(&again, CPC_BIND_EMT_OVF) != 0)
				sig_bad++, sig_why = 8;
		}
	}
	h_ns += thread_cpu_ns() - t0;
	errno = saved;
}

static void ovf_setup(void)
{
	struct sigaction sa;
	capture_errors();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	sig_count = sig_bad = sig_in_spin = sig_why = sig_late = 0;
	rebind = restart = 0;
	h_cpc = NULL;
	h_ns = h_counted = h_period = 0;
	my_tid = gettid();
}

/* The preset that overflows after ms milliseconds of counted cycles. */
static uint64_t preset_after_ms(double ms)
{
	return UINT64_MAX - (uint64_t)cycles_for_ns(ms * 1e6) + 1;
}

/* Spins ms milliseconds of CPU time in 1 ms slices; returns the ns spent. */
static uint64_t spin_slices(unsigned ms)
{
	uint64_t t0 = thread_cpu_ns();
	for (unsigned i = 0; i < ms; i++)
		hw_spin_ms(1);
	return thread_cpu_ns() - t0;
}

/*
 * The bounds of the number of signals n in ns of CPU time with one
 * overflow every period_ms of user-mode cycles.  Upper: the cycles
 * counted are at most the thread's CPU time, so n <= ns/period + 1 (plus
 * `extra`).  Lower: the simulated PMU notices an overflow at its next
 * 100 us sample, and when the host stalls the emulator the guest's clock
 * jumps and one sample passes several periods, which gives one signal (as
 * on x86, a counter that passes its period twice overflows once; 2
 * signals for 22 ms at 2 ms were seen).  So n itself is only bounded
 * below loosely (1), but the events the signals
 * account for (n periods plus the counter's value past 2^64 at each
 * signal, h_counted) must cover the CPU time spent spinning: at least
 * 30% of (ns - time in the handler) (see TOL_LO) and at most ns.
 */
static void check_signal_count(int n, uint64_t ns, uint64_t hns,
    double period_ms, int extra)
{
	double per = period_ms * 1e6;
	int max = (int)((double)ns / per) + 1 + extra;
	ck_assert_msg(n >= 1 && n <= max,
	    "%d signals in %" PRIu64 " ns (%" PRIu64 " ns in the handler) at "
	    "%.1f ms per overflow: expected 1 to %d",
	    n, ns, hns, period_ms, max);
	if (h_period != 0) {
		double lo = cycles_for_ns(((double)ns - (double)hns) * TOL_LO);
		double hi = cycles_for_ns((double)ns * TOL_HI) + h_period;
		ck_assert_msg((double)h_counted >= lo && (double)h_counted <= hi,
		    "%d signals account for %" PRIu64 " cycles in %" PRIu64
		    " ns (%" PRIu64 " ns in the handler)",
		    n, h_counted, ns, hns);
	}
}

/* Rebinding in the handler: a signal every 2 ms of user-mode cycles. */
START_TEST(overflow_rebinding_in_handler)
{
	rebind = 1;
	rebind_preset = preset_after_ms(2);
	h_period = (uint64_t)cycles_for_ns(2e6);
	bind_v1("pic0=@C,pic1=@I", rebind_preset, 0, CPC_BIND_EMT_OVF);
	uint64_t ns = spin_slices(40);
	check_signal_count(sig_count, ns, h_ns, 2, 0);
	CHECK_NO_BAD();
	/* Spinning is where the PC was, nearly always. */
	ck_assert_msg(sig_in_spin * 10 >= (sig_count - sig_late) * 8,
	    "%d of %d signals delivered at once in the spin loop",
	    (int)sig_in_spin, (int)(sig_count - sig_late));
	/* The overflowed counter had passed 2^64. */
	ck_assert_uint_lt(in_handler.ce_pic[0], UINT64_MAX / 2);
	printf("overflow: %d signals in %" PRIu64 " ns, %d in the spin loop\n",
	    (int)sig_count, ns, (int)sig_in_spin);
}
END_TEST

START_TEST(overflow_freezes_both_counters)
{
	cpc_event_t a, b;
	bind_v1("pic0=@C,pic1=@I", preset_after_ms(2), 0, CPC_BIND_EMT_OVF);
	for (int i = 0; i < 200 && sig_count == 0; i++)
		spin_slices(1);
	spin_slices(5);
	ck_assert_int_eq(sig_count, 1);
	CHECK_NO_BAD();
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	ck_assert_uint_eq(a.ce_pic[0], in_handler.ce_pic[0]);
	ck_assert_uint_eq(a.ce_pic[1], in_handler.ce_pic[1]);
	ck_assert_uint_gt(a.ce_pic[1], 0);
	spin_slices(10);
	ck_assert_int_eq(cpc_take_sample(&b), 0);
	ck_assert_uint_eq(b.ce_pic[0], a.ce_pic[0]);
	ck_assert_uint_eq(b.ce_pic[1], a.ce_pic[1]);
	ck_assert_int_eq(sig_count, 1);
}
END_TEST

/* cpc_set_restart (with a new preset) from the handler: repeated signals. */
START_TEST(overflow_set_restart)
{
	h_cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(h_cpc);
	h_set = cpc_set_create(h_cpc);
	rebind_preset = preset_after_ms(2);
	ck_assert_int_eq(cpc_set_add_request(h_cpc, h_set, v2_cyc_name(),
			     preset_after_ms(1), CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT,
			     0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(h_cpc, h_set, v2_ins_name(), 0,
			     CPC_COUNT_USER, 0, NULL), 1);
	h_buf = cpc_buf_create(h_cpc, h_set);
	restart = 1;
	h_period = (uint64_t)cycles_for_ns(2e6);
	ck_assert_int_eq(cpc_bind_curlwp(h_cpc, h_set, 0), 0);
	uint64_t ns = spin_slices(30);
	/* The first period was 1 ms, the others 2 ms. */
	h_counted -= (uint64_t)cycles_for_ns(1e6);
	/* The first overflow comes after 1 ms, then every 2 ms. */
	check_signal_count(sig_count, ns, h_ns, 2, 1);
	CHECK_NO_BAD();
	ck_assert_uint_lt(h_vals[0], UINT64_MAX / 2);
	h_cpc = NULL;
}
END_TEST

/*
 * The int bits choose the signalling counter: counter 0 (instructions)
 * starts 100 events short of 2^64 and passes it at once, counter 1
 * (cycles) some milliseconds later.  With int1 only counter 1 signals:
 * the one signal comes after counter 1 wrapped.  Without int bits
 * counter 0 signals first, while counter 1 is still far from 2^64.
 */
START_TEST(int_bit_chooses_the_counter)
{
	bind_v1("pic0=@I,pic1=@C,int1", UINT64_MAX - 99, preset_after_ms(10),
	    CPC_BIND_EMT_OVF);
	for (int i = 0; i < 200 && sig_count == 0; i++)
		spin_slices(1);
	ck_assert_int_eq(sig_count, 1);
	CHECK_NO_BAD();
	spin_slices(5);
	ck_assert_int_eq(sig_count, 1);	/* frozen after it */
	ck_assert_msg(in_handler.ce_pic[1] < UINT64_MAX / 2,
	    "pic1 %" PRIu64 " at the signal: not the overflowing counter",
	    in_handler.ce_pic[1]);
	ck_assert_uint_lt(in_handler.ce_pic[0], UINT64_MAX / 2);
	cpc_rele();

	sig_count = 0;
	bind_v1("pic0=@I,pic1=@C", UINT64_MAX - 99, preset_after_ms(200),
	    CPC_BIND_EMT_OVF);
	for (int i = 0; i < 50 && sig_count == 0; i++)
		spin_slices(1);
	ck_assert_int_eq(sig_count, 1);
	CHECK_NO_BAD();
	ck_assert_msg(in_handler.ce_pic[1] > UINT64_MAX / 2,
	    "pic1 %" PRIu64 " wrapped before counter 0 signalled",
	    in_handler.ce_pic[1]);
	ck_assert_uint_lt(in_handler.ce_pic[0], UINT64_MAX / 2);
}
END_TEST

/* ------------------------------------------------------------ inheritance */

static __thread int inh_signals, inh_bad;
static __thread pid_t inh_tid;
static __thread uint64_t inh_hns;

static void inh_emt_handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t s;
	int saved = errno;
	uint64_t t0 = thread_cpu_ns();
	int initial = inh_tid == 0;
	(void)uc;
	if (initial)
		inh_tid = gettid();
	inh_signals++;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF || gettid() != inh_tid ||
	    cpc_take_sample(&s) != 0) {
		inh_bad++;
		errno = saved;
		return;
	}
	/* The inherited context: frozen at UINT64_MAX. */
	if (initial && s.ce_pic[0] != UINT64_MAX)
		inh_bad++;
	s.ce_pic[0] = preset_after_ms(2);
	s.ce_pic[1] = 0;
	if (cpc_bind_event(&s, CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT) != 0)
		inh_bad++;
	inh_hns += thread_cpu_ns() - t0;
	errno = saved;
}

struct inh_emt {
	int signals, bad, first;
	uint64_t ns, hns;
};

static void *inh_emt_worker(void *arg)
{
	struct inh_emt *r = arg;
	r->ns = spin_slices(40);
	/* Its first SIGEMT was the inherited one (the handler checks). */
	r->first = inh_signals >= 1 && inh_tid == gettid();
	r->signals = inh_signals;
	r->bad = inh_bad;
	r->hns = inh_hns;
	return NULL;
}

START_TEST(overflow_and_inheritance)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = inh_emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	inh_tid = gettid();
	bind_v1("pic0=@C,pic1=@I,int0", preset_after_ms(2), 0,
	    CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT);
	struct inh_emt r[2];
	pthread_t t[2];
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, inh_emt_worker, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		ck_assert_msg(r[i].first, "thread %d: no inherited SIGEMT", i);
		ck_assert_msg(r[i].bad == 0, "thread %d: %d bad signals", i, r[i].bad);
		/* One inherited, then one per 2 ms. */
		check_signal_count(r[i].signals, r[i].ns, r[i].hns, 2, 1);
	}
}
END_TEST

int main(void)
{
	hw_require("test_hw_overflow");
	(void)hw_iters_per_ms();
	Suite *s = suite_create("hw_overflow");
	TCase *ovf = tcase_create("overflow");
	tcase_add_checked_fixture(ovf, ovf_setup, hwc_teardown);
	tcase_set_timeout(ovf, 120);
	tcase_add_test(ovf, overflow_rebinding_in_handler);
	tcase_add_test(ovf, overflow_freezes_both_counters);
	tcase_add_test(ovf, overflow_set_restart);
	tcase_add_test(ovf, int_bit_chooses_the_counter);
	tcase_add_test(ovf, overflow_and_inheritance);
	suite_add_tcase(s, ovf);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
