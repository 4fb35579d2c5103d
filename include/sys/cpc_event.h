/* SPDX-License-Identifier: MIT */
/*
 * The version 1 libcpc event type, cpc_event_t, for x86, with the Pentium
 * (P5) and Pentium Pro (P6) control-register bit macros of Solaris 8/9.
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_CPC_EVENT_H
#define _SYS_CPC_EVENT_H

#include <sys/types.h>
#include <stdint.h>
#include <sys/cpc_solaris.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One measurement of the two counters of the calling LWP.
 *
 * ce_pes[] holds the event selection.  For the P6 cpuvers it is the
 * PerfEvtSel image (event, umask, USR, OS, E, PC, INT, INV, CMASK).  This
 * port also carries events that have no 8-bit code (Linux software events,
 * perf generic events, libpfm4 native names, Solaris generic PAPI_* names)
 * in the same word, marked by bit CPC_PES_LINUX_EXT (see cpc_strtoevent(3CPC)).
 */
typedef struct _cpc_event {
	int ce_cpuver;		/* cpuver the event was built for */
	hrtime_t ce_hrt;	/* gethrtime() at sample time */
	uint64_t ce_tsc;	/* virtualised cycle count since bind */
	uint64_t ce_pic[2];	/* counts; presets on bind */
	uint32_t ce_pes[2];	/* event selection of each counter */
} cpc_event_t;

#define ce_cesr ce_pes[0]

#define CPC_TICKREG(ev) ((ev)->ce_tsc)
#define CPC_TICKREG_NAME "tsc"

/* Pentium CESR (bit numbers, except the SHIFT/MASK pairs). */
#define CPC_P5_CESR_ES0_SHIFT 0
#define CPC_P5_CESR_ES0_MASK 0x3f
#define CPC_P5_CESR_ES1_SHIFT 16
#define CPC_P5_CESR_ES1_MASK 0x3f
#define CPC_P5_CESR_OS0 6
#define CPC_P5_CESR_USR0 7
#define CPC_P5_CESR_CLK0 8
#define CPC_P5_CESR_PC0 9
#define CPC_P5_CESR_OS1 22
#define CPC_P5_CESR_USR1 23
#define CPC_P5_CESR_CLK1 24
#define CPC_P5_CESR_PC1 25

/* Pentium Pro PerfEvtSel (bit numbers, except the SHIFT/MASK pairs). */
#define CPC_P6_PES_INV 23
#define CPC_P6_PES_EN 22
#define CPC_P6_PES_INT 20
#define CPC_P6_PES_PC 19
#define CPC_P6_PES_E 18
#define CPC_P6_PES_OS 17
#define CPC_P6_PES_USR 16
#define CPC_P6_PES_UMASK_SHIFT 8
#define CPC_P6_PES_UMASK_MASK 0xff
#define CPC_P6_PES_CMASK_SHIFT 24
#define CPC_P6_PES_CMASK_MASK 0xff
#define CPC_P6_PES_PIC0_MASK 0xff
#define CPC_P6_PES_PIC1_MASK 0xff

/*
 * Linux extension: bit 21 (reserved on the P6) marks a ce_pes[] word whose
 * bits 0-15 and 24-31 name an event that has no 8-bit code.  The USR, OS
 * and INT bits keep their meaning.
 */
#define CPC_PES_LINUX_EXT 21

#ifdef __cplusplus
}
#endif

#endif /* _SYS_CPC_EVENT_H */
