/* SPDX-License-Identifier: MIT */
/*
 * The version 1 system-wide interfaces (cpc_shared_*): counting on the
 * processor the caller is bound to, privilege, and errors.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libcpc.h>
#include <sys/processor.h>

#include "testutil.h"

static void bind_to_cpu0(void)
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
}

START_TEST(counts_on_a_processor)
{
	cpc_event_t ev, a, b;
	if (geteuid() != 0) {
		printf("SKIP counts_on_a_processor: needs root\n");
		return;
	}
	capture_errors();
	cpu_set_t all;
	sched_getaffinity(0, sizeof(all), &all);
	if (CPU_COUNT(&all) > 1) {
		/*
		 * Not bound to one processor: refused in silence, as on
		 * Solaris (cpustat tests its access so); the Linux
		 * explanation is in the note.
		 */
		(void)cpc_linux_errnote(NULL);
		ck_assert_int_eq(cpc_shared_open(), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(captured_count(), 0);
		const char *note = cpc_linux_errnote(NULL);
		ck_assert_ptr_nonnull(note);
		ck_assert_ptr_nonnull(strstr(note,
		    "must first be bound to one processor"));
		ck_assert_ptr_null(cpc_linux_errnote(NULL));
	}
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, 0, NULL), 0);
	int fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	/* Nothing bound yet. */
	ck_assert_int_eq(cpc_shared_rele(fd), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "cpu-clock,context-switches,sys", &ev), 0);
	/*
	 * No longer bound to the descriptor's processor when binding: the
	 * descriptor belongs to processor 0 (Solaris 8: EAGAIN).
	 */
	if (CPU_COUNT(&all) > 1) {
		ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, PBIND_NONE,
				     NULL), 0);
		ck_assert_int_eq(cpc_shared_bind_event(fd, &ev, 0), -1);
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, 1, NULL), 0);
		ck_assert_int_eq(cpc_shared_bind_event(fd, &ev, 0), -1);
		ck_assert_int_eq(errno, EAGAIN);
	}
	bind_to_cpu0();
	/* A second open of the same processor (Solaris 8's kcpc_open). */
	ck_assert_int_eq(cpc_shared_open(), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(cpc_shared_bind_event(fd, &ev, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_shared_bind_event(fd, &ev, 0), 0);
	ck_assert_int_eq(cpc_shared_take_sample(fd, &a), 0);
	usleep(50000);
	ck_assert_int_eq(cpc_shared_take_sample(fd, &b), 0);
	/*
	 * The processor's clock runs whoever runs on it, sleeping or not:
	 * at least the 50 ms slept on CLOCK_MONOTONIC, less its slew and
	 * sched_clock's slack (testutil.h).
	 */
	ck_assert_uint_ge(b.ce_pic[0] - a.ce_pic[0],
	    (uint64_t)(50000000 * (1 - MONOTONIC_SLEW)) -
		sched_clock_slack_ns());
	ck_assert_uint_ge(b.ce_pic[1] - a.ce_pic[1], 1);	/* we slept */
	ck_assert_uint_gt(b.ce_tsc, a.ce_tsc);
	ck_assert(b.ce_hrt > a.ce_hrt);
	ck_assert_int_eq(b.ce_cpuver, ev.ce_cpuver);
	if (CPU_COUNT(&all) > 1) {
		/* Sampling from another processor (EAGAIN). */
		ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, 1, NULL), 0);
		ck_assert_int_eq(cpc_shared_take_sample(fd, &a), -1);
		ck_assert_int_eq(errno, EAGAIN);
		bind_to_cpu0();
	}
	ck_assert_int_eq(cpc_shared_rele(fd), 0);
	ck_assert_int_eq(cpc_shared_rele(fd), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_shared_take_sample(fd, &a), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_shared_bind_event(fd, NULL, 0), 0);
	int fds = count_open_fds();
	cpc_shared_close(fd);
	ck_assert_int_eq(count_open_fds(), fds - 1);
	/* Descriptors that are not one: as the original's ioctl. */
	ck_assert_int_eq(cpc_shared_rele(fd), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(cpc_shared_bind_event(-5, &ev, 0), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(cpc_shared_take_sample(-5, &a), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_int_eq(cpc_shared_bind_event(0, &ev, 0), -1);
	ck_assert_int_eq(errno, ENOTTY);
	ck_assert_int_eq(cpc_shared_take_sample(0, &a), -1);
	ck_assert_int_eq(errno, ENOTTY);
	ck_assert_int_eq(cpc_shared_rele(0), -1);
	ck_assert_int_eq(errno, ENOTTY);
	/* Open again once closed. */
	fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	cpc_shared_close(fd);
	/* Nothing of this spoke through the error function. */
	ck_assert_int_eq(captured_count(), 0);
}
END_TEST

START_TEST(unprivileged_is_refused)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		int fd = cpc_shared_open();
		_exit(fd == -1 && errno == EACCES ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

/*
 * One system-wide binding per processor, whichever interface makes it
 * (the original's driver: one open per processor, for cpc_shared_open
 * and cpc_bind_cpu alike).
 */
START_TEST(one_binding_per_processor)
{
	if (geteuid() != 0) {
		printf("SKIP one_binding_per_processor: needs root\n");
		return;
	}
	cpu_set_t saved;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(saved), &saved), 0);
	bind_to_cpu0();
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "cpu-clock", 0,
			     CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL), 0);
	int fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	errno = 0;
	ck_assert_int_eq(cpc_bind_cpu(cpc, 0, set, 0), -1);
	ck_assert_int_eq(errno, EAGAIN);
	cpc_shared_close(fd);
	ck_assert_int_eq(cpc_bind_cpu(cpc, 0, set, 0), 0);
	errno = 0;
	ck_assert_int_eq(cpc_shared_open(), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	bind_to_cpu0();
	fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	cpc_shared_close(fd);
	cpc_close(cpc);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(saved), &saved), 0);
}
END_TEST

/*
 * The helper (this program run with one argument, "shared" or "cpu"): on
 * processor 0, cpc_shared_open or cpc_bind_cpu; exits 0 or with errno.
 */
static int helper(const char *how)
{
	cpu_set_t one;	/* no ck_assert outside a test: check exits */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return 102;
	errno = 0;
	if (strcmp(how, "shared") == 0) {
		int fd = cpc_shared_open();
		if (fd < 0)
			return errno;
		cpc_shared_close(fd);
		return 0;
	}
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc == NULL)
		return 100;
	cpc_set_t *set = cpc_set_create(cpc);
	if (cpc_set_add_request(cpc, set, "cpu-clock", 0, CPC_COUNT_USER, 0,
		NULL) != 0)
		return 101;
	int rc = cpc_bind_cpu(cpc, 0, set, 0) == 0 ? 0 : errno;
	cpc_close(cpc);
	return rc;
}

/* The helper's exit status in another process. */
static int in_another_process(const char *how)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test_shared", how, (char *)NULL);
		_exit(127);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A processor taken by one process (cpc_shared_open, cpc_bind_cpu) is
 * refused to every other, EAGAIN, as by the original's driver; free again
 * once released, and when the holder dies.
 */
START_TEST(one_binding_per_processor_machine_wide)
{
	if (geteuid() != 0) {
		printf("SKIP one_binding_per_processor_machine_wide: needs "
		       "root\n");
		return;
	}
	ck_assert_int_eq(in_another_process("shared"), 0);
	bind_to_cpu0();
	int fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(in_another_process("shared"), EAGAIN);
	ck_assert_int_eq(in_another_process("cpu"), EAGAIN);
	cpc_shared_close(fd);
	ck_assert_int_eq(in_another_process("shared"), 0);
	ck_assert_int_eq(in_another_process("cpu"), 0);
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "cpu-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_cpu(cpc, 0, set, 0), 0);
	ck_assert_int_eq(in_another_process("shared"), EAGAIN);
	ck_assert_int_eq(in_another_process("cpu"), EAGAIN);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(in_another_process("cpu"), 0);
	cpc_close(cpc);
	/* A holder that dies gives the processor back. */
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		bind_to_cpu0();
		_exit(cpc_shared_open() >= 0 ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(in_another_process("shared"), 0);
}
END_TEST

/*
 * cpc_shared_close on a descriptor that is not a shared one: the
 * originals release it (the ioctl fails: ENOTTY) and close it anyway.
 */
START_TEST(close_of_a_foreign_descriptor)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	errno = 0;
	cpc_shared_close(p[0]);
	ck_assert_int_eq(errno, ENOTTY);
	errno = 0;
	ck_assert_int_eq(fcntl(p[0], F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	close(p[1]);
	/* No descriptor at all: nothing to close, EBADF. */
	errno = 0;
	cpc_shared_close(-1);
	ck_assert_int_eq(errno, EBADF);
	errno = 0;
	cpc_shared_close(p[0]);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc == 2)
		return helper(argv[1]);
	Suite *s = suite_create("shared");
	TCase *tc = tcase_create("shared");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, counts_on_a_processor);
	tcase_add_test(tc, unprivileged_is_refused);
	tcase_add_test(tc, one_binding_per_processor);
	tcase_add_test(tc, one_binding_per_processor_machine_wide);
	tcase_add_test(tc, close_of_a_foreign_descriptor);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
