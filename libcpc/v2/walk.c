/* SPDX-License-Identifier: MIT */
/*
 * The event walkers of the current interfaces: every event name of the
 * platform per counter and overall, generic (PAPI_*) names apart.
 */
#include <errno.h>
#include <string.h>

#include "generic_events.h"
#include "native_events.h"
#include "perf_names.h"
#include "platform_events.h"
#include "v2.h"

struct pic_walk {
	void *arg;
	uint_t picno;
	void (*pic_action)(void *arg, uint_t picno, const char *event);
	void (*all_action)(void *arg, const char *event);
};

static void emit(struct pic_walk *w, const char *name)
{
	if (w->pic_action != NULL)
		w->pic_action(w->arg, w->picno, name);
	else
		w->all_action(w->arg, name);
}

static void emit_platform(void *arg, int regno, const char *name, uint8_t bits)
{
	(void)regno, (void)bits;
	emit(arg, name);
}

static void emit_name(void *arg, const char *name)
{
	emit(arg, name);
}

/* The platform names of one counter (picno >= 0) or of all, each once. */
static void walk_platform(cpc_t *cpc, struct pic_walk *w, int picno)
{
	if (picno >= 0) {
		int regno = picno;
		if (__cpc_platform_family(cpc->cpuver) != CPC_FAMILY_P6 || regno > 1)
			regno = 0;
		__cpc_platform_walk(cpc->cpuver, regno, w, emit_platform);
		return;
	}
	__cpc_platform_walk(cpc->cpuver, 0, w, emit_platform);
	/* The P6 names valid only on counter 1, once. */
	if (__cpc_platform_family(cpc->cpuver) == CPC_FAMILY_P6) {
		static const char *const pic1_only[] = { "fp_assist", "mul",
			"div" };
		for (size_t i = 0; i < 3; i++)
			emit(w, pic1_only[i]);
	}
}

static void walk_events(cpc_t *cpc, struct pic_walk *w, int picno)
{
	walk_platform(cpc, w, picno);
	__cpc_native_walk(w, emit_name);
	__cpc_perf_name_walk(w, emit_name);
}

void cpc_walk_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	struct pic_walk w = { arg, 0, NULL, action };
	if (cpc == NULL || action == NULL)
		return;
	walk_events(cpc, &w, -1);
}

void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event))
{
	if (cpc == NULL || action == NULL)
		return;
	__cpc_generic_walk(arg, action);
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
	struct pic_walk w = { arg, picno, action, NULL };
	if (pic_walk_ok(cpc, picno, action != NULL))
		walk_events(cpc, &w, (int)picno);
}

void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event))
{
	struct pic_walk w = { arg, picno, action, NULL };
	if (pic_walk_ok(cpc, picno, action != NULL))
		__cpc_generic_walk(&w, emit_name);
}
