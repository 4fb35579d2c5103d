/* SPDX-License-Identifier: MIT */
/* Platform event-name tables of the version 1 cpuvers. */
#ifndef LIBCPC_PLATFORM_EVENTS_H
#define LIBCPC_PLATFORM_EVENTS_H

#include <stdint.h>

enum {
	CPC_FAMILY_NONE,	/* not a cpuver of this library */
	CPC_FAMILY_P5,		/* CPC_PENTIUM, CPC_PENTIUM_MMX */
	CPC_FAMILY_P6,		/* CPC_PENTIUM_PRO, CPC_PENTIUM_PRO_MMX */
	CPC_FAMILY_AMD,		/* CPC_AMD64 */
	CPC_FAMILY_PERF		/* CPC_LINUX_PERF */
};

/* Which family of control words and names a cpuver uses. */
int __cpc_platform_family(int cpuver);

/* Calls action for every name valid on counter regno, in table order. */
void __cpc_platform_walk(int cpuver, int regno, void *arg,
    void (*action)(void *arg, int regno, const char *name, uint8_t bits));

/* Finds the code of a name valid on counter regno; returns 1 if found. */
int __cpc_platform_lookup(int cpuver, int regno, const char *name,
    unsigned *code);

/* 1 if the name is in the cpuver's table for any counter. */
int __cpc_platform_known_name(int cpuver, const char *name);

/* The first table name of a code on counter regno, or NULL. */
const char *__cpc_platform_name(int cpuver, int regno, unsigned code);

/*
 * 1 if the kernel has a core (hardware) PMU; with none, the back end in
 * use is the kernel's software events.
 */
int __cpc_kernel_has_core_pmu(void);

#endif
