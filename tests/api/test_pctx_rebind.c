/* SPDX-License-Identifier: MIT */
/*
 * A failed rebind of a process context (cpc_pctx_bind_event(3CPC)):
 * "a bind that fails leaves the LWP without a binding", whatever the
 * reason, as cpc_bind_event leaves the calling LWP; the old counters do
 * not count on behind the caller's back.  A successful rebind replaces
 * the old binding.  The target is /bin/sh running a loop, created by
 * libpctx; everything happens in its init_lwp callback.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <libcpc.h>
#include <libpctx.h>

#include "testutil.h"

static void errfn(const char *fn, const char *fmt, va_list ap)
{
	(void)fn, (void)fmt, (void)ap;
}

struct outcome {
	int first_sample, rebind_rc, rebind_errno, after_rc, after_errno;
	int good_rebind, good_sample;
	uint64_t first_faults, good_faults;
};
static struct outcome out;

static int init_lwp(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev, s;
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=task-clock,pic1=page-faults", &ev), 0);
	ev.ce_pic[1] = 1000000;
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0), 0);
	out.first_sample = cpc_pctx_take_sample(pctx, lwpid, &s);
	out.first_faults = s.ce_pic[1];

	/* Refused (no flag is allowed here): the old binding goes too. */
	errno = 0;
	out.rebind_rc = cpc_pctx_bind_event(pctx, lwpid, &ev,
	    CPC_BIND_LWP_INHERIT);
	out.rebind_errno = errno;
	errno = 0;
	out.after_rc = cpc_pctx_take_sample(pctx, lwpid, &s);
	out.after_errno = errno;

	/* A good rebind counts from its own preset. */
	ev.ce_pic[1] = 5;
	out.good_rebind = cpc_pctx_bind_event(pctx, lwpid, &ev, 0);
	out.good_sample = cpc_pctx_take_sample(pctx, lwpid, &s);
	out.good_faults = s.ce_pic[1];
	(void)cpc_pctx_rele(pctx, lwpid);
	return 0;
}

START_TEST(failed_rebind_leaves_no_binding)
{
	char *argv[] = { "sh", "-c", "exit 0", NULL };
	pctx_t *pctx = pctx_create("/bin/sh", argv, NULL, 0, errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, init_lwp,
			     PCTX_NULL_EVENT), 0);
	memset(&out, 0, sizeof(out));
	capture_errors();
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	pctx_release(pctx);
	ck_assert_int_eq(out.first_sample, 0);
	ck_assert_uint_ge(out.first_faults, 1000000);
	ck_assert_int_eq(out.rebind_rc, -1);
	ck_assert_int_eq(out.rebind_errno, EINVAL);
	ck_assert_int_eq(out.after_rc, -1);
	ck_assert_int_eq(out.after_errno, EINVAL);
	ck_assert_int_eq(out.good_rebind, 0);
	ck_assert_int_eq(out.good_sample, 0);
	ck_assert_uint_ge(out.good_faults, 5);
	ck_assert_uint_lt(out.good_faults, 1000000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pctx_rebind");
	TCase *tc = tcase_create("rebind");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, failed_rebind_leaves_no_binding);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
