/* SPDX-License-Identifier: MIT */
/*
 * What cputrack and cpustat share: the options both take, error handlers,
 * the groups of event sets given with -c, output lines (text and CSV) and
 * the capabilities listing of -h.
 */
#ifndef CMD_CMDUTIL_H
#define CMD_CMDUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <libcpc.h>

#define CMD_MAX_REQS 16

extern const char *cmd_prog;	/* the tool's name, for messages */
extern int cmd_debug;		/* -D: messages name the libcpc function */

/* The options both tools take (see cmd_common_option). */
struct cmd_opts {
	int notitle;	/* -n: no title lines */
	int tsc;	/* -t: a column of the tick register */
	int csv;	/* -O csv (1) or -O text (0) */
	int help;	/* -h */
};
extern struct cmd_opts cmd_opts;

/* Sets cmd_prog from the tool's argv[0]. */
void cmd_set_prog(const char *argv0);

/* One -c argument and the groups of them: see below. */
struct cmd_setgrp;

/*
 * Handles getopt's option c (argument arg) when it is one both tools
 * take: -c events (added to g), -D, -h (noted: cmd_usage_error prints
 * the usage and the capabilities), -n, -t and -O csv|text.  Returns 1 when
 * it was one (counting a bad argument in *errors), 0 when it was not.
 */
int cmd_common_option(cpc_t *cpc, struct cmd_setgrp *g, int c,
    const char *arg, int *errors);

/*
 * After the options, when they asked for help or had a mistake: with -h,
 * the usage on stdout, a blank line and the capabilities, exit 0;
 * otherwise the usage on stderr, exit 2 (as illumos's tools).
 */
void cmd_usage_error(cpc_t *cpc, void (*usage)(FILE *fp))
    __attribute__((noreturn));

/* The libcpc error handler: "<prog>: [<fn>: ]<message>". */
void cmd_errfn(const char *fn, int subcode, const char *fmt, va_list ap);
/* The libpctx error function, in the same format. */
void cmd_pctx_errfn(const char *fn, const char *fmt, va_list ap);

/* One -c argument. */
struct cmd_set {
	char *spec;
	cpc_set_t *proto;	/* parsed once; never bound */
	int nreqs;
	int picnum[CMD_MAX_REQS];	/* of each request, by index */
	int sysonly;		/* every request counts system mode only */
};

struct cmd_setgrp {
	int nsets;
	struct cmd_set *sets;
};

/* Parses spec and adds it to the group: 0, or -1 (reported). */
int cmd_setgrp_add(cpc_t *cpc, struct cmd_setgrp *g, const char *spec);

/* A new set of its own for set i of the group (for one LWP or CPU). */
cpc_set_t *cmd_set_new(cpc_t *cpc, const struct cmd_set *s);

/* A line of output, built piece by piece and written at once. */
struct cmd_line {
	size_t len;
	char buf[8192];
};

void cmd_line_init(struct cmd_line *l);
void cmd_line_add(struct cmd_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Adds a CSV field (quoted when needed), preceded by a comma unless first. */
void cmd_line_csv(struct cmd_line *l, const char *field);
/* The set header: one 10-character "picN" field per request. */
void cmd_line_header(struct cmd_line *l, const struct cmd_set *s);
/* The counts of buf, one 9-digit field per request. */
void cmd_line_values(struct cmd_line *l, cpc_t *cpc, cpc_buf_t *buf,
    const struct cmd_set *s);
/* The same in CSV: one field per counter 0..npic-1, empty if unused. */
void cmd_line_csv_values(struct cmd_line *l, cpc_t *cpc, cpc_buf_t *buf,
    const struct cmd_set *s, uint_t npic);
/* The CSV header fields pic0..pic<npic-1>. */
void cmd_line_csv_pics(struct cmd_line *l, uint_t npic);

/* The capabilities listing of -h (after the usage text). */
void cmd_print_capabilities(cpc_t *cpc, FILE *fp);

/* Seconds, as printed in the time column, from hrtime t since start. */
double cmd_seconds(hrtime_t t, hrtime_t start);

#endif
