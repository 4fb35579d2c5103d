/* SPDX-License-Identifier: MIT */
/* cputrack's command line: its options and usage text (illumos's). */
#include <stdlib.h>
#include <unistd.h>

#include "cputrack.h"

/* illumos's text, line by line (-O is documented in cputrack(1) only). */
static void usage(FILE *fp)
{
	fprintf(fp, "Usage:\n"
		    "\t%s [-T secs] [-N count] [-Defhnv] [-o file]\n"
		    "\t\t-c events [command [args] | -p pid]\n\n"
		    "\t-T secs\t  seconds between samples, default 1\n"
		    "\t-N count  number of samples, default unlimited\n"
		    "\t-D\t  enable debug mode\n"
		    "\t-e\t  follow exec(2), and execve(2)\n"
		    "\t-f\t  follow fork(2), fork1(2), and vfork(2)\n"
		    "\t-h\t  print extended usage information\n"
		    "\t-n\t  suppress titles\n"
		    "\t-t\t  include virtualized %s register\n"
		    "\t-v\t  verbose mode\n"
		    "\t-o file\t  write cpu statistics to this file\n"
		    "\t-c events specify processor events to be monitored\n"
		    "\t-p pid\t  pid of existing process to capture\n\n"
		    "\tUse cpustat(8) to monitor system-wide statistics.\n",
	    cmd_prog, CPC_TICKREG_NAME);
}

int cputrack_parse(int argc, char **argv, cpc_t *cpc, struct cmd_setgrp *grp)
{
	int errors = 0, c;
	long n;
	double secs;

	/*
	 * illumos's option string: -r takes an argument and is refused
	 * without a word of getopt's.
	 */
	while ((c = getopt(argc, argv, "+T:N:Defhntvo:r:c:p:O:")) != -1) {
		switch (c) {
		case 'T':
			secs = atof(optarg);
			if (secs < 0 || secs * 1000 > (double)UINT32_MAX)
				errors++;
			else
				opts.interval_ms = (uint_t)(secs * 1000);
			break;
		case 'N':
			n = atol(optarg);
			if (n < 0 || n > (long)UINT32_MAX)
				errors++;
			else
				opts.nsamples = (uint_t)n;
			break;
		case 'e':
			opts.follow_exec = 1;
			break;
		case 'f':
			opts.follow_fork = 1;
			break;
		case 'v':
			opts.verbose = 1;
			break;
		case 'o':
			/* Opened at once, as illumos's. */
			if (opts.out != stdout && opts.out != NULL)
				fclose(opts.out);
			opts.out = fopen(optarg, "w");
			if (opts.out == NULL) {
				fprintf(stderr, "%s: cannot open '%s' for "
						"writing\n",
				    cmd_prog, optarg);
				exit(1);
			}
			break;
		case 'p':
			n = atol(optarg);
			if (n <= 0)
				errors++;
			else
				opts.pid = (pid_t)n;
			break;
		default:
			if (!cmd_common_option(cpc, grp, c, optarg,
				&errors))
				errors++;
			break;
		}
	}
	int have_command = optind < argc;
	if (errors > 0 || cmd_opts.help || grp->nsets == 0 ||
	    have_command == (opts.pid != 0))
		cmd_usage_error(cpc, usage);
	return have_command;
}
