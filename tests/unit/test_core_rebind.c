/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the core (libcpc/core/lwpctx.c) against the fake backend:
 * what a rebind in place, cpc_set_restart and cpc_enable keep and what
 * they reset (the on-CPU ticks carried across a restart, a new bind's
 * ticks from zero, a restart while stopped), and the details of
 * inheritance a new LWP sees (which requests start at UINT64_MAX in each
 * interface, what its SIGEMT carries, the release of an inherited
 * context).  Exact values: the fake's on-CPU time is set by hand.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libcpc.h"
#include "core_fixture.h"
#include "cpuinfo.h"

#define MS 1000000ULL

/* Two requests; the second notifies overflow if emt. */
static struct cpc_reqset make_set(uint64_t p0, uint64_t p1, int emt)
{
	return core_set(3, p0, p1, 0, emt ? CPC_OVF_NOTIFY_EMT : 0);
}

static uint64_t ticks_now(void)
{
	uint64_t v[2], tsc = 12345;
	ck_assert_int_eq(__cpc_lwp_sample(NULL, v, 2, &tsc), 0);
	return tsc;
}

/* ------------------------------------------------- ticks across changes */

START_TEST(restart_carries_the_ticks_once)
{
	struct cpc_reqset s = make_set(0, 0, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_ontime_ns = 40 * MS;
	uint64_t t40 = ticks_now();
	ck_assert_uint_eq(t40, __cpc_ns_to_tsc(40 * MS));
	ck_assert_uint_gt(t40, 0);
	/* In place: the ticks go on from the bind, not from the restart. */
	ck_assert_int_eq(__cpc_lwp_restart(), 0);
	ck_assert_int_eq(fake.rearms, 1);
	ck_assert_uint_eq(ticks_now(), t40);
	fake_ontime_ns += 10 * MS;
	ck_assert_uint_eq(ticks_now(), t40 + __cpc_ns_to_tsc(10 * MS));
	/* A second restart carries what the first carried once, not twice. */
	uint64_t t50 = ticks_now();
	ck_assert_int_eq(__cpc_lwp_restart(), 0);
	ck_assert_uint_eq(ticks_now(), t50);
	/* The same again when the backend cannot rearm in place. */
	fake_rearm_error = -EAGAIN;
	ck_assert_int_eq(__cpc_lwp_restart(), 0);
	ck_assert_int_eq(fake.binds, 2);
	ck_assert_uint_eq(ticks_now(), t50);
}
END_TEST

START_TEST(rebind_counts_ticks_from_zero)
{
	struct cpc_reqset s = make_set(0, 0, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_ontime_ns = 30 * MS;
	ck_assert_int_eq(__cpc_lwp_restart(), 0);
	ck_assert_uint_gt(ticks_now(), 0);
	/* A new bind (in place or not) starts its ticks at zero. */
	s.req[0].preset = 5;
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	ck_assert_int_eq(fake.rearms, 2);
	ck_assert_uint_eq(ticks_now(), 0);
	fake_ontime_ns += 2 * MS;
	ck_assert_uint_eq(ticks_now(), __cpc_ns_to_tsc(2 * MS));
}
END_TEST

START_TEST(restart_while_stopped_keeps_the_stopped_ticks)
{
	struct cpc_reqset s = make_set(10, 20, 0);
	ck_assert_int_eq(bind_set(&s, 0, NULL), 0);
	fake_ontime_ns = 25 * MS;
	ck_assert_int_eq(__cpc_lwp_enable(0), 0);
	uint64_t stopped = ticks_now();
	ck_assert_uint_eq(stopped, __cpc_ns_to_tsc(25 * MS));
	fake_ontime_ns += 100 * MS;	/* not counted while stopped */
	ck_assert_uint_eq(ticks_now(), stopped);
	/* The restart starts counting again, from the presets and from the
	 * ticks at the stop. */
	ck_assert_int_eq(__cpc_lwp_restart(), 0);
	ck_assert_uint_eq(ticks_now(), stopped);
	uint64_t v[2];
	ck_assert_int_eq(__cpc_lwp_sample(NULL, v, 2, NULL), 0);
	ck_assert_uint_eq(v[0], 10);
	ck_assert_uint_eq(v[1], 20);
	/* cpc_enable after a disable: from the stopped ticks too. */
	fake_ontime_ns += 5 * MS;
	uint64_t t = ticks_now();
	ck_assert_int_eq(__cpc_lwp_enable(0), 0);
	fake_ontime_ns += 100 * MS;
	ck_assert_int_eq(__cpc_lwp_enable(1), 0);
	ck_assert_uint_eq(ticks_now(), t);
}
END_TEST

/* ---------------------------------------------------------- inheritance */

/* As version 2 binds: presets kept, only notifying requests at the max. */
static const struct cpc_inherit v2_like = {
	.zero_presets = 0,
	.all_start_at_max = 0,
	.aggregate = 0,
	.adopt = adopt_cb,
};

struct adopted_lwp {
	uint64_t v[2];
	siginfo_t si;
	int got_emt, bound_after_release, groups_after_rebind;
};

/* A new LWP adopts, takes its SIGEMT, then releases and binds again. */
static void *adopter(void *arg)
{
	const struct cpc_inheritance *in = arg;
	static struct adopted_lwp r;
	sigset_t emt;
	struct timespec limit = { 10, 0 };

	memset(&r, 0, sizeof(r));
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	__cpc_lwp_adopt(in, (void *)adopter);
	__cpc_lwp_sample(NULL, r.v, 2, NULL);
	r.got_emt = sigtimedwait(&emt, &r.si, &limit) == SIGEMT;
	/* Released, the LWP no longer belongs to the group: a bind with
	 * inheritance of its own makes it a group owner. */
	ck_assert_int_eq(__cpc_lwp_release(), 0);
	r.bound_after_release = __cpc_lwp_is_bound();
	int before = fake.group_opens;
	struct cpc_reqset s = make_set(0, 0, 0);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, &v1_like), 0);
	r.groups_after_rebind = fake.group_opens - before;
	ck_assert_int_eq(__cpc_lwp_release(), 0);
	return &r;
}

static struct adopted_lwp *run_adopter(const struct cpc_inherit *inh)
{
	sigset_t emt, old;
	struct cpc_inheritance in;
	pthread_t t;
	void *r;

	struct cpc_reqset s = make_set(10, UINT64_MAX - 99, 1);
	ck_assert_int_eq(bind_set(&s, CPC_BIND_LWP_INHERIT, inh), 0);
	ck_assert_int_eq(__cpc_lwp_inheritance(&in), 1);
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	pthread_sigmask(SIG_BLOCK, &emt, &old);
	ck_assert_int_eq(pthread_create(&t, NULL, adopter, &in), 0);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ck_assert_int_eq(pthread_join(t, &r), 0);
	return r;
}

START_TEST(v2_new_lwp_starts_only_notifying_at_max)
{
	struct adopted_lwp *r = run_adopter(&v2_like);
	/* Version 2: the set's own preset; the notifying one at the max. */
	ck_assert_uint_eq(r->v[0], 10);
	ck_assert_uint_eq(r->v[1], UINT64_MAX);
	ck_assert_int_eq(fake.last_bflags & CPC_BIND_LWP_INHERIT,
	    CPC_BIND_LWP_INHERIT);
}
END_TEST

START_TEST(v1_new_lwp_starts_all_at_max)
{
	struct adopted_lwp *r = run_adopter(&v1_like);
	ck_assert_uint_eq(r->v[0], UINT64_MAX);
	ck_assert_uint_eq(r->v[1], UINT64_MAX);
}
END_TEST

START_TEST(new_lwp_sigemt_is_a_solaris_overflow)
{
	struct adopted_lwp *r = run_adopter(&v2_like);
	ck_assert_int_eq(r->got_emt, 1);
	/* What an application's handler of the new LWP is given. */
	ck_assert_int_eq(r->si.si_signo, SIGEMT);
	ck_assert_int_eq(r->si.si_code, EMT_CPCOVF);
	ck_assert_ptr_eq(r->si.si_addr, (void *)adopter);
	ck_assert_int_eq(adopted, 1);
}
END_TEST

START_TEST(released_inherited_context_leaves_the_group)
{
	adopted = 0;
	struct adopted_lwp *r = run_adopter(&v1_like);
	ck_assert_int_eq(adopted, 1);
	ck_assert_int_eq(r->bound_after_release, 0);
	/* Its own inheriting bind opens its own aggregate. */
	ck_assert_int_eq(r->groups_after_rebind, 1);
}
END_TEST

/* ------------------------------------------------------- concurrent forks */

/*
 * Two threads fork at once, and a third binds: the bind must wait until
 * both forks are over, also when the first fork ends while the second is
 * still under way (else the second child may copy counters the binding
 * thread opened but has not recorded, which the child can never close).
 * The test's own fork handlers are registered before the library's (an
 * earlier constructor), so its prepare runs after the library's and its
 * parent handler before: the second fork is held there, inside the
 * library's fork window.
 */
static pthread_t slow_forker;
static atomic_int slow_in_fork, slow_release, bound_inside_fork;

static void hold_prepare(void)
{
	if (pthread_equal(pthread_self(), slow_forker)) {
		atomic_store(&slow_in_fork, 1);
		while (!atomic_load(&slow_release))
			usleep(1000);
	}
}

static void hold_parent(void)
{
	if (pthread_equal(pthread_self(), slow_forker))
		atomic_store(&slow_in_fork, 0);
}

__attribute__((constructor(101))) static void register_hold(void)
{
	pthread_atfork(hold_prepare, hold_parent, NULL);
}

static void note_bind(void)
{
	if (atomic_load(&slow_in_fork))
		atomic_store(&bound_inside_fork, 1);
}

static void *forker(void *arg)
{
	(void)arg;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	int status;
	waitpid(pid, &status, 0);
	return (void *)(long)(pid > 0);
}

static void *binder(void *arg)
{
	(void)arg;
	struct cpc_reqset s = make_set(0, 0, 0);
	return (void *)(long)(bind_set(&s, 0, NULL) == 0);
}

START_TEST(bind_waits_for_every_fork)
{
	pthread_t fast, b;
	void *ok;
	fake_during_bind = note_bind;
	ck_assert_int_eq(pthread_create(&slow_forker, NULL, forker, NULL), 0);
	while (!atomic_load(&slow_in_fork))
		usleep(1000);
	/* A second fork, begun and ended while the first is held. */
	ck_assert_int_eq(pthread_create(&fast, NULL, forker, NULL), 0);
	ck_assert_int_eq(pthread_join(fast, &ok), 0);
	ck_assert_ptr_nonnull(ok);
	/* A bind now must wait for the held fork: it gets 200 ms to come
	 * in wrongly (a correct library keeps it out however long). */
	ck_assert_int_eq(pthread_create(&b, NULL, binder, NULL), 0);
	usleep(200000);
	ck_assert_int_eq(fake.binds, 0);
	atomic_store(&slow_release, 1);
	ck_assert_int_eq(pthread_join(slow_forker, &ok), 0);
	ck_assert_ptr_nonnull(ok);
	ck_assert_int_eq(pthread_join(b, &ok), 0);
	ck_assert_ptr_nonnull(ok);
	ck_assert_int_eq(fake.binds, 1);
	ck_assert_int_eq(atomic_load(&bound_inside_fork), 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("core_rebind");
	TCase *tc = tcase_create("ticks");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_add_test(tc, restart_carries_the_ticks_once);
	tcase_add_test(tc, rebind_counts_ticks_from_zero);
	tcase_add_test(tc, restart_while_stopped_keeps_the_stopped_ticks);
	suite_add_tcase(s, tc);

	tc = tcase_create("inheritance");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_add_test(tc, v2_new_lwp_starts_only_notifying_at_max);
	tcase_add_test(tc, v1_new_lwp_starts_all_at_max);
	tcase_add_test(tc, new_lwp_sigemt_is_a_solaris_overflow);
	tcase_add_test(tc, released_inherited_context_leaves_the_group);
	suite_add_tcase(s, tc);

	tc = tcase_create("fork");
	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, bind_waits_for_every_fork);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_core_suite(suite());
}
