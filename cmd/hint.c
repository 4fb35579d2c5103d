/* SPDX-License-Identifier: MIT */
/* Linux hints of cputrack and cpustat (see hint.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmdutil.h"
#include "hint.h"

#define NBEST 3

struct closest {
	const char *want;
	int limit;
	char best[NBEST][64];
	int dist[NBEST];
	int n;
};

/* Levenshtein distance, ignoring case; stops counting past 99. */
static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = tolower((unsigned char)a[i - 1]) !=
			    tolower((unsigned char)b[j - 1]);
			int v = diag + cost;
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
	int at = c->n < NBEST ? c->n : NBEST;
	while (at > 0 && c->dist[at - 1] > d)
		at--;
	if (at >= NBEST)
		return;
	int last = c->n < NBEST ? c->n : NBEST - 1;
	for (int i = last; i > at; i--) {
		memcpy(c->best[i], c->best[i - 1], sizeof(c->best[i]));
		c->dist[i] = c->dist[i - 1];
	}
	snprintf(c->best[at], sizeof(c->best[at]), "%s", name);
	c->dist[at] = d;
	if (c->n < NBEST)
		c->n++;
}

/* Every name requests take: the back end's, the generic and Linux's. */
static void walk_names(cpc_t *cpc, void *arg,
    void (*fn)(void *arg, const char *name))
{
	cpc_walk_generic_events_all(cpc, arg, fn);
	cpc_walk_events_all(cpc, arg, fn);
	cpc_linux_walk_events(cpc, arg, fn);
}

static void is_known(void *arg, const char *name)
{
	const char **want = arg;
	if (*want != NULL && strcmp(*want, name) == 0)
		*want = NULL;
}

void hint_event(cpc_t *cpc, const char *event, int counter_free, FILE *fp)
{
	char hint[512];
	const char *probe = event;
	walk_names(cpc, &probe, is_known);
	if (probe == NULL) {
		if (!counter_free)
			snprintf(hint, sizeof(hint),
			    "%s: too many events: this system counts at most "
			    "%u at once (one per counter)\n",
			    cmd_prog, cpc_npic(cpc));
		else
			snprintf(hint, sizeof(hint),
			    "%s: event '%s' cannot be counted there on this "
			    "system; what each counter counts: %s -h\n",
			    cmd_prog, event, cmd_prog);
		fputs(hint, fp);
		return;
	}
	struct closest c = { .want = event };
	int len = (int)strlen(event);
	c.limit = len / 3 > 2 ? len / 3 : 2;
	walk_names(cpc, &c, consider);
	int at = snprintf(hint, sizeof(hint), "%s: unknown event '%s'",
	    cmd_prog, event);
	for (int i = 0; i < c.n && at > 0 && (size_t)at < sizeof(hint); i++)
		at += snprintf(hint + at, sizeof(hint) - (size_t)at, "%s%s",
		    i == 0 ? "; did you mean " : i == c.n - 1 ? " or " : ", ",
		    c.best[i]);
	if (at > 0 && (size_t)at < sizeof(hint))
		snprintf(hint + at, sizeof(hint) - (size_t)at,
		    "%s the event names: %s -h\n", c.n > 0 ? "?" : ";",
		    cmd_prog);
	fputs(hint, fp);
}

static void quiet(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn, (void)subcode, (void)fmt, (void)ap;
}

int hint_countable(cpc_t *cpc, const char *event)
{
	cpc_set_t *set = cpc_set_create(cpc);
	int ok = 0;
	if (set == NULL)
		return 0;
	cpc_seterrhndlr(cpc, quiet);
	if (cpc_set_add_request(cpc, set, event, 0, CPC_COUNT_USER, 0,
		NULL) >= 0 &&
	    cpc_bind_curlwp(cpc, set, 0) == 0) {
		ok = 1;
		(void)cpc_unbind(cpc, set);
	}
	(void)cpc_linux_errnote(cpc);	/* not this tool's failure */
	cpc_seterrhndlr(cpc, cmd_errfn);
	cpc_set_destroy(cpc, set);
	return ok;
}

struct countable {
	cpc_t *cpc;
	FILE *fp;
	int col;
	int n;
};

static void print_if_countable(void *arg, const char *event)
{
	struct countable *c = arg;
	int len = (int)strlen(event);
	if (!hint_countable(c->cpc, event))
		return;
	if (c->col + len + 1 > 78) {
		fprintf(c->fp, "\n\t");
		c->col = 8;
	}
	fprintf(c->fp, "%s ", event);
	c->col += len + 1;
	c->n++;
}

void hint_print_countable(cpc_t *cpc, FILE *fp)
{
	struct countable c = { cpc, fp, 8, 0 };
	fprintf(fp, "\n\tOf the events above, this system counts:\n\t");
	cpc_walk_generic_events_all(cpc, &c, print_if_countable);
	cpc_walk_events_all(cpc, &c, print_if_countable);
	fprintf(fp, "%s\n", c.n == 0 ? "(none)" : "");
}
