// SPDX-License-Identifier: GPL-2.0
/* vmpin.c - this process's VmPin (vmpin.h). */
#include <stdio.h>

#include "vmpin.h"

long mt_vmpin_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}
