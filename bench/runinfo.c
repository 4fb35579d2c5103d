/* SPDX-License-Identifier: MIT */
/* What a benchmark ran on (see runinfo.h). */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "runinfo.h"

const char *bench_kernel_release(void)
{
	static struct utsname un;
	if (uname(&un) != 0)
		return "unknown";
	return un.release;
}

void bench_print_kmod_stats(FILE *out)
{
	static const char dir[] = "/sys/kernel/debug/cpc";
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[sizeof(dir) + 256], val[64];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(val, sizeof(val), f) != NULL) {
			val[strcspn(val, "\n")] = '\0';
			fprintf(out, "KMOD %s %s\n", e->d_name, val);
		}
		fclose(f);
	}
	closedir(d);
}
