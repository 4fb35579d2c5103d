/* SPDX-License-Identifier: MIT */
/*
 * The -c specification parser of cputrack and cpustat (cmd/strtoset.c):
 * cpc_strtoset(cpc, spec, smt) gives a set of at most cpc_npic requests,
 * each on a distinct counter, or NULL with errno EINVAL; a set it gives
 * binds or fails cleanly.
 */
#include <errno.h>

#include "fuzz_common.h"
#include "strtoset.h"

struct set_walk {
	int n;
	int bad;
	uint64_t pics;	/* bit per picnum seen */
};

static void strtoset_walk(void *arg, int index, const char *event,
    uint64_t preset, uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	struct set_walk *w = arg;
	(void)index, (void)preset, (void)flags;
	w->n++;
	if (event == NULL || *event == '\0')
		w->bad = 1;
	for (int i = 0; i < nattrs; i++)
		if (strcmp(attrs[i].ca_name, "picnum") == 0) {
			if (attrs[i].ca_val >= 64 ||
			    (w->pics >> attrs[i].ca_val) & 1)
				w->bad = 1;
			else
				w->pics |= 1ULL << attrs[i].ca_val;
		}
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	fuzz_setup();
	cpc_t *cpc = fuzz_cpc();
	static int once;
	if (!once) {
		strtoset_handler(fuzz_quiet_v2);
		once = 1;
	}
	char *spec = fuzz_string(data, size);
	errno = 0;
	cpc_set_t *set = cpc_strtoset(cpc, spec, size > 0 && (data[0] & 1));
	if (set == NULL) {
		FUZZ_CHECK(errno == EINVAL, "\"%s\": NULL with errno %d", spec,
		    errno);
	} else {
		struct set_walk w = { 0, 0, 0 };
		cpc_walk_requests(cpc, set, &w, strtoset_walk);
		FUZZ_CHECK(w.n >= 1 && (uint_t)w.n <= cpc_npic(cpc) && !w.bad,
		    "\"%s\": %d requests (npic %u), bad %d", spec, w.n,
		    cpc_npic(cpc), w.bad);
		cpc_buf_t *buf = cpc_buf_create(cpc, set);
		FUZZ_CHECK(buf != NULL, "cpc_buf_create");
		errno = 0;
		if (cpc_bind_curlwp(cpc, set, 0) == 0) {
			FUZZ_CHECK(cpc_set_sample(cpc, set, buf) == 0 ||
				errno == EAGAIN, "sample: errno %d", errno);
			FUZZ_CHECK(cpc_unbind(cpc, set) == 0, "unbind");
		} else {
			FUZZ_CHECK(errno != 0, "bind failed with errno 0");
		}
		cpc_buf_destroy(cpc, buf);
		FUZZ_CHECK(cpc_set_destroy(cpc, set) == 0, "destroy");
	}
	free(spec);
	return 0;
}
