/* SPDX-License-Identifier: MIT */
/*
 * CPC_BIND_LWP_INHERIT for threads made with pthread_create: libcpc
 * interposes pthread_create, and a thread created by an LWP whose binding
 * asks for inheritance starts by binding its own context (see
 * __cpc_lwp_adopt) before its start routine runs.  C11 thrd_create is
 * interposed the same way (inherit_thrd.c).  Threads created any other
 * way (a raw clone) get no context of their own; they still count in the
 * group aggregate.
 *
 * The interposer carries glibc's symbol versions so that programs linked
 * against glibc's pthread_create bind to it when libcpc precedes libc.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "lwpctx.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
    void *(*)(void *), void *);

struct start_block {
	void *(*start)(void *);
	void *arg;
	struct cpc_inheritance inh;
};

static void *inheriting_start(void *p)
{
	struct start_block *b = p;
	void *(*start)(void *) = b->start;
	void *arg = b->arg;
	__cpc_lwp_adopt(&b->inh, (void *)start);
	free(b);
	return start(arg);
}

static int create(create_fn real, pthread_t *thread,
    const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	if (real == NULL)
		return EAGAIN;
	if (!__cpc_lwp_inherits())
		return real(thread, attr, start, arg);
	struct start_block *b = malloc(sizeof(*b));
	if (b == NULL)
		return EAGAIN;
	__cpc_lwp_inheritance(&b->inh);
	b->start = start;
	b->arg = arg;
	int rc = real(thread, attr, inheriting_start, b);
	if (rc != 0)
		free(b);
	return rc;
}

#if defined(__x86_64__)
#define OLD_VERSION "GLIBC_2.2.5"
#else
#define OLD_VERSION "GLIBC_2.1"
#endif

static create_fn real_create, real_create_old;

__attribute__((constructor)) static void inherit_init(void)
{
	real_create = (create_fn)dlvsym(RTLD_NEXT, "pthread_create",
	    "GLIBC_2.34");
	if (real_create == NULL)
		real_create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	real_create_old = (create_fn)dlvsym(RTLD_NEXT, "pthread_create",
	    OLD_VERSION);
	if (real_create_old == NULL)
		real_create_old = real_create;
}

int __cpc_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
    void *(*start)(void *), void *arg);
int __cpc_pthread_create_old(pthread_t *thread, const pthread_attr_t *attr,
    void *(*start)(void *), void *arg);

__attribute__((visibility("default"))) int __cpc_pthread_create(
    pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
    void *arg)
{
	return create(real_create, thread, attr, start, arg);
}

__attribute__((visibility("default"))) int __cpc_pthread_create_old(
    pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
    void *arg)
{
	return create(real_create_old, thread, attr, start, arg);
}

__asm__(".symver __cpc_pthread_create, pthread_create@@GLIBC_2.34");
__asm__(".symver __cpc_pthread_create_old, pthread_create@" OLD_VERSION);
