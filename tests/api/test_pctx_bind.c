/* SPDX-License-Identifier: MIT */
/*
 * libpctx's refusals and messages, and the bindings made in its callbacks
 * (cpc_bind_pctx's checks, overflow requests, the version 1 cpc_pctx_*
 * interfaces), on tests/pctx_target and /bin/sh.  (Split from
 * test_pctx.c, which follows a target's events.)
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>
#include <libpctx.h>

#include "pctx_testlog.h"
#include "testutil.h"

static cpc_t *cpc;
static int exit_status = -1;

static void setup(void)
{
	pctx_testlog_setup();
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_seterrhndlr(cpc, cpc_handler);
	exit_status = -1;
}

static void teardown(void)
{
	if (cpc != NULL)
		cpc_close(cpc);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* pctx_create of /bin/sh: init_lwp gets LWP 1, and binding LWP 1 counts. */
static int sh_counted;

static int sh_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(lwpid, 1);
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=task-clock,pic1=page-faults", &ev), 0);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, 1, &ev, 0), 0);
	return 0;
}

static int sh_fini(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(lwpid, 1);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, 1, &ev), 0);
	if (ev.ce_pic[0] > 1000000 && ev.ce_pic[1] > 0)
		sh_counted = 1;
	ck_assert_int_eq(cpc_pctx_rele(pctx, 1), 0);
	return 0;
}

START_TEST(shell_is_lwp_1)
{
	char *argv[] = { "sh", "-c",
		"i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done", NULL };
	pctx_t *pctx = pctx_create("/bin/sh", argv, NULL, 0, errfn);
	ck_assert_msg(pctx != NULL, "pctx_create: %s", errs);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, sh_init,
			     PCTX_FINI_LWP_EVENT, sh_fini, PCTX_NULL_EVENT), 0);
	sh_counted = 0;
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_int_eq(sh_counted, 1);
	/* No such LWP once released. */
	ck_assert_int_eq(pctx_lwp_tid(pctx, 1), -1);
	ck_assert_int_eq(errno, ESRCH);
	pctx_release(pctx);
}
END_TEST

START_TEST(capture_refused)
{
	/* An unprivileged user may not trace init (pid 1). */
	int p[2], st;
	ck_assert_int_eq(pipe(p), 0);
	pid_t child = fork();
	if (child == 0) {
		close(p[0]);
		if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		errno = 0;
		pctx_t *pctx = pctx_capture(1, NULL, 0, errfn);
		int e = errno;
		if (write(p[1], errs, strlen(errs)) < 0)
			_exit(4);
		_exit(pctx == NULL && e == EPERM ? 0 : 1);
	}
	close(p[1]);
	char msg[512] = "";
	ck_assert_int_ge(read(p[0], msg, sizeof(msg) - 1), 0);
	close(p[0]);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s",
	    st, msg);
	/* illumos's text */
	ck_assert_str_eq(msg, "capture: pid 1: permission denied\n");
}
END_TEST

START_TEST(create_errors)
{
	char *argv[] = { "/nonexistent/program", NULL };
	errno = 0;
	ck_assert_ptr_null(pctx_create(argv[0], argv, NULL, 0, errfn));
	ck_assert_int_eq(errno, ENOENT);
	/* illumos's text, its missing space included */
	ck_assert_str_eq(errs, "create: cannot findprogram "
			       "'/nonexistent/program'\n");
	ck_assert_int_eq(pctx_set_events(NULL, PCTX_NULL_EVENT), -1);
	ck_assert_int_eq(pctx_run(NULL, 0, 0, NULL), -1);
	errs[0] = '\0';
	ck_assert_ptr_null(pctx_capture(0, NULL, 0, errfn));
	ck_assert_int_eq(errno, EPERM);
	ck_assert_str_eq(errs, "capture: pid 0 is a system process\n");
	errs[0] = '\0';
	ck_assert_ptr_null(pctx_capture(getpid(), NULL, 0, errfn));
	ck_assert_str_eq(errs, "capture: cannot capture self!\n");
	errs[0] = '\0';
	ck_assert_ptr_null(pctx_capture(0x7ffffff0, NULL, 0, errfn));
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_str_eq(errs, "capture: pid 2147483632 doesn't exist\n");
}
END_TEST

/* Copies file from to to with mode: 0, or -1. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT |
	    O_TRUNC, 0700);
	int rc = in >= 0 && out >= 0 ? 0 : -1;
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) != 0)
		rc = -1;
	return rc == 0 ? chmod(to, mode) : -1;
}

START_TEST(create_refuses_setid_and_unreadable)
{
	/*
	 * As Solaris's Pcreate: an unprivileged caller may not trace a
	 * set-id program, nor one it cannot read ("cannot trace set-id or
	 * unreadable program").  Root makes the set-id copy and drops its
	 * privileges to try; otherwise only the unreadable one is tried.
	 * The unreadable copy is mode 0111: the caller may own it (an
	 * unprivileged run), and its owner may not read it either.
	 */
	char dir[] = "/tmp/pctx_setid.XXXXXX", path[3][64], msg[1024] = "";
	int p[2], st;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	const char *names[3] = { "plain", "unreadable", "setid" };
	const mode_t modes[3] = { 0755, 0111, 04755 };
	for (int i = 0; i < 3; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/%s", dir, names[i]);
		ck_assert_int_eq(copy_file(target, path[i], modes[i]), 0);
	}
	int root = getuid() == 0;
	ck_assert_int_eq(pipe(p), 0);
	pid_t child = fork();
	if (child == 0) {
		close(p[0]);
		if (root && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		/* (dropping privileges made this process undumpable, its
		 * children untraceable) */
		prctl(PR_SET_DUMPABLE, 1);
		for (int i = 0; i < (root ? 3 : 2); i++) {
			char *argv[] = { path[i], "exit", "0", NULL };
			errs[0] = '\0';
			errno = 0;
			pctx_t *pctx = pctx_create(path[i], argv, NULL, 0,
			    errfn);
			char line[512];
			int n = snprintf(line, sizeof(line), "%s %d %d %s",
			    names[i], pctx != NULL, errno, errs);
			if (write(p[1], line, (size_t)n) != n)
				_exit(4);
			if (pctx != NULL)
				pctx_release(pctx);
		}
		_exit(0);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t r;
	while ((r = read(p[0], msg + got, sizeof(msg) - 1 - got)) > 0)
		got += (size_t)r;
	close(p[0]);
	ck_assert_int_eq(waitpid(child, &st, 0), child);
	for (int i = 0; i < 3; i++)
		unlink(path[i]);
	rmdir(dir);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d", st);
	char want[2048];
	int n = snprintf(want, sizeof(want), "plain 1 0 unreadable 0 %d "
	    "create: cannot trace set-id or unreadable program '%s'\n",
	    EPERM, path[1]);
	if (root)
		snprintf(want + n, sizeof(want) - (size_t)n, "setid 0 %d "
		    "create: cannot trace set-id or unreadable program '%s'\n",
		    EPERM, path[2]);
	ck_assert_str_eq(msg, want);
}
END_TEST

/* cpc_bind_pctx's checks, from an init_lwp callback. */
static int bind_checks(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)arg;
	cpc_set_t *set = cpc_set_create(cpc), *empty = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	cpc_buf_t *buf = cpc_buf_create(cpc, set);

	errno = 0;
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, empty, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, pid + 100000, set, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_set_sample(cpc, set, buf), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* Bind, rebind, unbind, destroy while bound. */
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 0), 0);
	ck_assert_int_eq(cpc_set_sample(cpc, set, buf), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 0), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), -1);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, set, 0), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, set), 0);
	/*
	 * CPC_OVF_NOTIFY_EMT is accepted, as by illumos; the counter counts
	 * on past its overflow, without a signal to either process.
	 */
	cpc_set_t *ovf = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, ovf, "task-clock",
			     UINT64_MAX - 999, CPC_COUNT_USER |
			     CPC_OVF_NOTIFY_EMT, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, ovf, 0), 0);
	ck_assert_int_eq(cpc_set_destroy(cpc, ovf), 0);
	cpc_set_destroy(cpc, empty);
	cpc_buf_destroy(cpc, buf);
	logf_("checked;");
	return 0;
}

/* A request with CPC_OVF_NOTIFY_EMT in another process counts on. */
static cpc_set_t *emt_set;
static uint64_t emt_val;

static int emt_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	emt_set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, emt_set, "task-clock",
			     UINT64_MAX - 999999, CPC_COUNT_USER |
			     CPC_OVF_NOTIFY_EMT, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, pctx, lwpid, emt_set, 0), 0);
	return 0;
}

static int emt_fini(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)lwpid, (void)arg;
	cpc_buf_t *buf = cpc_buf_create(cpc, emt_set);
	ck_assert_int_eq(cpc_set_sample(cpc, emt_set, buf), 0);
	ck_assert_int_eq(cpc_buf_get(cpc, buf, 0, &emt_val), 0);
	return 0;
}

static void emt_exit(pctx_t *pctx, pid_t pid, __id_t lwpid, int status,
    void *arg)
{
	(void)pctx, (void)pid, (void)lwpid, (void)arg;
	exit_status = status;
}

START_TEST(emt_request_in_a_process_context)
{
	const char *argv[] = { target, "spin", "100", "exit", "9", NULL };
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, emt_init,
			     PCTX_FINI_LWP_EVENT, emt_fini,
			     PCTX_SYSC_EXIT_EVENT, emt_exit, PCTX_NULL_EVENT),
	    0);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	/* The target was not signalled, and the count went past 2^64. */
	ck_assert_int_eq(exit_status, 9);
	ck_assert_uint_ge(emt_val, 90000000u);
	ck_assert_uint_lt(emt_val, 2000000000u);
	pctx_release(pctx);
}
END_TEST

START_TEST(bind_pctx_errors)
{
	const char *argv[] = { target, "spin", "10", NULL };
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, bind_checks,
			     PCTX_NULL_EVENT), 0);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	ck_assert_str_eq(log_, "checked;");
	pctx_release(pctx);
	/* Without a context. */
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_bind_pctx(cpc, NULL, 1, set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Version 1: bind, sample, invalidate, rebind, release. */
static cpc_event_t v1_event;
static int v1_samples_ok;
static uint64_t v1_wall0; /* CLOCK_MONOTONIC before the target started */

static int v1_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev = v1_event;
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev,
			     CPC_BIND_EMT_OVF), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* In silence, as the originals: the explanation is in the note. */
	ck_assert_int_eq(captured_count(), 0);
	ck_assert_ptr_nonnull(strstr(cpc_linux_errnote(NULL),
	    "pctx_bind_event: "));
	/* Any flag, as illumos: inheritance too. */
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev,
			     CPC_BIND_LWP_INHERIT), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0x100), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid + 100000, &ev, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_pctx_invalidate(pctx, lwpid + 100000), -1);
	ck_assert_int_eq(errno, ESRCH);
	/* Every cpc_pctx_* call on a missing LWP: ESRCH (both originals). */
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid + 100000, &ev), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid + 100000), -1);
	ck_assert_int_eq(errno, ESRCH);
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid + 100000, NULL, 0),
	    -1);
	ck_assert_int_eq(errno, ESRCH);
	/* Releasing an unbound LWP is no error (Solaris 8). */
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid), 0);
	/* Bound, invalidated, bound again. */
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0), 0);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	ck_assert_int_eq(cpc_pctx_invalidate(pctx, lwpid), 0);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ev = v1_event;
	ck_assert_int_eq(cpc_pctx_bind_event(pctx, lwpid, &ev, 0), 0);
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	return 0;
}

static int v1_tick(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	ck_assert_int_eq(ev.ce_cpuver, v1_event.ce_cpuver);
	ck_assert_uint_gt(ev.ce_pic[0], 0);
	ck_assert_uint_gt(ev.ce_tsc, 0);
	v1_samples_ok++;
	return 0;
}

static int v1_fini(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pid, (void)arg;
	cpc_event_t ev;
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), 0);
	/*
	 * From the presets: 150 ms of CPU time in pic0 (the target spins on
	 * its own CPU clock; start-up and faults add a few ms, tens in an
	 * emulated guest, more under load), no more than the wall time
	 * since the target started (it has one thread); 3000 pages' faults
	 * in pic1 (start-up adds a few hundred, over a thousand with
	 * AddressSanitizer: fewer than 5000).
	 */
	uint64_t ns = ev.ce_pic[0] - v1_event.ce_pic[0];
	uint64_t faults = ev.ce_pic[1] - v1_event.ce_pic[1];
	uint64_t wall = wall_ns() - v1_wall0;
	ck_assert_msg(ns >= 145000000u && ns <= wall,
	    "pic0: %llu ns of task-clock for 150 ms, in %llu ns of wall time",
	    (unsigned long long)ns, (unsigned long long)wall);
	ck_assert_msg(faults >= 3000 && faults < 8000,
	    "pic1: %llu faults for 3000 pages", (unsigned long long)faults);
	ck_assert_int_eq(ev.ce_pes[0], v1_event.ce_pes[0]);
	ck_assert_int_eq(ev.ce_pes[1], v1_event.ce_pes[1]);
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid), 0);
	/*
	 * Unbound: EINVAL while libpctx still knows the LWP, ESRCH (as
	 * for any missing LWP) once it has exited.
	 */
	int known = pctx_lwp_tid(pctx, lwpid) >= 0;
	ck_assert_int_eq(cpc_pctx_take_sample(pctx, lwpid, &ev), -1);
	ck_assert_int_eq(errno, known ? EINVAL : ESRCH);
	ck_assert_int_eq(cpc_pctx_rele(pctx, lwpid), known ? 0 : -1);
	return 0;
}

START_TEST(v1_pctx_interfaces)
{
	const char *argv[] = { target, "spin", "150", "pages", "3000", NULL };
	int cpuver = cpc_getcpuver();
	/* Page faults in system mode too where this user may count there
	 * (root; under the module CAP_PERFMON or allow_system). */
	ck_assert_int_eq(cpc_strtoevent(cpuver,
			     system_mode_permitted() ?
				 "pic0=task-clock,pic1=page-faults,sys1" :
				 "pic0=task-clock,pic1=page-faults",
			     &v1_event),
	    0);
	v1_event.ce_pic[0] = 1ULL << 50;	/* presets */
	v1_event.ce_pic[1] = 1ULL << 40;
	v1_wall0 = wall_ns();
	pctx_t *pctx = pctx_create(target, (char *const *)argv, NULL, 0,
	    errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, v1_init,
			     PCTX_FINI_LWP_EVENT, v1_fini, PCTX_NULL_EVENT), 0);
	v1_samples_ok = 0;
	capture_errors();
	ck_assert_int_eq(pctx_run(pctx, 40, 0, v1_tick), 0);
	ck_assert_int_ge(v1_samples_ok, 1);
	pctx_release(pctx);
	/* Without libpctx's context. */
	cpc_event_t ev = v1_event;
	ck_assert_int_eq(cpc_pctx_take_sample(NULL, 1, &ev), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(cpc_pctx_rele(NULL, 1), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("pctx-bind");
	TCase *tc = tcase_create("bind");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, capture_refused);
	tcase_add_test(tc, create_errors);
	tcase_add_test(tc, create_refuses_setid_and_unreadable);
	if (!process_counting_permitted()) {
		/* Neither perf nor the module's device lets this user count. */
		printf("SKIP counting tests of test_pctx_bind: "
		       "perf_event_paranoid refuses perf to this user, and "
		       "/dev/cpc does not open\n");
		suite_add_tcase(s, tc);
		return s;
	}
	tcase_add_test(tc, shell_is_lwp_1);
	tcase_add_test(tc, bind_pctx_errors);
	tcase_add_test(tc, emt_request_in_a_process_context);
	tcase_add_test(tc, v1_pctx_interfaces);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_pctx_suite(suite());
}
