/* SPDX-License-Identifier: MIT */
/*
 * kt_knobs.c: where kmod_test finds the module's statistics (read-only
 * counts and capabilities: contexts_in_use, self_reads, page_time, ...),
 * its test switches (quick_reads, logical_freeze) and its policy
 * parameters (access, access_gid, allow_system, max_*).  The only file
 * that knows their place: the policy is in module parameters
 * (/sys/module/cpc/parameters/), the statistics and switches in debugfs
 * (/sys/kernel/debug/cpc/, which the guest mounts readable by all; a
 * module that still has them as parameters is read there).  Booleans
 * read as Y or N.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "ktest.h"

#define PARAMS "/sys/module/cpc/parameters/"
#define STATS "/sys/kernel/debug/cpc/"
#define SWITCHES STATS

/* dir/name, or the module parameter name where dir has no such file. */
static void knob_path(char *path, size_t size, const char *dir,
		      const char *name)
{
	snprintf(path, size, "%s%s", dir, name);
	if (strcmp(dir, PARAMS) != 0 && access(path, F_OK) != 0)
		snprintf(path, size, "%s%s", PARAMS, name);
}

/* A number (or Y/N: 1/0) from dir/name; -1 if it cannot be read. */
static long read_knob(const char *dir, const char *name)
{
	char path[256], buf[64];
	ssize_t len;
	int f;

	knob_path(path, sizeof(path), dir, name);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	if (buf[0] == 'Y')
		return 1;
	if (buf[0] == 'N')
		return 0;
	return strtol(buf, NULL, 10);
}

static int write_knob(const char *dir, const char *name, const char *val)
{
	char path[256];
	int f, ok;

	knob_path(path, sizeof(path), dir, name);
	f = open(path, O_WRONLY);
	if (f < 0)
		return -1;
	ok = write(f, val, strlen(val)) == (ssize_t)strlen(val);
	close(f);
	return ok ? 0 : -1;
}

/*
 * The statistics are root's (0400); the test users' runs compare them,
 * so root opens them to all before dropping to the user, as check-kmod's
 * guest does (vm_stats_open) - all but contexts_in_use, which stays
 * root's (the access suite checks that).
 */
void kt_stats_open(void)
{
	DIR *d = opendir(STATS);
	struct dirent *e;
	char path[sizeof(STATS) + sizeof(e->d_name)];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' ||
		    strcmp(e->d_name, "contexts_in_use") == 0)
			continue;
		snprintf(path, sizeof(path), STATS "%s", e->d_name);
		(void)chmod(path, 0444);
	}
	closedir(d);
}

long kt_stat(const char *name)
{
	return read_knob(STATS, name);
}

int kt_stat_open_errno(const char *name)
{
	char path[256];
	int f;

	knob_path(path, sizeof(path), STATS, name);
	f = open(path, O_RDONLY);
	if (f < 0)
		return errno;
	close(f);
	return 0;
}

long kt_switch(const char *name)
{
	return read_knob(SWITCHES, name);
}

int kt_set_switch(const char *name, int on)
{
	return write_knob(SWITCHES, name, on ? "Y" : "N");
}

long kt_param(const char *name)
{
	return read_knob(PARAMS, name);
}

int kt_set_param(const char *name, const char *val)
{
	return write_knob(PARAMS, name, val);
}

/*
 * Does the module compute a thread's on-CPU time itself (its reads without
 * perf's locks)?  As its statistic fast_read_time says, where it has
 * one; a module without it does on kernels 6.1 to 6.12.
 */
int self_time_kernel(void)
{
	long v = kt_stat("fast_read_time");
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (v >= 0)
		return v == 1;
	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return 0;
	return maj == 6 && min >= 1 && min <= 12;
}

/*
 * Can the module freeze a binding logically at an overflow (only the
 * overflowing counter stopped in perf)?  Its statistic fast_freeze, where
 * it has one; else as self_time_kernel().
 */
int kt_fast_freeze(void)
{
	long v = kt_stat("fast_freeze");

	return v >= 0 ? v == 1 : self_time_kernel();
}
