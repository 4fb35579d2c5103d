/* SPDX-License-Identifier: MIT */
/*
 * kmod_test: the tests of libcpc's kernel module, run inside a guest that
 * has cpc.ko loaded (tests/kmod/check-kmod.sh builds it static and runs
 * it as root, --user and --stranger; tests/kmod/vm-run runs it by hand):
 *
 *	cc -static -O2 -Wall -Wextra -pthread -Ikmod/uapi -o kmod_test \
 *	    tests/kmod/ktest/kt_*.c	(or: make kmod-test)
 *
 *	kmod_test [--user | --stranger] [--repeat N] [-l] [[-t] NAME...]
 *
 * NAME is a test or a suite (every test of one concern); without one,
 * every test runs.  -l lists the suites and tests.  --user first drops to
 * uid/gid 65534 in the group of /dev/cpc (when run as root); --stranger
 * becomes uid/gid 1001, in no other group: then only the tests of who may
 * open the device run, the others are skipped.  The device is expected
 * as the udev rule kmod/60-cpc.rules makes it: root, the group cpc, mode
 * 0660.  Only software events are required: hardware events are checked
 * to fail with ENOENT when the module reports no PMU.
 *
 * The output is TAP (version 13, as kselftest prints it): the plan
 * "1..N", then for each test its assertions as comments ("# ok - ...",
 * "# FAIL - ...") and its verdict "ok N NAME", "not ok N NAME" or
 * "ok N NAME # SKIP reason"; last, comments with the totals.  A test that
 * fails an assertion, asserts nothing without skipping, or hangs (the
 * watchdog stops the run after 240 s: "not ok" and "Bail out!") fails.
 * Exit status: 0 every test passed or skipped (and one at least passed,
 * unless NAMEs were given), 1 a test failed, 2 bad arguments, 4 every test
 * of a whole run skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktest.h"

#define WATCHDOG_S 240

int fd = -1;
int is_root;
int kt_stranger;
const char *kt_self;
long kt_contexts_base = -1;

static const struct kt_suite *const suites[] = {
	&kt_suite_abi,	    &kt_suite_bind,	&kt_suite_selfread,
	&kt_suite_page,	    &kt_suite_overflow, &kt_suite_access,
	&kt_suite_ids,	    &kt_suite_lifetime, &kt_suite_stress,
};
#define NSUITES (sizeof(suites) / sizeof(suites[0]))

/* The running test's assertions and skip reason. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned t_passed, t_failed;
static char t_skip[160];
static unsigned a_passed, a_failed;	/* every test's assertions */

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	printf("# %s - ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		t_passed++, a_passed++;
	else
		t_failed++, a_failed++;
	pthread_mutex_unlock(&lock);
}

void kt_skip(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	va_start(ap, fmt);
	vsnprintf(t_skip, sizeof(t_skip), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&lock);
}

/* A hung test fails the run instead of hanging the guest. */
static char hung_line[256];

static void watchdog(int sig)
{
	(void)sig;
	if (write(1, hung_line, strlen(hung_line)) < 0)
		_exit(1);
	_exit(1);
}

static void list(void)
{
	unsigned s, i;

	for (s = 0; s < NSUITES; s++)
		for (i = 0; i < suites[s]->ntests; i++)
			printf("%-9s %-22s %s\n", suites[s]->name,
			       suites[s]->tests[i].name,
			       suites[s]->tests[i].what);
}

/* Marks the tests NAME selects (a test or a suite); 0 if none. */
static int select_name(const char *name, unsigned char *sel)
{
	unsigned s, i, k = 0, hits = 0;

	if (strncmp(name, "test_", 5) == 0)	/* the old function names */
		name += 5;
	for (s = 0; s < NSUITES; s++)
		for (i = 0; i < suites[s]->ntests; i++, k++)
			if (strcmp(name, suites[s]->name) == 0 ||
			    strcmp(name, suites[s]->tests[i].name) == 0) {
				sel[k] = 1;
				hits++;
			}
	return hits != 0;
}

/* Runs one test as number n; returns 0 passed, 1 failed, 2 skipped. */
static int run_test(const struct kt_suite *s, const struct kt_test *t,
		    unsigned n)
{
	int verdict;

	t_passed = t_failed = 0;
	t_skip[0] = 0;
	printf("# %s/%s: %s\n", s->name, t->name, t->what);
	if (kt_stranger && !(t->flags & KT_STRANGER)) {
		kt_skip("--stranger: a user outside the device's group "
			"cannot open " CPC_KMOD_DEVICE);
	} else {
		signal(SIGSTKFLT, SIG_DFL);
		fd = -1;
		if (!(t->flags & KT_NO_DEVICE) && !kt_stranger) {
			fd = open_cpc();
			if (fd < 0)
				check(0, "open " CPC_KMOD_DEVICE " (%s)",
				      strerror(errno));
		}
		if (fd >= 0 || (t->flags & KT_NO_DEVICE) || kt_stranger) {
			snprintf(hung_line, sizeof(hung_line),
				 "not ok %u %s # hung: stopped by the watchdog "
				 "after %d s\nBail out! %s hung\n", n, t->name,
				 WATCHDOG_S, t->name);
			alarm(WATCHDOG_S);
			t->fn();
			alarm(0);
		}
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (t_failed) {
		printf("not ok %u %s\n", n, t->name);
		verdict = 1;
	} else if (t_skip[0]) {
		printf("ok %u %s # SKIP %s\n", n, t->name, t_skip);
		verdict = 2;
	} else if (!t_passed) {
		printf("# FAIL - %s asserted nothing and did not skip\n",
		       t->name);
		a_failed++;
		printf("not ok %u %s\n", n, t->name);
		verdict = 1;
	} else {
		printf("ok %u %s\n", n, t->name);
		verdict = 0;
	}
	fflush(stdout);
	return verdict;
}

static int usage(void)
{
	fprintf(stderr, "usage: kmod_test [--user | --stranger] [--repeat N] "
		"[-l] [[-t] NAME...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned char sel[256];
	unsigned s, i, k, nsel = 0, n = 0, total = 0, count[3] = { 0, 0, 0 };
	int user = 0, repeat = 1, any = 0, r, a;

	if (argc > 2 && strcmp(argv[1], "--after-exec") == 0)
		return after_exec(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "--spin") == 0) {
		spin_ms(atoi(argv[2]));	/* the exec target of stress */
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	kt_self = argv[0];
	for (s = 0; s < NSUITES; s++)
		total += suites[s]->ntests;
	if (total > sizeof(sel))
		return 2;
	memset(sel, 0, sizeof(sel));
	for (a = 1; a < argc; a++) {
		const char *name = NULL;

		if (strcmp(argv[a], "--user") == 0) {
			user = 1;
		} else if (strcmp(argv[a], "--stranger") == 0) {
			kt_stranger = 1;
		} else if (strcmp(argv[a], "-l") == 0 ||
			   strcmp(argv[a], "--list") == 0) {
			list();
			return 0;
		} else if (strcmp(argv[a], "--repeat") == 0 && a + 1 < argc) {
			repeat = atoi(argv[++a]);
		} else if ((strcmp(argv[a], "-t") == 0 ||
			    strcmp(argv[a], "--only") == 0) && a + 1 < argc) {
			name = argv[++a];
		} else if (argv[a][0] == '-') {
			return usage();
		} else {
			name = argv[a];
		}
		if (name && !select_name(name, sel)) {
			fprintf(stderr, "kmod_test: no test or suite named %s "
				"(kmod_test -l lists them)\n", name);
			return 2;
		}
		any |= name != NULL;
	}
	if (repeat < 1)
		return usage();
	for (k = 0; k < total; k++) {
		if (!any)
			sel[k] = 1;
		nsel += sel[k];
	}

	if ((user || kt_stranger) && geteuid() == 0)
		kt_stats_open();
	if (user && geteuid() == 0)
		drop_to_nobody();
	if (kt_stranger && geteuid() == 0)
		become(STRANGER, 0);
	is_root = geteuid() == 0;
	kt_contexts_base = kt_stat("contexts_in_use");
	signal(SIGALRM, watchdog);
	printf("TAP version 13\n");
	printf("# kmod_test as uid %d%s\n", (int)geteuid(),
	       user ? " (--user)" : kt_stranger ? " (--stranger)" : "");
	printf("1..%u\n", nsel * (unsigned)repeat);
	for (r = 0; r < repeat; r++)
		for (s = 0, k = 0; s < NSUITES; s++)
			for (i = 0; i < suites[s]->ntests; i++, k++)
				if (sel[k])
					count[run_test(suites[s],
						       &suites[s]->tests[i],
						       ++n)]++;
	printf("# kmod_test: %u tests: %u passed, %u failed, %u skipped; "
	       "%u assertions: %u passed, %u failed\n", n, count[0],
	       count[1], count[2], a_passed + a_failed, a_passed, a_failed);
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       count[0], count[1], count[2]);
	if (count[1])
		return 1;
	return count[0] || any ? 0 : 4;
}
