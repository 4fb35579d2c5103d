/* SPDX-License-Identifier: MIT */
/*
 * The -c event specification of cputrack and cpustat:
 *
 *   [picn=]<eventn>[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]
 *
 * Tokens are separated by commas.  The recognised names are picN, nouserN,
 * sysN, <attr>N and <attr> for every attribute of the platform (but
 * picnum), then nouser and sys; N runs over the counters.  Anything else
 * is an event given without a counter: it goes to the first counter
 * above every counter assigned so far that can count it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtoset.h"

#define FN "cpc_strtoset"
#define MAX_ATTRS 32
/* Counters the parser handles (libcpc has at most 16 requests a set). */
#define MAX_PICS 64

enum kind { K_PIC, K_NOUSER, K_SYS, K_ATTR };

struct token {
	char name[CPC_MAX_ATTR_LEN + 8];
	enum kind kind;
	int pic;	/* -1: every counter */
	int attr;	/* index into the attribute names */
};

struct parse {
	cpc_t *cpc;
	uint_t npic;
	int nattrs;
	char *attrs[MAX_ATTRS];
	int ntokens;
	struct token *tokens;
	/* Per counter: */
	const char *event[MAX_PICS];
	uint_t flags[MAX_PICS];
	uint64_t attrval[MAX_PICS][MAX_ATTRS];
	unsigned char attrset[MAX_PICS][MAX_ATTRS];
};

static cpc_errhndlr_t *handler;

void strtoset_handler(cpc_errhndlr_t *fn)
{
	handler = fn;
}

static void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (handler != NULL) {
		handler(FN, -1, fmt, ap);
	} else {
		fprintf(stderr, "%s: ", FN);
		vfprintf(stderr, fmt, ap);
	}
	va_end(ap);
}

static char refused[CPC_MAX_EVENT_LEN];
static int refused_free;

/* Notes an event no counter took, for the tools' hint. */
static void note_refused(const char *event, int counter_free)
{
	snprintf(refused, sizeof(refused), "%s", event);
	refused_free = counter_free;
}

const char *strtoset_refused(int *counter_free)
{
	if (refused[0] == '\0')
		return NULL;
	*counter_free = refused_free;
	return refused;
}

static void silent(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn, (void)subcode, (void)fmt, (void)ap;
}

static void collect_attr(void *arg, const char *attr)
{
	struct parse *ps = arg;
	if (strcmp(attr, "picnum") == 0 || ps->nattrs >= MAX_ATTRS)
		return;
	ps->attrs[ps->nattrs] = strdup(attr);
	if (ps->attrs[ps->nattrs] != NULL)
		ps->nattrs++;
}

static void add_token(struct parse *ps, enum kind kind, int pic, int attr,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add_token(struct parse *ps, enum kind kind, int pic, int attr,
    const char *fmt, ...)
{
	struct token *t = &ps->tokens[ps->ntokens++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof(t->name), fmt, ap);
	va_end(ap);
	t->kind = kind;
	t->pic = pic;
	t->attr = attr;
}

/* The token table, in the order of the Solaris tools. */
static int build_tokens(struct parse *ps)
{
	int n = (int)ps->npic;
	ps->tokens = calloc((size_t)(3 * n + ps->nattrs * (n + 1) + 2),
	    sizeof(*ps->tokens));
	if (ps->tokens == NULL)
		return -1;
	for (int i = 0; i < n; i++)
		add_token(ps, K_PIC, i, -1, "pic%d", i);
	for (int i = 0; i < n; i++)
		add_token(ps, K_NOUSER, i, -1, "nouser%d", i);
	for (int i = 0; i < n; i++)
		add_token(ps, K_SYS, i, -1, "sys%d", i);
	for (int a = 0; a < ps->nattrs; a++) {
		for (int i = 0; i < n; i++)
			add_token(ps, K_ATTR, i, a, "%s%d", ps->attrs[a], i);
		add_token(ps, K_ATTR, -1, a, "%s", ps->attrs[a]);
	}
	add_token(ps, K_NOUSER, -1, -1, "nouser");
	add_token(ps, K_SYS, -1, -1, "sys");
	return 0;
}

static const struct token *lookup(const struct parse *ps, const char *name)
{
	for (int i = 0; i < ps->ntokens; i++)
		if (strcmp(ps->tokens[i].name, name) == 0)
			return &ps->tokens[i];
	return NULL;
}

/* Can counter pic count event?  (A raw code must be non-zero.) */
static int can_count(struct parse *ps, const char *event, int pic)
{
	char *end;
	char picnum[] = "picnum";

	if (*event == '\0')
		return 0;
	errno = 0;
	long code = strtol(event, &end, 0);
	if (*end == '\0' && errno == 0)
		return code != 0;
	cpc_set_t *set = cpc_set_create(ps->cpc);
	if (set == NULL)
		return 0;
	cpc_attr_t attr = { picnum, (uint64_t)pic };
	cpc_seterrhndlr(ps->cpc, silent);
	int rc = cpc_set_add_request(ps->cpc, set, event, 0, CPC_COUNT_USER, 1,
	    &attr);
	cpc_seterrhndlr(ps->cpc, handler);
	cpc_set_destroy(ps->cpc, set);
	return rc >= 0;
}

static void set_flag(struct parse *ps, int pic, uint_t flag, int on)
{
	for (int i = 0; i < (int)ps->npic; i++)
		if (pic < 0 || pic == i) {
			if (on)
				ps->flags[i] |= flag;
			else
				ps->flags[i] &= ~flag;
		}
}

/* Handles one token (modified in place): 0, or -1 once reported. */
static int parse_token(struct parse *ps, char *tok, int *highest)
{
	char *value = strchr(tok, '=');
	if (value != NULL)
		*value++ = '\0';
	const struct token *t = lookup(ps, tok);

	if (t == NULL) {
		/* A bare event: on the next counter able to count it. */
		if (value != NULL) {
			value[-1] = '=';
			error("bad token '%s'\n", tok);
			return -1;
		}
		for (int i = *highest + 1; i < (int)ps->npic; i++)
			if (ps->event[i] == NULL && can_count(ps, tok, i)) {
				ps->event[i] = tok;
				*highest = i;
				return 0;
			}
		error("bad token '%s'\n", tok);
		int counter_free = 0;
		for (int i = *highest + 1; i < (int)ps->npic; i++)
			counter_free |= ps->event[i] == NULL;
		note_refused(tok, counter_free);
		return -1;
	}
	switch (t->kind) {
	case K_PIC:
		if (value == NULL || *value == '\0') {
			error("missing 'pic%d' value\n", t->pic);
			return -1;
		}
		if (ps->event[t->pic] != NULL) {
			error("repeated 'pic%d' token\n", t->pic);
			return -1;
		}
		if (!can_count(ps, value, t->pic)) {
			error("pic%d cannot measure event '%s' on this cpu\n",
			    t->pic, value);
			note_refused(value, 1);
			return -1;
		}
		ps->event[t->pic] = value;
		if (t->pic > *highest)
			*highest = t->pic;
		return 0;
	case K_NOUSER:
		set_flag(ps, t->pic, CPC_COUNT_USER, 0);
		return 0;
	case K_SYS:
		set_flag(ps, t->pic, CPC_COUNT_SYSTEM, 1);
		return 0;
	case K_ATTR: {
		uint64_t v = 1;
		if (value != NULL) {
			char *end;
			v = (uint64_t)strtoll(value, &end, 0);
			if (end == value) {
				error("invalid value '%s' for attribute '%s'\n",
				    value, ps->attrs[t->attr]);
				return -1;
			}
		}
		for (int i = 0; i < (int)ps->npic; i++)
			if (t->pic < 0 || t->pic == i) {
				ps->attrval[i][t->attr] = v;
				ps->attrset[i][t->attr] = 1;
			}
		return 0;
	}
	}
	return -1;
}

/* Adds counter pic's request to set: 0, or -1 once reported. */
static int add_request(struct parse *ps, cpc_set_t *set, int pic)
{
	cpc_attr_t attrs[MAX_ATTRS + 1];
	char picnum[] = "picnum";
	uint_t n = 0;

	for (int a = 0; a < ps->nattrs; a++)
		if (ps->attrset[pic][a]) {
			attrs[n].ca_name = ps->attrs[a];
			attrs[n++].ca_val = ps->attrval[pic][a];
		}
	attrs[n].ca_name = picnum;
	attrs[n++].ca_val = (uint64_t)pic;
	if (cpc_set_add_request(ps->cpc, set, ps->event[pic], 0,
		ps->flags[pic], n, attrs) < 0) {
		error("cpc_set_add_request() failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

cpc_set_t *cpc_strtoset(cpc_t *cpc, const char *spec, int smt)
{
	struct parse *ps = calloc(1, sizeof(*ps));
	char *copy = spec != NULL ? strdup(spec) : NULL;
	cpc_set_t *set = NULL;
	int highest = -1, ok = 0;

	(void)smt;
	if (ps == NULL || copy == NULL)
		goto out;
	ps->cpc = cpc;
	ps->npic = cpc_npic(cpc);
	if (ps->npic > MAX_PICS)
		ps->npic = MAX_PICS;
	for (uint_t i = 0; i < ps->npic; i++)
		ps->flags[i] = CPC_COUNT_USER;
	cpc_walk_attrs(cpc, ps, collect_attr);
	if (build_tokens(ps) != 0)
		goto out;

	char *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save))
		if (parse_token(ps, tok, &highest) != 0)
			goto out;
	if (highest < 0) {
		error("no event specified in '%s'\n", spec);
		goto out;
	}
	set = cpc_set_create(cpc);
	if (set == NULL) {
		error("cpc_set_create() failed: %s\n", strerror(errno));
		goto out;
	}
	for (int i = 0; i < (int)ps->npic; i++)
		if (ps->event[i] != NULL && add_request(ps, set, i) != 0)
			goto out;
	ok = 1;
out:
	if (!ok && set != NULL) {
		cpc_set_destroy(cpc, set);
		set = NULL;
	}
	if (ps != NULL) {
		for (int a = 0; a < ps->nattrs; a++)
			free(ps->attrs[a]);
		free(ps->tokens);
	}
	free(ps);
	free(copy);
	if (!ok)
		errno = EINVAL;
	return set;
}
