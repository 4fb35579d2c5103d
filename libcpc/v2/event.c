/* SPDX-License-Identifier: MIT */
/*
 * Events and attributes of the current interfaces: resolving a request's
 * event name (platform names, Solaris generic names, libpfm4 native names,
 * Linux perf names, whole-string numeric codes) and its attributes (umask,
 * cmask, edge, inv, pc, int, noedge, anythr, picnum) into what the core
 * counts.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuinfo.h"
#include "generic_events.h"
#include "native_events.h"
#include "pcbe_events.h"
#include "perf_names.h"
#include "pes.h"
#include "platform_events.h"
#include "v2.h"

/*
 * A whole-string number: a raw event code, of 12 bits on AMD (the extended
 * event select), 8 elsewhere.
 */
static int numeric_event(const char *name, unsigned *code)
{
	struct cpc_cpuinfo ci;
	char *end;
	if (*name == '\0')
		return -1;
	__cpc_cpuinfo_read(&ci);
	errno = 0;
	long v = strtol(name, &end, 0);
	if (*end != '\0' || errno != 0 || v < 0 ||
	    v > (ci.vendor == CPC_VENDOR_AMD ? 0xfff : 0xff))
		return -1;
	*code = (unsigned)v;
	return 0;
}

/* Platform (table) name valid on counter picno (-1: on any counter). */
static int platform_code(int cpuver, const char *name, int picno,
    unsigned *code)
{
	int family = __cpc_platform_family(cpuver);
	if (picno < 0 || (family == CPC_FAMILY_P6 && picno > 1))
		return __cpc_platform_lookup(cpuver, 0, name, code) ||
		    __cpc_platform_lookup(cpuver, 1, name, code);
	if (family == CPC_FAMILY_P6)
		return __cpc_platform_lookup(cpuver, picno, name, code);
	return __cpc_platform_lookup(cpuver, 0, name, code);
}

/* A raw code (12 bits on AMD) in the event-select layout. */
static uint64_t raw_config(unsigned code)
{
	return (code & 0xffu) | (uint64_t)((code >> 8) & 0xfu) << 32;
}

/* The names of the original's back end where it has a list here. */
static int pcbe_resolve(cpc_t *cpc, const char *event, int picno,
    struct cpc_req *out, int *plain)
{
	uint64_t config;
	int generic;
	switch (__cpc_pcbe_lookup(&cpc->id, event, picno, &config, &generic)) {
	case CPC_PCBE_FOUND:
		out->sel.type = PERF_TYPE_RAW;
		out->sel.config = config;
		*plain = !generic;
		return 0;
	case CPC_PCBE_OTHER_PIC:
		return CPC_PIC_NOT_CAPABLE;
	default:
		return CPC_INVALID_EVENT;
	}
}

int v2_resolve(cpc_t *cpc, const char *event, int picno, struct cpc_req *out,
    int *plain)
{
	unsigned code, kind, index;
	int saved = errno;

	memset(out, 0, sizeof(*out));
	*plain = 0;
	if (event == NULL || *event == '\0')
		return CPC_INVALID_EVENT;
	if (__cpc_pcbe_has_events(&cpc->id)) {
		int sub = pcbe_resolve(cpc, event, picno, out, plain);
		if (sub != CPC_INVALID_EVENT)
			return sub;
	} else if (platform_code(cpc->cpuver, event, picno, &code)) {
		*plain = 1;
		out->sel.type = PERF_TYPE_RAW;
		out->sel.config = raw_config(code);
		errno = saved;
		return 0;
	}
	if (numeric_event(event, &code) == 0) {
		*plain = 1;
		out->sel.type = PERF_TYPE_RAW;
		out->sel.config = raw_config(code);
		errno = saved;
		return 0;
	}
	errno = saved;
	if (!__cpc_pcbe_has_events(&cpc->id) &&
	    __cpc_platform_known_name(cpc->cpuver, event))
		return CPC_PIC_NOT_CAPABLE;	/* only on another counter */
	int g = __cpc_generic_lookup(event);
	if (g >= 0 && __cpc_generic_evsel((unsigned)g, &out->sel) == 0)
		return 0;
	if (__cpc_native_lookup(event, &index) &&
	    __cpc_native_evsel(index, &out->sel) == 0)
		return 0;
	if (__cpc_perf_name_lookup(event, &kind, &index) &&
	    __cpc_perf_name_evsel(kind, index, &out->sel) == 0)
		return 0;
	return CPC_INVALID_EVENT;
}

int v2_event_on_pic(cpc_t *cpc, const char *event, uint_t picno)
{
	struct cpc_req r;
	int plain;
	return picno < cpc->npic &&
	    v2_resolve(cpc, event, (int)picno, &r, &plain) == 0;
}

int v2_known_attr(cpc_t *cpc, const char *name)
{
	if (name == NULL || *name == '\0')
		return 0;
	if (strcmp(name, "picnum") == 0)
		return 1;
	for (const char *const *a = cpc->id.attrs; a != NULL && *a != NULL;
	     a++)
		if (strcmp(name, *a) == 0)
			return 1;
	return 0;
}

/* The back end's attributes, then "picnum", which the kernel appends. */
void cpc_walk_attrs(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *attr))
{
	if (cpc == NULL || action == NULL)
		return;
	for (const char *const *a = cpc->id.attrs; a != NULL && *a != NULL;
	     a++)
		action(arg, *a);
	action(arg, "picnum");
}

int v2_apply_attrs(cpc_t *cpc, struct cpc_req *req, int plain, int nattrs,
    const cpc_attr_t *attrs, int *err)
{
	uint64_t umask = 0, cmask = 0, edge = 0, inv = 0, anythr = 0;
	int have_umask = 0;
	*err = EINVAL;
	for (int i = 0; i < nattrs; i++) {
		const char *n = attrs[i].ca_name;
		uint64_t v = attrs[i].ca_val;
		if (strcmp(n, "picnum") == 0)
			continue;
		if (!plain)	/* named events take no attributes */
			return CPC_ATTRIBUTE_OUT_OF_RANGE;
		if (strcmp(n, "umask") == 0 || strcmp(n, "cmask") == 0) {
			if (v > 0xff)
				return CPC_ATTRIBUTE_OUT_OF_RANGE;
			*(n[0] == 'u' ? &umask : &cmask) = v;
			have_umask |= n[0] == 'u';
			continue;
		}
		if (v > 1)
			return CPC_ATTRIBUTE_OUT_OF_RANGE;
		if (strcmp(n, "edge") == 0)
			edge = v;
		else if (strcmp(n, "noedge") == 0)
			edge = v ? 0 : edge;
		else if (strcmp(n, "inv") == 0)
			inv = v;
		else if (strcmp(n, "anythr") == 0)
			anythr = v;
		/* pc and int: no meaning for counting here. */
	}
	if (anythr && geteuid() != 0) {
		*err = EACCES;
		return CPC_ATTR_REQUIRES_PRIVILEGE;
	}
	if (plain) {
		uint64_t c = req->sel.config;
		/* P6 codes, where the P6 names are the platform's. */
		if (!__cpc_pcbe_has_events(&cpc->id) &&
		    __cpc_platform_family(cpc->cpuver) == CPC_FAMILY_P6)
			c = (c & ~0xffULL) |
			    __cpc_p6_code_on_running_cpu((unsigned)c & 0xff);
		/* AMD's back end adds a unit mask to the event's; Intel's sets it. */
		if (have_umask)
			c = cpc->id.pcbe == CPC_PCBE_OPTERON
			    ? c | umask << 8
			    : (c & ~0xff00ULL) | umask << 8;
		req->sel.config = c | edge << 18 | anythr << 21 | inv << 23 |
		    cmask << 24;
	}
	return 0;
}

void v2_compile(const cpc_set_t *set, struct cpc_reqset *out)
{
	out->nreqs = (unsigned)set->nreqs;
	for (const struct v2_req *r = set->reqs; r != NULL; r = r->next)
		out->req[r->index] = r->req;
}
