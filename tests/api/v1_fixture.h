/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the version 1 counting programs (test_counting,
 * test_counting_threads, test_backend_selection): error capture, and
 * binding and sampling that fail the test with the reason.
 */
#ifndef TESTS_API_V1_FIXTURE_H
#define TESTS_API_V1_FIXTURE_H

#include <libcpc.h>

/* What the last bind_spec bound (cpc_strtoevent's result). */
extern cpc_event_t ev;

/* Binds this LWP to spec (cpc_strtoevent, cpc_bind_event), or fails. */
void bind_spec(const char *spec);
/* cpc_take_sample into out, or fails. */
void sample(cpc_event_t *out);

/* Check fixture: captures the error messages; releases the binding. */
void v1_setup(void);
void v1_teardown(void);

#endif
