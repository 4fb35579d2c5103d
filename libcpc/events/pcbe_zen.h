/* SPDX-License-Identifier: MIT */
/*
 * The event table of AMD's Zen families (pcbe_zen.c): each event and
 * encoding once, with the families that list it, in an order that keeps
 * every family's own.  A family lists the events of its bit: the names
 * and codes of AMD's processor programming references, as illumos's
 * Opteron back end lists them, by the event's name and then once per
 * unit as "event.unit" with that unit's bit (units combined by other
 * rules are not listed).
 */
#ifndef LIBCPC_PCBE_ZEN_H
#define LIBCPC_PCBE_ZEN_H

#include <stdint.h>

/* A Zen table event: its name, event select, unit mask and families. */
struct cpc_pcbe_zen_event {
	const char *name;
	uint16_t code;
	uint8_t umask;
	uint8_t zen;
};

/*
 * The families' bits: Zen and Zen+ (family 17h models 00h-2Fh, Hygon's
 * 18h), Zen 2 (the rest of 17h), Zen 3 and Zen 4 (19h), Zen 5 (1Ah); then
 * the sets of them the tables use, named by their digits.
 */
#define Z1 0x01u
#define Z2 0x02u
#define Z3 0x04u
#define Z4 0x08u
#define Z5 0x10u
#define Z12 (Z1 | Z2)
#define Z14 (Z1 | Z4)
#define Z24 (Z2 | Z4)
#define Z25 (Z2 | Z5)
#define Z34 (Z3 | Z4)
#define Z35 (Z3 | Z5)
#define Z125 (Z12 | Z5)
#define Z234 (Z2 | Z34)
#define Z1234 (Z1 | Z234)
#define Z2345 (Z234 | Z5)
#define Z12345 (Z1234 | Z5)

/* The table, ended by a NULL name. */
extern const struct cpc_pcbe_zen_event __cpc_zen_events[];

#endif
