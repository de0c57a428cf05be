/*
 * report: the run's reports for people and for CI systems, written into
 * the run directory next to results.json:
 *
 *   report.html  one self-contained page (no network resources): the
 *                matrix coloured by status, each cell linking to its
 *                console log, crash titles, a strip of the last results of
 *                each cell, the comparison with the previous run, and a
 *                provenance panel for each tested kernel commit;
 *   junit.xml    one testsuite per variant + CPU setup, one testcase per
 *                test, as Jenkins and GitLab read it;
 *   kcidb.json   KernelCI's KCIDB I/O format (checkouts, builds, tests),
 *                with origin-prefixed ids.
 *
 * Every text that came from a guest (crash titles, reasons, console
 * excerpts) is escaped for its format; bytes that XML cannot carry at all
 * are replaced.  The report_format_*() functions are pure, for tests;
 * report_write() writes all three files atomically.
 */
#ifndef FPUBENCH_REPORT_H
#define FPUBENCH_REPORT_H

#include "history.h"
#include "matrix.h"
#include "results.h"
#include "strbuf.h"

/* What the reports say of one tested kernel commit. */
struct report_provenance {
	const char *variant;
	const char *commit;	/* hex, or "" */
	const char *summary;	/* or NULL */
	const char *lore_url;	/* or NULL */
	const char *patch_id;	/* or NULL */
	const char *const *versions;	/* earlier postings (lore URLs), oldest first */
	size_t nversions;
};

struct report_input {
	const struct results_run *run;
	const struct matrix *m;
	const char *run_dir;	/* absolute; cells' console paths are relative to it */
	const struct history_diff *diff;	/* or NULL: no history */
	const struct history_strips *strips;	/* or NULL */
	const struct report_provenance *prov;
	size_t nprov;
	const char *origin;	/* KCIDB origin; NULL means "fpubench" */
};

void report_format_html(struct strbuf *sb, const struct report_input *in);
void report_format_junit(struct strbuf *sb, const struct report_input *in);
void report_format_kcidb(struct strbuf *sb, const struct report_input *in);

/* Writes report.html, junit.xml and kcidb.json into in->run_dir. */
int report_write(const struct report_input *in);

#endif
