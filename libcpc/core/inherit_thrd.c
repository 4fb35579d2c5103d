/* SPDX-License-Identifier: MIT */
/*
 * CPC_BIND_LWP_INHERIT for C11 threads: libcpc interposes thrd_create
 * (glibc implements it without going through pthread_create), so that a
 * thread created by an LWP whose binding asks for inheritance binds its
 * own context (__cpc_lwp_adopt) before its start routine runs, as one
 * made with pthread_create does (inherit.c).  The interposer carries
 * glibc's symbol versions (GLIBC_2.34, and GLIBC_2.28 for programs built
 * against the older libpthread).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <threads.h>

#include "lwpctx.h"

typedef int (*thrd_create_fn)(thrd_t *, thrd_start_t, void *);

struct thrd_block {
	thrd_start_t start;
	void *arg;
	struct cpc_inheritance inh;
};

static int inheriting_thrd_start(void *p)
{
	struct thrd_block *b = p;
	thrd_start_t start = b->start;
	void *arg = b->arg;
	__cpc_lwp_adopt(&b->inh, (void *)start);
	free(b);
	return start(arg);
}

static int create(thrd_create_fn real, thrd_t *thr, thrd_start_t start,
    void *arg)
{
	if (real == NULL)
		return thrd_error;
	if (!__cpc_lwp_inherits())
		return real(thr, start, arg);
	struct thrd_block *b = malloc(sizeof(*b));
	if (b == NULL)
		return thrd_nomem;
	__cpc_lwp_inheritance(&b->inh);
	b->start = start;
	b->arg = arg;
	int rc = real(thr, inheriting_thrd_start, b);
	if (rc != thrd_success)
		free(b);
	return rc;
}

static thrd_create_fn real_thrd, real_thrd_old;

__attribute__((constructor)) static void inherit_thrd_init(void)
{
	real_thrd = (thrd_create_fn)dlvsym(RTLD_NEXT, "thrd_create",
	    "GLIBC_2.34");
	if (real_thrd == NULL)
		real_thrd = (thrd_create_fn)dlsym(RTLD_NEXT, "thrd_create");
	real_thrd_old = (thrd_create_fn)dlvsym(RTLD_NEXT, "thrd_create",
	    "GLIBC_2.28");
	if (real_thrd_old == NULL)
		real_thrd_old = real_thrd;
}

int __cpc_thrd_create(thrd_t *thr, thrd_start_t start, void *arg);
int __cpc_thrd_create_old(thrd_t *thr, thrd_start_t start, void *arg);

__attribute__((visibility("default"))) int __cpc_thrd_create(thrd_t *thr,
    thrd_start_t start, void *arg)
{
	return create(real_thrd, thr, start, arg);
}

__attribute__((visibility("default"))) int __cpc_thrd_create_old(thrd_t *thr,
    thrd_start_t start, void *arg)
{
	return create(real_thrd_old, thr, start, arg);
}

__asm__(".symver __cpc_thrd_create, thrd_create@@GLIBC_2.34");
__asm__(".symver __cpc_thrd_create_old, thrd_create@GLIBC_2.28");
