/* SPDX-License-Identifier: MIT */
/*
 * The choice of backend (LIBCPC_BACKEND: perf, kmod, empty or bogus) in
 * a child of this program that binds once: which one counts, and what a
 * refused one explains (the cause and the remedy, and the errno).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"
#include "v1_fixture.h"

/* Backend selection runs in a child started with LIBCPC_BACKEND set. */
static char *self_path;

static int run_with_backend(const char *backend, char *out, size_t n)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		setenv("LIBCPC_BACKEND", backend, 1);
		execl(self_path, self_path, "bind-once", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t len = 0;
	ssize_t got;
	while (len + 1 < n && (got = read(p[0], out + len, n - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = '\0';
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int bind_once(void)
{
	cpc_event_t e;
	if (cpc_strtoevent(cpc_getcpuver(), "task-clock,page-faults", &e) != 0)
		return 2;
	if (cpc_bind_event(&e, 0) != 0) {
		int err = errno;
		const char *note = cpc_linux_errnote(NULL);
		printf("%s\nerrno=%d\n", note != NULL ? note : "", err);
		return 1;
	}
	return cpc_take_sample(&e) == 0 ? 0 : 3;
}

START_TEST(backend_selection)
{
	char out[512];
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		ck_assert_int_eq(run_with_backend("perf", out, sizeof(out)), 0);
	} else {
		/*
		 * perf_event_paranoid refuses this user: the counters are
		 * inaccessible (ENOSYS, as cpc_access says), with the cause.
		 */
		ck_assert_int_eq(run_with_backend("perf", out, sizeof(out)), 1);
		ck_assert_ptr_nonnull(strstr(out, "inaccessible on this machine"));
		ck_assert_ptr_nonnull(strstr(out, "perf_event_paranoid"));
		char want[32];
		snprintf(want, sizeof(want), "errno=%d", ENOSYS);
		ck_assert_ptr_nonnull(strstr(out, want));
	}
	ck_assert_int_eq(run_with_backend("", out, sizeof(out)),
	    fd >= 0 || access("/dev/cpc", F_OK) == 0 ? 0 : 1);
	if (access("/dev/cpc", F_OK) == 0) {
		/* The kernel module is loaded: it counts. */
		ck_assert_int_eq(run_with_backend("kmod", out, sizeof(out)), 0);
	} else {
		ck_assert_int_eq(run_with_backend("kmod", out, sizeof(out)), 1);
		ck_assert_ptr_nonnull(strstr(out, "LIBCPC_BACKEND=kmod, but the "
		    "libcpc kernel module's device /dev/cpc cannot be used"));
		/* The remedy too. */
		ck_assert_ptr_nonnull(strstr(out, "load the module (modprobe "
		    "cpc, from libcpc-dkms), or unset LIBCPC_BACKEND"));
		ck_assert_ptr_nonnull(strstr(out, "errno=6"));	/* ENXIO */
	}
	ck_assert_int_eq(run_with_backend("bogus", out, sizeof(out)), 1);
	ck_assert_ptr_nonnull(strstr(out,
	    "bind_event: LIBCPC_BACKEND must be \"perf\" or \"kmod\""));
}
END_TEST

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "bind-once") == 0)
		return bind_once();
	self_path = argv[0];

	Suite *s = suite_create("backend_selection");
	TCase *tc = tcase_create("v1");
	tcase_add_checked_fixture(tc, v1_setup, v1_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, backend_selection);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
