/*
 * libFuzzer target for the small text formats of patches/: the series and
 * variants files, CPU setups, the config fragment check and the Kconfig
 * and Makefile readers.  The input is split at the first NUL: series text,
 * then the rest as variants text, CPU setup, config, Kconfig.cpu and
 * Makefile.
 */
#include "boot/cpu.h"
#include "build/kconfig.h"
#include "build/tree.h"
#include "build/series.h"
#include "lib/strbuf.h"
#include "lib/strlist.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	char *text = xstrndup((const char *)data, nul ? (size_t)(nul - data) : size);
	char *rest = nul ? xstrndup((const char *)nul + 1, size - (size_t)(nul - data) - 1)
			 : xstrdup(text);
	struct series *s;
	struct cpu_setup cpu;

	if (series_parse(&s, "p", "series", text) == 0) {
		series_parse_variants(s, "variants", rest);
		series_free(s);
	}
	if (cpu_setup_parse(&cpu, rest) == 0) {
		cpu_setup_uses_fsave(&cpu);
		cpu_setup_release(&cpu);
	}
	struct strlist warnings = STRLIST_INIT;
	char version[64];
	kconfig_check("fragment", text, rest, "6.1.192", &warnings);
	strlist_release(&warnings);
	kconfig_min_family(rest);
	kconfig_lowest_family(rest, strlen(rest));
	free(kconfig_fragment(text, kconfig_family_set(rest)));
	version_parse("Makefile", rest, strlen(rest), version, sizeof(version));
	free(text);
	free(rest);
	return 0;
}
