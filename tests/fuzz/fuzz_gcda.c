/*
 * libFuzzer target for the coverage data decoder (bench/judge/gcda.h): for
 * any bytes it accepts or rejects with a message, and what it accepts
 * holds only absolute .gcda paths with at most half the console's bytes of
 * data.  The input is copied to a buffer of exactly its length, so ASan
 * catches a read past it.
 */
#include "judge/gcda.h"
#include "lib/error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct gcda_set *set = NULL;
	size_t bytes = 0;

	memcpy(copy, data, size);
	if (gcda_scan("fuzz", copy, size, &set) < 0) {
		if (set || !strstr(error_last(), "console 'fuzz'"))
			abort();
		error_clear();
	} else {
		for (size_t i = 0; i < set->nfiles; i++) {
			const char *p = set->files[i].path;
			size_t n = strlen(p);

			if (p[0] != '/' || n < 6 || strcmp(p + n - 5, ".gcda") != 0)
				abort();
			bytes += set->files[i].len;
		}
		if (bytes > size / 2 || (set->nfiles && !set->sent))
			abort();
		gcda_set_free(set);
	}
	free(copy);
	return 0;
}
