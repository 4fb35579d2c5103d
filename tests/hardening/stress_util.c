/* SPDX-License-Identifier: MIT */
/* Helpers of the stress programs: see stress_util.h. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libcpc.h>

#include "stress_util.h"
#include "testutil.h"

/* n divided by LIBCPC_STRESS_DIVISOR (at least 1). */
int scaled(int n)
{
	const char *d = getenv("LIBCPC_STRESS_DIVISOR");
	int div = d != NULL ? atoi(d) : 1;
	if (div < 1)
		div = 1;
	return n / div > 0 ? n / div : 1;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Number of perf_event file descriptors this process holds. */
int count_perf_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char target[64];
		if (e->d_name[0] == '.')
			continue;
		ssize_t len =
		    readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]") == 0)
			n++;
	}
	closedir(d);
	return n;
}

cpc_event_t make_event(const char *spec)
{
	cpc_event_t ev;
	ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0, "%s: %s",
	    spec, captured_errors());
	return ev;
}

void install_emt(void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	ck_assert_int_eq(sigaction(SIGEMT, &sa, NULL), 0);
}

void stress_setup(void)
{
	capture_errors();
}
