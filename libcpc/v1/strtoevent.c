/* SPDX-License-Identifier: MIT */
/*
 * cpc_strtoevent: the version 1 event specification parser
 * ("pic0=<event>,pic1=<event>[,sys][,nouser1]...").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"
#include "error.h"
#include "pes.h"
#include "platform_events.h"
#include "suggest.h"

#define FN "strtoevent"

/* What a flag token does to one counter of the control word(s). */
enum flag_op { SET_BIT, CLEAR_BIT };

struct flag_token {
	const char *name;	/* base name; "0"/"1" suffixes are accepted */
	int p6_only;
	enum flag_op p6_op, p5_op;
	unsigned p6_bit;	/* PerfEvtSel bit number */
	unsigned p5_bit0, p5_bit1; /* CESR bit numbers for counters 0, 1 */
};

static const struct flag_token flag_tokens[] = {
	{ "nouser", 0, CLEAR_BIT, CLEAR_BIT, CPC_P6_PES_USR,
	    CPC_P5_CESR_USR0, CPC_P5_CESR_USR1 },
	{ "sys", 0, SET_BIT, SET_BIT, CPC_P6_PES_OS, CPC_P5_CESR_OS0,
	    CPC_P5_CESR_OS1 },
	{ "noedge", 0, CLEAR_BIT, SET_BIT, CPC_P6_PES_E, CPC_P5_CESR_CLK0,
	    CPC_P5_CESR_CLK1 },
	{ "pc", 0, SET_BIT, SET_BIT, CPC_P6_PES_PC, CPC_P5_CESR_PC0,
	    CPC_P5_CESR_PC1 },
	{ "int", 1, SET_BIT, SET_BIT, CPC_P6_PES_INT, 0, 0 },
	{ "inv", 1, SET_BIT, SET_BIT, CPC_P6_PES_INV, 0, 0 },
};

struct parse {
	int cpuver;
	int p5;
	int have[2];		/* counter has an event */
	uint32_t event[2];	/* 8-bit code or extended word */
	unsigned umask[2], cmask[2];
	uint32_t ctl[2];	/* P6: the flag bits of each PerfEvtSel */
	uint32_t cesr;		/* P5: flag bits */
};

static void apply_flag(struct parse *ps, const struct flag_token *t, int pic)
{
	if (ps->p5) {
		uint32_t bit = 1u << (pic == 0 ? t->p5_bit0 : t->p5_bit1);
		if (t->p5_op == SET_BIT)
			ps->cesr |= bit;
		else
			ps->cesr &= ~bit;
	} else {
		uint32_t bit = 1u << t->p6_bit;
		if (t->p6_op == SET_BIT)
			ps->ctl[pic] |= bit;
		else
			ps->ctl[pic] &= ~bit;
	}
}

/* Parses a mask value: strtol base 0, at least one digit, 0..255. */
static int mask_value(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 0);
	if (end == s || errno != 0 || v < 0 || v > 255)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* The keywords of the P6 only: on the P5 they are known but refused. */
static int p6_only_key(const char *key)
{
	static const char *const keys[] = { "int", "int0", "int1", "inv",
		"inv0", "inv1", "umask0", "umask1", "cmask0", "cmask1" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(key, keys[i]) == 0)
			return 1;
	return 0;
}

/*
 * Sets the event of counter pic.  As the originals, a code is ORed into
 * the control word, also when the counter had one (the repetition is
 * reported after); an extended word (a Linux name) replaces.
 */
static int set_event(struct parse *ps, int pic, const char *name)
{
	uint32_t code;
	if (__cpc_pes_resolve(ps->cpuver, pic, name, &code) != 0) {
		__cpc_report(FN, "%s%d cannot measure '%s' on this cpu\n",
		    ps->p5 ? "CTR" : "PerfCtr", pic, name);
		/* Linux: the closest names, in cpc_linux_errnote(NULL). */
		char hint[512];
		__cpc_suggest(ps->cpuver, name, hint, sizeof(hint));
		__cpc_note(FN, "%s", hint);
		return -1;
	}
	if (ps->have[pic] && !pes_is_ext(code) && !pes_is_ext(ps->event[pic]))
		ps->event[pic] |= code;
	else
		ps->event[pic] = code;
	ps->have[pic] = 1;
	return 0;
}

/* Handles one "key" or "key=value" token; 0 or -1 after reporting. */
static int parse_token(struct parse *ps, char *tok)
{
	char *value = strchr(tok, '=');
	char key[16];
	size_t klen = value != NULL ? (size_t)(value - tok) : strlen(tok);

	/* An empty token (",,") is no keyword: an implicit event name. */
	if (klen < sizeof(key)) {
		memcpy(key, tok, klen);
		key[klen] = '\0';
	} else {
		key[0] = '\0';
	}
	if (value != NULL)
		value++;

	/* As illumos: a P6 keyword on the P5 is a known token it refuses. */
	if (ps->p5 && p6_only_key(key)) {
		__cpc_report(FN, "bad token '%s'\n", key);
		return -1;
	}

	/* pic0= / pic1=: the event first, then whether it is repeated. */
	if (strcmp(key, "pic0") == 0 || strcmp(key, "pic1") == 0) {
		int pic = key[3] - '0';
		int had = ps->have[pic];
		if (value == NULL) {
			__cpc_report(FN, "missing '%s' value\n", key);
			return -1;
		}
		if (set_event(ps, pic, value) != 0)
			return -1;
		if (had) {
			__cpc_report(FN, "repeated '%s' token\n", key);
			return -1;
		}
		return 0;
	}

	/* umask0= / umask1= / cmask0= / cmask1= (not on the P5) */
	if (!ps->p5 && (strncmp(key, "umask", 5) == 0 ||
	    strncmp(key, "cmask", 5) == 0) &&
	    (strcmp(key + 5, "0") == 0 || strcmp(key + 5, "1") == 0)) {
		int pic = key[5] - '0';
		unsigned v;
		if (value == NULL) {
			__cpc_report(FN, "missing '%s' value\n", key);
			return -1;
		}
		if (mask_value(value, &v) != 0) {
			__cpc_report(FN, "bad '%s' value\n", key);
			return -1;
		}
		/* ORed in, as the originals: a repeated mask adds bits. */
		if (key[0] == 'u')
			ps->umask[pic] |= v;
		else
			ps->cmask[pic] |= v;
		return 0;
	}

	/* Flags, bare or with a 0/1 suffix. */
	for (size_t i = 0; i < sizeof(flag_tokens) / sizeof(flag_tokens[0]);
	     i++) {
		const struct flag_token *t = &flag_tokens[i];
		size_t blen = strlen(t->name);
		if (strncmp(key, t->name, blen) != 0)
			continue;
		const char *sfx = key + blen;
		if (!(*sfx == '\0' || strcmp(sfx, "0") == 0 ||
		    strcmp(sfx, "1") == 0))
			continue;
		if (value != NULL) {
			__cpc_report(FN, "bad arg to '%s'\n", key);
			return -1;
		}
		if (*sfx == '\0' || *sfx == '0')
			apply_flag(ps, t, 0);
		if (*sfx == '\0' || *sfx == '1')
			apply_flag(ps, t, 1);
		return 0;
	}

	/* Anything else names the event of the next free counter. */
	if (value != NULL)
		value[-1] = '=';
	if (!ps->have[0])
		return set_event(ps, 0, tok);
	if (!ps->have[1])
		return set_event(ps, 1, tok);
	__cpc_report(FN, "bad token '%s'\n", tok);
	return -1;
}

/*
 * Builds the control words; -1 if a mask was given to a named extended
 * event (then, as after any failure, partial says to build what can be).
 */
static int compose(struct parse *ps, cpc_event_t *ev, int partial)
{
	if (ps->p5) {
		ev->ce_cesr = ps->cesr |
		    (ps->event[0] & CPC_P5_CESR_ES0_MASK)
			<< CPC_P5_CESR_ES0_SHIFT |
		    (ps->event[1] & CPC_P5_CESR_ES1_MASK)
			<< CPC_P5_CESR_ES1_SHIFT;
		ev->ce_pes[1] = 0;
		return 0;
	}
	for (int pic = 0; pic < 2; pic++) {
		if (pes_is_ext(ps->event[pic])) {
			if (!partial &&
			    (ps->umask[pic] != 0 || ps->cmask[pic] != 0)) {
				__cpc_report(FN,
				    "'%cmask%d' cannot be used with a named "
				    "Linux event\n",
				    ps->umask[pic] != 0 ? 'u' : 'c', pic);
				return -1;
			}
			ev->ce_pes[pic] = ps->ctl[pic] | ps->event[pic];
		} else {
			ev->ce_pes[pic] = ps->ctl[pic] | ps->event[pic] |
			    ps->umask[pic] << CPC_P6_PES_UMASK_SHIFT |
			    ps->cmask[pic] << CPC_P6_PES_CMASK_SHIFT;
		}
	}
	return 0;
}

static int parse_spec(int cpuver, const char *spec, cpc_event_t *event)
{
	int family = __cpc_platform_family(cpuver);
	if (spec == NULL || event == NULL)
		return 1;
	/* As illumos: the event is cleared, with its cpuver, before parsing. */
	memset(event, 0, sizeof(*event));
	event->ce_cpuver = cpuver;
	if (family == CPC_FAMILY_NONE)
		return 1;

	struct parse ps;
	memset(&ps, 0, sizeof(ps));
	ps.cpuver = cpuver;
	ps.p5 = family == CPC_FAMILY_P5;
	ps.ctl[0] = ps.ctl[1] = PES_USR | PES_E;
	ps.cesr = 1u << CPC_P5_CESR_USR0 | 1u << CPC_P5_CESR_USR1;

	char *copy = strdup(spec);
	if (copy == NULL) {
		__cpc_report(FN, "out of memory\n");
		return 1;
	}
	/*
	 * Token by token as illumos's getsubopt loop: it ends when the rest
	 * is empty, so a trailing comma is accepted, while an empty token
	 * inside (",,") is parsed as an (empty) event name.
	 */
	int errors = 0;
	char *p = copy;
	while (*p != '\0') {
		char *comma = strchr(p, ',');
		char *next = comma != NULL ? comma + 1 : p + strlen(p);
		if (comma != NULL)
			*comma = '\0';
		if (parse_token(&ps, p) != 0) {
			errors++;
			break;
		}
		p = next;
	}
	free(copy);

	if (!ps.have[0] || !ps.have[1]) {
		__cpc_report(FN, "two events must be specified\n");
		errors++;
	}
	/*
	 * As the originals, which parse into the event itself: after an
	 * error it holds what was parsed before it (the default flags, the
	 * tokens up to the bad one).
	 */
	if (errors != 0) {
		(void)compose(&ps, event, 1);
		return errors;
	}
	cpc_event_t ev;
	memset(&ev, 0, sizeof(ev));
	ev.ce_cpuver = cpuver;
	if (compose(&ps, &ev, 0) != 0) {
		(void)compose(&ps, event, 1);
		return 1;
	}
	*event = ev;
	return 0;
}

int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event)
{
	int saved = errno;
	int rc = parse_spec(cpuver, spec, event);
	errno = saved;
	return rc;
}
