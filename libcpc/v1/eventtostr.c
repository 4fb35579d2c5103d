/* SPDX-License-Identifier: MIT */
/* cpc_eventtostr: the canonical string of a version 1 event. */
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"
#include "pes.h"
#include "platform_events.h"
#include "safefmt.h"


struct strbuf {
	char buf[2 * CPC_MAX_EVENT_LEN];
	size_t len;
};

static void add(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	if (sb->len + n < sizeof(sb->buf)) {
		memcpy(sb->buf + sb->len, s, n + 1);
		sb->len += n;
	}
}

/* Writes ",tok", ",tok0" or ",tok1" for the counters differing from the default. */
static void add_flag(struct strbuf *sb, const char *tok, int diff0, int diff1)
{
	if (!diff0 && !diff1)
		return;
	add(sb, ",");
	add(sb, tok);
	if (diff0 && !diff1)
		add(sb, "0");
	else if (diff1 && !diff0)
		add(sb, "1");
}

static void add_p6_flags(struct strbuf *sb, const uint32_t pes[2])
{
	static const struct {
		const char *tok;
		uint32_t bit;
		int dflt;
	} flags[] = {
		{ "nouser", PES_USR, 1 }, { "sys", PES_OS, 0 },
		{ "noedge", PES_E, 1 }, { "int", PES_INT, 0 },
		{ "inv", PES_INV, 0 }, { "pc", PES_PC, 0 },
	};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		add_flag(sb, flags[i].tok,
		    ((pes[0] & flags[i].bit) != 0) != flags[i].dflt,
		    ((pes[1] & flags[i].bit) != 0) != flags[i].dflt);
}

static void add_p5_flags(struct strbuf *sb, uint32_t cesr)
{
	int usr[2] = { (cesr >> CPC_P5_CESR_USR0) & 1,
		(cesr >> CPC_P5_CESR_USR1) & 1 };
	int os[2] = { (cesr >> CPC_P5_CESR_OS0) & 1,
		(cesr >> CPC_P5_CESR_OS1) & 1 };
	int clk[2] = { (cesr >> CPC_P5_CESR_CLK0) & 1,
		(cesr >> CPC_P5_CESR_CLK1) & 1 };
	int pc[2] = { (cesr >> CPC_P5_CESR_PC0) & 1,
		(cesr >> CPC_P5_CESR_PC1) & 1 };

	add_flag(sb, "nouser", !usr[0], !usr[1]);
	add_flag(sb, "sys", os[0], os[1]);
	/*
	 * Written even for a counter that counts in no mode (Solaris leaves
	 * it out there), so that the string gives back the same CESR.
	 */
	add_flag(sb, "noedge", clk[0], clk[1]);
	add_flag(sb, "pc", pc[0], pc[1]);
}

char *cpc_eventtostr(cpc_event_t *event)
{
	if (event == NULL)
		return NULL;
	int cpuver = event->ce_cpuver;
	int family = __cpc_platform_family(cpuver);
	if (family == CPC_FAMILY_NONE)
		return NULL;

	struct strbuf sb = { { 0 }, 0 };
	char name[CPC_MAX_EVENT_LEN];
	char piece[CPC_MAX_EVENT_LEN + 16];
	uint32_t pes[2] = { event->ce_pes[0], event->ce_pes[1] };

	if (family == CPC_FAMILY_P5) {
		uint32_t code[2] = {
			(pes[0] >> CPC_P5_CESR_ES0_SHIFT) & CPC_P5_CESR_ES0_MASK,
			(pes[0] >> CPC_P5_CESR_ES1_SHIFT) & CPC_P5_CESR_ES1_MASK
		};
		for (int pic = 0; pic < 2; pic++) {
			__cpc_pes_event_name(cpuver, pic, code[pic], name,
			    sizeof(name));
			__cpc_safe_fmt(piece, sizeof(piece), "%spic%d=%s",
			    pic ? "," : "", pic, name);
			add(&sb, piece);
		}
		add_p5_flags(&sb, pes[0]);
		return strdup(sb.buf);
	}

	/*
	 * A word with bit CPC_PES_LINUX_EXT names a Linux event when it
	 * decodes as one; else it is a PerfEvtSel image whose bit 21 the
	 * originals ignore (reserved, AnyThread on later processors), and
	 * so is it here.
	 */
	int ext[2];
	for (int pic = 0; pic < 2; pic++) {
		ext[pic] = pes_is_ext(pes[pic]) &&
		    __cpc_pes_event_name(cpuver, pic, pes[pic], name,
			sizeof(name)) == 0;
		if (!ext[pic])
			(void)__cpc_pes_event_name(cpuver, pic,
			    pes[pic] & ~PES_EXT, name, sizeof(name));
		__cpc_safe_fmt(piece, sizeof(piece), "%spic%d=%s",
		    pic ? "," : "", pic, name);
		add(&sb, piece);
	}
	static const char *const masks[] = { "cmask", "umask" };
	static const unsigned shifts[] = { CPC_P6_PES_CMASK_SHIFT,
		CPC_P6_PES_UMASK_SHIFT };
	for (int m = 0; m < 2; m++)
		for (int pic = 0; pic < 2; pic++) {
			if (ext[pic])
				continue;
			unsigned v = (pes[pic] >> shifts[m]) & 0xff;
			if (v != 0) {
				__cpc_safe_fmt(piece, sizeof(piece), ",%s%d=0x%x",
				    masks[m], pic, v);
				add(&sb, piece);
			}
		}
	add_p6_flags(&sb, pes);
	return strdup(sb.buf);
}
