/*
 * libFuzzer target for the patch reader: `--patch` takes any file, so
 * mails, mboxes, diffs and garbage must parse or fail cleanly.
 */
#include "build/patchfile.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patchfile p;
	struct patchfile_list l;

	if (patchfile_parse(&p, "fuzz.patch", (const char *)data, size) == 0) {
		if (!p.author_name || !p.author_email || !p.message || !p.diff)
			abort();
		patchfile_release(&p);
	}
	if (patchfile_parse_all(&l, "fuzz.mbx", (const char *)data, size) == 0) {
		if (!l.n)
			abort();
		for (size_t i = 0; i < l.n; i++)
			if (!l.v[i].message || !l.v[i].diff || l.v[i].is_cover || l.v[i].count != l.n)
				abort();
		patchfile_list_release(&l);
	}
	return 0;
}
