/* SPDX-License-Identifier: MIT */
/*
 * The Linux explanation of a bind the kernel refuses by policy
 * (cpc_linux_errnote): the kernel module's remedies under its backend
 * (never perf_event_paranoid, which it does not use), and under perf a
 * sysctl only where it would allow the counting.  Against the fake
 * backend: no kernel support is needed.
 */
#include <check.h>
#include <string.h>

#include "libcpc.h"
#include "fake_backend.h"
#include "lwpctx.h"
#include "policy.h"

static char text[512];

START_TEST(kmod_system_mode)
{
	fake_reset();
	fake_chosen = &fake_kmod_like;
	__cpc_lwp_explain_refusal(text, sizeof(text), 1);
	ck_assert_ptr_nonnull(strstr(text, "allow_system"));
	ck_assert_ptr_nonnull(strstr(text, "CAP_PERFMON"));
	ck_assert_ptr_null(strstr(text, "paranoid"));
	__cpc_lwp_explain_refusal(text, sizeof(text), 0);
	ck_assert_ptr_nonnull(strstr(text, "CAP_PERFMON"));
	ck_assert_ptr_null(strstr(text, "paranoid"));
	fake_reset();
}
END_TEST

START_TEST(perf_backend_names_paranoid)
{
	fake_reset();
	fake_chosen = &fake_perf_like;
	__cpc_lwp_explain_refusal(text, sizeof(text), 1);
	ck_assert_ptr_nonnull(strstr(text, "perf_event_paranoid"));
	ck_assert_ptr_null(strstr(text, "allow_system"));
}
END_TEST

START_TEST(sysctl_only_where_it_helps)
{
	/* User mode: 2 allows it. */
	__cpc_policy_explain_at(text, sizeof(text), 3, 0);
	ck_assert_ptr_nonnull(strstr(text, "perf_event_paranoid=2\""));
	/* Level 3 is Debian's patch: CAP_PERFMON does not pass it. */
	ck_assert_ptr_nonnull(strstr(text, "CAP_SYS_ADMIN"));
	__cpc_policy_explain_at(text, sizeof(text), 2, 0);
	ck_assert_ptr_null(strstr(text, "sysctl"));
	ck_assert_ptr_nonnull(strstr(text, "CAP_PERFMON"));
	/* System mode: 1 does. */
	__cpc_policy_explain_at(text, sizeof(text), 2, 1);
	ck_assert_ptr_nonnull(strstr(text, "perf_event_paranoid=1\""));
	ck_assert_ptr_null(strstr(text, "=2"));
	__cpc_policy_explain_at(text, sizeof(text), 1, 1);
	ck_assert_ptr_null(strstr(text, "sysctl"));
	__cpc_policy_explain_at(text, sizeof(text), -1, 0);
	ck_assert_ptr_null(strstr(text, "sysctl"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("refusal");
	TCase *tc = tcase_create("refusal");
	tcase_add_test(tc, kmod_system_mode);
	tcase_add_test(tc, perf_backend_names_paranoid);
	tcase_add_test(tc, sysctl_only_where_it_helps);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
