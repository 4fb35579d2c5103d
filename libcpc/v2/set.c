/* SPDX-License-Identifier: MIT */
/*
 * Sets of the current interfaces: cpc_set_create, cpc_set_destroy,
 * cpc_set_add_request and cpc_walk_requests.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"
#include "v2.h"

#define FN_ADD "cpc_set_add_request"

cpc_set_t *cpc_set_create(cpc_t *cpc)
{
	sigset_t saved;
	if (cpc == NULL) {
		errno = EINVAL;
		return NULL;
	}
	cpc_set_t *set = calloc(1, sizeof(*set));
	if (set == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	set->cpc = cpc;
	v2_lock(cpc, &saved);
	set->next = cpc->sets;
	cpc->sets = set;
	v2_unlock(cpc, &saved);
	return set;
}

static void free_req(struct v2_req *r)
{
	for (int i = 0; i < r->nattrs; i++)
		free(r->attrs[i].ca_name);
	free(r->attrs);
	free(r->event);
	free(r);
}

int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	int rc;

	if (cpc == NULL || set == NULL) {
		errno = EINVAL;
		return -1;
	}
	V2_UNLINK(cpc, cpc_set_t, cpc->sets, set, rc);
	if (rc != 0)
		return -1;
	v2_unbind_set(set);
	while (set->reqs != NULL) {
		struct v2_req *r = set->reqs;
		set->reqs = r->next;
		free_req(r);
	}
	free(set);
	return 0;
}

/* A private copy of the attributes, names truncated as on Solaris. */
static cpc_attr_t *copy_attrs(uint_t nattrs, const cpc_attr_t *attrs)
{
	cpc_attr_t *copy = calloc(nattrs ? nattrs : 1, sizeof(*copy));
	if (copy == NULL)
		return NULL;
	for (uint_t i = 0; i < nattrs; i++) {
		copy[i].ca_name = strndup(attrs[i].ca_name, CPC_MAX_ATTR_LEN - 1);
		copy[i].ca_val = attrs[i].ca_val;
		if (copy[i].ca_name == NULL) {
			while (i-- > 0)
				free(copy[i].ca_name);
			free(copy);
			return NULL;
		}
	}
	return copy;
}

static int add_fail(cpc_t *cpc, int subcode)
{
	v2_report(cpc, FN_ADD, subcode);
	errno = EINVAL;
	return -1;
}

/* Unknown event; the name and the closest, in cpc_linux_errnote (Linux). */
static int unknown_event(cpc_t *cpc, const char *event)
{
	char note[sizeof(cpc->note)];
	__cpc_suggest(cpc->cpuver, event != NULL ? event : "", note,
	    sizeof(note));
	v2_keep_note(cpc, note);
	return add_fail(cpc, CPC_INVALID_EVENT);
}

int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
    uint64_t preset, uint_t flags, uint_t nattrs, const cpc_attr_t *attrs)
{
	struct cpc_req req;
	int plain, picno = -1;

	if (cpc == NULL || set == NULL || !v2_owns_set(cpc, set) ||
	    set->state != V2_UNBOUND || (nattrs > 0 && attrs == NULL)) {
		errno = EINVAL;
		return -1;
	}
	/*
	 * In the original's order: the event (valid on some counter), then
	 * each attribute in turn (its name; a picnum's counter, and whether
	 * the event is valid there).
	 */
	int sub = v2_resolve(cpc, event, -1, &req, &plain);
	if (sub != 0)
		return unknown_event(cpc, event);
	for (uint_t i = 0; i < nattrs; i++) {
		if (attrs[i].ca_name == NULL || attrs[i].ca_name[0] == '\0' ||
		    !v2_known_attr(cpc, attrs[i].ca_name))
			return add_fail(cpc, CPC_INVALID_ATTRIBUTE);
		if (strcmp(attrs[i].ca_name, "picnum") == 0) {
			if (attrs[i].ca_val >= cpc->npic)
				return add_fail(cpc, CPC_INVALID_PICNUM);
			if (!v2_event_on_pic(cpc, event,
				(uint_t)attrs[i].ca_val))
				return add_fail(cpc, CPC_PIC_NOT_CAPABLE);
			picno = (int)attrs[i].ca_val;
		}
	}
	if (picno >= 0) {
		sub = v2_resolve(cpc, event, picno, &req, &plain);
		if (sub != 0)
			return add_fail(cpc, sub);
	}
	/*
	 * Any number of requests, as the original's: more than counters
	 * are refused at bind (v2_check_reqs), as its kernel does.
	 */
	if (set->nreqs == INT_MAX) {
		errno = ENOMEM;
		return -1;
	}

	struct v2_req *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		errno = ENOMEM;
		return -1;
	}
	r->event = strndup(event, CPC_MAX_EVENT_LEN - 1);
	r->attrs = copy_attrs(nattrs, attrs);
	if (r->event == NULL || r->attrs == NULL) {
		if (r->attrs != NULL)
			for (uint_t i = 0; i < nattrs; i++)
				free(r->attrs[i].ca_name);
		free(r->attrs);
		free(r->event);
		free(r);
		errno = ENOMEM;
		return -1;
	}
	r->nattrs = (int)nattrs;
	r->preset = preset;
	r->flags = flags;
	req.preset = preset;
	req.flags = flags & (CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER |
	    CPC_COUNT_SYSTEM);
	if (flags & ~(CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER | CPC_COUNT_SYSTEM |
		CPC_COUNT_HV)) {
		r->bind_subcode = CPC_REQ_INVALID_FLAGS;
		r->bind_errno = EINVAL;
	} else {
		r->bind_subcode = v2_apply_attrs(cpc, &req, plain, r->nattrs,
		    r->attrs, &r->bind_errno);
	}
	r->req = req;

	sigset_t saved;
	v2_lock(cpc, &saved);
	r->index = set->nreqs++;
	r->next = set->reqs;
	set->reqs = r;
	v2_unlock(cpc, &saved);
	return r->index;
}

void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
    void (*action)(void *arg, int index, const char *event, uint64_t preset,
	uint_t flags, int nattrs, const cpc_attr_t *attrs))
{
	if (cpc == NULL || set == NULL || action == NULL)
		return;
	for (struct v2_req *r = set->reqs; r != NULL; r = r->next)
		action(arg, r->index, r->event, r->preset, r->flags, r->nattrs,
		    r->attrs);
}
