/* SPDX-License-Identifier: MIT */
/*
 * kt_access.c: who may open the device and count what: the access policy
 * (access, access_gid, CAP_PERFMON, CAP_KILL), SYSTEM mode, the limits, and
 * whose dumpability the ptrace-style check looks at.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

/* ---- privilege: allow_system, access, max_contexts ----------------- */

static int child_system(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_SYSTEM, 0);
	int want = *(int *)arg, f, err;

	drop_to_nobody();
	f = open_cpc();
	if (f < 0)
		return 10;
	err = bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &r);
	close(f);
	return err == want ? 0 : 1;
}

static int child_open(void *arg)
{
	gid_t gid = *(gid_t *)arg;
	int f;

	if (gid && setgroups(1, &gid) != 0)
		return 20;
	if (setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return 21;
	f = open_cpc();
	if (f < 0)
		return errno == EACCES ? 2 : 3;
	close(f);
	return 0;
}

static void test_privileges(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_SYSTEM, 0);
	struct cpc_kreq q;
	int want, st, err, f;
	char buf[32];

	if (!is_root) {
		long allow = kt_param("allow_system");

		if (allow == 0)
			check(bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) ==
			      EACCES, "unprivileged SYSTEM counting with "
			      "allow_system=0: EACCES");
		else
			kt_skip("allow_system is %ld, not 0: nothing refused "
				"to an unprivileged user", allow);
		return;
	}

	check(bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &r) == 0,
	      "root may count SYSTEM mode");
	want = EACCES;
	st = in_child(child_system, &want);
	check(st == 0, "uid 65534, allow_system=0: SYSTEM is EACCES (%d)", st);
	if (kt_set_param("allow_system", "1") == 0) {
		want = 0;
		st = in_child(child_system, &want);
		check(st == 0, "uid 65534, allow_system=1: SYSTEM allowed "
		      "(%d)", st);
		kt_set_param("allow_system", "0");
	}

	/* max_contexts: EAGAIN past it. */
	q = TASK_CLOCK(CPC_KREQ_USER, 0);
	bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &q);	/* reaps */
	snprintf(buf, sizeof(buf), "%ld", kt_stat("contexts_in_use") + 1);
	kt_set_param("max_contexts", buf);
	err = bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &q);
	check(err == 0, "max_contexts = in use + 1: one more fits (%d)", err);
	err = bind_reqs(fd, CPC_KIOC_BIND, 0, 0, 1, &q);
	check(err == 0, "rebinding does not count again (%d)", err);
	f = open_cpc();
	err = bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &q);
	check(err == EAGAIN, "past max_contexts (another file of the same "
	      "user): EAGAIN (%d)", err);
	err = target(fd, CPC_KIOC_GROUP_CLOSE, 0);
	err = err ? err : bind_reqs(f, CPC_KIOC_BIND, 0, 0, 1, &q);
	check(err == 0, "after GROUP_CLOSE it fits (%d)", err);
	close(f);
	kt_set_param("max_contexts", "1024");
}

/* ---- the access policy -------------------------------------------- */

enum who { ROOT, MEMBER, STRANGER_, PERFMON, NWHO };

static const char *const who_name[NWHO] = {
	"root", "uid 65534 in the group", "uid 1001 outside it",
	"uid 1001 with CAP_PERFMON",
};

static int child_try_open(void *arg)
{
	int f;

	switch (*(enum who *)arg) {
	case MEMBER:
		become(NOBODY, 1);
		break;
	case STRANGER_:
		become(STRANGER, 0);
		break;
	case PERFMON:
		become_perfmon(0);
		break;
	default:
		break;
	}
	f = open_cpc();
	if (f < 0)
		return errno == EACCES ? 2 : 3;
	close(f);
	return 0;
}

/*
 * CAP_PERFMON counts any thread, but overflow signals to another user's
 * thread need CAP_KILL as well (or ptrace rights).  Uses the inherited
 * file on the parent's (root's) thread.
 */
static int child_perfmon_target(void *arg)
{
	struct cpc_kreq c = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_kreq o = TASK_CLOCK(CPC_KREQ_USER | CPC_KREQ_OVF_EMT, 0);
	pid_t parent = ((pid_t *)arg)[0];
	int kill = ((pid_t *)arg)[1], bad = 0;
	struct cpc_ksample s;

	become_perfmon(kill);
	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &c) != 0)
		bad |= 1;
	if (sample(fd, CPC_KIOC_SAMPLE, parent, &s) != 0)
		bad |= 2;
	if (bind_reqs(fd, CPC_KIOC_BIND, parent, 0, 1, &o) !=
	    (kill ? 0 : EPERM))
		bad |= 4;
	if (target(fd, CPC_KIOC_RELE, parent) != 0)
		bad |= 8;
	return bad;
}

/* --stranger: outside the device's group, the default policy says no. */
static void test_stranger_open(void)
{
	int f;

	if (!kt_stranger) {
		kt_skip("only with --stranger");
		return;
	}
	f = open_cpc();
	check(f < 0 && errno == EACCES, "a user outside the group "
	      "cannot open " CPC_KMOD_DEVICE " (%s)",
	      f < 0 ? strerror(errno) : "opened");
	if (f >= 0)
		close(f);
}

static void test_policy(void)
{
	/* opens[device mode 0660, 0666][access 0, 1, 2][who] */
	static const int opens[2][3][NWHO] = {
		{ { 1, 1, 0, 0 }, { 1, 1, 0, 0 }, { 1, 0, 0, 0 } },
		{ { 1, 1, 1, 1 }, { 1, 1, 0, 1 }, { 1, 0, 0, 1 } },
	};
	pid_t args[2];
	struct stat st;
	int m, a, w, r, bad;
	gid_t g;
	char val[8];

	if (!is_root) {
		r = kt_stat_open_errno("contexts_in_use");
		check(r == EACCES, "contexts_in_use: root only");
		return;
	}
	check(kt_param("access") == 1 && kt_param("access_gid") == -1,
	      "default policy: access=1 (the device's group or CAP_PERFMON)");
	check(stat(CPC_KMOD_DEVICE, &st) == 0 && (st.st_mode & 0777) == 0660 &&
	      st.st_uid == 0 && st.st_gid != 0, "device root:%u mode 0%o",
	      (unsigned)st.st_gid, (unsigned)(st.st_mode & 0777));

	for (m = 0; m < 2; m++) {
		chmod(CPC_KMOD_DEVICE, m ? 0666 : 0660);
		for (a = 0; a < 3; a++) {
			snprintf(val, sizeof(val), "%d", a);
			kt_set_param("access", val);
			bad = 0;
			for (w = 0; w < NWHO; w++) {
				r = in_child(child_try_open, &w);
				if (r != (opens[m][a][w] ? 0 : 2)) {
					printf("# %s: status %d\n",
					       who_name[w], r);
					bad++;
				}
			}
			check(!bad, "device mode 0%o, access=%d: root, member, "
			      "stranger, CAP_PERFMON open %d%d%d%d",
			      m ? 0666 : 0660, a, opens[m][a][0],
			      opens[m][a][1], opens[m][a][2], opens[m][a][3]);
		}
	}

	/* access_gid names the group instead of the device's. */
	kt_set_param("access", "1");
	kt_set_param("access_gid", "4242");
	g = 4242;
	r = in_child(child_open, &g);
	g = device_gid();
	bad = in_child(child_open, &g);
	check(r == 0 && bad == 2, "access_gid=4242: its member opens, the "
	      "device group's does not (%d %d)", r, bad);
	kt_set_param("access_gid", "-1");
	chmod(CPC_KMOD_DEVICE, 0660);

	args[0] = gettid_();
	args[1] = 0;
	r = in_child(child_perfmon_target, args);
	check(r == 0, "CAP_PERFMON counts root's thread, but overflow signals "
	      "need CAP_KILL: EPERM (%d)", r);
	args[1] = 1;
	r = in_child(child_perfmon_target, args);
	check(r == 0, "CAP_PERFMON with CAP_KILL: overflow signals allowed "
	      "(%d)", r);
}

/* ---- dumpability: the target's, not the caller's ------------------ */

/*
 * A process of the caller's user whose dumpability the test sets through
 * a pipe ('u' undumpable, 'd' dumpable, 'q' quit); it answers each
 * command with its dumpability as prctl(PR_GET_DUMPABLE) reads it.
 */
struct puppet {
	pid_t pid;
	int cmd, ack;
};

static int puppet_start(struct puppet *p)
{
	int c[2], a[2];
	char ch;

	if (pipe(c) || pipe(a))
		return -1;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		close(c[1]);
		close(a[0]);
		while (read(c[0], &ch, 1) == 1 && ch != 'q') {
			prctl(PR_SET_DUMPABLE, ch == 'd', 0, 0, 0);
			ch = (char)prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
			if (write(a[1], &ch, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(c[0]);
	close(a[1]);
	p->cmd = c[1];
	p->ack = a[0];
	return 0;
}

/* Sends a command; returns the puppet's dumpability after it, or -1. */
static int puppet_do(struct puppet *p, char ch)
{
	char got;

	if (write(p->cmd, &ch, 1) != 1 || read(p->ack, &got, 1) != 1)
		return -1;
	return got;
}

static void puppet_end(struct puppet *p)
{
	int st;

	if (write(p->cmd, "q", 1) != 1)
		kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
	close(p->cmd);
	close(p->ack);
}

/* The ioctls that name a thread, each on @tid: how many did not give
 * @want (each printed). */
static int seven_ops(int f, pid_t tid, int want, const char *what)
{
	static const struct {
		const char *name;
		unsigned long cmd;
		int kind;	/* 0 bind, 1 sample, 2 target */
	} ops[] = {
		{ "BIND", CPC_KIOC_BIND, 0 },
		{ "SAMPLE", CPC_KIOC_SAMPLE, 1 },
		{ "RESTART", CPC_KIOC_RESTART, 2 },
		{ "GROUP_OPEN", CPC_KIOC_GROUP_OPEN, 0 },
		{ "GROUP_SAMPLE", CPC_KIOC_GROUP_SAMPLE, 1 },
		{ "GROUP_CLOSE", CPC_KIOC_GROUP_CLOSE, 2 },
		{ "RELE", CPC_KIOC_RELE, 2 },
	};
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	unsigned i;
	int bad = 0, err;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		err = ops[i].kind == 0 ?
			      bind_reqs(f, ops[i].cmd, tid, 0, 1, &r) :
		      ops[i].kind == 1 ? sample(f, ops[i].cmd, tid, &s) :
					 target(f, ops[i].cmd, tid);
		if (err != want) {
			printf("# %s, %s: %s, not %s\n", what, ops[i].name,
			       err ? strerror(err) : "0",
			       want ? strerror(want) : "0");
			bad++;
		}
	}
	return bad;
}

/*
 * As an unprivileged user: a process of the same user that made itself
 * undumpable is refused whatever the caller's own dumpability, one that
 * is dumpable is allowed even to an undumpable caller, and a target that
 * turns undumpable after the bind is refused from then on.  Returns a
 * bit per failed step (each printed).
 */
static int child_dumpability(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	struct puppet p;
	int f, bad = 0, d;

	(void)arg;
	if (is_root)
		drop_to_nobody();
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	f = open_cpc();
	if (f < 0 || puppet_start(&p) != 0)
		return 64;

	/* The target undumpable, the caller dumpable: refused. */
	d = puppet_do(&p, 'u');
	if (d != 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 1)
		bad |= 32;
	if (seven_ops(f, p.pid, EPERM, "undumpable target, dumpable caller"))
		bad |= 1;

	/* The target dumpable, the caller undumpable: allowed. */
	d = puppet_do(&p, 'd');
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (d != 1 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
		bad |= 32;
	if (bind_reqs(f, CPC_KIOC_BIND, p.pid, 0, 1, &r) != 0 ||
	    seven_ops(f, p.pid, 0, "dumpable target, undumpable caller"))
		bad |= 2;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);

	/* Bound while dumpable, then undumpable: refused from then on. */
	if (bind_reqs(f, CPC_KIOC_BIND, p.pid, 0, 1, &r) != 0)
		bad |= 4;
	if (puppet_do(&p, 'u') != 0)
		bad |= 32;
	if (sample(f, CPC_KIOC_SAMPLE, p.pid, &s) != EPERM ||
	    target(f, CPC_KIOC_RESTART, p.pid) != EPERM ||
	    target(f, CPC_KIOC_RELE, p.pid) != EPERM)
		bad |= 8;
	if (puppet_do(&p, 'd') != 1 ||
	    sample(f, CPC_KIOC_SAMPLE, p.pid, &s) != 0 ||
	    target(f, CPC_KIOC_RELE, p.pid) != 0)
		bad |= 16;
	puppet_end(&p);
	close(f);
	return bad;
}

static void test_undumpable_target(void)
{
	int st = in_child(child_dumpability, NULL);

	check(!(st & 64), "uid %d: a fresh file and a target process of the "
	      "same user (status %d)", is_root ? NOBODY : (int)geteuid(), st);
	if (st & 64)
		return;
	check(!(st & 32), "prctl(PR_SET_DUMPABLE) set what the steps need");
	check(!(st & 1), "a same-user target that made itself undumpable: "
	      "all seven thread ioctls EPERM to a dumpable caller");
	check(!(st & 2), "a dumpable target: all seven allowed to a caller "
	      "that made itself undumpable (the target's dumpability counts)");
	check(!(st & 4), "a dumpable target bound");
	check(!(st & 8), "once it turns undumpable: SAMPLE, RESTART, RELE "
	      "EPERM");
	check(!(st & 16), "dumpable again: SAMPLE and RELE allowed");
}

/* ---- limits: counters per user, sets per thread -------------------- */

static int child_limit_events(void *arg)
{
	struct cpc_kreq r2[2] = {
		TASK_CLOCK(CPC_KREQ_USER, 0), PAGE_FAULTS(CPC_KREQ_USER, 0),
	};
	int f, bad = 0;

	(void)arg;
	become(NOBODY, 1);
	f = open_cpc();
	if (f < 0)
		return 64;
	/* max_events = 3 */
	if (bind_reqs(f, CPC_KIOC_BIND, 0, 0, 2, r2) != 0)
		bad |= 1;
	if (bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 2, r2) != EAGAIN)
		bad |= 2;
	if (bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 1, r2) != 0)
		bad |= 4;
	if (bind_reqs(f, CPC_KIOC_BIND, 0, 0, 2, r2) != 0)	/* replaces */
		bad |= 8;
	if (target(f, CPC_KIOC_GROUP_CLOSE, 0) != 0 ||
	    bind_reqs(f, CPC_KIOC_BIND, 0, 0, 2, r2) != 0)
		bad |= 16;
	close(f);
	return bad;
}

static int child_limit_thread(void *arg)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	int f1, f2, bad = 0;

	(void)arg;
	become(NOBODY, 1);
	f1 = open_cpc();
	f2 = open_cpc();
	if (f1 < 0 || f2 < 0)
		return 64;
	/* max_sets_per_thread = 2 */
	if (bind_reqs(f1, CPC_KIOC_BIND, 0, 0, 1, &r) != 0 ||
	    bind_reqs(f1, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &r) != 0)
		bad |= 1;
	if (bind_reqs(f2, CPC_KIOC_BIND, 0, 0, 1, &r) != EAGAIN)
		bad |= 2;
	if (bind_reqs(f1, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)	/* replaces */
		bad |= 4;
	if (target(f1, CPC_KIOC_RELE, 0) != 0 ||
	    bind_reqs(f2, CPC_KIOC_BIND, 0, 0, 1, &r) != 0)
		bad |= 8;
	close(f1);
	close(f2);
	return bad;
}

static void test_limits(void)
{
	int st;

	if (!is_root) {
		kt_skip("needs root (sets the limits)");
		return;
	}
	check(kt_param("max_events") == 4096 &&
	      kt_param("max_sets_per_thread") == 16,
	      "defaults: max_events 4096, max_sets_per_thread 16");
	kt_set_param("max_events", "3");
	st = in_child(child_limit_events, NULL);
	kt_set_param("max_events", "4096");
	check(st == 0, "max_events=3: 2 counters fit, 2 more are EAGAIN, 1 "
	      "more fits, a replacing bind fits (%d)", st);
	kt_set_param("max_sets_per_thread", "2");
	st = in_child(child_limit_thread, NULL);
	kt_set_param("max_sets_per_thread", "16");
	check(st == 0, "max_sets_per_thread=2: a third set on the thread (of "
	      "another file) is EAGAIN, a replacing bind fits (%d)", st);
}

static const struct kt_test tests[] = {
	{ "stranger_open", test_stranger_open, KT_NO_DEVICE | KT_STRANGER,
	  "--stranger: the default policy keeps a user outside the group out" },
	{ "privileges", test_privileges, 0,
	  "SYSTEM mode (allow_system) and max_contexts" },
	{ "policy", test_policy, KT_STRANGER,
	  "access, access_gid, the device's mode, CAP_PERFMON and CAP_KILL" },
	{ "limits", test_limits, 0, "max_events and max_sets_per_thread" },
	{ "undumpable_target", test_undumpable_target, 0,
	  "a same-user target's dumpability, not the caller's, decides" },
};
KT_SUITE(access, tests);
