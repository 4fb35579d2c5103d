/* SPDX-License-Identifier: MIT */
/*
 * Counters refused by policy: a child in which the kernel answers every
 * perf_event_open with EACCES (as kernel.perf_event_paranoid does for an
 * unprivileged user, here made with a seccomp filter so that it does not
 * depend on the machine's setting) sees cpc_access, cpc_open and
 * cpc_bind_event agree on ENOSYS; cpc_access says so once through the
 * error function, as Solaris does, cpc_bind_event nothing, and both leave
 * the cause and the remedies in cpc_linux_errnote(NULL).  (Not for the kernel module's backend, which counts
 * whatever perf_event_paranoid says.)
 */
#include <check.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

#if defined(__x86_64__)
#define THIS_ARCH AUDIT_ARCH_X86_64
#else
#define THIS_ARCH AUDIT_ARCH_I386
#endif

/* perf_event_open fails with EACCES from now on, in this process. */
static int refuse_perf(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int kmod_backend(void)
{
	const char *be = getenv("LIBCPC_BACKEND");
	if (be != NULL && strcmp(be, "kmod") == 0)
		return 1;
	return (be == NULL || *be == '\0') && access("/dev/cpc", F_OK) == 0;
}

/* Runs fn in a child under the filter; its exit status. */
static int in_refusing_child(int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		if (refuse_perf() != 0)
			_exit(100);
		_exit(fn());
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * The cause and the remedies, in the note (cpc_linux_errnote(NULL)): a
 * sysctl only where it would help (here the filter refuses whatever
 * perf_event_paranoid says, so at 2 or less none is suggested).
 */
static int explained(const char *note)
{
	if (note == NULL || strstr(note, "perf_event_paranoid") == NULL ||
	    strstr(note, "modprobe cpc") == NULL ||
	    strstr(note, "CAP_PERFMON") == NULL)
		return 0;
	int suggests = strstr(note, "sysctl kernel.perf_event_paranoid=2") !=
	    NULL;
	return suggests == (perf_paranoid_level() > 2);
}

/* One message through the error function, as the originals. */
static int child_access(void)
{
	capture_errors();
	(void)cpc_linux_errnote(NULL);
	if (cpc_access() != -1)
		return 1;
	if (errno != ENOSYS)
		return 2;
	if (captured_count() != 1 ||
	    strcmp(captured_errors(), "access: CPU performance counters are "
		   "inaccessible on this machine\n") != 0)
		return 3;
	return explained(cpc_linux_errnote(NULL)) ? 0 : 4;
}

/* cpc_open: ENOSYS, and cpc_linux_errnote(NULL) explains (the tools print it). */
static int child_open(void)
{
	errno = 0;
	if (cpc_open(CPC_VER_CURRENT) != NULL)
		return 1;
	if (errno != ENOSYS)
		return 2;
	const char *note = cpc_linux_errnote(NULL);
	if (note == NULL || strncmp(note, "cpc_open: ", 10) != 0)
		return 3;
	return explained(note) && cpc_linux_errnote(NULL) == NULL ? 0 : 4;
}

static int child_bind(void)
{
	cpc_event_t ev;
	capture_errors();
	if (cpc_strtoevent(cpc_getcpuver(), "pic0=task-clock,pic1=page-faults",
		&ev) != 0)
		return 4;
	errno = 0;
	if (cpc_bind_event(&ev, 0) != -1)
		return 1;
	if (errno != ENOSYS)
		return 10 + (errno & 0x3f);
	/* cpc_bind_event is silent on Solaris: the note explains. */
	if (captured_count() != 0)
		return 3;
	return explained(cpc_linux_errnote(NULL)) ? 0 : 5;
}

START_TEST(access_open_bind_agree_on_enosys)
{
	if (kmod_backend()) {
		printf("SKIP access_open_bind_agree_on_enosys: the kernel "
		       "module's backend is not refused by perf policy\n");
		return;
	}
	ck_assert_int_eq(in_refusing_child(child_access), 0);
	ck_assert_int_eq(in_refusing_child(child_open), 0);
	ck_assert_int_eq(in_refusing_child(child_bind), 0);
}
END_TEST

/* A handler that keeps the last subcode. */
static int last_subcode;
static void keep_subcode(const char *fn, int subcode, const char *fmt,
    va_list ap)
{
	(void)fn, (void)fmt, (void)ap;
	last_subcode = subcode;
}

/*
 * Counting system mode, which perf_event_paranoid 2 refuses to an
 * unprivileged user: v1's cpc_bind_event fails in silence and explains in
 * the note (the sysctl that would allow it is 1); v2's cpc_bind_curlwp
 * reports through the handler, as the original's kernel does for what
 * needs a privilege.
 */
/*
 * The refusal and its note: under perf, perf_event_paranoid and the
 * sysctl that would allow it; under the kernel module, its allow_system
 * parameter and never perf_event_paranoid, which it does not use.
 */
static int explains_system_refusal(const char *note, int kmod)
{
	if (note == NULL)
		return 0;
	if (kmod)
		return strstr(note, "allow_system") != NULL &&
		    strstr(note, "CAP_PERFMON") != NULL &&
		    strstr(note, "paranoid") == NULL;
	return strstr(note, "perf_event_paranoid=1") != NULL;
}

static int system_mode_checks(int kmod)
{
	cpc_event_t ev;
	capture_errors();
	if (cpc_strtoevent(cpc_getcpuver(),
		"pic0=task-clock,pic1=page-faults,sys", &ev) != 0)
		return 91;
	(void)cpc_linux_errnote(NULL);
	if (cpc_bind_event(&ev, 0) != -1 || errno != EACCES)
		return 1;
	if (captured_count() != 0)
		return 2;
	const char *note = cpc_linux_errnote(NULL);
	if (note == NULL || strstr(note, "in system mode") == NULL ||
	    !explains_system_refusal(note, kmod))
		return 3;

	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL)
		return 92;
	cpc_set_t *set = cpc_set_create(cpc);
	if (set == NULL || cpc_set_add_request(cpc, set, "page-faults", 0,
			       CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0,
			       NULL) != 0)
		return 93;
	cpc_seterrhndlr(cpc, keep_subcode);
	last_subcode = 0;
	int rc = 0;
	if (cpc_bind_curlwp(cpc, set, 0) != -1 || errno != EACCES)
		rc = 4;
	else if (last_subcode != CPC_ATTR_REQUIRES_PRIVILEGE)
		rc = 5;
	else if (!explains_system_refusal(cpc_linux_errnote(cpc), kmod))
		rc = 6;
	cpc_close(cpc);
	return rc;
}

static int child_system_mode(void)
{
	if (setgid(65534) != 0 || setuid(65534) != 0)
		return 90;
	return system_mode_checks(0);
}

/* The kernel module's allow_system parameter, or -1. */
static int allow_system(void)
{
	FILE *f = fopen("/sys/module/cpc/parameters/allow_system", "r");
	int c = -1;
	if (f != NULL) {
		c = fgetc(f);
		fclose(f);
	}
	return c == 'Y' || c == '1' ? 1 : c == 'N' || c == '0' ? 0 : -1;
}

/*
 * Under the kernel module ("make check-kmod" runs this program as an
 * unprivileged user too), system mode without allow_system.
 */
START_TEST(system_mode_refused_by_the_module)
{
	if (!kmod_backend() || geteuid() == 0 || allow_system() != 0) {
		printf("SKIP system_mode_refused_by_the_module: needs the "
		       "kernel module's backend, an unprivileged user and "
		       "allow_system=0\n");
		return;
	}
	ck_assert_int_eq(system_mode_checks(1), 0);
}
END_TEST

START_TEST(system_mode_refused)
{
	if (kmod_backend() || geteuid() != 0 || perf_paranoid_level() != 2) {
		printf("SKIP system_mode_refused: needs root (to become "
		       "nobody), the perf backend and "
		       "kernel.perf_event_paranoid 2\n");
		return;
	}
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_system_mode());
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy");
	TCase *tc = tcase_create("policy");
	tcase_add_test(tc, access_open_bind_agree_on_enosys);
	tcase_add_test(tc, system_mode_refused);
	tcase_add_test(tc, system_mode_refused_by_the_module);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
