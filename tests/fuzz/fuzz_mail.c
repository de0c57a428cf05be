/*
 * libFuzzer target for the mail parser: the bytes as one message and as
 * an mbox, and the diff of every message through the patch-id and
 * changed-line readers, which take what a mail gives them.
 */
#include "provenance/archive.h"
#include "provenance/changes.h"
#include "lib/error.h"
#include "provenance/mail.h"
#include "provenance/patchid.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct archive a = ARCHIVE_INIT;
	struct mail *m;

	if (mail_parse(&m, (const char *)data, size) == 0)
		mail_free(m);
	archive_add_mbox(&a, (const char *)data, size);
	for (size_t i = 0; i < a.nmails; i++) {
		const char *patch = a.mails[i]->patch;
		if (!patch)
			continue;
		git_oid id;
		patchid_from_text(&id, patch, strlen(patch));
		changes_free(changes_parse(patch, strlen(patch)));
	}
	archive_release(&a);
	error_clear();
	return 0;
}
