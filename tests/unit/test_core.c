/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the library's core (libcpc/core/) against a fake backend
 * (fake_backend.c): rebinding in place, freezing on overflow, duplicate
 * and stale overflow notifications, the bookkeeping of inheritance, and
 * every release path; also the processor and process contexts.  No
 * kernel support is needed and the whole suite runs in milliseconds.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcpc.h"
#include "core_fixture.h"
#include "cpuctx.h"
#include "cpuinfo.h"
#include "error.h"
#include "pctxctx.h"

/* Two counting requests; the first notifies overflow if emt. */
static struct cpc_reqset make_set(uint64_t config0, uint64_t p0, uint64_t p1,
    int emt)
{
	return core_set(config0, p0, p1, emt ? CPC_OVF_NOTIFY_EMT : 0, 0);
}

static void expect_counts(uint64_t v0, uint64_t v1)
{
	uint64_t v[2], tsc;
	ck_assert_int_eq(__cpc_lwp_sample(NULL, v, 2, &tsc), 0);
	ck_assert_uint_eq(v[0], v0);
	ck_assert_uint_eq(v[1], v1);
}

/* ------------------------------------------------------------ binding */

START_TEST(bind_sample_release)
{
	struct cpc_reqset s = make_set(3, 10, 20, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	ck_assert_int_eq(fake.binds, 1);
	ck_assert_int_eq(__cpc_lwp_is_bound(), 1);
	ck_assert_ptr_eq(__cpc_lwp_owner(), TAG);
	fake_events[0] = 5;
	fake_events[1] = 7;
	expect_counts(15, 27);
	/* Sampling as the binding's owner, and as another: refused. */
	uint64_t w[2];
	static const char other;
	ck_assert_int_eq(__cpc_lwp_sample(TAG, w, 2, NULL), 0);
	ck_assert_uint_eq(w[0], 15);
	ck_assert_int_eq(__cpc_lwp_sample(&other, w, 2, NULL), -EINVAL);
	ck_assert_int_eq(__cpc_lwp_release(), 0);
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_int_eq(__cpc_lwp_is_bound(), 0);
	ck_assert_ptr_null(__cpc_lwp_owner());
	uint64_t v[2];
	ck_assert_int_eq(__cpc_lwp_sample(NULL, v, 2, NULL), -EINVAL);
	ck_assert_int_eq(__cpc_lwp_release(), -EINVAL);
	ck_assert_int_eq(fake.releases, 1);
}
END_TEST

START_TEST(rebind_same_events_in_place)
{
	struct cpc_reqset s = make_set(3, 10, 20, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_events[0] = 100;
	s.req[0].preset = 1000;
	s.req[1].preset = 2000;
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	/* Rearmed, neither released nor opened again. */
	ck_assert_int_eq(fake.rearms, 1);
	ck_assert_int_eq(fake.binds, 1);
	ck_assert_int_eq(fake.releases, 0);
	fake_events[0] = 104;
	expect_counts(1004, 2000);
}
END_TEST

START_TEST(rebind_other_events_reopens)
{
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	struct cpc_reqset t = make_set(4, 0, 0, 0);
	ck_assert_int_eq(bind_set(&t, 0, NULL), 0);
	ck_assert_int_eq(fake.rearms, 0);
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_int_eq(fake.binds, 2);
	ck_assert_uint_eq(fake.last_set.req[0].sel.config, 4);
}
END_TEST

START_TEST(rebind_falls_back_when_rearm_refuses)
{
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_rearm_error = -EAGAIN;
	s.req[0].preset = 9;
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	ck_assert_int_eq(fake.rearms, 1);
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_int_eq(fake.binds, 2);
	expect_counts(9, 0);
}
END_TEST

START_TEST(failed_bind_leaves_unbound)
{
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	struct cpc_reqset t = make_set(4, 0, 0, 0);
	fake_bind_error = -ENOENT;
	fake_bind_bad = 1;
	int bad = -5;
	const char *why = NULL;
	ck_assert_int_eq(__cpc_lwp_bind(&t, 0, NULL, TAG, &bad, &why),
	    -ENOENT);
	ck_assert_int_eq(bad, 1);
	ck_assert_ptr_null(why);
	ck_assert_int_eq(__cpc_lwp_is_bound(), 0);
	ck_assert_ptr_null(__cpc_lwp_owner());
	/* The old counters went; nothing is left to release. */
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_int_eq(__cpc_lwp_release(), -EINVAL);
	ck_assert_int_eq(fake.releases, 1);
}
END_TEST

START_TEST(no_backend)
{
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	int bad;
	const char *why = NULL;
	fake_chosen = NULL;
	ck_assert_int_eq(__cpc_lwp_bind(&s, 0, NULL, TAG, &bad, &why), -ENXIO);
	ck_assert_str_eq(why, "no backend (fake)");
	ck_assert_int_eq(fake.binds, 0);
	why = NULL;
	ck_assert_int_eq(__cpc_lwp_probe(&why), -ENXIO);
	ck_assert_ptr_nonnull(why);
	fake_chosen = &fake_perf_like;
	ck_assert_int_eq(__cpc_lwp_probe(&why), 0);
	ck_assert_int_eq(fake.probes, 1);
}
END_TEST

START_TEST(presets_and_restart)
{
	struct cpc_reqset s = make_set(3, 10, 20, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_events[0] = 50;
	ck_assert_int_eq(__cpc_lwp_set_preset(0, 500), 0);
	ck_assert_int_eq(__cpc_lwp_set_preset(2, 1), -EINVAL);
	expect_counts(60, 20);	/* the preset waits for the restart */
	ck_assert_int_eq(__cpc_lwp_restart(), 0);
	ck_assert_int_eq(fake.rearms, 1);
	ck_assert_uint_eq(fake.last_set.req[0].preset, 500);
	expect_counts(500, 20);
}
END_TEST

START_TEST(disable_and_enable)
{
	struct cpc_reqset s = make_set(3, 10, 20, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_events[0] = 5;
	ck_assert_int_eq(__cpc_lwp_enable(0), 0);
	ck_assert_int_eq(fake.releases, 1);
	fake_events[0] = 500;	/* not counted while stopped */
	expect_counts(15, 20);
	ck_assert_int_eq(__cpc_lwp_enable(0), -EINVAL);
	ck_assert_int_eq(__cpc_lwp_enable(1), 0);
	ck_assert_int_eq(fake.binds, 2);
	ck_assert_uint_eq(fake.last_set.req[0].preset, 15);
	fake_events[0] = 501;
	expect_counts(16, 20);
	ck_assert_int_eq(__cpc_lwp_enable(1), -EINVAL);
}
END_TEST

/* ------------------------------------------------------------ overflow */

START_TEST(overflow_freezes_once)
{
	struct cpc_reqset s = make_set(3, 0, 0, 1);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_events[0] = 40;
	siginfo_t si = fake_notification(FAKE_OVF_FD);
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_NEW);
	ck_assert_int_eq(fake.freezes, 1);
	/* Solaris posts one SIGEMT per freeze: the rest are duplicates. */
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_DUPLICATE);
	ck_assert_int_eq(fake.freezes, 1);
	fake_events[0] = 90;
	expect_counts(40, 0);	/* frozen */
	/* Enabling unfreezes in place, from the counts at the freeze. */
	ck_assert_int_eq(__cpc_lwp_enable(1), 0);
	ck_assert_int_eq(fake.rearms, 1);
	ck_assert_uint_eq(fake.last_set.req[0].preset, 40);
	fake_events[0] = 95;
	expect_counts(45, 0);
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_NEW);
	/* A rebind clears the freeze too. */
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_NEW);
	ck_assert_int_eq(fake.freezes, 3);
}
END_TEST

START_TEST(overflow_not_ours)
{
	siginfo_t si = fake_notification(FAKE_OVF_FD);
	/* Never bound: no counters of ours. */
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_NOT_OURS);
	struct cpc_reqset s = make_set(3, 0, 0, 1);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	/* Sent by a process (si_code <= 0): the application's own. */
	siginfo_t user = si;
	user.si_code = SI_QUEUE;
	ck_assert_int_eq(__cpc_lwp_overflow(&user), CPC_OVF_NOT_OURS);
	/* The library's own signal for a new LWP is passed on. */
	siginfo_t mark;
	memset(&mark, 0, sizeof(mark));
	mark.si_code = EMT_CPCOVF;
	mark.si_errno = 0x43504321;
	ck_assert_int_eq(__cpc_lwp_overflow(&mark), CPC_OVF_NOT_OURS);
	ck_assert_int_eq(fake.freezes, 0);
}
END_TEST

START_TEST(overflow_stale_after_release)
{
	struct cpc_reqset s = make_set(3, 0, 0, 1);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	ck_assert_int_eq(__cpc_lwp_release(), 0);
	/* Pending while the counters were closed: dropped. */
	siginfo_t si = fake_notification(FAKE_OVF_FD);
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_STALE);
	siginfo_t other = fake_notification(17);
	ck_assert_int_eq(__cpc_lwp_overflow(&other), CPC_OVF_STALE);
	ck_assert_int_eq(fake.freezes, 0);
}
END_TEST

START_TEST(overflow_kernel_sent_is_not_stale)
{
	/* The context's own backend decides: the module sends the Solaris
	 * signal itself, so an unknown kernel notification is not stale. */
	fake_chosen = &fake_kmod_like;
	struct cpc_reqset s = make_set(3, 0, 0, 1);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_chosen = &fake_perf_like;	/* the context keeps its own */
	siginfo_t other = fake_notification(17);
	ck_assert_int_eq(__cpc_lwp_overflow(&other), CPC_OVF_NOT_OURS);
	ck_assert_int_eq(__cpc_lwp_release(), 0);
	ck_assert_int_eq(__cpc_lwp_overflow(&other), CPC_OVF_NOT_OURS);
}
END_TEST

START_TEST(backend_frozen_is_honoured)
{
	fake_chosen = &fake_kmod_like;
	struct cpc_reqset s = make_set(3, 10, 0, 1);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_events[0] = 30;
	/* The module froze the counters itself and sent its own SIGEMT. */
	fake_kernel_frozen = 1;
	ck_assert_int_eq(__cpc_lwp_enable(1), 0);
	/* Started again (no rearm here) from the counts at the freeze. */
	ck_assert_int_eq(fake.binds, 2);
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_uint_eq(fake.last_set.req[0].preset, 40);
	ck_assert_int_eq(fake_kernel_frozen, 0);
	ck_assert_int_eq(__cpc_lwp_enable(1), -EINVAL);
}
END_TEST

static int during_bind_result = -1;

static void notify_during_bind(void)
{
	siginfo_t si = fake_notification(FAKE_OVF_FD);
	during_bind_result = __cpc_lwp_overflow(&si);
}

START_TEST(overflow_stale_during_rebind)
{
	struct cpc_reqset s = make_set(3, 0, 0, 1);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_during_bind = notify_during_bind;
	/* Same events, rearmed in place: the counters are live meanwhile. */
	s.req[0].preset = 5;
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	ck_assert_int_eq(fake.rearms, 1);
	ck_assert_int_eq(during_bind_result, CPC_OVF_STALE);
	/*
	 * Other events, opened again: once the old counters are closed, a
	 * notification during the change is the new counters' (a small preset
	 * on hardware overflows before the bind returns).  Not handled
	 * half-way through the change, but kept and raised again, to this
	 * thread, when the change ends.
	 */
	sigset_t emt, old;
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &emt, &old), 0);
	during_bind_result = -1;
	struct cpc_reqset t = make_set(4, 0, 0, 1);
	ck_assert_int_eq(bind_set(&t, 0, NULL), 0);
	ck_assert_int_eq(fake.binds, 2);
	ck_assert_int_eq(during_bind_result, CPC_OVF_STALE);
	ck_assert_int_eq(fake.freezes, 0);
	fake_during_bind = NULL;
	siginfo_t again;
	struct timespec none = { 0, 0 };
	ck_assert_int_eq(sigtimedwait(&emt, &again, &none), SIGEMT);
	ck_assert_int_eq(again.si_code, POLL_IN);
	ck_assert_int_eq(again.si_fd, FAKE_OVF_FD);
	ck_assert_int_eq(__cpc_lwp_overflow(&again), CPC_OVF_NEW);
	/* Only once. */
	ck_assert_int_eq(sigtimedwait(&emt, &again, &none), -1);
	ck_assert_int_eq(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);
	ck_assert_int_eq(__cpc_lwp_enable(1), 0);	/* unfreeze */
	/* After the change, the new binding's notification is new. */
	siginfo_t si = fake_notification(FAKE_OVF_FD);
	ck_assert_int_eq(__cpc_lwp_overflow(&si), CPC_OVF_NEW);
}
END_TEST

/* ---------------------------------------------------------- inheritance */

START_TEST(group_kept_across_rebinds)
{
	struct cpc_reqset s = make_set(3, 10, 20, 0);
	ck_assert_int_eq(__cpc_lwp_inherits(), 0);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	ck_assert_int_eq(__cpc_lwp_inherits(), 1);
	ck_assert_int_eq(fake.group_opens, 1);
	fake_events[0] = 8;
	uint64_t v[2], tsc;
	ck_assert_int_eq(__cpc_lwp_group_sample(v, 2, &tsc), 0);
	ck_assert_uint_eq(v[0], 8);	/* sums: no presets */
	/* New presets, same events: the aggregate stays. */
	s.req[0].preset = 77;
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	ck_assert_int_eq(fake.group_opens, 1);
	ck_assert_int_eq(fake.group_closes, 0);
	/* Other events: a new aggregate. */
	struct cpc_reqset t = make_set(4, 0, 0, 0);
	ck_assert_int_eq(bind_set(&t, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	ck_assert_int_eq(fake.group_closes, 1);
	ck_assert_int_eq(fake.group_opens, 2);
	/* Without inheritance: none. */
	ck_assert_int_eq(bind_set(&t, 0, NULL), 0);
	ck_assert_int_eq(fake.group_closes, 2);
	ck_assert_int_eq(__cpc_lwp_group_sample(v, 2, &tsc), -EINVAL);
	ck_assert_int_eq(__cpc_lwp_inherits(), 0);
}
END_TEST

START_TEST(inheritance_needs_its_description)
{
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, NULL), -EINVAL);
	ck_assert_int_eq(fake.binds, 0);
}
END_TEST

START_TEST(inheritance_snapshot)
{
	struct cpc_inheritance in;
	ck_assert_int_eq(__cpc_lwp_inheritance(&in), 0);
	struct cpc_reqset s = make_set(3, 10, 20, 1);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	ck_assert_int_eq(__cpc_lwp_inheritance(&in), 1);
	ck_assert_uint_eq(in.set.nreqs, 2);
	ck_assert_uint_eq(in.set.req[0].preset, 0);	/* zero_presets */
	ck_assert_uint_eq(in.set.req[1].preset, 0);
	ck_assert_ptr_eq(in.owner, TAG);
	ck_assert_uint_eq(in.inh.tag[0], 0x5c);
}
END_TEST

struct adopt_result {
	int bound, frozen_flag, emt_seen, classified;
	uint64_t v0, v1;
	void *pc;
};

/*
 * The new LWP starts with SIGEMT blocked (set by its creator), so that it
 * takes the signal __cpc_lwp_adopt queues with sigtimedwait: the same on
 * every kernel and under valgrind.
 */
static void *adopting_thread(void *arg)
{
	const struct cpc_inheritance *in = arg;
	static struct adopt_result r;
	sigset_t emt;
	siginfo_t si;
	struct timespec limit = { 10, 0 };

	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	__cpc_lwp_adopt(in, (void *)adopting_thread);
	r.bound = __cpc_lwp_is_bound();
	r.frozen_flag = (fake.last_bflags & CPC_BACKEND_START_FROZEN) != 0;
	memset(&si, 0, sizeof(si));
	r.emt_seen = sigtimedwait(&emt, &si, &limit) == SIGEMT;
	r.pc = si.si_addr;
	r.classified = __cpc_lwp_overflow(&si);
	fake_events[0] += 1000;	/* frozen: not counted */
	uint64_t v[2];
	__cpc_lwp_sample(NULL, v, 2, NULL);
	r.v0 = v[0];
	r.v1 = v[1];
	return &r;
}

START_TEST(new_lwp_adopts_frozen_with_sigemt)
{
	sigset_t emt, old;
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);

	struct cpc_reqset s = make_set(3, 10, 20, 1);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	struct cpc_inheritance in;
	ck_assert_int_eq(__cpc_lwp_inheritance(&in), 1);
	int releases = fake.releases;

	pthread_t t;
	struct adopt_result *r;
	pthread_sigmask(SIG_BLOCK, &emt, &old);
	ck_assert_int_eq(pthread_create(&t, NULL, adopting_thread, &in), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ck_assert_int_eq(pthread_join(t, (void **)&r), 0);
	ck_assert_int_eq(r->bound, 1);
	ck_assert_int_eq(r->frozen_flag, 1);
	ck_assert_int_eq(adopted, 1);
	ck_assert_uint_eq(adopted_tag, 0x5c);
	ck_assert_int_eq(r->emt_seen, 1);
	ck_assert_ptr_eq(r->pc, (void *)adopting_thread);
	ck_assert_int_eq(r->classified, CPC_OVF_NOT_OURS);
	/* v1: every request starts at UINT64_MAX when one notifies. */
	ck_assert_uint_eq(r->v0, UINT64_MAX);
	ck_assert_uint_eq(r->v1, UINT64_MAX);
	/* The exiting thread gave its counters back. */
	ck_assert_int_eq(fake.releases, releases + 1);
	/* The member does not own the group: one aggregate only. */
	ck_assert_int_eq(fake.group_opens, 1);
}
END_TEST

static char reported[256], noted[256];

static void capture(const char *fn, const char *fmt, va_list ap)
{
	int n = snprintf(reported, sizeof(reported), "%s: ", fn);
	vsnprintf(reported + n, sizeof(reported) - (size_t)n, fmt, ap);
}

/* Adopts; keeps the new LWP's note (cpc_linux_errnote(NULL)). */
static void *failing_adopter(void *arg)
{
	__cpc_lwp_adopt(arg, NULL);
	const char *note = __cpc_take_note();
	snprintf(noted, sizeof(noted), "%s", note != NULL ? note : "");
	return (void *)(long)__cpc_lwp_is_bound();
}

/* Silently, as Solaris: the note explains, the error function hears nothing. */
START_TEST(failed_adoption_is_reported)
{
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	struct cpc_inheritance in;
	ck_assert_int_eq(__cpc_lwp_inheritance(&in), 1);
	cpc_seterrfn(capture);
	fake_bind_error = -EBUSY;
	pthread_t t;
	void *bound;
	ck_assert_int_eq(pthread_create(&t, NULL, failing_adopter, &in), 0);
	ck_assert_int_eq(pthread_join(t, &bound), 0);
	cpc_seterrfn(NULL);
	ck_assert_ptr_null(bound);
	ck_assert_int_eq(adopted, 0);
	ck_assert_str_eq(reported, "");
	ck_assert_ptr_nonnull(strstr(noted, "bind_event: new LWP "));
	ck_assert_ptr_nonnull(strstr(noted, "could not inherit"));
}
END_TEST

/* ------------------------------------------------------------ releases */

static void *bound_thread(void *arg)
{
	struct cpc_reqset s = make_set(5, 0, 0, 0);
	pthread_barrier_t *b = arg;
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	pthread_barrier_wait(b);	/* bound */
	pthread_barrier_wait(b);	/* the parent forked */
	return NULL;
}

START_TEST(fork_child_releases_every_thread)
{
	pthread_barrier_t b;
	pthread_t t;
	pthread_barrier_init(&b, NULL, 2);
	ck_assert_int_eq(pthread_create(&t, NULL, bound_thread, &b), 0);
	pthread_barrier_wait(&b);
	struct cpc_reqset s = make_set(3, 0, 0, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	int before = fake.releases;
	pid_t pid = fork();
	if (pid == 0) {
		/* Both the forking thread's and the other's copies went. */
		int ok = fake.releases == before + 2 && !__cpc_lwp_is_bound();
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_ge(pid, 0);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The parent keeps its counters. */
	ck_assert_int_eq(fake.releases, before);
	ck_assert_int_eq(__cpc_lwp_is_bound(), 1);
	pthread_barrier_wait(&b);
	pthread_join(t, NULL);
	ck_assert_int_eq(fake.releases, before + 1);	/* thread exit */
}
END_TEST

START_TEST(processor_context)
{
	struct cpc_cpuctx c;
	memset(&c, 0, sizeof(c));
	struct cpc_reqset s = make_set(3, 10, 20, 1);
	int bad;
	ck_assert_int_eq(__cpc_cpu_open(&c, &s, 1, &bad), 0);
	ck_assert_int_eq(fake.cpu_opens, 1);
	ck_assert_int_eq(fake.last_target, 1);
	/* No overflow notification on a processor. */
	ck_assert_uint_eq(fake.last_set.req[0].flags & CPC_OVF_NOTIFY_EMT, 0);
	fake_events[1] = 3;
	uint64_t v[2], tick;
	ck_assert_int_eq(__cpc_cpu_sample(&c, v, 2, &tick), 0);
	ck_assert_uint_eq(v[0], 10);
	ck_assert_uint_eq(v[1], 23);
	__cpc_cpu_close(&c);
	__cpc_cpu_close(&c);
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_int_eq(__cpc_cpu_sample(&c, v, 2, &tick), -EINVAL);
}
END_TEST

START_TEST(process_context)
{
	struct cpc_pctxctx c;
	memset(&c, 0, sizeof(c));
	struct cpc_reqset s = make_set(3, 0, 0, 1);
	int bad;
	ck_assert_int_eq(__cpc_pctx_open(&c, &s, 4321, &bad), 0);
	ck_assert_int_eq(fake.task_opens, 1);
	ck_assert_int_eq(fake.last_target, 4321);
	ck_assert_uint_eq(fake.last_set.req[0].flags & CPC_OVF_NOTIFY_EMT, 0);
	fake_events[0] = 12;
	uint64_t v[2], tick;
	ck_assert_int_eq(__cpc_pctx_read(&c, v, 2, &tick), 0);
	ck_assert_uint_eq(v[0], 12);
	__cpc_pctx_close(&c);
	__cpc_pctx_close(&c);
	ck_assert_int_eq(fake.releases, 1);
	ck_assert_int_eq(__cpc_pctx_read(&c, v, 2, &tick), -EINVAL);
	/* Without libpctx loaded, no context can be named. */
	pid_t tid;
	ck_assert_int_eq(__cpc_pctx_target(NULL, 1, &tid), -ENOTSUP);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("lwp");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_add_test(tc, bind_sample_release);
	tcase_add_test(tc, rebind_same_events_in_place);
	tcase_add_test(tc, rebind_other_events_reopens);
	tcase_add_test(tc, rebind_falls_back_when_rearm_refuses);
	tcase_add_test(tc, failed_bind_leaves_unbound);
	tcase_add_test(tc, no_backend);
	tcase_add_test(tc, presets_and_restart);
	tcase_add_test(tc, disable_and_enable);
	suite_add_tcase(s, tc);

	tc = tcase_create("overflow");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_add_test(tc, overflow_freezes_once);
	tcase_add_test(tc, overflow_not_ours);
	tcase_add_test(tc, overflow_stale_after_release);
	tcase_add_test(tc, overflow_kernel_sent_is_not_stale);
	tcase_add_test(tc, backend_frozen_is_honoured);
	tcase_add_test(tc, overflow_stale_during_rebind);
	suite_add_tcase(s, tc);

	tc = tcase_create("inheritance");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_add_test(tc, group_kept_across_rebinds);
	tcase_add_test(tc, inheritance_needs_its_description);
	tcase_add_test(tc, inheritance_snapshot);
	tcase_add_test(tc, new_lwp_adopts_frozen_with_sigemt);
	tcase_add_test(tc, failed_adoption_is_reported);
	suite_add_tcase(s, tc);

	tc = tcase_create("release");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_add_test(tc, fork_child_releases_every_thread);
	tcase_add_test(tc, processor_context);
	tcase_add_test(tc, process_context);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_core_suite(suite());
}
