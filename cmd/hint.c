/* SPDX-License-Identifier: MIT */
/* Linux hints of cputrack and cpustat (see hint.h). */
#include <stdlib.h>
#include <string.h>

#include "cmdutil.h"
#include "hint.h"

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
	char near[256];
	int n = cpc_linux_suggest(cpc, event, near, sizeof(near));
	snprintf(hint, sizeof(hint),
	    "%s: unknown event '%s'%s%s%s the event names: %s -h\n", cmd_prog,
	    event, n > 0 ? "; did you mean " : "", n > 0 ? near : "",
	    n > 0 ? "?" : ";", cmd_prog);
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
