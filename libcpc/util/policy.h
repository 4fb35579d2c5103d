/* SPDX-License-Identifier: MIT */
/*
 * When the kernel refuses counters by policy (perf_event_paranoid, or the
 * kernel module's own policy): the Linux explanation of the refusal,
 * naming the cause and the remedies (cpc_linux_errnote).
 */
#ifndef LIBCPC_POLICY_H
#define LIBCPC_POLICY_H

#include <stddef.h>

/*
 * Writes the explanation of a refusal by perf_event_open into buf
 * (NUL-terminated), for counting in system mode too if system is
 * nonzero; async-signal-safe.  The remedies offered depend on
 * kernel.perf_event_paranoid: a sysctl is suggested only when it would
 * allow the counting.
 */
void __cpc_policy_explain(char *buf, size_t n, int system);

/* The same for a given perf_event_paranoid level (for the tests). */
void __cpc_policy_explain_at(char *buf, size_t n, int level, int system);

/*
 * The explanation of a refusal by the libcpc kernel module (its remedies
 * are CAP_PERFMON and, for system mode, its allow_system parameter).
 */
void __cpc_kmod_explain(char *buf, size_t n, int system);

#endif
