/* SPDX-License-Identifier: MIT */
/*
 * Stress and exhaustion: many inheriting threads binding, sampling and
 * releasing at once; fork and exec storms while bound; binding with no
 * file descriptor left (RLIMIT_NOFILE).  The overflow signal storms are
 * test_storm.c's.
 *
 * Each test is bounded to a few seconds on a 2-core machine.  Under
 * valgrind ("make check-valgrind") LIBCPC_STRESS_DIVISOR shrinks the
 * sizes, as valgrind runs one thread at a time.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>
#include <libcpc_group.h>

#include "testutil.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The lowest perf_event descriptor, or INT_MAX. */
static int lowest_perf_fd(void)
{
	int low = INT_MAX;
	DIR *d = opendir("/proc/self/fd");
	ck_assert_ptr_nonnull(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char target[64];
		ssize_t len = readlinkat(dirfd(d), e->d_name, target,
		    sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]") == 0 &&
		    atoi(e->d_name) < low)
			low = atoi(e->d_name);
	}
	closedir(d);
	return low;
}

static cpc_event_t make_event(const char *spec)
{
	cpc_event_t ev;
	ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0, "%s: %s",
	    spec, captured_errors());
	return ev;
}

static void setup(void)
{
	capture_errors();
}

/* ------------------------------------------------ 1000 inheriting threads */

#define STRESS_THREADS 1000
#define STRESS_LOOPS 8

struct tstate {
	int index;
	int bound_at_start;	/* inherited a context from the main thread */
	int errors;
	char what[96];		/* the first error */
};

static cpc_event_t thread_ev;	/* what each thread binds itself */
static atomic_int threads_started;

static void terr(struct tstate *s, const char *what)
{
	if (s->errors++ == 0)
		snprintf(s->what, sizeof(s->what), "%s (errno %d)", what, errno);
}

static void *grandchild(void *arg)
{
	cpc_event_t e;
	int *ok = arg;
	/* Its parent bound with inheritance just before creating it. */
	*ok = cpc_take_sample(&e) == 0;
	return NULL;
}

static void *stress_worker(void *arg)
{
	struct tstate *s = arg;
	cpc_event_t e, f;

	atomic_fetch_add(&threads_started, 1);
	s->bound_at_start = cpc_take_sample(&e) == 0;
	if (s->bound_at_start && e.ce_pic[1] > 1000)
		terr(s, "inherited page-faults did not start from zero");
	for (int i = 0; i < STRESS_LOOPS; i++) {
		cpc_event_t mine = thread_ev;
		int flags = (i & 1) ? CPC_BIND_LWP_INHERIT : 0;
		if (cpc_bind_event(&mine, flags) != 0)
			terr(s, "bind");
		touch_fresh_pages(2);
		if (cpc_take_sample(&f) != 0)
			terr(s, "sample");
		else if (f.ce_pic[1] < 2)
			terr(s, "page faults not counted");
		if (i == STRESS_LOOPS - 1 && (s->index % 50) == 0) {
			/* A few threads pass their own context on. */
			pthread_t t;
			int ok = 0;
			if (pthread_create(&t, NULL, grandchild, &ok) != 0)
				terr(s, "pthread_create");
			else if (pthread_join(t, NULL) != 0 || ((i & 1) && !ok))
				terr(s, "grandchild did not inherit");
		}
		/* Half of the threads exit while bound: the library releases. */
		if (i == STRESS_LOOPS - 1 && (s->index & 1))
			break;
		if (cpc_rele() != 0)
			terr(s, "rele");
		if (cpc_take_sample(&f) != -1 || errno != EINVAL)
			terr(s, "sample after rele");
	}
	return NULL;
}

START_TEST(thousand_inheriting_threads)
{
	const int n = stress_scaled(STRESS_THREADS);
	struct tstate *st = calloc((size_t)n, sizeof(*st));
	pthread_t *tid = calloc((size_t)n, sizeof(*tid));
	pthread_attr_t attr;
	ck_assert_ptr_nonnull(st);
	ck_assert_ptr_nonnull(tid);
	ck_assert_int_eq(pthread_attr_init(&attr), 0);
	ck_assert_int_eq(pthread_attr_setstacksize(&attr, 256 * 1024), 0);

	int fds0 = count_open_fds();
	thread_ev = make_event("pic0=task-clock,pic1=page-faults");
	cpc_event_t ev = thread_ev;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);

	uint64_t t0 = now_ns();
	int created = 0;
	for (int i = 0; i < n; i++) {
		st[i].index = i;
		int rc = pthread_create(&tid[i], &attr, stress_worker, &st[i]);
		ck_assert_msg(rc == 0, "pthread_create %d: %s", i, strerror(rc));
		created++;
	}
	for (int i = 0; i < created; i++)
		ck_assert_int_eq(pthread_join(tid[i], NULL), 0);
	uint64_t t1 = now_ns();

	int unbound = 0;
	for (int i = 0; i < n; i++) {
		ck_assert_msg(st[i].errors == 0, "thread %d: %d errors, first: %s",
		    i, st[i].errors, st[i].what);
		unbound += !st[i].bound_at_start;
	}
	ck_assert_msg(unbound == 0, "%d of %d threads did not inherit: %s",
	    unbound, n, captured_errors());
	ck_assert_int_eq(atomic_load(&threads_started), n);

	/* The group's page faults include every thread's. */
	cpc_event_t g;
	ck_assert_int_eq(cpc_take_group_sample(&g), 0);
	ck_assert_msg(g.ce_pic[1] >= (uint64_t)n * 2,
	    "group saw %llu page faults from %d threads",
	    (unsigned long long)g.ce_pic[1], n);
	ck_assert_int_eq(cpc_rele(), 0);
	ck_assert_int_eq(count_perf_fds(), 0);
	ck_assert_int_eq(count_open_fds(), fds0);
	pthread_attr_destroy(&attr);
	free(st);
	free(tid);
	fprintf(stderr, "stress: %d inheriting threads x %d binds in %.2f s\n",
	    n, STRESS_LOOPS, (double)(t1 - t0) / 1e9);
}
END_TEST

/* ------------------------------------------------- fork and exec storms */

/*
 * In a fork child: nothing bound, and it can bind.  strict: it holds no
 * counter descriptor at all; otherwise it may hold the ones of the
 * parent's other threads (see fork_storm_from_threads) but must give
 * back its own.
 */
static int child_checks(int strict)
{
	cpc_event_t e;
	if (cpc_take_sample(&e) != -1 || errno != EINVAL)
		return 2;
	int before = count_perf_fds();
	if (strict && before != 0)
		return 3;
	e = thread_ev;
	if (cpc_bind_event(&e, 0) != 0)
		return 4;
	touch_fresh_pages(3);
	if (cpc_take_sample(&e) != 0 || e.ce_pic[1] < 3)
		return 5;
	if (cpc_rele() != 0)
		return 6;
	if (count_perf_fds() != before)
		return 7;
	return 0;
}

START_TEST(fork_storm_while_bound)
{
	const int n = stress_scaled(300);
	int fds0 = count_open_fds();
	thread_ev = make_event("pic0=task-clock,pic1=page-faults");
	cpc_event_t ev = thread_ev, a, b;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
	ck_assert_int_eq(cpc_take_sample(&a), 0);
	uint64_t t0 = now_ns();
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(child_checks(1));
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "fork child %d: status 0x%x", i, status);
		ck_assert_int_eq(cpc_take_sample(&b), 0);
		ck_assert_uint_ge(b.ce_pic[0], a.ce_pic[0]);
		ck_assert_uint_ge(b.ce_pic[1], a.ce_pic[1]);
		a = b;
	}
	uint64_t t1 = now_ns();
	ck_assert_int_eq(cpc_rele(), 0);
	ck_assert_int_eq(count_open_fds(), fds0);
	fprintf(stderr, "fork storm: %d children in %.2f s\n", n,
	    (double)(t1 - t0) / 1e9);
}
END_TEST

/*
 * Forks from several bound threads at once: the child must hold none of
 * the perf_event descriptors of the parent's bound threads (the atfork
 * handler releases every thread's binding, not only the forking one's).
 */
static void *forking_thread(void *arg)
{
	int *bad = arg;
	cpc_event_t e = thread_ev;
	if (cpc_bind_event(&e, 0) != 0) {
		(*bad)++;
		return NULL;
	}
	for (int i = 0; i < stress_scaled(50); i++) {
		pid_t pid = fork();
		if (pid < 0) {
			(*bad)++;
			break;
		}
		if (pid == 0)
			_exit(child_checks(1));
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			if ((*bad)++ == 0)
				fprintf(stderr, "fork from thread: child status "
				    "0x%x\n", status);
		}
		if (cpc_take_sample(&e) != 0)
			(*bad)++;
	}
	cpc_rele();
	return NULL;
}

START_TEST(fork_storm_from_threads)
{
	int fds0 = count_open_fds();
	thread_ev = make_event("pic0=task-clock,pic1=page-faults");
	pthread_t t[4];
	int bad[4] = { 0 };
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, forking_thread,
				     &bad[i]), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_int_eq(bad[i], 0);
	}
	ck_assert_int_eq(count_open_fds(), fds0);
}
END_TEST

/* Overflow is armed in the exec storm, never reached. */
static void exec_storm_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
}

START_TEST(exec_storm_while_bound)
{
	const int n = stress_scaled(100);
	int fds0 = count_open_fds();
	/* This program (as valgrind, too, reports it). */
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ck_assert_int_gt(len, 0);
	self[len] = '\0';
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = exec_storm_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
	cpc_event_t ev = make_event("pic0=task-clock,pic1=page-faults");
	ev.ce_pic[1] = UINT64_MAX - 1000000;	/* overflow armed, not reached */
	ck_assert_int_eq(cpc_bind_event(&ev,
			     CPC_BIND_LWP_INHERIT | CPC_BIND_EMT_OVF), 0);
	uint64_t t0 = now_ns();
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			execl(self, "test_stress", "exec-child", (char *)NULL);
			_exit(127);
		}
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "exec child %d: status 0x%x", i, status);
	}
	uint64_t t1 = now_ns();
	cpc_event_t s;
	ck_assert_int_eq(cpc_take_sample(&s), 0);
	ck_assert_int_eq(cpc_rele(), 0);
	ck_assert_int_eq(count_open_fds(), fds0);
	fprintf(stderr, "exec storm: %d programs in %.2f s\n", n,
	    (double)(t1 - t0) / 1e9);
}
END_TEST

/* The exec'd program: no counters survived the exec, and it can count. */
static int exec_child(void)
{
	thread_ev.ce_cpuver = -1;
	if (cpc_strtoevent(cpc_getcpuver(), "pic0=task-clock,pic1=page-faults",
		&thread_ev) != 0)
		return 10;
	struct sigaction sa;
	if (sigaction(SIGEMT, NULL, &sa) != 0 || sa.sa_handler != SIG_DFL)
		return 11;	/* handlers do not survive exec */
	return child_checks(1);
}

/* ----------------------------------------------------- RLIMIT_NOFILE */

/* The lowest free descriptor: with a limit of that + k, k opens succeed. */
static int lowest_free_fd(void)
{
	int fd = fcntl(0, F_DUPFD, 0);
	ck_assert_int_ge(fd, 0);
	close(fd);
	return fd;
}

static void set_nofile(rlim_t soft)
{
	struct rlimit rl;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	rl.rlim_cur = soft;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* The new thread's note (cpc_linux_errnote(NULL)) on its failed inheritance. */
static char inherit_note[512];

static void *unbound_check(void *arg)
{
	cpc_event_t e;
	int *result = arg;
	*result = cpc_take_sample(&e) == -1 && errno == EINVAL;
	const char *note = cpc_linux_errnote(NULL);
	snprintf(inherit_note, sizeof(inherit_note), "%s",
	    note != NULL ? note : "");
	return NULL;
}

START_TEST(bind_without_free_descriptors)
{
	struct rlimit saved;
	cpc_event_t ev, s;
	const char *be = getenv("LIBCPC_BACKEND");
	if ((be != NULL && strcmp(be, "kmod") == 0) ||
	    ((be == NULL || *be == '\0') && access("/dev/cpc", F_OK) == 0)) {
		/* The module's contexts take no descriptor: binding works. */
		set_nofile((rlim_t)lowest_free_fd());
		ev = make_event("pic0=page-faults,pic1=minor-faults");
		ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);
		ck_assert_int_eq(cpc_take_sample(&s), 0);
		ck_assert_int_eq(cpc_rele(), 0);
		printf("SKIP bind_without_free_descriptors: the kmod backend "
		       "needs no descriptor per binding (checked that)\n");
		return;
	}
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
	/* Two counters that each need a descriptor. */
	cpc_event_t two = make_event("pic0=page-faults,pic1=minor-faults");
	int fds0 = count_open_fds();

	for (int room = 0; room < 2; room++) {
		set_nofile((rlim_t)lowest_free_fd() + (rlim_t)room);
		clear_errors();
		ev = two;
		errno = 0;
		ck_assert_int_eq(cpc_bind_event(&ev, 0), -1);
		/* perf_event_open's errno passes through. */
		ck_assert_msg(errno == EMFILE, "errno %d (%s) with room for %d",
		    errno, strerror(errno), room);
		ck_assert_int_eq(captured_count(), 0);
		ck_assert_ptr_nonnull(strstr(cpc_linux_errnote(NULL),
		    "Too many open files"));
		ck_assert_int_eq(cpc_take_sample(&s), -1);
		ck_assert_int_eq(errno, EINVAL);
		set_nofile(saved.rlim_cur);
		ck_assert_int_eq(count_open_fds(), fds0);
		ck_assert_int_eq(count_perf_fds(), 0);
	}

	/* A bound LWP whose rebind fails is left unbound, fds closed. */
	ev = two;
	ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);
	ck_assert_int_eq(count_perf_fds(), 2);
	/* The rebind closes the old counters first: no descriptor below
	 * theirs may be reused either. */
	set_nofile((rlim_t)lowest_perf_fd());
	cpc_event_t other = make_event("pic0=page-faults,pic1=major-faults");
	ck_assert_int_eq(cpc_bind_event(&other, 0), -1);
	ck_assert_int_eq(errno, EMFILE);
	ck_assert_int_eq(cpc_take_sample(&s), -1);
	set_nofile(saved.rlim_cur);
	ck_assert_int_eq(count_perf_fds(), 0);

	/* The current interfaces: cpc_open's probe and the bind. */
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "minor-faults", 0,
			     CPC_COUNT_USER, 0, NULL), 1);
	set_nofile((rlim_t)lowest_free_fd() + 1);
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), -1);
	ck_assert_int_eq(errno, EMFILE);
	set_nofile((rlim_t)lowest_free_fd());
	errno = 0;
	ck_assert_ptr_null(cpc_open(CPC_VER_CURRENT));
	ck_assert_int_eq(errno, EMFILE);
	set_nofile(saved.rlim_cur);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_int_eq(cpc_close(cpc), 0);

	/* A thread that cannot inherit starts unbound, with a message. */
	ev = two;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_LWP_INHERIT), 0);
	clear_errors();
	set_nofile((rlim_t)lowest_free_fd());
	pthread_t t;
	int unbound = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, unbound_check, &unbound), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	set_nofile(saved.rlim_cur);
	ck_assert_int_eq(unbound, 1);
	/* Silently, as Solaris: the new thread's note explains. */
	ck_assert_int_eq(captured_count(), 0);
	ck_assert_ptr_nonnull(strstr(inherit_note,
	    "could not inherit its counter context"));
	ck_assert_int_eq(cpc_rele(), 0);

	/* Everything works again with the limit raised. */
	ev = two;
	ck_assert_int_eq(cpc_bind_event(&ev, 0), 0);
	touch_fresh_pages(10);
	ck_assert_int_eq(cpc_take_sample(&s), 0);
	ck_assert_uint_ge(s.ce_pic[0], 10);
	ck_assert_int_eq(cpc_rele(), 0);
	ck_assert_int_eq(count_open_fds(), fds0);
	ck_assert_int_eq(count_perf_fds(), 0);
}
END_TEST

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0)
		return exec_child();

	Suite *s = suite_create("stress");
	TCase *tc = tcase_create("stress");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, thousand_inheriting_threads);
	tcase_add_test(tc, fork_storm_while_bound);
	tcase_add_test(tc, fork_storm_from_threads);
	tcase_add_test(tc, exec_storm_while_bound);
	tcase_add_test(tc, bind_without_free_descriptors);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
