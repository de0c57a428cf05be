/*
 * libFuzzer target for the patch reader: `--patch` takes any file, so
 * mails, diffs and garbage must parse or fail cleanly.
 */
#include "build/patchfile.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patchfile p;

	if (patchfile_parse(&p, "fuzz.patch", (const char *)data, size) == 0) {
		if (!p.author_name || !p.author_email || !p.message || !p.diff)
			abort();
		patchfile_release(&p);
	}
	return 0;
}
