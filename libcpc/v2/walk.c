/* SPDX-License-Identifier: MIT */
/*
 * The event walkers of the current interfaces, as the original's: the
 * back end's names per counter (platform names, and apart the generic
 * PAPI_* names; pcbe_events.h for AMD's families and Intel's
 * architectural events), and overall each distinct name once, in the reverse
 * order of first appearance (counter 0's list first), as illumos's
 * libcpc collects them.  Linux perf and libpfm4 names, which requests
 * also accept, are listed only by the Linux extension
 * cpc_linux_walk_events, except where the processor has no back end of
 * the original's and perf's names are the platform's, and where the
 * kernel has no hardware PMU: the back end in use is then the kernel's
 * software events, and the platform names are theirs.  The Linux
 * extension cpc_linux_suggest finds the closest of all these names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "generic_events.h"
#include "native_events.h"
#include "pcbe_events.h"
#include "perf_names.h"
#include "platform_events.h"
#include "suggest.h"
#include "v2.h"

typedef void(name_fn)(void *arg, const char *name);

struct relay {
	void *arg;
	name_fn *fn;
};

static void relay_platform(void *arg, int regno, const char *name,
    uint8_t bits)
{
	struct relay *r = arg;
	(void)regno, (void)bits;
	r->fn(r->arg, name);
}

/* Passes on the back end's names that are (or are not) generic. */
struct pcbe_filter {
	void *arg;
	name_fn *fn;
	int generic;
};

static void pcbe_filtered(void *arg, const char *name)
{
	struct pcbe_filter *f = arg;
	if ((strncmp(name, "PAPI", 4) == 0) == f->generic)
		f->fn(f->arg, name);
}

/* The platform (non-generic) names of counter picno, in list order. */
static void platform_names(cpc_t *cpc, uint_t picno, void *arg, name_fn *fn)
{
	struct relay r = { arg, fn };
	int family = __cpc_platform_family(cpc->cpuver);

	if (!__cpc_kernel_has_core_pmu()) {
		/* No hardware PMU: the back end is the kernel's software events. */
		__cpc_perf_sw_name_walk(arg, fn);
		return;
	}
	if (__cpc_pcbe_has_events(&cpc->id)) {	/* the back end's own */
		struct pcbe_filter f = { arg, fn, 0 };
		__cpc_pcbe_walk(&cpc->id, picno, &f, pcbe_filtered);
		return;
	}
	if (family == CPC_FAMILY_PERF) {	/* no back end: perf's names */
		__cpc_perf_name_walk(arg, fn);
		return;
	}
	/* P6 lists differ on counters 0 and 1; the others count all. */
	int regno = family == CPC_FAMILY_P6 && picno <= 1 ? (int)picno : 0;
	__cpc_platform_walk(cpc->cpuver, regno, &r, relay_platform);
	/* P6 names valid only on counter 1 are the other counters' too. */
	if (family == CPC_FAMILY_P6 && picno > 1) {
		static const char *const pic1_only[] = { "fp_assist", "mul",
			"div" };
		for (size_t i = 0; i < 3; i++)
			fn(arg, pic1_only[i]);
	}
}

/*
 * The generic names of counter picno: the back end's, or where it has no
 * list here the library's own (every counter counts them).
 */
static void generic_names(cpc_t *cpc, uint_t picno, void *arg, name_fn *fn)
{
	if (__cpc_pcbe_has_events(&cpc->id) && __cpc_kernel_has_core_pmu()) {
		/* its generic names */
		struct pcbe_filter f = { arg, fn, 1 };
		__cpc_pcbe_walk(&cpc->id, picno, &f, pcbe_filtered);
		return;
	}
	__cpc_generic_walk(arg, fn);
}

/* Distinct names, in order of first appearance. */
struct collect {
	const char **names;
	size_t n, cap;
	int failed;
};

static void collect_name(void *arg, const char *name)
{
	struct collect *c = arg;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		const char **p = realloc(c->names, cap * sizeof(*p));
		if (p == NULL) {
			c->failed = 1;
			return;
		}
		c->names = p;
		c->cap = cap;
	}
	/* A copy: perf's cache names are built in a walker's buffer. */
	char *copy = strdup(name);
	if (copy == NULL) {
		c->failed = 1;
		return;
	}
	c->names[c->n++] = copy;
}

static void free_names(struct collect *c)
{
	for (size_t i = 0; i < c->n; i++)
		free((char *)c->names[i]);
	free(c->names);
}

static void walk_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event),
    void (*names)(cpc_t *, uint_t, void *, name_fn *))
{
	struct collect c = { NULL, 0, 0, 0 };
	if (cpc == NULL || action == NULL)
		return;
	for (uint_t pic = 0; pic < cpc->npic; pic++)
		names(cpc, pic, &c, collect_name);
	/* Nothing when memory ran out, as the original. */
	if (!c.failed)
		for (size_t i = c.n; i-- > 0;)
			action(arg, c.names[i]);
	free_names(&c);
}

void cpc_walk_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	walk_all(cpc, arg, action, platform_names);
}

void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	walk_all(cpc, arg, action, generic_names);
}

/* One counter's names, to an action that takes the counter too. */
struct pic_relay {
	void *arg;
	uint_t picno;
	void (*action)(void *arg, uint_t picno, const char *event);
};

static void relay_pic(void *arg, const char *name)
{
	struct pic_relay *r = arg;
	r->action(r->arg, r->picno, name);
}

/* May a walk of counter picno go on?  EINVAL for a counter too many. */
static int pic_walk_ok(cpc_t *cpc, uint_t picno, int have_action)
{
	if (cpc == NULL || !have_action)
		return 0;
	if (picno >= cpc->npic) {
		errno = EINVAL;
		return 0;
	}
	return 1;
}

void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	struct pic_relay r = { arg, picno, action };
	if (pic_walk_ok(cpc, picno, action != NULL))
		platform_names(cpc, picno, &r, relay_pic);
}

void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	struct pic_relay r = { arg, picno, action };
	if (pic_walk_ok(cpc, picno, action != NULL))
		generic_names(cpc, picno, &r, relay_pic);
}

/* Collects the library's generic names that the back end does not list. */
struct unlisted {
	struct collect *listed, *out;
};

static void collect_unlisted(void *arg, const char *name)
{
	struct unlisted *u = arg;
	for (size_t i = 0; i < u->listed->n; i++)
		if (strcmp(u->listed->names[i], name) == 0)
			return;
	collect_name(u->out, name);
}

/*
 * Linux extension: the names requests accept beyond the back end's, each
 * once: libpfm4's for this processor, then Linux perf's, then, where the
 * back end has its own list, the library's generic names it lacks.
 */
void cpc_linux_walk_events(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	struct collect c = { NULL, 0, 0, 0 }, listed = { NULL, 0, 0, 0 };
	if (cpc == NULL || action == NULL)
		return;
	__cpc_native_walk(&c, collect_name);
	__cpc_perf_name_walk(&c, collect_name);
	if (__cpc_pcbe_has_events(&cpc->id) && __cpc_kernel_has_core_pmu()) {
		struct unlisted u = { &listed, &c };
		for (uint_t pic = 0; pic < cpc->npic; pic++)
			generic_names(cpc, pic, &listed, collect_name);
		__cpc_generic_walk(&u, collect_unlisted);
	}
	if (!c.failed && !listed.failed)
		for (size_t i = 0; i < c.n; i++)
			action(arg, c.names[i]);
	free_names(&c);
	free_names(&listed);
}

/*
 * Linux extension: the names of the walkers above closest to event, as
 * "a", "a or b" or "a, b or c" in buf; how many, or -1 (EINVAL).
 */
int cpc_linux_suggest(cpc_t *cpc, const char *event, char *buf, size_t len)
{
	struct cpc_closest c;
	if (cpc == NULL || event == NULL || buf == NULL || len == 0) {
		errno = EINVAL;
		return -1;
	}
	__cpc_closest_init(&c, event);
	cpc_walk_generic_events_all(cpc, &c, __cpc_closest_add);
	cpc_walk_events_all(cpc, &c, __cpc_closest_add);
	cpc_linux_walk_events(cpc, &c, __cpc_closest_add);
	__cpc_closest_list(&c, buf, len);
	return c.n;
}
