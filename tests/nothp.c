/* SPDX-License-Identifier: MIT */
/*
 * nothp PROGRAM [ARG...]: runs PROGRAM with transparent huge pages
 * disabled for it and its children (PR_SET_THP_DISABLE, kept across
 * exec).  The examples count page faults of memory they touch page by
 * page; with THP "always" (Debian's kernel default) a huge page fault or
 * khugepaged can map 512 pages at once, at a moment no test controls,
 * and the counts would depend on that luck.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char *argv[])
{
	if (argc < 2) {
		fprintf(stderr, "usage: nothp PROGRAM [ARG...]\n");
		return 2;
	}
	/* EINVAL: a kernel without transparent huge pages; nothing to do. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0 && errno != EINVAL) {
		fprintf(stderr, "nothp: PR_SET_THP_DISABLE: %s\n",
			strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nothp: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
