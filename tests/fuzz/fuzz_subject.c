/* libFuzzer target for the subject normaliser. */
#include "lib/strbuf.h"
#include "provenance/subject.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xstrndup((const char *)data, size);
	struct subject s;

	subject_parse(&s, text);
	free(subject_key(s.normalized));
	subject_release(&s);
	free(text);
	return 0;
}
