/* SPDX-License-Identifier: MIT */
/* cputrack's options (cputrack_args.c), read by cputrack.c. */
#ifndef CMD_CPUTRACK_H
#define CMD_CPUTRACK_H

#include <stdio.h>
#include <sys/types.h>
#include <libcpc.h>

#include "cmdutil.h"

struct cputrack_opts {
	int follow_exec;	/* -e */
	int follow_fork;	/* -f */
	int verbose;		/* -v */
	uint_t interval_ms;	/* -T, in ms (1000) */
	uint_t nsamples;	/* -N (0: unlimited) */
	pid_t pid;		/* -p */
	FILE *out;		/* -o, or stdout */
};

extern struct cputrack_opts opts;

/*
 * Parses the options into opts and grp (the -c sets); prints the usage
 * and exits on a mistake or -h, exits 1 if the -o file cannot be opened.
 * Returns 1 when a command to run follows (at argv[optind]), 0 for -p.
 */
int cputrack_parse(int argc, char **argv, cpc_t *cpc, struct cmd_setgrp *grp);

#endif
