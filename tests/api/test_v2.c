/* SPDX-License-Identifier: MIT */
/*
 * The current (version 2) interfaces against the real kernel: handles,
 * sets, requests, attributes, buffers, walkers and binding, with their
 * error paths and subcodes.  Overflow, presets, enable/disable and
 * inheritance: test_v2_presets.c; processor bindings: test_v2_cpu.c.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"
#include "v2_fixture.h"

START_TEST(open_and_describe)
{
	errno = 0;
	ck_assert_ptr_null(cpc_open(1));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(cpc_open(3));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_ge(cpc_npic(cpc), 2);
	ck_assert_uint_le(cpc_npic(cpc), 16);
	ck_assert_uint_ne(cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT, 0);
	ck_assert_ptr_nonnull(cpc_cciname(cpc));	/* test_identity.c */
	ck_assert_ptr_nonnull(cpc_cpuref(cpc));
	/* Several handles at once. */
	cpc_t *other = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(other);
	ck_assert_int_eq(cpc_close(other), 0);
	ck_assert_int_eq(cpc_seterrhndlr(cpc, NULL), 0);
	ck_assert_int_eq(cpc_seterrhndlr(cpc, v2_handler), 0);
}
END_TEST

START_TEST(add_request_checks)
{
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t attr;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "PAPI_tot_ins", 0,
			     CPC_COUNT_USER, 0, NULL), 1);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0x3c", 0,
			     CPC_COUNT_USER, 0, NULL), 2);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0", 0, CPC_COUNT_USER,
			     0, NULL), 3);

	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "no_such_event", 0,
			     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(last_subcode, CPC_INVALID_EVENT);
	ck_assert_str_eq(errlog, "cpc_set_add_request/1: Unknown event\n");
	/* Linux: the name and the closest names, in the note only. */
	const char *note = cpc_linux_errnote(cpc);
	ck_assert_ptr_nonnull(note);
	ck_assert_str_eq(note, "unknown event 'no_such_event'; the names: "
	    "cputrack -h, cpc_walk_events_all(3CPC)");
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clok", 0,
			     CPC_COUNT_USER, 0, NULL), -1);
	note = cpc_linux_errnote(cpc);
	ck_assert_ptr_nonnull(note);
	ck_assert_msg(strstr(note, "unknown event 'task-clok'; did you mean "
			  "task-clock") == note, "note: %s", note);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "", 0, CPC_COUNT_USER,
			     0, NULL), -1);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "12abc", 0,
			     CPC_COUNT_USER, 0, NULL), -1);

	attr.ca_name = "nosuchattr";
	attr.ca_val = 1;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 0,
			     CPC_COUNT_USER, 1, &attr), -1);
	ck_assert_int_eq(last_subcode, CPC_INVALID_ATTRIBUTE);
	attr.ca_name = "";
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 0,
			     CPC_COUNT_USER, 1, &attr), -1);
	ck_assert_int_eq(last_subcode, CPC_INVALID_ATTRIBUTE);
	attr.ca_name = "picnum";
	attr.ca_val = cpc_npic(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 0,
			     CPC_COUNT_USER, 1, &attr), -1);
	ck_assert_int_eq(last_subcode, CPC_INVALID_PICNUM);
	attr.ca_val = 1;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 0,
			     CPC_COUNT_USER, 1, &attr), 4);

	/* A set of another handle, or a bound set, takes no requests. */
	cpc_t *other = cpc_open(CPC_VER_CURRENT);
	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(other, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_close(other);
	cpc_set_t *sw = make_set("task-clock", "page-faults", 0, CPC_COUNT_USER);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, sw, 0), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, sw, "cs", 0, CPC_COUNT_USER,
			     0, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_unbind(cpc, sw), 0);
}
END_TEST

struct seen {
	int n;
	int index[8];
	char event[8][32];
	int nattrs[8];
};

static void walk_req(void *arg, int index, const char *event, uint64_t preset,
    uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct seen *s = arg;
	(void)preset, (void)flags, (void)attrs;
	s->index[s->n] = index;
	snprintf(s->event[s->n], sizeof(s->event[0]), "%s", event);
	s->nattrs[s->n] = nattrs;
	s->n++;
}

START_TEST(walk_requests_newest_first)
{
	cpc_attr_t attr = { "picnum", 0 };
	cpc_set_t *set = make_set("task-clock", "page-faults", 0, CPC_COUNT_USER);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "0xc0", 5, 0, 1, &attr),
	    2);
	struct seen s;
	memset(&s, 0, sizeof(s));
	cpc_walk_requests(cpc, set, &s, walk_req);
	ck_assert_int_eq(s.n, 3);
	ck_assert_int_eq(s.index[0], 2);
	ck_assert_str_eq(s.event[0], "0xc0");
	ck_assert_int_eq(s.nattrs[0], 1);
	ck_assert_int_eq(s.index[2], 0);
	ck_assert_str_eq(s.event[2], "task-clock");
}
END_TEST

START_TEST(counting_and_buffers)
{
	cpc_set_t *set = make_set("task-clock", "page-faults", 0, CPC_COUNT_USER);
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	cpc_buf_t *d = cpc_buf_create(cpc, set);
	uint64_t v0, v1;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	struct nested_clock n;
	int tries = 0;
	do {
		nested_open(&n);
		ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
		nested_in(&n);
		burn_cpu_ns(1000000);
		touch_fresh_pages(500);
		nested_out(&n);
		errno = EDOM;
		ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
		nested_close(&n);
		ck_assert_int_eq(errno, EDOM);
		cpc_buf_sub(cpc, d, b, a);
		ck_assert_int_eq(cpc_buf_get(cpc, d, 0, &v0), 0);
		ck_assert_int_eq(cpc_buf_get(cpc, d, 1, &v1), 0);
	} while (!nested_holds(&n, (double)v0) && n.switched &&
		 ++tries < NESTED_TRIES);
	/*
	 * Between the CPU time inside the samples and the most the thread
	 * can have been on its processor around them, exact while it stays
	 * there (nested_open in testutil.c); measured again otherwise.
	 */
	ck_assert_msg(nested_holds(&n, (double)v0),
	    "task-clock %llu vs %llu (at most %llu around the samples; %s)",
	    (unsigned long long)v0, (unsigned long long)n.inner,
	    (unsigned long long)n.outer,
	    n.switched ? "switched out" : "never switched out");
	ck_assert_uint_ge(v1, 500);
	ck_assert_uint_lt(v1, 700);
	ck_assert_uint_gt(cpc_buf_tick(cpc, d), 0);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, d), cpc_buf_hrtime(cpc, b));
	ck_assert(cpc_buf_hrtime(cpc, b) > cpc_buf_hrtime(cpc, a));

	/* add, copy, zero, set, and checked indexes. */
	cpc_buf_add(cpc, d, d, a);
	ck_assert_int_eq(cpc_buf_get(cpc, d, 1, &v0), 0);
	cpc_buf_get(cpc, b, 1, &v1);
	ck_assert_uint_eq(v0, v1);
	cpc_buf_copy(cpc, a, b);
	cpc_buf_get(cpc, a, 0, &v0);
	cpc_buf_get(cpc, b, 0, &v1);
	ck_assert_uint_eq(v0, v1);
	ck_assert_uint_eq(cpc_buf_tick(cpc, a), cpc_buf_tick(cpc, b));
	cpc_buf_zero(cpc, a);
	cpc_buf_get(cpc, a, 0, &v0);
	ck_assert_uint_eq(v0, 0);
	ck_assert_uint_eq(cpc_buf_tick(cpc, a), 0);
	ck_assert_int_eq(cpc_buf_set(cpc, a, 1, 42), 0);
	cpc_buf_get(cpc, a, 1, &v0);
	ck_assert_uint_eq(v0, 42);
	ck_assert_int_eq(cpc_buf_get(cpc, a, 2, &v0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_buf_set(cpc, a, -1, 0), -1);

	/* A buffer whose size no longer matches the set. */
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "cs", 0, CPC_COUNT_USER,
			     0, NULL), 2);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_buf_t *c = cpc_buf_create(cpc, set);
	ck_assert_int_eq(cpc_set_sample(cpc, set, c), 0);
	ck_assert_int_eq(cpc_buf_destroy(cpc, c), 0);
	ck_assert_int_eq(cpc_buf_destroy(cpc, c), -1);	/* no longer ours */
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(bind_errors_and_subcodes)
{
	cpc_set_t *empty = cpc_set_create(cpc);
	cpc_attr_t attr;
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, empty, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_set_t *set = make_set("task-clock", NULL, 0, 0);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0x2), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_unbind(cpc, set), -1);	/* not bound */

	cpc_set_t *flags = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, flags, "task-clock", 0, 0x40,
			     0, NULL), 0);
	errlog[0] = '\0';
	ck_assert_int_eq(cpc_bind_curlwp(cpc, flags, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_str_eq(errlog, "cpc_bind_curlwp/7: Invalid flags in a request\n");

	cpc_set_t *range = cpc_set_create(cpc);
	attr.ca_name = "umask";
	attr.ca_val = 256;
	ck_assert_int_eq(cpc_set_add_request(cpc, range, "0xc0", 0,
			     CPC_COUNT_USER, 1, &attr), 0);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, range, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(last_subcode, CPC_ATTRIBUTE_OUT_OF_RANGE);

	/* Named (generic, perf) events take no attributes but picnum. */
	cpc_set_t *named = cpc_set_create(cpc);
	attr.ca_name = "umask";
	attr.ca_val = 1;
	ck_assert_int_eq(cpc_set_add_request(cpc, named, "task-clock", 0,
			     CPC_COUNT_USER, 1, &attr), 0);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, named, 0), -1);
	ck_assert_int_eq(last_subcode, CPC_ATTRIBUTE_OUT_OF_RANGE);

	/* A hardware event without a PMU: a clear failure. */
	cpc_set_t *hw = make_set("PAPI_tot_cyc", NULL, 0, 0);
	int rc = cpc_bind_curlwp(cpc, hw, 0);
	int err = errno;
	if (access("/sys/bus/event_source/devices/cpu/type", F_OK) != 0) {
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(err, EINVAL);
		ck_assert_int_eq(last_subcode, CPC_RESOURCE_UNAVAIL);
		/* The cause and the remedy, naming the event. */
		const char *why = cpc_linux_errnote(cpc);
		ck_assert_ptr_nonnull(why);
		ck_assert_msg(strstr(why, "event 'PAPI_tot_cyc' cannot be "
				  "counted on this system: the kernel has no "
				  "hardware PMU") == why, "note: %s", why);
	} else {
		ck_assert_int_eq(rc, 0);
	}
}
END_TEST

struct seen_names {
	int n, papi, task_clock, picnum_last;
	char last[64];
};

static void name_seen(void *arg, const char *name)
{
	struct seen_names *s = arg;
	s->n++;
	s->papi += strncmp(name, "PAPI", 4) == 0;
	s->task_clock += strcmp(name, "task-clock") == 0;
	snprintf(s->last, sizeof(s->last), "%s", name);
}

static void pic_name_seen(void *arg, uint_t picno, const char *name)
{
	(void)picno;
	name_seen(arg, name);
}

START_TEST(walkers)
{
	struct seen_names s;
	memset(&s, 0, sizeof(s));
	/* Perf names are the platform's only where there is no other. */
	int perf_platform = cpc_getcpuver() == CPC_LINUX_PERF;
	/* Without a hardware PMU, the kernel's nine software events. */
	int no_pmu = access("/sys/bus/event_source/devices/cpu/type", F_OK) &&
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK);
	int platform_n = no_pmu ? 9 : 21;
	cpc_walk_events_all(cpc, &s, name_seen);
	ck_assert_int_ge(s.n, platform_n);
	ck_assert_int_eq(s.papi, 0);
	ck_assert_int_eq(s.task_clock, perf_platform || no_pmu);
	memset(&s, 0, sizeof(s));
	cpc_walk_generic_events_all(cpc, &s, name_seen);
	ck_assert_int_gt(s.n, 3);
	ck_assert_int_eq(s.papi, s.n);
	memset(&s, 0, sizeof(s));
	cpc_walk_events_pic(cpc, 0, &s, pic_name_seen);
	ck_assert_int_ge(s.n, platform_n);
	ck_assert_int_eq(s.task_clock, perf_platform || no_pmu);
	memset(&s, 0, sizeof(s));
	cpc_linux_walk_events(cpc, &s, name_seen);
	ck_assert_int_eq(s.task_clock, 1);
	memset(&s, 0, sizeof(s));
	cpc_walk_generic_events_pic(cpc, 1, &s, pic_name_seen);
	ck_assert_int_eq(s.papi, s.n);
	ck_assert_int_gt(s.n, 3);
	memset(&s, 0, sizeof(s));
	errno = 0;
	cpc_walk_events_pic(cpc, cpc_npic(cpc), &s, pic_name_seen);
	ck_assert_int_eq(s.n, 0);
	ck_assert_int_eq(errno, EINVAL);
	memset(&s, 0, sizeof(s));
	cpc_walk_attrs(cpc, &s, name_seen);
	ck_assert_int_ge(s.n, 6);
	ck_assert_str_eq(s.last, "picnum");
}
END_TEST

START_TEST(destroy_and_close_unbind)
{
	cpc_set_t *set = make_set("task-clock", "page-faults", 0, CPC_COUNT_USER);
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, set), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, set), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_event_t ev;
	/* The LWP is unbound: a version 1 sample fails too. */
	ck_assert_int_eq(cpc_take_sample(&ev), -1);
	(void)b;
	int fds = count_open_fds();
	set = make_set("task-clock", "page-faults", 0, CPC_COUNT_USER);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_ge(count_open_fds(), fds);
	ck_assert_int_eq(cpc_close(cpc), 0);
	cpc = NULL;
	ck_assert_int_eq(count_open_fds(), fds);
}
END_TEST

START_TEST(v1_and_v2_share_the_lwp)
{
	cpc_set_t *set = make_set("task-clock", "page-faults", 0, CPC_COUNT_USER);
	cpc_buf_t *b = cpc_buf_create(cpc, set);
	cpc_event_t ev;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_take_sample(&ev), -1);	/* not a v1 binding */
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(), "task-clock,cs", &ev), 0);
	ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);	/* replaces the set */
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_take_sample(&ev), 0);
	cpc_rele();
}
END_TEST

START_TEST(handler_never_gets_subcode_minus_one)
{
	/* Problems without a Solaris subcode: no call to the handler. */
	cpc_set_t *set = make_set("cpu-clock", "context-switches", 0,
	    CPC_COUNT_USER);
	minus_one_calls = 0;
	errno = 0;
	/* libpctx is not loaded in this program. */
	ck_assert_int_eq(cpc_bind_pctx(cpc, (pctx_t *)&set, 1, set, 0), -1);
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_int_eq(minus_one_calls, 0);
	ck_assert_str_eq(errlog, "");
	/* The explanation is there for whoever asks, once. */
	const char *why = cpc_linux_errnote(cpc);
	ck_assert_ptr_nonnull(why);
	ck_assert_ptr_nonnull(strstr(why, "libpctx"));
	ck_assert_ptr_null(cpc_linux_errnote(cpc));
	/* Subcodes are still reported. */
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0x100), -1);
	ck_assert_int_eq(minus_one_calls, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v2");
	TCase *tc = tcase_create("v2");
	tcase_add_checked_fixture(tc, v2_setup, v2_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, open_and_describe);
	tcase_add_test(tc, add_request_checks);
	tcase_add_test(tc, walk_requests_newest_first);
	tcase_add_test(tc, counting_and_buffers);
	tcase_add_test(tc, bind_errors_and_subcodes);
	tcase_add_test(tc, handler_never_gets_subcode_minus_one);
	tcase_add_test(tc, walkers);
	tcase_add_test(tc, destroy_and_close_unbind);
	tcase_add_test(tc, v1_and_v2_share_the_lwp);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
