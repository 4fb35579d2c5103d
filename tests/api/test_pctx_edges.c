/* SPDX-License-Identifier: MIT */
/*
 * Edges of process contexts.  A failed rebind (cpc_pctx_bind_event(3CPC)):
 * "a bind that fails leaves the LWP without a binding", whatever the
 * reason, as cpc_bind_event leaves the calling LWP; the old counters do
 * not count on behind the caller's back, and a successful rebind
 * replaces the old binding (target /bin/sh, all in its init_lwp).
 * LWP numbering after an exec: the new image's LWP is 1 and its threads
 * 2, 3, ... again, as on Solaris, however many the old image had.  The
 * fork callback names the LWP that forked (tests/pctx_target's tfork:
 * LWP 2); it runs in a fork copy of this process, which tells the test
 * through a pipe.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ------------------------------------------------------ exec and fork */

static char target[512];

static void set_target(void)
{
	const char *dir = getenv("top_builddir");
	snprintf(target, sizeof(target), "%s/tests/pctx_target",
	    dir != NULL ? dir : ".");
}

static int after_exec, nids;
static __id_t ids_after_exec[16];

static int note_init(pctx_t *pctx, pid_t pid, __id_t lwpid, void *arg)
{
	(void)pctx, (void)pid, (void)arg;
	if (after_exec && nids < 16)
		ids_after_exec[nids++] = lwpid;
	return 0;
}

static int note_exec(pctx_t *pctx, pid_t pid, __id_t lwpid, char *args,
    void *arg)
{
	(void)pctx, (void)pid, (void)args, (void)arg;
	ck_assert_int_eq(lwpid, 1);
	after_exec = 1;
	return 0;
}

START_TEST(lwp_ids_start_again_after_exec)
{
	set_target();
	/* Old image: LWPs 1 and 2 (the exec'ing thread); new image: 1, then
	 * its two threads. */
	char *argv[] = { target, "texec", target, "threads", "2", "10",
		"exit", "0", NULL };
	pctx_t *pctx = pctx_create(target, argv, NULL, 0, errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_INIT_LWP_EVENT, note_init,
			     PCTX_SYSC_EXEC_EVENT, note_exec, PCTX_NULL_EVENT),
	    0);
	after_exec = nids = 0;
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	pctx_release(pctx);
	ck_assert_int_eq(nids, 3);
	ck_assert_int_eq(ids_after_exec[0], 1);
	ck_assert_int_eq(ids_after_exec[1] + ids_after_exec[2], 2 + 3);
	ck_assert_int_ne(ids_after_exec[1], ids_after_exec[2]);
}
END_TEST

static int fork_pipe[2];

static void note_fork(pctx_t *pctx, pid_t ppid, __id_t child, pid_t lwpid,
    void *arg)
{
	(void)pctx, (void)ppid, (void)child, (void)arg;
	/* In the fork copy of this process: tell the test. */
	int v = (int)lwpid;
	ck_assert_int_eq(write(fork_pipe[1], &v, sizeof(v)), (ssize_t)sizeof(v));
}

START_TEST(fork_callback_names_the_forker)
{
	set_target();
	char *argv[] = { target, "spin", "5", "tfork", "10", "exit", "0",
		NULL };
	ck_assert_int_eq(pipe(fork_pipe), 0);
	pctx_t *pctx = pctx_create(target, argv, NULL, 0, errfn);
	ck_assert_ptr_nonnull(pctx);
	ck_assert_int_eq(pctx_set_events(pctx, PCTX_SYSC_FORK_EVENT, note_fork,
			     PCTX_NULL_EVENT), 0);
	ck_assert_int_eq(pctx_run(pctx, 0, 0, NULL), 0);
	pctx_release(pctx);
	close(fork_pipe[1]);
	int v = -1;
	ck_assert_int_eq(read(fork_pipe[0], &v, sizeof(v)), (ssize_t)sizeof(v));
	close(fork_pipe[0]);
	ck_assert_int_eq(v, 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pctx_edges");
	TCase *tc = tcase_create("rebind");
	tcase_set_timeout(tc, 60);
	/* Process contexts count through perf (libpctx's bindings): where
	 * perf_event_paranoid refuses this user, the rebind case cannot
	 * bind at all. */
	if (perf_self_permitted())
		tcase_add_test(tc, failed_rebind_leaves_no_binding);
	else
		printf("SKIP failed_rebind_leaves_no_binding: "
		       "perf_event_paranoid refuses perf to this user\n");
	tcase_add_test(tc, lwp_ids_start_again_after_exec);
	tcase_add_test(tc, fork_callback_names_the_forker);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
