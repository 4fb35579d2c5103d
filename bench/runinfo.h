/* SPDX-License-Identifier: MIT */
/*
 * What a benchmark ran on, for "make bench-kmod" to compare kernels: the
 * kernel's release and the kernel module's statistics.
 */
#ifndef CPCBENCH_RUNINFO_H
#define CPCBENCH_RUNINFO_H

#include <stdio.h>

/* The running kernel's release (uname -r), or "unknown". */
const char *bench_kernel_release(void);

/*
 * One "KMOD <name> <value>" line per file of the kernel module's debugfs
 * directory (/sys/kernel/debug/cpc: which of its fast paths this kernel
 * allows and how often they served), if this process can read it (root);
 * nothing otherwise.
 */
void bench_print_kmod_stats(FILE *out);

#endif /* CPCBENCH_RUNINFO_H */
