/* SPDX-License-Identifier: MIT */
/*
 * The version 2 interfaces against the real kernel: what a bound set's
 * counters start from and go on from: overflow with cpc_request_preset
 * and cpc_set_restart in the handler, presets reloaded by a restart,
 * cpc_enable and cpc_disable, and new LWPs inheriting the presets.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"
#include "v2_fixture.h"

/* Overflow with cpc_request_preset and cpc_set_restart in the handler. */
static cpc_set_t *ovf_set;
static cpc_buf_t *ovf_buf;
static volatile int ovf_count, ovf_bad;
static uint64_t ovf_other;

static void restart_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t v;
	(void)uc;
	ovf_count++;
	if (sig != SIGEMT || si->si_code != EMT_CPCOVF ||
	    cpc_set_sample(cpc, ovf_set, ovf_buf) != 0)
		ovf_bad++;
	cpc_buf_get(cpc, ovf_buf, 1, &v);
	if (v > 50)	/* the overflowed counter wrapped to a small value */
		ovf_bad++;
	cpc_buf_get(cpc, ovf_buf, 0, &ovf_other);
	if (cpc_request_preset(cpc, 1, UINT64_MAX - 999) != 0 ||
	    cpc_set_restart(cpc, ovf_set) != 0)
		ovf_bad++;
}

START_TEST(overflow_and_restart)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = restart_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	ovf_set = make_set("cs", "page-faults", UINT64_MAX - 999,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT);
	ovf_buf = cpc_buf_create(cpc, ovf_set);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, ovf_set, 0), 0);
	touch_fresh_pages(10000);
	ck_assert_int_eq(ovf_bad, 0);
	ck_assert_msg(ovf_count >= 9 && ovf_count <= 11, "%d overflows",
	    ovf_count);

	/* Errors without a binding. */
	ck_assert_int_eq(cpc_unbind(cpc, ovf_set), 0);
	ck_assert_int_eq(cpc_request_preset(cpc, 0, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_set_restart(cpc, ovf_set), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(restart_reloads_presets)
{
	cpc_set_t *set = make_set("page-faults", "page-faults", 1000000,
	    CPC_COUNT_USER);
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	uint64_t v0, v1;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	touch_fresh_pages(300);
	ck_assert_int_eq(cpc_request_preset(cpc, 0, 77), 0);
	ck_assert_int_eq(cpc_request_preset(cpc, 5, 77), -1);
	ck_assert_int_eq(cpc_set_restart(cpc, set), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	cpc_buf_get(cpc, b, 0, &v0);
	cpc_buf_get(cpc, b, 1, &v1);
	ck_assert_uint_ge(v0, 77);
	ck_assert_uint_lt(v0, 77 + 50);
	ck_assert_uint_ge(v1, 1000000);
	ck_assert_uint_lt(v1, 1000000 + 50);
}
END_TEST

static volatile int quiet_signals;

static void quiet_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	quiet_signals++;
}

START_TEST(enable_unfreezes_and_ticks_go_on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = quiet_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
	cpc_set_t *set = make_set("task-clock", "page-faults", UINT64_MAX - 99,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	uint64_t v0, v1;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	touch_fresh_pages(300);
	ck_assert_int_eq(quiet_signals, 1);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	touch_fresh_pages(100);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	cpc_buf_get(cpc, a, 1, &v0);
	cpc_buf_get(cpc, b, 1, &v1);
	ck_assert_uint_eq(v0, v1);	/* frozen */
	/* cpc_enable unfreezes: counting goes on from the frozen values. */
	ck_assert_int_eq(cpc_enable(cpc), 0);
	touch_fresh_pages(100);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	cpc_buf_get(cpc, b, 1, &v1);
	ck_assert_uint_ge(v1 - v0, 100);
	ck_assert_uint_ge(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
	/* A restart reloads the presets but the ticks run on from the bind. */
	burn_cpu_ns(5000000);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	ck_assert_int_eq(cpc_set_restart(cpc, set), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	ck_assert_uint_ge(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
	cpc_buf_get(cpc, b, 1, &v1);
	ck_assert_uint_ge(v1, UINT64_MAX - 99);
}
END_TEST

START_TEST(enable_and_disable)
{
	cpc_set_t *set = make_set("page-faults", "task-clock", 0, CPC_COUNT_USER);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	uint64_t v0, v1;
	ck_assert_int_eq(cpc_disable(cpc), -1);	/* nothing bound */
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_enable(cpc), -1);	/* already counting */
	touch_fresh_pages(200);
	ck_assert_int_eq(cpc_disable(cpc), 0);
	ck_assert_int_eq(cpc_disable(cpc), -1);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	touch_fresh_pages(500);
	burn_cpu_ns(5000000);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	cpc_buf_get(cpc, a, 0, &v0);
	cpc_buf_get(cpc, b, 0, &v1);
	ck_assert_uint_ge(v0, 200);
	ck_assert_uint_eq(v0, v1);
	cpc_buf_get(cpc, a, 1, &v0);
	cpc_buf_get(cpc, b, 1, &v1);
	ck_assert_uint_eq(v0, v1);
	ck_assert_int_eq(cpc_enable(cpc), 0);
	touch_fresh_pages(300);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	cpc_buf_get(cpc, a, 0, &v0);
	cpc_buf_get(cpc, b, 0, &v1);
	ck_assert_uint_ge(v1 - v0, 300);
	ck_assert_uint_lt(v1 - v0, 400);
}
END_TEST

/* Inheritance: new LWPs start from the set's presets. */
struct child {
	cpc_set_t *set;
	int ok;
	uint64_t first[2];
};

static void *child_thread(void *arg)
{
	struct child *c = arg;
	cpc_buf_t *b = cpc_buf_create(cpc, c->set);
	if (cpc_set_sample(cpc, c->set, b) == 0) {
		cpc_buf_get(cpc, b, 0, &c->first[0]);
		cpc_buf_get(cpc, b, 1, &c->first[1]);
		c->ok = 1;
	}
	cpc_buf_destroy(cpc, b);
	return NULL;
}

START_TEST(inheritance_from_presets)
{
	struct child c;
	pthread_t t;
	memset(&c, 0, sizeof(c));
	c.set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, c.set, "page-faults", 5000,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, c.set, "task-clock", 1000000000,
			     CPC_COUNT_USER, 0, NULL), 1);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, c.set, CPC_BIND_LWP_INHERIT), 0);
	touch_fresh_pages(2000);	/* the parent's, not the child's */
	ck_assert_int_eq(pthread_create(&t, NULL, child_thread, &c), 0);
	pthread_join(t, NULL);
	ck_assert_int_eq(c.ok, 1);
	ck_assert_uint_ge(c.first[0], 5000);
	ck_assert_uint_lt(c.first[0], 5000 + 200);
	ck_assert_uint_ge(c.first[1], 1000000000);
	ck_assert_uint_lt(c.first[1], 1000000000 + 20000000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v2_presets");
	TCase *tc = tcase_create("v2_presets");
	tcase_add_checked_fixture(tc, v2_setup, v2_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, overflow_and_restart);
	tcase_add_test(tc, restart_reloads_presets);
	tcase_add_test(tc, enable_unfreezes_and_ticks_go_on);
	tcase_add_test(tc, enable_and_disable);
	tcase_add_test(tc, inheritance_from_presets);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
