/* SPDX-License-Identifier: MIT */
/*
 * The records of libpctx: contexts, their families and their LWPs, with
 * the LWP id look-ups libcpc uses, and the error reporting.
 */
#include "pctx_impl.h"

static _Atomic(void (*)(pctx_t *)) release_hook;

/* ------------------------------------------------------------ errors */

static void default_errfn(const char *fn, const char *fmt, va_list ap)
{
	fprintf(stderr, "libpctx: pctx_%s: ", fn);
	vfprintf(stderr, fmt, ap);
}

void __pctx_report(pctx_errfn_t *errfn, const char *fn, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	va_start(ap, fmt);
	(errfn != NULL ? errfn : default_errfn)(fn, fmt, ap);
	va_end(ap);
	errno = saved;
}

/* ------------------------------------------------------------ records */

struct lwp *__pctx_add_lwp(pctx_t *p, pid_t tid)
{
	struct lwp *l = calloc(1, sizeof(*l)), **tail = &p->lwps;
	if (l == NULL)
		return NULL;
	l->tid = tid;
	if (p->last_lwpid < 1)
		p->last_lwpid = 1;
	l->lwpid = tid == p->pid ? 1 : ++p->last_lwpid;
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = l;
	return l;
}

struct lwp *__pctx_find_lwp(pctx_t *p, pid_t tid)
{
	for (struct lwp *l = p->lwps; l != NULL; l = l->next)
		if (l->tid == tid)
			return l;
	return NULL;
}

void __pctx_remove_lwp(pctx_t *p, struct lwp *dead)
{
	for (struct lwp **lp = &p->lwps; *lp != NULL; lp = &(*lp)->next)
		if (*lp == dead) {
			*lp = dead->next;
			free(dead);
			return;
		}
}

pctx_t *__pctx_new_context(struct family *fam, pid_t pid, void *arg,
    int verbose, pctx_errfn_t *errfn)
{
	pctx_t *p = calloc(1, sizeof(*p)), **tail;
	if (p == NULL)
		return NULL;
	p->fam = fam;
	p->pid = pid;
	p->arg = arg;
	p->verbose = verbose;
	p->errfn = errfn;
	p->handover_fd = -1;
	for (tail = &fam->procs; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = p;
	return p;
}

pctx_t *__pctx_new_family(pid_t pid, void *arg, int verbose,
    pctx_errfn_t *errfn)
{
	struct family *fam = calloc(1, sizeof(*fam));
	if (fam == NULL)
		return NULL;
	pctx_t *p = __pctx_new_context(fam, pid, arg, verbose, errfn);
	if (p == NULL) {
		free(fam);
		return NULL;
	}
	fam->root = p;
	return p;
}

/* Tells libcpc that the family's contexts go away. */
void __pctx_release_family_hook(struct family *fam)
{
	void (*hook)(pctx_t *) = atomic_load(&release_hook);
	if (hook != NULL)
		for (pctx_t *p = fam->procs; p != NULL; p = p->next)
			hook(p);
}

void __pctx_free_family(struct family *fam)
{
	__pctx_release_family_hook(fam);
	while (fam->procs != NULL) {
		pctx_t *p = fam->procs;
		fam->procs = p->next;
		while (p->lwps != NULL)
			__pctx_remove_lwp(p, p->lwps);
		free(p);
	}
	free(fam);
}

/* ------------------------------------------------------------ libcpc */

/* The live LWP of a live context with Solaris LWP id lwpid, or NULL. */
static const struct lwp *live_lwp(const pctx_t *pctx, __id_t lwpid)
{
	if (pctx != NULL && pctx->state == PS_LIVE)
		for (const struct lwp *l = pctx->lwps; l != NULL; l = l->next)
			if (l->lwpid == lwpid && !l->dead)
				return l;
	return NULL;
}

pid_t __pctx_lwp_pid(pctx_t *pctx, __id_t lwpid)
{
	if (live_lwp(pctx, lwpid) == NULL) {
		errno = ESRCH;
		return -1;
	}
	return pctx->pid;
}

pid_t pctx_lwp_tid(pctx_t *pctx, __id_t lwpid)
{
	const struct lwp *l = live_lwp(pctx, lwpid);
	if (l == NULL) {
		errno = ESRCH;
		return -1;
	}
	return l->tid;
}

void __pctx_set_release_hook(void (*hook)(pctx_t *pctx))
{
	atomic_store(&release_hook, hook);
}
