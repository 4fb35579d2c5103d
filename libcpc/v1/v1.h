/* SPDX-License-Identifier: MIT */
/* What the version 1 interfaces share among their files. */
#ifndef LIBCPC_V1_H
#define LIBCPC_V1_H

#include "libcpc.h"
#include "reqset.h"

/*
 * Checks a cpc_event_t and its bind flags and builds the two requests of
 * it: 0, or an errno value after reporting the problem for function fn.
 */
int __cpc_v1_build_set(const cpc_event_t *ev, int flags,
    struct cpc_reqset *set, const char *fn);

#endif
