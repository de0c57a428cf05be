#include "auxv.h"

#include <stddef.h>

const uint32_t *auxv_vector;

uint32_t auxv_get(uint32_t type)
{
	if (auxv_vector == NULL)
		return 0;
	for (const uint32_t *a = auxv_vector; a[0] != AT_NULL; a += 2)
		if (a[0] == type)
			return a[1];
	return 0;
}
