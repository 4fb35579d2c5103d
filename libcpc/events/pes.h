/* SPDX-License-Identifier: MIT */
/*
 * The ce_pes[] control word of the version 1 interfaces: naming events in
 * it, and turning it into an encoding a backend can count.
 *
 * A word either holds a P6-style PerfEvtSel image (event code in bits
 * 0-7, umask 8-15, cmask 24-31), or, when bit CPC_PES_LINUX_EXT is set, an
 * extended event: kind in bits 24-31 and index in bits 0-15.  Both forms
 * keep the USR, OS, E, PC, INT and INV flag bits.
 */
#ifndef LIBCPC_PES_H
#define LIBCPC_PES_H

#include <stddef.h>
#include <stdint.h>

#include "libcpc.h"
#include "evsel.h"

#define PES_BIT(b) (1u << (b))
#define PES_USR PES_BIT(CPC_P6_PES_USR)
#define PES_OS PES_BIT(CPC_P6_PES_OS)
#define PES_E PES_BIT(CPC_P6_PES_E)
#define PES_PC PES_BIT(CPC_P6_PES_PC)
#define PES_INT PES_BIT(CPC_P6_PES_INT)
#define PES_INV PES_BIT(CPC_P6_PES_INV)
#define PES_EXT PES_BIT(CPC_PES_LINUX_EXT)

static inline int pes_is_ext(uint32_t pes)
{
	return (pes & PES_EXT) != 0;
}

static inline uint32_t pes_ext_make(unsigned kind, unsigned index)
{
	return PES_EXT | (uint32_t)kind << 24 | (index & 0xffff);
}

static inline unsigned pes_ext_kind(uint32_t pes)
{
	return pes >> 24;
}

static inline unsigned pes_ext_index(uint32_t pes)
{
	return pes & 0xffff;
}

/*
 * Resolves an event name for counter regno of cpuver, in the documented
 * order: platform table, Solaris generic names, libpfm4 native names (the
 * running cpuver only), Linux perf names, numeric codes.  On success sets
 * *event to either an 8-bit code or an extended word (pes_is_ext) and
 * returns 0.  Returns -1 if the counter cannot count the name.
 */
int __cpc_pes_resolve(int cpuver, int regno, const char *name, uint32_t *event);

/* The name of the event of a control word, for cpc_eventtostr. */
int __cpc_pes_event_name(int cpuver, int regno, uint32_t pes, char *buf,
    size_t n);

/*
 * The encoding to count for a P6/AMD/perf control word on the running
 * processor (without the user/system bits).  0, or -1 if the word names
 * nothing countable.  Async-signal-safe.
 */
int __cpc_pes_evsel(int cpuver, uint32_t pes, struct cpc_evsel *sel);

/*
 * The code a P6 event code has on the running processor, where the event
 * still exists under another code (cpu_clk_unhalted, ...).
 */
unsigned __cpc_p6_code_on_running_cpu(unsigned code);

#endif
