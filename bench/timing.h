/* SPDX-License-Identifier: MIT */
/*
 * What the benchmarks share: operations timed in interleaved batches
 * (so that drift of the machine affects all alike), a table of medians,
 * and the RATIO lines that compare them.
 */
#ifndef CPCBENCH_TIMING_H
#define CPCBENCH_TIMING_H

#include <stdio.h>

extern int bench_batches;	/* median over this many batches */
extern int bench_batch;		/* calls per batch */

struct row {
	char name[48];
	double median_ns;
	int have;
};

double bench_now_ns(void);
double bench_median(double *v, int n);

/* The row called name (created, empty, when new). */
struct row *bench_row(const char *name);
void bench_record(const char *name, double ns);
void bench_missing(const char *name);

typedef void (*op_fn)(void *);

struct op {
	const char *name;
	op_fn fn;
	void *arg;
	double *samples;
};

/*
 * Times the operations in interleaved batches of per_batch calls (after
 * a warm-up) and records each one's median ns per call.
 */
void bench_time_ops(struct op *ops, int nops, int per_batch);

/* Prints the table of every row. */
void bench_print_table(FILE *out);

/* "RATIO name a/b", or "RATIO name not-built" when either is missing. */
void bench_ratio(FILE *out, const char *name, const char *a, const char *b);

/* "ADDED_NS name a-b": what a costs more than b. */
void bench_added(FILE *out, const char *name, const char *a, const char *b);

/* Writes the rows as CSV (operation,median_ns); 0 or -1. */
int bench_write_csv(const char *path);

#endif
