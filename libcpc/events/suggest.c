/* SPDX-License-Identifier: MIT */
/* The closest event names to one no request takes (see suggest.h). */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "generic_events.h"
#include "native_events.h"
#include "perf_names.h"
#include "platform_events.h"
#include "safefmt.h"
#include "suggest.h"

/* Levenshtein distance ignoring case; INT_MAX past CPC_CLOSEST_LEN. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[CPC_CLOSEST_LEN + 1];

	if (la > CPC_CLOSEST_LEN || lb > CPC_CLOSEST_LEN)
		return INT_MAX;
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

void __cpc_closest_init(struct cpc_closest *c, const char *want)
{
	int len = (int)strlen(want);

	memset(c, 0, sizeof(*c));
	c->want = want;
	c->limit = len / 3 > 2 ? len / 3 : 2;
}

void __cpc_closest_add(void *arg, const char *name)
{
	struct cpc_closest *c = arg;
	int d = distance(c->want, name);
	if (d > c->limit)
		return;
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->best[i], name) == 0)
			return;
	int at = c->n;
	while (at > 0 && c->dist[at - 1] > d)
		at--;
	if (at >= CPC_CLOSEST_N)
		return;
	int last = c->n < CPC_CLOSEST_N ? c->n : CPC_CLOSEST_N - 1;
	for (int i = last; i > at; i--) {
		memcpy(c->best[i], c->best[i - 1], sizeof(c->best[i]));
		c->dist[i] = c->dist[i - 1];
	}
	__cpc_safe_fmt(c->best[at], sizeof(c->best[at]), "%s", name);
	c->dist[at] = d;
	if (c->n < CPC_CLOSEST_N)
		c->n++;
}

size_t __cpc_closest_list(const struct cpc_closest *c, char *buf, size_t n)
{
	size_t at = 0;

	if (n > 0)
		buf[0] = '\0';
	for (int i = 0; i < c->n && at < n; i++)
		at += __cpc_safe_fmt(buf + at, n - at, "%s%s",
		    i == 0 ? "" : i == c->n - 1 ? " or " : ", ", c->best[i]);
	return at;
}

static void consider_platform(void *arg, int regno, const char *name,
    uint8_t bits)
{
	(void)regno, (void)bits;
	__cpc_closest_add(arg, name);
}

void __cpc_suggest(int cpuver, const char *name, char *buf, size_t n)
{
	struct cpc_closest c;

	__cpc_closest_init(&c, name);
	if (__cpc_kernel_has_core_pmu()) {
		for (int regno = 0; regno < 2; regno++)
			__cpc_platform_walk(cpuver, regno, &c,
			    consider_platform);
	}
	__cpc_generic_walk(&c, __cpc_closest_add);
	__cpc_perf_name_walk(&c, __cpc_closest_add);
	__cpc_native_walk(&c, __cpc_closest_add);

	if (c.n > 0 && c.dist[0] == 0 && strcmp(c.best[0], name) == 0) {
		__cpc_safe_fmt(buf, n, "event '%s' cannot be counted on that "
		    "counter", name);
		return;
	}
	size_t at = __cpc_safe_fmt(buf, n, "unknown event '%s'%s", name,
	    c.n > 0 ? "; did you mean " : "");
	if (at < n)
		at += __cpc_closest_list(&c, buf + at, n - at);
	if (at < n)
		__cpc_safe_fmt(buf + at, n - at, "%s the names: cputrack -h, "
		    "cpc_walk_events_all(3CPC)", c.n > 0 ? "?" : ";");
}
