/* Choosing the backend, once per process. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

static const struct cpc_backend *chosen;
static const char *chosen_why;

__attribute__((constructor)) static void backend_choose(void)
{
	const char *want = getenv("LIBCPC_BACKEND");

	if (want == NULL || *want == '\0' || strcmp(want, "perf") == 0) {
		chosen = &cpc_perf_backend;
	} else if (strcmp(want, "kmod") == 0) {
		chosen = NULL;
		chosen_why = "LIBCPC_BACKEND=kmod, but this build of libcpc "
			     "has no kernel-module backend";
	} else {
		chosen = NULL;
		chosen_why = "LIBCPC_BACKEND must be \"perf\" or \"kmod\"";
	}
}

const struct cpc_backend *cpc_backend_get(const char **why)
{
	if (chosen == NULL && why != NULL)
		*why = chosen_why;
	return chosen;
}
