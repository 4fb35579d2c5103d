/* SPDX-License-Identifier: MIT */
/* Buffers of the current interfaces and their arithmetic. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "v2.h"

cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	sigset_t saved;
	if (cpc == NULL || set == NULL || !v2_owns_set(cpc, set)) {
		errno = EINVAL;
		return NULL;
	}
	cpc_buf_t *buf = calloc(1, sizeof(*buf) +
	    (size_t)set->nreqs * sizeof(buf->vals[0]));
	if (buf == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	buf->cpc = cpc;
	buf->nvals = set->nreqs;
	v2_lock(cpc, &saved);
	buf->next = cpc->bufs;
	cpc->bufs = buf;
	v2_unlock(cpc, &saved);
	return buf;
}

int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	int rc;

	if (cpc == NULL || buf == NULL) {
		errno = EINVAL;
		return -1;
	}
	V2_UNLINK(cpc, cpc_buf_t, cpc->bufs, buf, rc);
	if (rc != 0)
		return -1;
	free(buf);
	return 0;
}

static int same_size(const cpc_buf_t *a, const cpc_buf_t *b)
{
	return a != NULL && b != NULL && a->nvals == b->nvals;
}

void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	(void)cpc;
	if (!same_size(ds, a) || !same_size(a, b))
		return;
	for (int i = 0; i < ds->nvals; i++)
		ds->vals[i] = a->vals[i] - b->vals[i];
	ds->tick = a->tick - b->tick;
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
}

void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	(void)cpc;
	if (!same_size(ds, a) || !same_size(a, b))
		return;
	for (int i = 0; i < ds->nvals; i++)
		ds->vals[i] = a->vals[i] + b->vals[i];
	ds->tick = a->tick + b->tick;
	ds->hrtime = a->hrtime > b->hrtime ? a->hrtime : b->hrtime;
}

void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	(void)cpc;
	if (!same_size(ds, src))
		return;
	memcpy(ds->vals, src->vals, (size_t)ds->nvals * sizeof(ds->vals[0]));
	ds->tick = src->tick;
	ds->hrtime = src->hrtime;
}

void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	if (buf == NULL)
		return;
	memset(buf->vals, 0, (size_t)buf->nvals * sizeof(buf->vals[0]));
	buf->tick = 0;
	buf->hrtime = 0;
}

/* Unlike Solaris, the index is checked: -1 with EINVAL outside the buffer. */
int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val)
{
	(void)cpc;
	if (buf == NULL || val == NULL || index < 0 || index >= buf->nvals) {
		errno = EINVAL;
		return -1;
	}
	*val = buf->vals[index];
	return 0;
}

int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val)
{
	(void)cpc;
	if (buf == NULL || index < 0 || index >= buf->nvals) {
		errno = EINVAL;
		return -1;
	}
	buf->vals[index] = val;
	return 0;
}

hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	return buf != NULL ? buf->hrtime : 0;
}

uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf)
{
	(void)cpc;
	return buf != NULL ? buf->tick : 0;
}
