/* SPDX-License-Identifier: MIT */
/* The closest event names to one no request takes (see suggest.h). */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "generic_events.h"
#include "native_events.h"
#include "perf_names.h"
#include "platform_events.h"
#include "safefmt.h"
#include "suggest.h"

#define NBEST 3
#define MAXLEN 63

struct closest {
	const char *want;
	int limit;
	char best[NBEST][MAXLEN + 1];
	int dist[NBEST];
	int n;
};

/* Levenshtein distance ignoring case; names over MAXLEN are far. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[MAXLEN + 1];

	if (la > MAXLEN || lb > MAXLEN)
		return MAXLEN + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]));
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

static void consider(void *arg, const char *name)
{
	struct closest *c = arg;
	int d = distance(c->want, name);
	if (d > c->limit)
		return;
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->best[i], name) == 0)
			return;
	int at = c->n;
	while (at > 0 && c->dist[at - 1] > d)
		at--;
	if (at >= NBEST)
		return;
	int last = c->n < NBEST ? c->n : NBEST - 1;
	for (int i = last; i > at; i--) {
		memcpy(c->best[i], c->best[i - 1], sizeof(c->best[i]));
		c->dist[i] = c->dist[i - 1];
	}
	__cpc_safe_fmt(c->best[at], sizeof(c->best[at]), "%s", name);
	c->dist[at] = d;
	if (c->n < NBEST)
		c->n++;
}

static void consider_platform(void *arg, int regno, const char *name,
    uint8_t bits)
{
	(void)regno, (void)bits;
	consider(arg, name);
}

void __cpc_suggest(int cpuver, const char *name, char *buf, size_t n)
{
	struct closest c = { .want = name };
	int len = (int)strlen(name);

	c.limit = len / 3 > 2 ? len / 3 : 2;
	if (__cpc_kernel_has_core_pmu()) {
		for (int regno = 0; regno < 2; regno++)
			__cpc_platform_walk(cpuver, regno, &c,
			    consider_platform);
	}
	__cpc_generic_walk(&c, consider);
	__cpc_perf_name_walk(&c, consider);
	__cpc_native_walk(&c, consider);

	if (c.n > 0 && c.dist[0] == 0 && strcmp(c.best[0], name) == 0) {
		__cpc_safe_fmt(buf, n, "event '%s' cannot be counted on that "
		    "counter", name);
		return;
	}
	size_t at = __cpc_safe_fmt(buf, n, "unknown event '%s'", name);
	for (int i = 0; i < c.n && at < n; i++)
		at += __cpc_safe_fmt(buf + at, n - at, "%s%s",
		    i == 0 ? "; did you mean " : i == c.n - 1 ? " or " : ", ",
		    c.best[i]);
	if (at < n)
		__cpc_safe_fmt(buf + at, n - at, "%s the names: cputrack -h, "
		    "cpc_walk_events_all(3CPC)", c.n > 0 ? "?" : ";");
}
