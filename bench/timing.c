/* SPDX-License-Identifier: MIT */
/* Timing in interleaved batches, and the table of results. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

#define MAXROWS 64

int bench_batches = 201;
int bench_batch = 200;

static struct row rows[MAXROWS];
static int nrows;

double bench_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

struct row *bench_row(const char *name)
{
	for (int i = 0; i < nrows; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	if (nrows == MAXROWS)
		abort();
	struct row *r = &rows[nrows++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

void bench_record(const char *name, double ns)
{
	struct row *r = bench_row(name);
	r->median_ns = ns;
	r->have = 1;
}

void bench_missing(const char *name)
{
	bench_row(name)->have = 0;
}

void bench_time_ops(struct op *ops, int nops, int per_batch)
{
	for (int i = 0; i < nops; i++)
		ops[i].samples = calloc((size_t)bench_batches, sizeof(double));
	for (int w = 0; w < 3; w++)	/* warm-up */
		for (int i = 0; i < nops; i++)
			for (int k = 0; k < per_batch; k++)
				ops[i].fn(ops[i].arg);
	for (int b = 0; b < bench_batches; b++)
		for (int i = 0; i < nops; i++) {
			double t0 = bench_now_ns();
			for (int k = 0; k < per_batch; k++)
				ops[i].fn(ops[i].arg);
			ops[i].samples[b] = (bench_now_ns() - t0) / per_batch;
		}
	for (int i = 0; i < nops; i++) {
		bench_record(ops[i].name,
		    bench_median(ops[i].samples, bench_batches));
		free(ops[i].samples);
	}
}

void bench_print_table(FILE *out)
{
	fprintf(out, "\n%-28s %12s\n", "operation", "median ns");
	for (int i = 0; i < nrows; i++)
		if (rows[i].have)
			fprintf(out, "%-28s %12.1f\n", rows[i].name,
			    rows[i].median_ns);
		else
			fprintf(out, "%-28s %12s\n", rows[i].name,
			    "not built");
}

void bench_ratio(FILE *out, const char *name, const char *a, const char *b)
{
	struct row *x = bench_row(a), *y = bench_row(b);
	if (!x->have || !y->have || y->median_ns <= 0) {
		fprintf(out, "RATIO %s not-built\n", name);
		return;
	}
	fprintf(out, "RATIO %s %.2f\n", name, x->median_ns / y->median_ns);
}

void bench_added(FILE *out, const char *name, const char *a, const char *b)
{
	struct row *x = bench_row(a), *y = bench_row(b);
	if (!x->have || !y->have) {
		fprintf(out, "ADDED_NS %s not-built\n", name);
		return;
	}
	fprintf(out, "ADDED_NS %s %.1f\n", name, x->median_ns - y->median_ns);
}

int bench_write_csv(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "operation,median_ns\n");
	for (int i = 0; i < nrows; i++)
		if (rows[i].have)
			fprintf(f, "%s,%.1f\n", rows[i].name,
			    rows[i].median_ns);
	return fclose(f) == 0 ? 0 : -1;
}
