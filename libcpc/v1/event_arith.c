/* SPDX-License-Identifier: MIT */
/* cpc_event_accum and cpc_event_diff. */
#include "libcpc.h"

void cpc_event_accum(cpc_event_t *accum, cpc_event_t *event)
{
	if (accum == NULL || event == NULL)
		return;
	if (event->ce_hrt > accum->ce_hrt)
		accum->ce_hrt = event->ce_hrt;
	accum->ce_tsc += event->ce_tsc;
	accum->ce_pic[0] += event->ce_pic[0];
	accum->ce_pic[1] += event->ce_pic[1];
}

void cpc_event_diff(cpc_event_t *diff, cpc_event_t *left, cpc_event_t *right)
{
	if (diff == NULL || left == NULL || right == NULL)
		return;
	diff->ce_hrt = left->ce_hrt;
	diff->ce_tsc = left->ce_tsc - right->ce_tsc;
	diff->ce_pic[0] = left->ce_pic[0] - right->ce_pic[0];
	diff->ce_pic[1] = left->ce_pic[1] - right->ce_pic[1];
}
