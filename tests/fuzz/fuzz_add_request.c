/* SPDX-License-Identifier: MIT */
/*
 * cpc_set_add_request with arbitrary event names, presets, flags and
 * attribute arrays, then binding, sampling and unbinding what it
 * accepted.  Input: byte 0 the request flags, byte 1 the number of
 * attributes (low 3 bits) and whether to bind (bit 3), bytes 2-9 the
 * preset; then lines: the event name, and one "name=value" line per
 * attribute.  What cpc_walk_requests reports must be what was added
 * (names truncated to CPC_MAX_EVENT_LEN - 1 and CPC_MAX_ATTR_LEN - 1).
 */
#include <errno.h>

#include "fuzz_common.h"

#define ADD_MAX_ATTRS 7

struct add_expect {
	const char *event;
	uint64_t preset;
	uint_t flags;
	uint_t nattrs;
	const cpc_attr_t *attrs;
	int seen;
	int bad;
};

static void add_walk(void *arg, int index, const char *event,
    uint64_t preset, uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct add_expect *x = arg;
	x->seen++;
	if (index != 0 || event == NULL ||
	    strncmp(event, x->event, CPC_MAX_EVENT_LEN - 1) != 0 ||
	    strlen(event) > CPC_MAX_EVENT_LEN - 1 || preset != x->preset ||
	    flags != x->flags || nattrs != (int)x->nattrs)
		x->bad = 1;
	for (int i = 0; !x->bad && i < nattrs; i++)
		if (strncmp(attrs[i].ca_name, x->attrs[i].ca_name,
			CPC_MAX_ATTR_LEN - 1) != 0 ||
		    strlen(attrs[i].ca_name) > CPC_MAX_ATTR_LEN - 1 ||
		    attrs[i].ca_val != x->attrs[i].ca_val)
			x->bad = 1;
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 10)
		return 0;
	fuzz_setup();
	cpc_t *cpc = fuzz_cpc();
	uint_t flags = data[0];
	uint_t nattrs = data[1] & 7;
	int bind = (data[1] & 8) != 0;
	uint64_t preset = fuzz_u64(data + 2, 8);
	char *text = fuzz_string(data + 10, size - 10);

	/* Line 1: the event; then the attributes. */
	cpc_attr_t attrs[ADD_MAX_ATTRS];
	char *save = NULL;
	char *event = strtok_r(text, "\n", &save);
	if (event == NULL)
		event = text;	/* empty */
	uint_t n = 0;
	for (char *line; n < nattrs && (line = strtok_r(NULL, "\n", &save));
	     n++) {
		char *eq = strchr(line, '=');
		attrs[n].ca_name = line;
		attrs[n].ca_val = 0;
		if (eq != NULL) {
			*eq = '\0';
			attrs[n].ca_val = strtoull(eq + 1, NULL, 0);
		}
	}
	nattrs = n;

	cpc_set_t *set = cpc_set_create(cpc);
	FUZZ_CHECK(set != NULL, "cpc_set_create");
	errno = 0;
	int idx = cpc_set_add_request(cpc, set, event, preset, flags, nattrs,
	    nattrs ? attrs : NULL);
	struct add_expect x = { event, preset, flags, nattrs, attrs, 0, 0 };
	cpc_walk_requests(cpc, set, &x, add_walk);
	if (idx < 0) {
		FUZZ_CHECK(errno == EINVAL, "add \"%s\": errno %d", event, errno);
		FUZZ_CHECK(x.seen == 0, "failed add left a request");
	} else {
		FUZZ_CHECK(idx == 0, "first request has index %d", idx);
		FUZZ_CHECK(x.seen == 1 && !x.bad,
		    "\"%s\": the set holds something else (%d seen)", event,
		    x.seen);
		if (bind) {
			cpc_buf_t *buf = cpc_buf_create(cpc, set);
			FUZZ_CHECK(buf != NULL, "cpc_buf_create");
			errno = 0;
			if (cpc_bind_curlwp(cpc, set, 0) == 0) {
				FUZZ_CHECK(cpc_set_sample(cpc, set, buf) == 0 ||
					errno == EAGAIN,
				    "sample of \"%s\": errno %d", event, errno);
				FUZZ_CHECK(cpc_unbind(cpc, set) == 0, "unbind");
			} else {
				FUZZ_CHECK(errno != 0, "bind failed, errno 0");
			}
			FUZZ_CHECK(cpc_buf_destroy(cpc, buf) == 0, "buf");
		}
	}
	FUZZ_CHECK(cpc_set_destroy(cpc, set) == 0, "cpc_set_destroy");
	free(text);
	return 0;
}
