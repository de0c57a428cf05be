/*
 * report: the run's reports for people and for CI systems, written into
 * the run directory next to results.json:
 *
 *   report.html  one self-contained page (inline CSS, no script, no
 *                network resource; the only web links are lore's), in
 *                polyglot HTML5 (report_html.h): first the new failures
 *                since the previous run and the cells that missed their
 *                expectation, each linking to its cell; then the matrix
 *                coloured by status, a row per variant + CPU setup and a
 *                column per test, each cell linking to its console log
 *                with its status as text, its expectation and whether it
 *                was met (unless it expected a pass and met it), the
 *                crash title (else the reason), its host (numbered when
 *                the run used several) and a strip of its last results;
 *                red marks a missed expectation and nothing else, so a
 *                known-bad kernel's expected crash is not red; the other
 *                changes since the previous run, linked to its
 *                report.html when it is a sibling directory; a
 *                provenance panel for each tested kernel commit.  Each
 *                cell is <td class="cell status-S met|unmet" id="cell-I"
 *                data-variant data-cpu data-test data-status data-expected
 *                data-met data-host>, I its index in the matrix;
 *   junit.xml    one testsuite per variant + CPU setup, one testcase per
 *                test, as Jenkins and GitLab read it;
 *   kcidb.json   KernelCI's KCIDB I/O, see kcidb.h.
 *
 * Every text that came from a guest or a patch (test names, crash titles,
 * reasons, console excerpts, provenance) is first made safe to show, the
 * same way in all three formats: valid UTF-8, tabs and newlines pass, a CR
 * before a newline is dropped (serial consoles end lines with CRLF), and
 * every other byte that is a control character (NUL, the ESC of a terminal
 * sequence, DEL, C1 controls), a noncharacter XML cannot carry (U+FFFE,
 * U+FFFF) or not valid UTF-8 is shown as the four characters \xNN.  This
 * is for reading, not reversible: a backslash passes as it is.  Then the
 * format's writer escapes it (libxml2 for HTML and XML, JSON escapes).
 *
 * JUnit is what CI acts on, so it follows the expectations, as the bench's
 * exit status does: a cell that meets its expectation passes (an expected
 * crash of a known-bad kernel is the bench working; its status is the
 * first line of system-out, and KCIDB marks it waived), a met skip is
 * <skipped>, and an unmet cell is <error> for a timeout or error and
 * <failure> otherwise.  With no expectations every cell expects a pass, so
 * a fail or crash is a failure.  system-out ends with the tail of the
 * cell's boot console (REPORT_EXCERPT_MAX bytes, from its first whole line).
 *
 * The report_format_*() functions write no files; junit and kcidb read the
 * consoles' tails under run_dir (a missing console is said so, not an
 * error).  report_write() writes all three files atomically.
 */
#ifndef FPUBENCH_REPORT_H
#define FPUBENCH_REPORT_H

#include "history.h"
#include "boot/matrix.h"
#include "results.h"
#include "lib/strbuf.h"

/* What the reports say of one tested kernel commit. */
struct report_provenance {
	const char *variant;
	const char *commit;	/* hex, or "" */
	const char *summary;	/* or NULL */
	const char *lore_url;	/* or NULL */
	const char *message_id;	/* of its first Link/Message-ID trailer, or NULL */
	const char *patch_id;	/* or NULL */
	const char *const *versions;	/* earlier postings (lore URLs), oldest first */
	size_t nversions;
};

/* What a guest test guards (its build's tests.list): the upstream commits, space-separated, and the contract. */
struct report_guard {
	const char *test;
	const char *commits;	/* "" when none */
	const char *contract;
};

struct report_input {
	const struct results_run *run;
	const struct matrix *m;
	const char *run_dir;	/* absolute; cells' console paths are relative to it */
	const struct history_diff *diff;	/* or NULL: no history */
	const struct history_strips *strips;	/* or NULL */
	const struct report_provenance *prov;
	size_t nprov;
	const char *origin;	/* KCIDB origin ([a-z0-9_]+); NULL means "fpubench" */
	const char *tree_name;	/* KCIDB checkouts' tree_name, or NULL */
	const struct history_bisection *bisections;	/* of new failures; mail relative to run_dir */
	size_t nbisections;
	const struct report_guard *guards;	/* of the guest's tests, or NULL */
	size_t nguards;
};

/* What the test guards, or NULL when the guest listed nothing for it. */
const struct report_guard *report_guard_find(const struct report_input *in, const char *test);

/* The console tail shown in junit.xml and kcidb.json: where a boot went wrong. */
#define REPORT_EXCERPT_MAX 4096

/* Appends len bytes of s made safe to show, as above (before any format's escaping). */
void report_add_safe(struct strbuf *sb, const char *s, size_t len);

/* Sets sb to s made safe to show and returns its text; NULL for a NULL s. */
const char *report_safe(struct strbuf *sb, const char *s);

/* Each adds its document to sb: 0, or the error of writing it (libxml2's), sb unchanged. */
int report_html_format(struct strbuf *sb, const struct report_input *in);
int junit_format(struct strbuf *sb, const struct report_input *in);

/* What kcidb.c shares: a status's name ("none" past the verdicts), a console's tail. */
const char *report_status_name(enum verdict v);
bool report_console_tail(const struct report_input *in, const struct matrix_cell *c,
			 struct strbuf *sb, bool *cut);

/* Writes report.html, junit.xml and kcidb.json into in->run_dir. */
int report_write(const struct report_input *in);

#endif
