/*
 * libFuzzer target for Link normalisation: the bytes as a Link value, as
 * a header's message-id, and as a commit message whose trailers hold
 * the Links.
 */
#include "provenance/link.h"
#include "lib/strbuf.h"
#include "provenance/trailers.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct link l;

	link_parse(&l, text);
	link_release(&l);
	free(link_msgid_normalize((const char *)data, size));
	trailers_free(trailers_parse(text));
	free(text);
	return 0;
}
