/* SPDX-License-Identifier: MIT */
/*
 * kt_ids.c: the target id of every ioctl.  Each CPC_KIOC_* that names a
 * thread (BIND, SAMPLE, RESTART, RELE, GROUP_OPEN, GROUP_SAMPLE,
 * GROUP_CLOSE) or a processor (CPU_BIND, CPU_SAMPLE, CPU_RELE) is given
 * ids out of range, of another user, of threads that have exited, and of
 * the wrong kind, and must answer what cpc(4) and cpc_kmod.h document:
 * EINVAL for a negative id (malformed: 0 is the caller), ESRCH for no
 * such thread, EPERM for one the caller may not count (a
 * kernel thread: never), EINVAL for nothing of that kind bound (and for
 * a processor that is not online or that the file does not count),
 * EACCES for processor contexts without CAP_PERFMON; an exited thread's
 * counts stay readable through the file that bound it until released.
 * A refused id must leave the file's other bindings as they were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

enum op_kind { OP_BIND, OP_SAMPLE, OP_TARGET };

struct op {
	const char *name;
	unsigned long cmd;
	enum op_kind kind;
};

static const struct op thread_ops[] = {
	{ "BIND", CPC_KIOC_BIND, OP_BIND },
	{ "SAMPLE", CPC_KIOC_SAMPLE, OP_SAMPLE },
	{ "RESTART", CPC_KIOC_RESTART, OP_TARGET },
	{ "RELE", CPC_KIOC_RELE, OP_TARGET },
	{ "GROUP_OPEN", CPC_KIOC_GROUP_OPEN, OP_BIND },
	{ "GROUP_SAMPLE", CPC_KIOC_GROUP_SAMPLE, OP_SAMPLE },
	{ "GROUP_CLOSE", CPC_KIOC_GROUP_CLOSE, OP_TARGET },
};
#define NOPS (sizeof(thread_ops) / sizeof(thread_ops[0]))

static const struct op cpu_ops[] = {
	{ "CPU_BIND", CPC_KIOC_CPU_BIND, OP_BIND },
	{ "CPU_SAMPLE", CPC_KIOC_CPU_SAMPLE, OP_SAMPLE },
	{ "CPU_RELE", CPC_KIOC_CPU_RELE, OP_TARGET },
};

/* One ioctl on id @id: 0 or the errno. */
static int do_op(int f, const struct op *op, int id)
{
	struct cpc_kreq r = op->cmd == CPC_KIOC_CPU_BIND ?
				    CPU_CLOCK(CPC_KREQ_USER, 0) :
				    TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;

	switch (op->kind) {
	case OP_BIND:
		return bind_reqs(f, op->cmd, id, 0, 1, &r);
	case OP_SAMPLE:
		return sample(f, op->cmd, id, &s);
	default:
		return target(f, op->cmd, id);
	}
}

/*
 * Every op of @ops[first..last] on @id must give @want; prints each one
 * that does not (also from a child process) and returns their number.
 */
static int ops_want(int f, const struct op *ops, unsigned first,
		    unsigned last, int id, int want, const char *what)
{
	unsigned i;
	int bad = 0, err;

	for (i = first; i <= last; i++) {
		err = do_op(f, &ops[i], id);
		if (err != want) {
			printf("# %s of %s (id %d): %s, not %s\n",
			       ops[i].name, what, id,
			       err ? strerror(err) : "0",
			       want ? strerror(want) : "0");
			bad++;
		}
	}
	return bad;
}

static int all_thread_ops(int f, pid_t tid, int want, const char *what)
{
	return ops_want(f, thread_ops, 0, NOPS - 1, tid, want, what);
}

/* The number of possible processors (the kernel's nr_cpu_ids). */
static int possible_cpus(void)
{
	FILE *fp = fopen("/sys/devices/system/cpu/possible", "r");
	int lo = 0, hi = -1;

	if (fp) {
		if (fscanf(fp, "%d-%d", &lo, &hi) < 2)
			hi = lo;
		fclose(fp);
	}
	return hi + 1;
}

/* Is @pid a kernel thread (PF_KTHREAD in /proc/PID/stat's flags)? */
static int is_kthread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	p = p ? strrchr(buf, ')') : NULL;
	if (!p)
		return 0;
	/* After ") ": state ppid pgrp session tty tpgid flags */
	for (i = 0; i < 6 && p; i++)
		p = strchr(p + 1, ' ');
	if (p)
		flags = strtoul(p + 1, NULL, 10);
	return (flags & 0x00200000) != 0;
}

/* The calling thread's binding (START_FROZEN, preset 7) and aggregate. */
static int bind_self_both(int f)
{
	struct cpc_kreq b = TASK_CLOCK(CPC_KREQ_USER, 7);
	struct cpc_kreq g = PAGE_FAULTS(CPC_KREQ_USER, 0);

	return bind_reqs(f, CPC_KIOC_BIND, 0, CPC_KBIND_START_FROZEN, 1, &b) ?:
	       bind_reqs(f, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &g);
}

/* Still as bind_self_both() left them: no refused op touched them. */
static int self_both_intact(int f, pid_t tid)
{
	struct cpc_ksample s, g;

	if (sample(f, CPC_KIOC_SAMPLE, tid, &s) != 0 || s.nreqs != 1 ||
	    s.vals[0] != 7 || !(s.flags & CPC_KSAMPLE_FROZEN))
		return 0;
	return sample(f, CPC_KIOC_GROUP_SAMPLE, tid, &g) == 0 && g.nreqs == 1;
}

/* ---- out of range -------------------------------------------------- */

static void test_ids_range(void)
{
	static const int neg[] = { -1, -2, INT_MIN };
	static const int big[] = { INT_MAX, 4194305 };	/* past pid_max */
	char what[32];
	unsigned i;
	int bad = 0, err;

	err = bind_self_both(fd);
	check(err == 0, "bind the calling thread and open its aggregate (%d)",
	      err);
	/* A negative tid is malformed (0 is the caller). */
	for (i = 0; i < sizeof(neg) / sizeof(neg[0]); i++) {
		snprintf(what, sizeof(what), "tid %d", neg[i]);
		bad += all_thread_ops(fd, neg[i], EINVAL, what);
	}
	check(!bad, "tids -1, -2, INT_MIN: EINVAL from all seven thread "
	      "ioctls (%d wrong)", bad);
	bad = 0;
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		snprintf(what, sizeof(what), "tid %d", big[i]);
		bad += all_thread_ops(fd, big[i], ESRCH, what);
	}
	check(!bad, "tids INT_MAX, past pid_max: ESRCH from all seven (%d "
	      "wrong)", bad);
	check(self_both_intact(fd, 0), "the caller's binding (frozen at 7) "
	      "and aggregate are untouched");
}

/* ---- processors ---------------------------------------------------- */

/* Negative processor ids are malformed: EINVAL from every op. */
static const int cpu_neg[] = { -1, INT_MIN };
#define NCPU_NEG (sizeof(cpu_neg) / sizeof(cpu_neg[0]))

static int cpu_neg_ops(int f, const char *who)
{
	unsigned i;
	int bad = 0;

	for (i = 0; i < NCPU_NEG; i++)
		bad += ops_want(f, cpu_ops, 0, 2, cpu_neg[i], EINVAL, who);
	return bad;
}

static int child_cpu_nobody(void *arg)
{
	const int ncpu = *(int *)arg;
	const int ids[] = { 0, ncpu, INT_MAX };
	unsigned i;
	int bad;

	drop_to_nobody();
	/* The inherited file counts processor 0: binding is still refused,
	 * whatever the (well-formed) id, before it is looked at. */
	bad = cpu_neg_ops(fd, "uid 65534");
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		bad += ops_want(fd, cpu_ops, 0, 0, ids[i], EACCES,
				"uid 65534");
	return bad;
}

/*
 * With the administrator's cpu_access, a user the device admits binds
 * processors: the ids are then looked at, as for CAP_PERFMON.
 */
static int child_cpu_granted(void *arg)
{
	const int ncpu = *(int *)arg;
	const int ids[] = { ncpu, ncpu + 1, INT_MAX };
	unsigned i;
	int bad, f, err;

	drop_to_nobody();
	f = open_cpc();
	if (f < 0)
		return 100;
	bad = cpu_neg_ops(f, "cpu_access user");
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		bad += ops_want(f, cpu_ops, 0, 2, ids[i], EINVAL,
				"cpu_access user");
	err = do_op(f, &cpu_ops[0], 0);
	if (err) {
		printf("# cpu_access user: CPU_BIND of processor 0: %s\n",
		       strerror(err));
		bad++;
	}
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		bad += ops_want(f, cpu_ops, 1, 2, ids[i], EINVAL,
				"cpu_access user, cpu 0 bound");
	bad += ops_want(f, cpu_ops, 1, 2, 0, 0, "cpu_access user");
	close(f);
	return bad;
}

static void test_ids_cpu(void)
{
	int ncpu = possible_cpus();
	const int ids[] = { ncpu, ncpu + 1, INT_MAX };
	const unsigned nids = sizeof(ids) / sizeof(ids[0]);
	struct cpc_ksample s;
	char what[32];
	unsigned i;
	int bad, err, f2, st;

	if (!is_root) {
		bad = cpu_neg_ops(fd, "a user");
		check(!bad, "processors -1, INT_MIN: EINVAL from CPU_BIND, "
		      "CPU_SAMPLE, CPU_RELE (%d wrong)", bad);
		bad = ops_want(fd, cpu_ops, 0, 0, 0, EACCES, "a user");
		for (i = 0; i < nids; i++)
			bad += ops_want(fd, cpu_ops, 0, 0, ids[i], EACCES,
					"a user");
		check(!bad, "without CAP_PERFMON: CPU_BIND is EACCES for "
		      "processor 0 and ids past the last (%d wrong)", bad);
		bad = ops_want(fd, cpu_ops, 1, 2, 0, EINVAL, "unbound");
		check(!bad, "CPU_SAMPLE, CPU_RELE of a processor the file "
		      "does not count: EINVAL (%d wrong)", bad);
		return;
	}
	check(ncpu > 0, "%d possible processors", ncpu);
	bad = cpu_neg_ops(fd, "nothing bound");
	for (i = 0; i < nids; i++) {
		snprintf(what, sizeof(what), "cpu %d", ids[i]);
		bad += ops_want(fd, cpu_ops, 0, 2, ids[i], EINVAL, what);
	}
	check(!bad, "nothing bound: CPU_BIND, CPU_SAMPLE, CPU_RELE of "
	      "processors -1, INT_MIN, %d, %d, INT_MAX: EINVAL (%d wrong)",
	      ncpu, ncpu + 1, bad);

	/* With processor 0 counted, and the caller's thread bound. */
	err = do_op(fd, &cpu_ops[0], 0);
	check(err == 0, "CPU_BIND processor 0 (%d)", err);
	if (err)
		return;
	bind1(CPC_KEV_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CPC_KREQ_USER);
	bad = cpu_neg_ops(fd, "cpu 0 bound");
	for (i = 0; i < nids; i++) {
		snprintf(what, sizeof(what), "cpu %d", ids[i]);
		bad += ops_want(fd, cpu_ops, 0, 2, ids[i], EINVAL, what);
	}
	for (i = 1; i < (unsigned)ncpu && i < 4; i++)
		bad += ops_want(fd, cpu_ops, 1, 2, i, EINVAL, "unbound cpu");
	/* A thread id is not a processor id. */
	bad += ops_want(fd, cpu_ops, 1, 2, gettid_(), EINVAL, "own tid");
	check(!bad, "processor 0 counted: the ids out of range, the other "
	      "processors and the caller's tid are EINVAL (%d wrong)", bad);

	/* Another file's processor context is not this file's. */
	f2 = open_cpc();
	bad = ops_want(f2, cpu_ops, 1, 2, 0, EINVAL, "another file's cpu");
	close(f2);
	check(!bad, "CPU_SAMPLE, CPU_RELE of processor 0 through a file that "
	      "does not count it: EINVAL (%d wrong)", bad);
	st = in_child(child_cpu_nobody, &ncpu);
	check(st == 0, "uid 65534 with the file: CPU_BIND is EACCES for every "
	      "well-formed id (%d wrong)", st);
	if (kt_param("cpu_access") == 0 &&
	    kt_set_param("cpu_access", "1") == 0) {
		st = in_child(child_cpu_granted, &ncpu);
		kt_set_param("cpu_access", "0");
		check(st == 0, "uid 65534 with cpu_access=1: ids out of range "
		      "EINVAL from all three, processor 0 bound, sampled and "
		      "released (%d wrong)", st);
	}
	err = sample(fd, CPC_KIOC_CPU_SAMPLE, 0, &s);
	check(err == 0 && s.nreqs == 1, "processor 0 still counted by its "
	      "file (%d, nreqs %u)", err, s.nreqs);
	err = target(fd, CPC_KIOC_CPU_RELE, 0);
	bad = ops_want(fd, cpu_ops, 1, 2, 0, EINVAL, "released cpu");
	check(err == 0 && !bad, "CPU_RELE, then CPU_SAMPLE and CPU_RELE are "
	      "EINVAL (%d, %d wrong)", err, bad);
}

/* ---- another user's, kernel threads ------------------------------- */

static int foreign_ops(void *arg)
{
	pid_t parent = *(pid_t *)arg;
	int bad = 0, f;

	if (is_root)
		drop_to_nobody();
	/* Root's thread (the parent: bound in the inherited file) and init. */
	if (parent)
		bad += all_thread_ops(fd, parent, EPERM, "root's thread");
	bad += all_thread_ops(fd, 1, EPERM, "init");
	f = open_cpc();
	if (f < 0)
		return 100;
	bad += all_thread_ops(f, 1, EPERM, "init");
	close(f);
	return bad;
}

static void test_ids_foreign(void)
{
	pid_t parent = is_root ? gettid_() : 0;
	int err, st;

	err = bind_self_both(fd);
	check(err == 0, "bind the calling thread and open its aggregate (%d)",
	      err);
	st = in_child(foreign_ops, &parent);
	check(st == 0, "uid 65534: all seven thread ioctls on %sinit (pid 1) "
	      "are EPERM (%d wrong)", is_root ? "root's bound thread and " :
	      "", st);
	check(self_both_intact(fd, 0), "the binding (frozen at 7) and the "
	      "aggregate are untouched: RESTART, RELE, GROUP_CLOSE refused");
}

static void test_ids_kthread(void)
{
	int bad;

	if (!is_kthread(2)) {
		kt_skip("pid 2 is not a kernel thread here");
		return;
	}
	bad = all_thread_ops(fd, 2, EPERM, "kthreadd");
	check(!bad, "%s: a kernel thread (pid 2) is EPERM from all seven "
	      "thread ioctls (%d wrong)", is_root ? "root" : "a user", bad);
}

/* ---- exited threads ------------------------------------------------ */

static pid_t sib_tid;
static volatile int sib_go;

static void *sibling(void *arg)
{
	(void)arg;
	sib_tid = gettid_();
	while (!sib_go)
		usleep(1000);
	spin_ms(5);
	return NULL;
}

/*
 * pthread_join() returns when the thread has left its memory, before it
 * has finished exiting: wait until its id is gone (it is then reaped).
 */
static int wait_gone(pid_t tid)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	for (i = 0; i < 5000 && access(path, F_OK) == 0; i++)
		usleep(1000);
	return access(path, F_OK) != 0;
}

static void test_ids_exited(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	pthread_t t;
	pid_t gone, zombie;
	int err, bad, st, f2;

	/* A process that is gone (reaped). */
	gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, &st, 0);

	sib_tid = 0;
	sib_go = 0;
	pthread_create(&t, NULL, sibling, NULL);
	while (!sib_tid)
		usleep(1000);
	err = bind_reqs(fd, CPC_KIOC_BIND, sib_tid, 0, 1, &r);
	err = err ?: bind_reqs(fd, CPC_KIOC_GROUP_OPEN, sib_tid, 0, 1, &r);
	check(err == 0, "bind a sibling thread and open its aggregate (%d)",
	      err);
	sib_go = 1;
	pthread_join(t, NULL);
	check(wait_gone(sib_tid), "the sibling %d has exited", sib_tid);

	/* Its counts stay readable through this file, by its old id. */
	err = sample(fd, CPC_KIOC_SAMPLE, sib_tid, &s);
	check(err == 0 && s.nreqs == 1 && s.vals[0] >= 4000000,
	      "SAMPLE of the exited sibling: its final count %llu ns (%d)",
	      (unsigned long long)s.vals[0], err);
	err = sample(fd, CPC_KIOC_GROUP_SAMPLE, sib_tid, &s);
	check(err == 0 && s.nreqs == 1, "GROUP_SAMPLE of it (%d)", err);
	bad = ops_want(fd, thread_ops, 2, 2, sib_tid, ESRCH, "exited");
	bad += ops_want(fd, thread_ops, 0, 0, sib_tid, ESRCH, "exited");
	bad += ops_want(fd, thread_ops, 4, 4, sib_tid, ESRCH, "exited");
	check(!bad, "RESTART, BIND, GROUP_OPEN of the exited sibling: ESRCH "
	      "(%d wrong)", bad);

	/* Not through another file, and no other gone id reads it. */
	f2 = open_cpc();
	bad = all_thread_ops(f2, sib_tid, ESRCH, "another file's exited");
	close(f2);
	check(!bad, "another file: all seven on the exited sibling are ESRCH "
	      "(%d wrong)", bad);
	bad = all_thread_ops(fd, gone, ESRCH, "gone process");
	check(!bad, "a reaped process's id (%d), with an exited context in "
	      "the file: ESRCH from all seven (%d wrong)", gone, bad);

	/* Released: its binding first, then its aggregate. */
	err = target(fd, CPC_KIOC_RELE, sib_tid);
	bad = ops_want(fd, thread_ops, 1, 1, sib_tid, EINVAL, "released");
	bad += ops_want(fd, thread_ops, 3, 3, sib_tid, EINVAL, "released");
	check(err == 0 && !bad, "RELE of the exited sibling, then SAMPLE and "
	      "RELE are EINVAL, its aggregate stays (%d, %d wrong)", err, bad);
	err = target(fd, CPC_KIOC_GROUP_CLOSE, sib_tid);
	bad = all_thread_ops(fd, sib_tid, ESRCH, "closed exited");
	check(err == 0 && !bad, "GROUP_CLOSE of it, then all seven are ESRCH "
	      "(%d, %d wrong)", err, bad);

	/* A zombie still exists: nothing is bound to it, nor can be. */
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	usleep(100000);
	bad = ops_want(fd, thread_ops, 0, 0, zombie, ESRCH, "zombie");
	bad += ops_want(fd, thread_ops, 4, 4, zombie, ESRCH, "zombie");
	bad += ops_want(fd, thread_ops, 1, 3, zombie, EINVAL, "zombie");
	bad += ops_want(fd, thread_ops, 5, 6, zombie, EINVAL, "zombie");
	waitpid(zombie, &st, 0);
	check(!bad, "an exited, unreaped child: BIND, GROUP_OPEN ESRCH, the "
	      "others EINVAL (nothing bound) (%d wrong)", bad);
}

/* ---- the wrong kind ------------------------------------------------ */

static void test_ids_kind(void)
{
	struct cpc_kreq r = TASK_CLOCK(CPC_KREQ_USER, 9);
	struct cpc_kreq g = PAGE_FAULTS(CPC_KREQ_USER, 0);
	struct cpc_ksample s;
	pthread_t t;
	int err, bad;

	/* An aggregate only: the binding ops find nothing. */
	err = bind_reqs(fd, CPC_KIOC_GROUP_OPEN, 0, 0, 1, &g);
	bad = ops_want(fd, thread_ops, 1, 3, 0, EINVAL, "aggregate only");
	check(err == 0 && !bad, "an aggregate only: SAMPLE, RESTART, RELE "
	      "EINVAL (%d, %d wrong)", err, bad);
	check(sample(fd, CPC_KIOC_GROUP_SAMPLE, 0, &s) == 0 && s.nreqs == 1,
	      "the aggregate is still open");
	err = target(fd, CPC_KIOC_GROUP_CLOSE, 0);

	/* A binding only: the aggregate ops find nothing. */
	err = err ?: bind_reqs(fd, CPC_KIOC_BIND, 0, CPC_KBIND_START_FROZEN, 1,
			       &r);
	bad = ops_want(fd, thread_ops, 5, 6, 0, EINVAL, "binding only");
	check(err == 0 && !bad, "a binding only: GROUP_SAMPLE, GROUP_CLOSE "
	      "EINVAL (%d, %d wrong)", err, bad);
	err = sample(fd, CPC_KIOC_SAMPLE, 0, &s);
	check(err == 0 && s.vals[0] == 9 && (s.flags & CPC_KSAMPLE_FROZEN),
	      "the binding is untouched (frozen at %llu)",
	      (unsigned long long)s.vals[0]);
	target(fd, CPC_KIOC_RELE, 0);

	/* The process id names the main thread, not a bound sibling. */
	sib_tid = 0;
	sib_go = 0;
	pthread_create(&t, NULL, sibling, NULL);
	while (!sib_tid)
		usleep(1000);
	err = bind_reqs(fd, CPC_KIOC_BIND, sib_tid, 0, 1, &r);
	bad = gettid_() == getpid() ?
		ops_want(fd, thread_ops, 1, 3, getpid(), EINVAL, "the pid") +
		ops_want(fd, thread_ops, 5, 6, getpid(), EINVAL, "the pid") : 0;
	check(err == 0 && !bad, "a sibling bound: SAMPLE, RESTART, RELE, "
	      "GROUP_* of the process id are EINVAL (%d, %d wrong)", err, bad);
	err = sample(fd, CPC_KIOC_SAMPLE, sib_tid, &s);
	check(err == 0 && s.nreqs == 1, "the sibling's binding stays (%d)",
	      err);
	sib_go = 1;
	pthread_join(t, NULL);
	target(fd, CPC_KIOC_RELE, sib_tid);
}

static const struct kt_test tests[] = {
	{ "ids_range", test_ids_range, 0,
	  "thread ids out of range: ESRCH from every thread ioctl" },
	{ "ids_cpu", test_ids_cpu, 0,
	  "processor ids: out of range, unbound, another file's, a tid" },
	{ "ids_foreign", test_ids_foreign, 0,
	  "another user's threads: EPERM from every thread ioctl" },
	{ "ids_kthread", test_ids_kthread, 0,
	  "a kernel thread: EPERM from every thread ioctl, even for root" },
	{ "ids_exited", test_ids_exited, 0,
	  "exited threads and processes: readable by their file, else ESRCH" },
	{ "ids_kind", test_ids_kind, 0,
	  "a binding's id to the aggregate ioctls and back: EINVAL" },
};
KT_SUITE(ids, tests);
