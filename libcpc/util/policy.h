/* SPDX-License-Identifier: MIT */
/*
 * When the kernel refuses counters by policy: the explanations that follow
 * the Solaris message, naming the cause and the remedies for the backend
 * in use (perf_event_paranoid for perf; the device's group, ptrace rights
 * and CAP_PERFMON for the libcpc kernel module).
 */
#ifndef LIBCPC_POLICY_H
#define LIBCPC_POLICY_H

#include <stddef.h>

/*
 * No counting at all for this process: perf refuses it, and the kernel
 * module is not loaded or its device not open to this user.  Writes the
 * explanation into buf (NUL-terminated); async-signal-safe.
 */
void __cpc_policy_explain(char *buf, size_t n);

/*
 * Counting in another process refused: the rule of the backend that
 * counts there (kmod: 1 for the kernel module, 0 for perf).
 */
void __cpc_policy_task(char *buf, size_t n, int kmod);

/* Counting on a processor refused (kmod as above). */
void __cpc_policy_cpu(char *buf, size_t n, int kmod);

#endif
