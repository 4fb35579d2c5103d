/* SPDX-License-Identifier: MIT */
/*
 * Event-name resolution: one name (the input after its first byte)
 * through both interfaces.  The current one adds it to a set, without
 * and with a picnum attribute (byte 0 chooses the counter); the version 1
 * one parses it on either counter of every cpuver of a small set, where
 * the name must come back from cpc_eventtostr as a name that resolves to
 * the same control word.
 */
#include "fuzz_common.h"

static void names_v1(int cpuver, const char *name)
{
	/* The other counter gets an event every cpuver has. */
	const char *other = cpuver == CPC_PENTIUM || cpuver == CPC_PENTIUM_MMX
	    ? "0" : "page-faults";
	char spec[2 * CPC_MAX_EVENT_LEN + 64];
	for (int pic = 0; pic < 2; pic++) {
		snprintf(spec, sizeof(spec), "pic%d=%s,pic%d=%s", pic, name,
		    1 - pic, other);
		cpc_event_t ev, back;
		if (cpc_strtoevent(cpuver, spec, &ev) != 0)
			continue;
		char *str = cpc_eventtostr(&ev);
		FUZZ_CHECK(str != NULL, "no string for \"%s\" (cpuver %d)", spec,
		    cpuver);
		FUZZ_CHECK(cpc_strtoevent(cpuver, str, &back) == 0,
		    "\"%s\" -> \"%s\" does not parse back (cpuver %d)", spec,
		    str, cpuver);
		FUZZ_CHECK(back.ce_pes[0] == ev.ce_pes[0] &&
			back.ce_pes[1] == ev.ce_pes[1],
		    "\"%s\" = %#x,%#x but \"%s\" = %#x,%#x (cpuver %d)", spec,
		    ev.ce_pes[0], ev.ce_pes[1], str, back.ce_pes[0],
		    back.ce_pes[1], cpuver);
		free(str);
	}
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	fuzz_setup();
	cpc_t *cpc = fuzz_cpc();
	char *name = fuzz_string(data + 1, size - 1);
	uint_t npic = cpc_npic(cpc);

	cpc_set_t *set = cpc_set_create(cpc);
	FUZZ_CHECK(set != NULL, "cpc_set_create");
	int anywhere = cpc_set_add_request(cpc, set, name, 0, CPC_COUNT_USER, 0,
	    NULL);
	FUZZ_CHECK(anywhere == -1 || anywhere == 0, "index %d", anywhere);
	cpc_attr_t pick = { (char *)"picnum", data[0] % (npic + 1) };
	int on_pic = cpc_set_add_request(cpc, set, name, 0, CPC_COUNT_USER, 1,
	    &pick);
	/* A counter out of range, or an event that counter cannot count. */
	FUZZ_CHECK(on_pic == -1 || pick.ca_val < npic, "picnum %llu of %u",
	    (unsigned long long)pick.ca_val, npic);
	/* An event some counter can count can be added without picnum. */
	FUZZ_CHECK(on_pic == -1 || anywhere == 0,
	    "\"%s\" counts on counter %llu but is refused without picnum", name,
	    (unsigned long long)pick.ca_val);
	FUZZ_CHECK(cpc_set_destroy(cpc, set) == 0, "cpc_set_destroy");

	if (strchr(name, ',') == NULL)
		for (unsigned i = 0; i < 9; i++)
			names_v1(fuzz_cpuver((uint8_t)i), name);
	free(name);
	return 0;
}
