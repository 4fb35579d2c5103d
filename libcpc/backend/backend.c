/* SPDX-License-Identifier: MIT */
/* Choosing the backend, once per process. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "backends.h"
#include "safefmt.h"

static const struct cpc_backend *chosen;
static char chosen_why[320];

__attribute__((constructor)) static void backend_choose(void)
{
	const char *want = getenv("LIBCPC_BACKEND");

	if (want != NULL && strcmp(want, "perf") == 0) {
		chosen = &__cpc_perf_backend;
	} else if (want != NULL && strcmp(want, "kmod") == 0) {
		int rc = __cpc_kmod_open();
		if (rc == 0)
			chosen = &__cpc_kmod_backend;
		else
			__cpc_safe_fmt(chosen_why, sizeof(chosen_why),
			    "LIBCPC_BACKEND=kmod, but the libcpc kernel "
			    "module's device %s cannot be used (%s): load "
			    "the module (modprobe cpc, from libcpc-dkms), or "
			    "unset LIBCPC_BACKEND to count through perf",
			    "/dev/cpc", strerrordesc_np(-rc));
	} else if (want == NULL || *want == '\0') {
		/* The module when its device is there, else perf. */
		chosen = __cpc_kmod_open() == 0 ? &__cpc_kmod_backend
					      : &__cpc_perf_backend;
	} else {
		__cpc_safe_fmt(chosen_why, sizeof(chosen_why),
		    "LIBCPC_BACKEND must be \"perf\" or \"kmod\"");
	}
}

const struct cpc_backend *__cpc_backend_get(const char **why)
{
	if (chosen == NULL && why != NULL)
		*why = chosen_why;
	return chosen;
}

const struct cpc_backend *__cpc_backend_for(enum cpc_scope scope,
    const char **why)
{
	const struct cpc_backend *be = __cpc_backend_get(why);
	switch (scope) {
	case CPC_SCOPE_TASK:
		if (be != NULL && be->task_open != NULL)
			return be;
		return &__cpc_perf_backend;
	case CPC_SCOPE_CPU:
		if (be != NULL && be->cpu_open != NULL)
			return be;
		return &__cpc_perf_backend;
	case CPC_SCOPE_LWP:
	default:
		return be;
	}
}
