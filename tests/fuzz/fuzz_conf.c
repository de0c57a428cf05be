/*
 * libFuzzer target for the config file parser: any bytes either parse or
 * fail with ERR_INPUT and one line that names the file (issue 7: a bad
 * config gets a clear one-line message and an exit code).
 */
#include "run/conf.h"
#include "lib/error.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conf *c = NULL;
	int err;

	/* The anchor has a directory, so relative paths take the joining branch. */
	err = conf_parse(&c, "etc/fuzz.conf", (const char *)data, size);
	if (err == 0) {
		if (!c || c->ntrees == 0)
			abort();
		conf_free(c);
		return 0;
	}
	if (err != ERR_INPUT || c || strchr(error_last(), '\n') ||
	    strncmp(error_last(), "'etc/fuzz.conf' ", strlen("'etc/fuzz.conf' ")) != 0)
		abort();
	return 0;
}
