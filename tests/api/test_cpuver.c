/* SPDX-License-Identifier: MIT */
/* cpc_version, cpc_getcpuver and the per-cpuver descriptions; cpc_seterrfn. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

START_TEST(version)
{
	ck_assert_uint_eq(cpc_version(CPC_VER_NONE), CPC_VER_CURRENT);
	ck_assert_uint_eq(cpc_version(CPC_VER_CURRENT), CPC_VER_CURRENT);
	ck_assert_uint_eq(cpc_version(1), 1);
	ck_assert_uint_eq(cpc_version(3), CPC_VER_NONE);
	ck_assert_uint_eq(cpc_version(~0u), CPC_VER_NONE);
}
END_TEST

START_TEST(cpuver_is_valid)
{
	int cpuver = cpc_getcpuver();
	ck_assert_int_ne(cpuver, -1);
	ck_assert_uint_eq(cpc_getnpic(cpuver), 2);
	ck_assert_ptr_nonnull(cpc_getcciname(cpuver));
	ck_assert_ptr_nonnull(cpc_getcpuref(cpuver));
	ck_assert_ptr_nonnull(cpc_getusage(cpuver));
	/* Stable across calls. */
	ck_assert_int_eq(cpc_getcpuver(), cpuver);

	/* The cpuver follows the processor vendor and family. */
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256], vendor[64] = "", family[16] = "";
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		if (vendor[0] == '\0')
			sscanf(line, "vendor_id : %63s", vendor);
		if (family[0] == '\0')
			sscanf(line, "cpu family : %15s", family);
	}
	if (f != NULL)
		fclose(f);
	if (strcmp(vendor, "GenuineIntel") == 0 && strcmp(family, "6") == 0)
		ck_assert_int_eq(cpuver, CPC_PENTIUM_PRO_MMX);
	else if (strcmp(vendor, "AuthenticAMD") == 0 ||
	    strcmp(vendor, "HygonGenuine") == 0)
		ck_assert_int_eq(cpuver, CPC_AMD64);
	else
		ck_assert_int_eq(cpuver, CPC_LINUX_PERF);
}
END_TEST

START_TEST(cciname)
{
	ck_assert_str_eq(cpc_getcciname(CPC_PENTIUM), "Pentium");
	ck_assert_str_eq(cpc_getcciname(CPC_PENTIUM_MMX), "Pentium with MMX");
	ck_assert_str_eq(cpc_getcciname(CPC_PENTIUM_PRO),
	    "Pentium Pro, Pentium II");
	ck_assert_ptr_null(cpc_getcciname(-1));
	ck_assert_ptr_null(cpc_getcciname(CPC_ULTRA3));
	/* Exactly Solaris's strings, also for the running cpuver. */
	ck_assert_str_eq(cpc_getcciname(CPC_PENTIUM_PRO_MMX),
	    "Pentium Pro with MMX, Pentium II");
	ck_assert_str_eq(cpc_getcciname(CPC_AMD64), "AMD Family 0Fh or later");
	ck_assert_str_eq(cpc_getcciname(CPC_LINUX_PERF), "Linux perf_event");
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	/* v2 names the back end, not the v1 cpuver (test_identity.c). */
	ck_assert_ptr_nonnull(cpc_cciname(cpc));
	cpc_close(cpc);
	/* The Linux extension describes the real processor. */
	const char *running = cpc_linux_cpudesc();
	ck_assert(strlen(running) > 10);
	ck_assert(strlen(running) < CPC_MAX_IMPL_NAME);
	int has_pmu = access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0
	    || access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;
	ck_assert_ptr_nonnull(strstr(running, has_pmu ? "hardware and software"
						       : "software events only"));
}
END_TEST

START_TEST(cpuref_and_npic)
{
	ck_assert_str_eq(cpc_getcpuref(CPC_PENTIUM_PRO),
	    "See Appendix A.1 of the \"Intel Architecture Software "
	    "Developer's Manual,\" 243192, 1997");
	ck_assert_str_eq(cpc_getcpuref(CPC_PENTIUM_MMX),
	    "See Appendix A.2 of the \"Intel Architecture Software "
	    "Developer's Manual,\" 243192, 1997");
	ck_assert_ptr_null(cpc_getcpuref(0));
	ck_assert_uint_eq(cpc_getnpic(CPC_PENTIUM), 2);
	ck_assert_uint_eq(cpc_getnpic(CPC_PENTIUM_PRO_MMX), 2);
	ck_assert_uint_eq(cpc_getnpic(CPC_AMD64), 2);
	ck_assert_uint_eq(cpc_getnpic(CPC_LINUX_PERF), 2);
	ck_assert_uint_eq(cpc_getnpic(CPC_ULTRA1), 0);
	ck_assert_uint_eq(cpc_getnpic(-1), 0);
}
END_TEST

static const char *got_fn;
static char got_msg[256];

static void my_errfn(const char *fn, const char *fmt, va_list ap)
{
	got_fn = fn;
	vsnprintf(got_msg, sizeof(got_msg), fmt, ap);
	errno = 12345;	/* the library must restore errno */
}

START_TEST(error_function)
{
	cpc_event_t ev;
	cpc_seterrfn(my_errfn);
	errno = EDOM;
	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM_PRO, "pic0=nope,pic1=nope",
			     &ev), 2);
	ck_assert_str_eq(got_fn, "strtoevent");
	ck_assert_str_eq(got_msg, "two events must be specified\n");
	ck_assert_int_eq(errno, EDOM);

	/* NULL restores the default printer: "libcpc: <fn>: <msg>". */
	cpc_seterrfn(NULL);
	int pipefd[2];
	ck_assert_int_eq(pipe(pipefd), 0);
	int saved = dup(STDERR_FILENO);
	dup2(pipefd[1], STDERR_FILENO);
	errno = ERANGE;
	cpc_strtoevent(CPC_PENTIUM_PRO, "pic0=inst_retired,pic1=x,sys=1", &ev);
	int e = errno;
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(pipefd[1]);
	char buf[512] = "";
	ssize_t n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf,
	    "libcpc: strtoevent: PerfCtr1 cannot measure 'x' on this cpu\n"
	    "libcpc: strtoevent: two events must be specified\n");
	ck_assert_int_eq(e, ERANGE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cpuver");
	TCase *tc = tcase_create("cpuver");
	tcase_add_test(tc, version);
	tcase_add_test(tc, cpuver_is_valid);
	tcase_add_test(tc, cciname);
	tcase_add_test(tc, cpuref_and_npic);
	tcase_add_test(tc, error_function);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
