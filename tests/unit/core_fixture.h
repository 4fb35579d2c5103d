/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the core's unit tests over the fake backend (test_core,
 * test_core_rebind): requests to bind, the bind itself, an inheritance
 * description as version 1 gives, and the suite's run.  Each test starts
 * from fake_reset() (the Check fixture).
 */
#ifndef TESTS_UNIT_CORE_FIXTURE_H
#define TESTS_UNIT_CORE_FIXTURE_H

#include <check.h>
#include <stdint.h>

#include "fake_backend.h"
#include "lwpctx.h"

/* The owner tag of the tests' bindings. */
#define TAG ((const void *)0x7a6)

/*
 * Two user-mode counting requests of type 1, with configs config0 and 7
 * and presets p0 and p1; flags0 and flags1 are their other flags.
 */
struct cpc_reqset core_set(uint64_t config0, uint64_t p0, uint64_t p1,
    unsigned flags0, unsigned flags1);

/* Binds s to the calling LWP as TAG (__cpc_lwp_bind). */
int bind_set(const struct cpc_reqset *s, unsigned bflags,
    const struct cpc_inherit *inh);

/* Adoptions of an inherited context so far, and the last one's tag. */
extern int adopted;
extern unsigned char adopted_tag;
void adopt_cb(const unsigned char *tag);

/* As version 1 binds: presets zeroed, all at the max, one aggregate. */
extern const struct cpc_inherit v1_like;

/* Runs s, having calibrated the TSC before the tests fork; exit status. */
int run_core_suite(Suite *s);

#endif
