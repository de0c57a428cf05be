/*
 * The rules of matrix.h that concern one (kernel, setup) pair, apart from
 * the runner: its names, its command line, where it may boot and when a
 * run stops.
 */
#include "matrix.h"

#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <string.h>

/*
 * tsc=unstable: the guest's clock is the PIT on every boot.  Under TCG the
 * kernel's fast TSC calibration against the PIT mostly fails (the TSC is
 * then unstable and the PIT the clock) but succeeds now and then, when the
 * boot starts on tsc-early and the watchdog may drop it later; a test's
 * time limit is in guest time, so it must be the same clock every time.
 */
#define BASE_CMDLINE "console=ttyS0 panic=-1 oops=panic tsc=unstable"

char *matrix_setup_slug(const char *spec)
{
	char *s = xstrdup(spec);

	for (char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
			*p = '_';
	return s;
}

void matrix_tests_join(struct strbuf *sb, const char *const *tests, size_t ntests)
{
	for (size_t i = 0; i < ntests; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "", tests[i]);
}

void matrix_boot_cmdline(struct strbuf *cmdline, const struct cpu_setup *cpu,
			 const char *const *tests, size_t ntests, int start)
{
	strbuf_addstr(cmdline, BASE_CMDLINE);
	if (*cpu->cmdline)
		strbuf_addf(cmdline, " %s", cpu->cmdline);
	/* init runs only these, so that a boot costs only what is judged. */
	if (ntests) {
		strbuf_addstr(cmdline, " fpubench_tests=");
		matrix_tests_join(cmdline, tests, ntests);
	}
	if (start > 1)
		strbuf_addf(cmdline, " fpubench_start=%d", start);
}

bool matrix_pair_boots(const struct matrix_kernel *k, const struct cpu_setup *cpu)
{
	int have = cpu_setup_family(cpu);

	return !have || have >= k->min_family;
}

bool matrix_host_takes(const struct matrix_host *h, const struct cpu_setup *cpu)
{
	if (!cpu->board)
		return true;
	for (size_t i = 0; h->lab && i < h->nboards; i++)
		if (strcmp(h->boards[i], cpu->board) == 0)
			return true;
	return false;
}

bool matrix_cells_stop(const struct matrix_options *opts, const struct matrix_cell *cells,
		       size_t ncells)
{
	for (size_t i = 0; opts->fail_fast && i < ncells; i++)
		if (!cells[i].met)
			return true;
	return false;
}
