/* SPDX-License-Identifier: MIT */
/* The fixture of the core's unit tests (see core_fixture.h). */
#include <string.h>

#include "libcpc.h"
#include "core_fixture.h"
#include "cpuinfo.h"

struct cpc_reqset core_set(uint64_t config0, uint64_t p0, uint64_t p1,
    unsigned flags0, unsigned flags1)
{
	struct cpc_reqset s;
	memset(&s, 0, sizeof(s));
	s.nreqs = 2;
	s.req[0].sel.type = 1;
	s.req[0].sel.config = config0;
	s.req[0].preset = p0;
	s.req[0].flags = CPC_COUNT_USER | flags0;
	s.req[1].sel.type = 1;
	s.req[1].sel.config = 7;
	s.req[1].preset = p1;
	s.req[1].flags = CPC_COUNT_USER | flags1;
	return s;
}

int bind_set(const struct cpc_reqset *s, unsigned bflags,
    const struct cpc_inherit *inh)
{
	int bad;
	const char *why = NULL;
	return __cpc_lwp_bind(s, bflags, inh, TAG, &bad, &why);
}

int adopted;
unsigned char adopted_tag;

void adopt_cb(const unsigned char *tag)
{
	adopted++;
	adopted_tag = tag[0];
}

const struct cpc_inherit v1_like = {
	.zero_presets = 1,
	.all_start_at_max = 1,
	.aggregate = 1,
	.adopt = adopt_cb,
	.tag = { 0x5c },
};

int run_core_suite(Suite *s)
{
	(void)__cpc_tsc_khz();
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
