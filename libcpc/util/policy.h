/* SPDX-License-Identifier: MIT */
/*
 * When the kernel refuses counters by policy (perf_event_paranoid, and no
 * kernel module to count through): the explanation that follows the
 * Solaris message, naming the cause and the remedies.
 */
#ifndef LIBCPC_POLICY_H
#define LIBCPC_POLICY_H

#include <stddef.h>

/* Writes the explanation into buf (NUL-terminated); async-signal-safe. */
void __cpc_policy_explain(char *buf, size_t n);

#endif
