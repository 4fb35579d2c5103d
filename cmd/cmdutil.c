/* SPDX-License-Identifier: MIT */
/* What cputrack and cpustat share (see cmdutil.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmdutil.h"
#include "hint.h"
#include "strtoset.h"

const char *cmd_prog = "cpc";
int cmd_debug;
struct cmd_opts cmd_opts;

void cmd_set_prog(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');
	cmd_prog = slash != NULL ? slash + 1 : argv0;
}

int cmd_common_option(cpc_t *cpc, struct cmd_setgrp *g, int c,
    const char *arg, int *errors)
{
	switch (c) {
	case 'c':
		if (cmd_setgrp_add(cpc, g, arg) != 0)
			(*errors)++;
		return 1;
	case 'D':
		cmd_debug = 1;
		return 1;
	case 'h':
		/* As illumos: after every option (cmd_usage_error). */
		cmd_opts.help = 1;
		return 1;
	case 'n':
		cmd_opts.notitle = 1;
		return 1;
	case 't':
		cmd_opts.tsc = 1;
		return 1;
	case 'O':
		if (strcmp(arg, "csv") == 0)
			cmd_opts.csv = 1;
		else if (strcmp(arg, "text") == 0)
			cmd_opts.csv = 0;
		else
			(*errors)++;
		return 1;
	default:
		return 0;
	}
}

void cmd_usage_error(cpc_t *cpc, void (*usage)(FILE *fp))
{
	if (cmd_opts.help) {
		usage(stdout);
		putchar('\n');
		cmd_print_capabilities(cpc, stdout);
		exit(0);
	}
	usage(stderr);
	int counter_free;
	const char *event = strtoset_refused(&counter_free);
	if (event != NULL)	/* Linux: after the original's text */
		hint_event(cpc, event, counter_free, stderr);
	exit(2);
}

void cmd_errfn(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	fprintf(stderr, "%s: ", cmd_prog);
	if (cmd_debug && fn != NULL)
		fprintf(stderr, "%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

void cmd_pctx_errfn(const char *fn, const char *fmt, va_list ap)
{
	/* As illumos's tools: libpctx's messages go through cmd_errfn. */
	cmd_errfn(fn, -1, fmt, ap);
}

/* ------------------------------------------------------------ sets */

static void note_request(void *arg, int index, const char *event,
    uint64_t preset, uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct cmd_set *s = arg;
	(void)event, (void)preset;
	if (index < 0 || index >= CMD_MAX_REQS)
		return;
	for (int i = 0; i < nattrs; i++)
		if (strcmp(attrs[i].ca_name, "picnum") == 0)
			s->picnum[index] = (int)attrs[i].ca_val;
	if ((flags & CPC_COUNT_USER) || !(flags & CPC_COUNT_SYSTEM))
		s->sysonly = 0;
	if (index + 1 > s->nreqs)
		s->nreqs = index + 1;
}

int cmd_setgrp_add(cpc_t *cpc, struct cmd_setgrp *g, const char *spec)
{
	cpc_set_t *set = cpc_strtoset(cpc, spec, 0);
	if (set == NULL)
		return -1;
	struct cmd_set *sets = realloc(g->sets,
	    (size_t)(g->nsets + 1) * sizeof(*sets));
	if (sets == NULL) {
		cpc_set_destroy(cpc, set);
		return -1;
	}
	g->sets = sets;
	struct cmd_set *s = &sets[g->nsets];
	memset(s, 0, sizeof(*s));
	s->spec = strdup(spec);
	s->proto = set;
	s->sysonly = 1;
	cpc_walk_requests(cpc, set, s, note_request);
	g->nsets++;
	return 0;
}

cpc_set_t *cmd_set_new(cpc_t *cpc, const struct cmd_set *s)
{
	return cpc_strtoset(cpc, s->spec, 0);
}

/* ------------------------------------------------------------ lines */

void cmd_line_init(struct cmd_line *l)
{
	l->len = 0;
	l->buf[0] = '\0';
}

void cmd_line_add(struct cmd_line *l, const char *fmt, ...)
{
	va_list ap;
	if (l->len >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->len += (size_t)n;
	if (l->len >= sizeof(l->buf))
		l->len = sizeof(l->buf) - 1;
}

void cmd_line_csv(struct cmd_line *l, const char *field)
{
	if (l->len > 0 && l->buf[l->len - 1] != '\n')
		cmd_line_add(l, ",");
	if (strpbrk(field, ",\"\n\r") == NULL) {
		cmd_line_add(l, "%s", field);
		return;
	}
	cmd_line_add(l, "\"");
	for (const char *p = field; *p != '\0'; p++) {
		if (*p == '"')
			cmd_line_add(l, "\"\"");
		else
			cmd_line_add(l, "%c", *p);
	}
	cmd_line_add(l, "\"");
}

void cmd_line_header(struct cmd_line *l, const struct cmd_set *s)
{
	for (int i = 0; i < s->nreqs; i++) {
		char field[32];
		snprintf(field, sizeof(field), "%8s%-2d ", "pic",
		    s->picnum[i]);
		field[10] = '\0';	/* "     pic12" loses its space */
		cmd_line_add(l, "%s", field);
	}
}

void cmd_line_values(struct cmd_line *l, cpc_t *cpc, cpc_buf_t *buf,
    const struct cmd_set *s)
{
	for (int i = 0; i < s->nreqs; i++) {
		uint64_t v = 0;
		cpc_buf_get(cpc, buf, i, &v);
		cmd_line_add(l, "%9" PRId64 " ", (int64_t)v);
	}
}

void cmd_line_csv_values(struct cmd_line *l, cpc_t *cpc, cpc_buf_t *buf,
    const struct cmd_set *s, uint_t npic)
{
	for (uint_t pic = 0; pic < npic; pic++) {
		char field[32] = "";
		for (int i = 0; i < s->nreqs; i++)
			if (s->picnum[i] == (int)pic) {
				uint64_t v = 0;
				cpc_buf_get(cpc, buf, i, &v);
				snprintf(field, sizeof(field), "%" PRIu64, v);
			}
		cmd_line_csv(l, field);
	}
}

void cmd_line_csv_pics(struct cmd_line *l, uint_t npic)
{
	for (uint_t pic = 0; pic < npic; pic++) {
		char field[16];
		snprintf(field, sizeof(field), "pic%u", pic);
		cmd_line_csv(l, field);
	}
}

double cmd_seconds(hrtime_t t, hrtime_t start)
{
	return (double)(t - start) / 1e9;
}

/* ------------------------------------------------------------ -h */

#define EVENT_MARGIN 17
#define ATTR_MARGIN 20
#define WRAP_COLUMN 76

struct names {
	size_t n, cap;
	char **v;
};

static void add_name(void *arg, uint_t picno, const char *event)
{
	struct names *ns = arg;
	(void)picno;
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? 2 * ns->cap : 64;
		char **v = realloc(ns->v, cap * sizeof(*v));
		if (v == NULL)
			return;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(event);
	if (ns->v[ns->n] != NULL)
		ns->n++;
}

static void free_names(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

static int same_names(const struct names *a, const struct names *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return 0;
	return 1;
}

static void print_names(FILE *fp, const struct names *ns)
{
	int col = EVENT_MARGIN;
	for (size_t i = 0; i < ns->n; i++) {
		int len = (int)strlen(ns->v[i]);
		if (col + len + 1 > WRAP_COLUMN) {
			fprintf(fp, "\n%*s", EVENT_MARGIN, "");
			col = EVENT_MARGIN;
		}
		fprintf(fp, "%s ", ns->v[i]);
		col += len + 1;
	}
	fprintf(fp, "\n");
}

typedef void(walker_t)(cpc_t *, uint_t, void *,
    void (*)(void *, uint_t, const char *));

/* An event block: one list for all counters when allsame, else one each. */
static void print_block(cpc_t *cpc, FILE *fp, walker_t *walk, int allsame)
{
	uint_t npic = cpc_npic(cpc);
	for (uint_t i = 0; i < npic; i++) {
		struct names ns = { 0 };
		walk(cpc, i, &ns, add_name);
		if (allsame)
			fprintf(fp, "\n\tevent[0-%u]: ", npic - 1);
		else
			fprintf(fp, "\n\tevent%u: %s", i, i < 10 ? " " : "");
		print_names(fp, &ns);
		free_names(&ns);
		if (allsame)
			break;
	}
}

struct attr_print {
	FILE *fp;
	int col;
};

static void print_word(struct attr_print *ap, const char *word, int margin)
{
	int len = (int)strlen(word);
	if (ap->col + len + 1 > WRAP_COLUMN) {
		fprintf(ap->fp, "\n%*s", margin, "");
		ap->col = margin;
	}
	fprintf(ap->fp, "%s ", word);
	ap->col += len + 1;
}

static void print_attr(void *arg, const char *attr)
{
	if (strcmp(attr, "picnum") == 0 ||
	    strcmp(attr, "count_sibling_usr") == 0 ||
	    strcmp(attr, "count_sibling_sys") == 0)
		return;
	print_word(arg, attr, ATTR_MARGIN);
}

void cmd_print_capabilities(cpc_t *cpc, FILE *fp)
{
	uint_t npic = cpc_npic(cpc);
	const char *name = cpc_cciname(cpc);
	int allsame = 1;

	fprintf(fp, "\tCPU performance counter interface: %s\n",
	    name != NULL ? name : "No information available");
	fprintf(fp, "\n\tevent specification syntax:\n");
	fprintf(fp, "\t[picn=]<eventn>[,attr[n][=<val>]]"
		    "[,[picn=]<eventn>[,attr[n][=<val>]],...]\n");

	struct names first = { 0 };
	cpc_walk_events_pic(cpc, 0, &first, add_name);
	for (uint_t i = 1; i < npic && allsame; i++) {
		struct names ns = { 0 };
		cpc_walk_events_pic(cpc, i, &ns, add_name);
		allsame = same_names(&first, &ns);
		free_names(&ns);
	}
	free_names(&first);

	fprintf(fp, "\n\tGeneric Events:\n");
	print_block(cpc, fp, cpc_walk_generic_events_pic, allsame);
	fprintf(fp, "\n\tSee generic_events(3CPC) for descriptions of these "
		    "events\n\n");
	fprintf(fp, "\tPlatform Specific Events:\n");
	print_block(cpc, fp, cpc_walk_events_pic, allsame);

	struct attr_print ap = { fp, ATTR_MARGIN };
	fprintf(fp, "\n\tattributes: ");
	cpc_walk_attrs(cpc, &ap, print_attr);
	print_word(&ap, "nouser", ATTR_MARGIN);
	print_word(&ap, "sys", ATTR_MARGIN);
	fprintf(fp, "\n");

	/* The processor reference, wrapped on words. */
	const char *ref = cpc_cpuref(cpc);
	char *copy = strdup(ref != NULL ? ref : "No information available");
	fprintf(fp, "\n\t");
	int col = 8;
	char *save = NULL;
	for (char *w = copy != NULL ? strtok_r(copy, " ", &save) : NULL;
	    w != NULL; w = strtok_r(NULL, " ", &save)) {
		int len = (int)strlen(w);
		if (col + len + 1 > WRAP_COLUMN) {
			fprintf(fp, "\n\t");
			col = 8;
		}
		fprintf(fp, "%s ", w);
		col += len + 1;
	}
	fprintf(fp, "\n");
	free(copy);
	/* A Linux section after illumos's text: the processor and its PMU. */
	fprintf(fp, "\n\tProcessor: %s\n", cpc_linux_cpudesc());
	hint_print_countable(cpc, fp);
}
