/* SPDX-License-Identifier: MIT */
/* The fixture of the version 1 counting programs: see v1_fixture.h. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <libcpc.h>

#include "testutil.h"
#include "v1_fixture.h"

cpc_event_t ev;

void bind_spec(const char *spec)
{
	clear_errors();
	ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0,
	    "strtoevent '%s': %s", spec, captured_errors());
	ck_assert_msg(cpc_bind_event(&ev, 0) == 0, "bind '%s': %s (%s)", spec,
	    strerror(errno), captured_errors());
}

void sample(cpc_event_t *out)
{
	ck_assert_msg(
	    cpc_take_sample(out) == 0, "take_sample: %s", strerror(errno));
}

void v1_setup(void)
{
	capture_errors();
}

void v1_teardown(void)
{
	cpc_rele();
}
