#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/cpu.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "record/kcidb.h"
#include "record/report.h"
#include "lib/spawn.h"
#include "test_json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>

#define SCHEMAS FPUBENCH_SRCDIR "/tests/schemas"
/* KernelCI's published schema (tests/schemas/README.md says where it comes from). */
#define KCIDB_SCHEMA SCHEMAS "/kcidb-io.schema.v5.3.json"

/* A guest's crash title with markup, a terminal colour sequence and a byte that is no UTF-8. */
#define EVIL_TITLE "fpu exception <script>alert(1)</script> \x1b[31mred\x1b[0m \xff in save"

static const struct matrix_kernel kernels[] = {
	{ "unpatched", "/b", "5abf01bcfdbf42abe4b6c031edfbab31862c4ee0", "21a8d857af0a1a0d" },
	{ "patched", "/b", "9d23e228", "f2c69775d8d43f77" },
};

/* 2 kernels x 2 setups x 2 tests, every outcome and both JUnit directions of an expectation. */
struct fixture {
	char dir[64];
	struct cpu_setup setups[2];
	struct matrix_cell cells[8];
	struct matrix m;
	struct results_run run;
	enum verdict strip_statuses[3];
	int64_t strip_runs[3];
	char *strip_names[3];
	struct history_strip strip;
	struct history_strips strips;
	struct history_change_entry changes[3];
	struct history_diff diff;
	const char *versions[2];
	struct report_provenance prov[2];
	struct report_input in;
};

static void cell_set(struct matrix_cell *c, const struct matrix_kernel *k,
		     const struct cpu_setup *cpu, const char *test, enum verdict status,
		     enum verdict expected, const char *host)
{
	*c = (struct matrix_cell){ .kernel = k, .cpu = cpu, .test = (char *)test, .status = status,
				   .expected = expected, .met = verdict_meets(status, expected),
				   .host = (char *)host, .duration_s = 1.5 };
}

/* A console longer than the excerpt, with every byte a guest may send. */
static void write_console(const char *dir)
{
	static const char odd[] = "nul \0 byte, esc \x1b[1m, bad \xfe, cdata ]]> <b>&\r\n";
	struct strbuf sb = STRBUF_INIT;
	char *cdir = xasprintf("%s/console", dir), *path = xasprintf("%s/console/unpatched.log", dir);

	strbuf_addstr(&sb, "HEAD-MARK\r\n");
	for (int i = 0; i < 400; i++)
		strbuf_addf(&sb, "[    0.%06d] filler line %d\r\n", i, i);
	strbuf_add(&sb, odd, sizeof(odd) - 1);
	strbuf_addstr(&sb, "Kernel panic - not syncing: TAIL-MARK\r\n");
	assert_int_equal(dir_create(cdir, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(path, sb.buf, sb.len), 0);
	strbuf_release(&sb);
	free(cdir);
	free(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *h1 = "qemu:///system", *h2 = "qemu+ssh://h2/system";

	strcpy(f->dir, "/tmp/fpubench-test-report.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	write_console(f->dir);
	assert_int_equal(cpu_setup_parse(&f->setups[0], "pentium3:nofxsr"), 0);
	assert_int_equal(cpu_setup_parse(&f->setups[1], "qemu32"), 0);
	cell_set(&f->cells[0], &kernels[0], &f->setups[0], "fpu_seed", VERDICT_CRASH, VERDICT_CRASH, h1);
	f->cells[0].crash = EVIL_TITLE;
	f->cells[0].reason = "the guest ended while it ran";
	f->cells[0].console = "console/unpatched.log";
	f->cells[0].fpu_mode = "FSAVE";
	cell_set(&f->cells[1], &kernels[0], &f->setups[0], "fpu_signal", VERDICT_CRASH, VERDICT_PASS, h1);
	f->cells[1].crash = "fpu exception in save_fpregs_to_fpstate";
	f->cells[1].console = "console/unpatched.log";
	cell_set(&f->cells[2], &kernels[0], &f->setups[1], "fpu_seed", VERDICT_PASS, VERDICT_PASS, h1);
	f->cells[2].console = "console/missing.log";
	cell_set(&f->cells[3], &kernels[0], &f->setups[1], "fpu_signal", VERDICT_SKIP, VERDICT_PASS, h1);
	f->cells[3].reason = "needs SSE3";
	cell_set(&f->cells[4], &kernels[1], &f->setups[0], "fpu_seed", VERDICT_TIMEOUT, VERDICT_PASS, h2);
	f->cells[4].reason = "the guest stopped answering while it ran";
	cell_set(&f->cells[5], &kernels[1], &f->setups[0], "fpu_signal", VERDICT_ERROR, VERDICT_PASS, h2);
	f->cells[5].reason = "libvirt: domain failed";
	f->cells[5].duration_s = -1;
	cell_set(&f->cells[6], &kernels[1], &f->setups[1], "fpu_seed", VERDICT_PASS, VERDICT_PASS, h2);
	cell_set(&f->cells[7], &kernels[1], &f->setups[1], "fpu_signal", VERDICT_FAIL, VERDICT_PASS, h2);
	f->cells[7].reason = "wait4: expected si_code 3, got 0";
	f->m = (struct matrix){ .cells = f->cells, .ncells = 8 };
	f->run = (struct results_run){ .id = "r1", .command = "run", .started = "2026-12-03T09:57:29Z",
				       .finished = "2026-12-03T09:57:53Z" };

	f->strip_statuses[0] = VERDICT_PASS;
	f->strip_statuses[1] = VERDICT_CRASH;
	f->strip_statuses[2] = VERDICT_CRASH;
	f->strip_runs[0] = 40;
	f->strip_runs[1] = 41;
	f->strip_runs[2] = 42;
	f->strip_names[0] = "20261201-095729-40";
	f->strip_names[1] = "20261202-095729-41";
	f->strip_names[2] = "20261203-095729-42";
	f->strip = (struct history_strip){ .variant = "unpatched", .cpu = "pentium3:nofxsr",
					   .test = "fpu_seed", .statuses = f->strip_statuses,
					   .run_ids = f->strip_runs, .runs = f->strip_names, .n = 3 };
	f->strips = (struct history_strips){ &f->strip, 1 };
	f->changes[0] = (struct history_change_entry){ HISTORY_CHANGE_NEW_FAILURE, "patched", "qemu32",
						       "fpu_signal", VERDICT_PASS, VERDICT_FAIL };
	f->changes[1] = (struct history_change_entry){ HISTORY_CHANGE_FIXED, "unpatched", "qemu32",
						       "fpu_seed", VERDICT_CRASH, VERDICT_PASS };
	f->changes[2] = (struct history_change_entry){ HISTORY_CHANGE_FLAKY, "unpatched", "pentium3:nofxsr",
						       "fpu_seed", VERDICT_PASS, VERDICT_CRASH };
	/* The previous run is a sibling of this one, as in a results directory. */
	f->diff = (struct history_diff){ .previous_run = 41,
					 .previous_dir = "/tmp/20261202-095729-41",
					 .entries = f->changes, .nentries = 3 };

	f->versions[0] = "https://lore.kernel.org/r/v1@example.org";
	f->versions[1] = "https://lore.kernel.org/r/v2@example.org";
	f->prov[0] = (struct report_provenance){ .variant = "unpatched", .commit = kernels[0].commit,
						 .summary = "x86/fpu: <b>bold</b> subject",
						 .lore_url = "javascript:alert(1)" };
	f->prov[1] = (struct report_provenance){ .variant = "patched", .commit = kernels[1].commit,
						 .summary = "x86-32, fpu: Fix FPU exception handling",
						 .lore_url = "https://lore.kernel.org/r/v3@example.org",
						 .patch_id = "1dc86e3f0083e868895d3c52c168aab45f49d83c",
						 .versions = f->versions, .nversions = 2 };
	static const struct report_guard guards[] = {
		{ "fpu_seed", "f994d99cf140", "the legacy save path saves with fnsave" },
		{ "fpu_frame", "", "the 32-bit signal frame's i387 state" },
	};
	f->in = (struct report_input){ .run = &f->run, .m = &f->m, .run_dir = f->dir,
				       .diff = &f->diff, .strips = &f->strips, .prov = f->prov,
				       .nprov = 2, .tree_name = "debian-6.1",
				       .guards = guards, .nguards = 2 };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	const char *rm[] = { "rm", "-rf", f->dir, NULL };

	spawn_run(rm, NULL, NULL, NULL);
	cpu_setup_release(&f->setups[0]);
	cpu_setup_release(&f->setups[1]);
	free(f);
	return 0;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* No byte XML, HTML or a terminal would take as anything but text. */
static void assert_no_control_bytes(const struct strbuf *sb)
{
	for (size_t i = 0; i < sb->len; i++) {
		unsigned char c = (unsigned char)sb->buf[i];

		assert_false(c < 0x20 && c != '\n' && c != '\t');
		assert_false(c == 0x7f || c == 0xff || c == 0xfe);
	}
}

static void read_report(const struct fixture *f, const char *name, struct strbuf *sb)
{
	char *path = xasprintf("%s/%s", f->dir, name);

	assert_int_equal(file_read(path, sb), 0);
	free(path);
}

/* The validator's exit status, its complaints kept out of the test's output. */
static int validate(const struct fixture *f, const char *name, const char *schema)
{
	char *data = xasprintf("%s/%s", f->dir, name), *log = xasprintf("%s/validate.log", f->dir);
	const char *xmllint[] = { "xmllint", "--noout", "--schema", schema, data, NULL };
	const char *json[] = { SCHEMAS "/validate-json", data, schema, NULL };
	int status = spawn_run(strstr(schema, ".xsd") ? xmllint : json, NULL, log, NULL);

	free(data);
	free(log);
	return status;
}

/* An unreadable schema would make the "bad report is refused" checks pass for the wrong reason. */
static void assert_kcidb_schema(void)
{
	if (access(KCIDB_SCHEMA, R_OK) != 0)
		fail_msg("no KCIDB schema at '%s' to validate kcidb.json with", KCIDB_SCHEMA);
}

/* Writes name with the first `from` in the report replaced by `to`. */
static void write_mutant(const struct fixture *f, const struct strbuf *report, const char *name,
			 const char *from, const char *to)
{
	const char *at = strstr(report->buf, from);
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/%s", f->dir, name);

	assert_non_null(at);
	strbuf_add(&sb, report->buf, (size_t)(at - report->buf));
	strbuf_addstr(&sb, to);
	strbuf_addstr(&sb, at + strlen(from));
	assert_int_equal(file_write_atomic(path, sb.buf, sb.len), 0);
	strbuf_release(&sb);
	free(path);
}

static void test_html_shows_every_cell_escaped(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_int_equal(count(sb.buf, "<td class=\"cell "), 8);
	/* A test's column names the upstream commit it guards, and its contract as a tooltip. */
	assert_non_null(strstr(sb.buf, "<th class=\"test\" title=\"the legacy save path saves with fnsave\">"));
	assert_non_null(strstr(sb.buf, "<span class=\"guards\">f994d99cf140</span>"));
	assert_int_equal(count(sb.buf, "data-status=\""), 8);
	assert_int_equal(count(sb.buf, "<tr><th class=\"row\"><div class=\"variant\">"), 4);
	assert_non_null(strstr(sb.buf, "<td class=\"cell status-crash met\" id=\"cell-0\" "
				       "data-variant=\"unpatched\" data-cpu=\"pentium3:nofxsr\" "
				       "data-test=\"fpu_seed\" data-status=\"crash\" "
				       "data-expected=\"crash\" data-met=\"true\" "
				       "data-host=\"qemu:///system\""));
	assert_non_null(strstr(sb.buf, "data-status=\"timeout\""));
	assert_non_null(strstr(sb.buf, "data-status=\"error\""));
	assert_non_null(strstr(sb.buf, "class=\"cell status-skip met\""));
	assert_non_null(strstr(sb.buf, "class=\"cell status-fail unmet\""));
	assert_non_null(strstr(sb.buf, "<div class=\"exp\">expected pass: NOT met</div>"));
	assert_non_null(strstr(sb.buf, "<a class=\"st\" href=\"console/unpatched.log\" "
				       "title=\"console log\">crash</a>"));
	/* The guest's title: markup as entities, the ESC and the stray byte as \xNN. */
	assert_null(strstr(sb.buf, "<script"));
	assert_null(strstr(sb.buf, "<b>"));
	assert_non_null(strstr(sb.buf, "<div class=\"crash\">fpu exception &lt;script&gt;alert(1)"
				       "&lt;/script&gt; \\x1b[31mred\\x1b[0m \\xff in save</div>"));
	assert_no_control_bytes(&sb);
	/* Two hosts, so each cell names its own. */
	assert_non_null(strstr(sb.buf, "<ol class=\"hosts\"><li><code>qemu:///system</code></li><li><code>qemu+ssh://h2/system</code></li></ol>"));
	assert_int_equal(count(sb.buf, "<div class=\"host\">host 2</div>"), 4);
	assert_non_null(strstr(sb.buf, "<div class=\"strip\"><span class=\"status-pass\" "
				       "title=\"run 20261201-095729-40: pass\"></span><span "
				       "class=\"status-crash\" title=\"run 20261202-095729-41: crash\">"
				       "</span><span class=\"status-crash now\" "
				       "title=\"run 20261203-095729-42: crash\"></span></div>"));
	assert_int_equal(count(sb.buf, "<div class=\"strip\">"), 1);
	assert_non_null(strstr(sb.buf, "<span id=\"cells\">8</span> cells: 2 pass 1 skip 1 fail "
				       "1 timeout 2 crash 1 error; <span id=\"met\">4</span> of 8"));
	assert_non_null(strstr(sb.buf, "id=\"new-failures\"><h3>New failures since the previous run "
				       "(1)</h3>\n<ul>\n<li><a href=\"#cell-7\"><code>patched qemu32 "
				       "fpu_signal</code></a>"));
	assert_non_null(strstr(sb.buf, "id=\"fixed\"><h3>Fixed (1)</h3>"));
	assert_non_null(strstr(sb.buf, "id=\"flaky\"><h3>Flaky"));
	/* Provenance: a lore link is a link, a javascript: one is only text. */
	assert_non_null(strstr(sb.buf, "<a href=\"https://lore.kernel.org/r/v3@example.org\">"));
	assert_non_null(strstr(sb.buf, "<ol class=\"versions\"><li><a href=\"https://lore.kernel.org"
				       "/r/v1@example.org\">"));
	assert_non_null(strstr(sb.buf, "<dd>javascript:alert(1)</dd>"));
	assert_non_null(strstr(sb.buf, "x86/fpu: &lt;b&gt;bold&lt;/b&gt; subject"));
	/* Self-contained: the only web addresses are lore links, as <a>. */
	assert_null(strstr(sb.buf, "src="));
	assert_null(strstr(sb.buf, "<link"));
	assert_int_equal(count(sb.buf, "href=\"http"), 3);
	strbuf_release(&sb);
}

static void test_html_without_history(void **state)
{
	struct fixture *f = *state;
	struct history_diff first = { 0 };
	struct strbuf sb = STRBUF_INIT;

	f->in.diff = NULL;
	f->in.strips = NULL;
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "No previous run to compare with."));
	assert_null(strstr(sb.buf, "class=\"strip\""));
	strbuf_reset(&sb);
	f->in.diff = &first;
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "No previous run to compare with."));
	assert_null(strstr(sb.buf, "id=\"new-failures\""));
	/* One host: said once, not in every cell. */
	for (size_t i = 0; i < 8; i++)
		f->cells[i].host = "qemu:///system";
	strbuf_reset(&sb);
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "Every cell ran on <code>qemu:///system</code>."));
	assert_null(strstr(sb.buf, "<div class=\"host\">"));
	strbuf_release(&sb);
}

/* A nightly's own bisection: its culprit, confidence and mail; an expected crash reads as met. */
static void test_html_bisection_and_met_cells(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;
	const struct history_bisection b[] = {
		{ .variant = "hist", .cpu = "pentium2,-fxsr", .test = "fpu_<seed>",
		  .good = "1111111111111111111111111111111111111111",
		  .bad = "2222222222222222222222222222222222222222", .outcome = "culprit",
		  .culprit = "3333333333333333333333333333333333333333", .confidence = 0.5,
		  .mail = "bisect/r2/regression.eml" },
		{ .variant = "hist", .cpu = "486", .test = "fpu_seed", .good = "1111", .bad = "2222",
		  .outcome = "over budget" },
	};

	f->in.bisections = b;
	f->in.nbisections = 2;
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "<h2>Bisections of the new failures</h2>"));
	assert_non_null(strstr(sb.buf, "<b>hist pentium2,-fxsr fpu_&lt;seed&gt;</b> between "
				       "<code>111111111111</code> (good) and <code>222222222222</code> "
				       "(bad): culprit <code class=\"culprit\">333333333333</code>, "
				       "confidence 50 %; <a class=\"mail\" "
				       "href=\"bisect/r2/regression.eml\">"));
	assert_non_null(strstr(sb.buf, "(bad): over budget</p>"));
	/* The met crash is green with an edge of its status; the style says so for every met failure. */
	assert_non_null(strstr(sb.buf, "td.met.status-crash"));
	assert_non_null(strstr(sb.buf, "<td class=\"cell status-crash met\""));
	f->in.nbisections = 0;
	strbuf_reset(&sb);
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_null(strstr(sb.buf, "Bisections"));
	strbuf_release(&sb);
}

/* Polyglot HTML5: XML reads the page too, and its links stay relative. */
/* What a reader came for comes first: the new failures and the cells that missed. */
static void test_html_puts_what_went_wrong_above_the_matrix(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(report_html_format(&sb, &f->in), 0);
	const char *attention = strstr(sb.buf, "<section id=\"attention\">");
	const char *matrix = strstr(sb.buf, "id=\"matrix\"");
	const char *unmet = strstr(sb.buf, "id=\"unmet\"><h3>Cells that missed their expectation (4)");
	const char *fixed = strstr(sb.buf, "id=\"fixed\"");

	assert_non_null(attention);
	assert_non_null(matrix);
	assert_non_null(unmet);
	assert_non_null(fixed);
	assert_true(attention < strstr(sb.buf, "id=\"new-failures\""));
	assert_true(strstr(sb.buf, "id=\"new-failures\"") < matrix);
	assert_true(attention < unmet && unmet < matrix);
	/* The other changes stay with the comparison, under the matrix, and new failures are not repeated. */
	assert_true(matrix < fixed);
	assert_int_equal(count(sb.buf, "id=\"new-failures\""), 1);
	/* Each unmet cell, in the matrix's order, linking to its cell and console. */
	char *section = xasprintf("%.*s", (int)(matrix - unmet), unmet);
	assert_int_equal(count(section, "<li><a href=\"#cell-"), 4);
	free(section);
	assert_non_null(strstr(unmet, "<li><a href=\"#cell-1\"><code>unpatched pentium3:nofxsr "
				      "fpu_signal</code></a>: <span class=\"status-crash\">crash</span>, "
				      "expected pass: fpu exception in save_fpregs_to_fpstate (<a "
				      "href=\"console/unpatched.log\">console log</a>)</li>"));
	assert_true(strstr(unmet, "#cell-1\"") < strstr(unmet, "#cell-4\"") &&
		    strstr(unmet, "#cell-4\"") < strstr(unmet, "#cell-5\"") &&
		    strstr(unmet, "#cell-5\"") < strstr(unmet, "#cell-7\""));
	assert_non_null(strstr(unmet, "<li><a href=\"#cell-5\"><code>patched pentium3:nofxsr "
				      "fpu_signal</code></a>: <span class=\"status-error\">error</span>, "
				      "expected pass: libvirt: domain failed</li>"));
	strbuf_reset(&sb);
	/* Nothing missed, no comparison: the section says so in one line. */
	for (size_t i = 0; i < 8; i++)
		f->cells[i].met = true;
	f->in.diff = NULL;
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "<h3>Cells that missed their expectation (0)</h3>\n<p>none</p>"));
	assert_null(strstr(sb.buf, "id=\"new-failures\""));
	strbuf_release(&sb);
}

/* Red says "missed its expectation" and nothing else; a met cell does not repeat "expected pass: met". */
static void test_html_red_is_for_missed_expectations(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;
	/* Every red the page used: the frame of an unmet cell, a crash, a met failure's edge. */
	static const char *const reds[] = { "#b00020", "#d32f2f", "#f29191" };

	assert_int_equal(report_html_format(&sb, &f->in), 0);
	const char *style = strstr(sb.buf, "<style>"), *end = strstr(sb.buf, "</style>");

	assert_non_null(style);
	assert_non_null(end);
	for (const char *line = style; line < end; line = strchr(line, '\n') + 1) {
		size_t len = (size_t)(strchr(line, '\n') - line);
		char *rule = xasprintf("%.*s", (int)len, line);

		for (size_t r = 0; r < ARRAY_SIZE(reds); r++)
			if (strstr(rule, reds[r]) && !strstr(rule, "unmet"))
				fail_msg("red %s outside an unmet rule: %s", reds[r], rule);
		free(rule);
	}
	/* The met expected crash says why it is not red; met passes say nothing. */
	assert_non_null(strstr(sb.buf, "id=\"cell-0\""));
	assert_non_null(strstr(strstr(sb.buf, "id=\"cell-0\""), "<div class=\"exp\">expected crash: met</div>"));
	assert_null(strstr(sb.buf, "expected pass: met"));
	assert_int_equal(count(sb.buf, "<div class=\"exp\">expected pass: NOT met</div>"), 4);
	strbuf_release(&sb);
}

static void test_html_is_xml_with_relative_links(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;
	xmlDocPtr doc;
	xmlNodePtr root;

	f->cells[2].console = "console/qemu32:fpu seed.log";
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
				       "lang=\"en\" xml:lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"));
	assert_ptr_equal(strstr(sb.buf, "<!DOCTYPE html>"), sb.buf);
	doc = xmlReadMemory(sb.buf, (int)sb.len, "report.html", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	root = xmlDocGetRootElement(doc);
	assert_string_equal((const char *)root->name, "html");
	assert_string_equal((const char *)root->ns->href, "http://www.w3.org/1999/xhtml");
	xmlFreeDoc(doc);
	/* A colon in a path makes no URL scheme. */
	assert_non_null(strstr(sb.buf, "<a class=\"st\" href=\"console/qemu32%3Afpu%20seed.log\""));
	/* The previous run is a sibling directory: a link to its report. */
	assert_non_null(strstr(sb.buf, "<p id=\"previous\">Previous run: <a href=\"../20261202-095729-41/"
				       "report.html\"><code>20261202-095729-41</code></a>.</p>"));
	/* One in another results directory is named only. */
	f->diff.previous_dir = "/srv/other-results/20261202-095729-41";
	strbuf_reset(&sb);
	assert_int_equal(report_html_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "<p id=\"previous\">Previous run: <code>20261202-095729-41</code>.</p>"));
	assert_null(strstr(sb.buf, "report.html\""));
	strbuf_release(&sb);
}

/* Text that is almost UTF-8 is shown byte by byte; real UTF-8 is kept. */
static void test_text_is_made_safe(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;

	f->cells[1].crash = "ok \xc3\xbc, c1 \xc2\x9b, nonchar \xef\xbf\xbe, overlong \xc0\xaf, "
			    "surrogate \xed\xa0\x80, cut \xe2\x82";
	assert_int_equal(kcidb_format(&sb, &f->in), 0);
	assert_non_null(strstr(sb.buf, "\"comment\": \"ok \xc3\xbc, c1 \\\\xc2\\\\x9b, nonchar "
				       "\\\\xef\\\\xbf\\\\xbe, overlong \\\\xc0\\\\xaf, surrogate "
				       "\\\\xed\\\\xa0\\\\x80, cut \\\\xe2\\\\x82\""));
	strbuf_release(&sb);
}

static void test_junit_validates_and_maps_expectations(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(report_write(&f->in), 0);
	assert_int_equal(validate(f, "junit.xml", SCHEMAS "/junit.xsd"), 0);
	read_report(f, "junit.xml", &sb);
	assert_int_equal(count(sb.buf, "<testsuite "), 4);
	assert_int_equal(count(sb.buf, "<testcase "), 8);
	assert_non_null(strstr(sb.buf, "<testsuites name=\"fpubench r1\" tests=\"8\" failures=\"2\" "
				       "errors=\"2\" skipped=\"1\" time=\"10.500\">"));
	assert_non_null(strstr(sb.buf, "<testsuite name=\"unpatched pentium3:nofxsr\" tests=\"2\" "
				       "failures=\"1\" errors=\"0\" skipped=\"0\" time=\"3.000\" "
				       "timestamp=\"2026-12-03T09:57:29Z\" hostname=\"qemu:///system\">"));
	/* The expected crash passes; the unexpected one fails with its title. */
	assert_non_null(strstr(sb.buf, "<testcase classname=\"fpubench.unpatched.pentium3:nofxsr\" "
				       "name=\"fpu_seed\" time=\"1.500\">\n      <system-out>status "
				       "crash, expected crash (met)\n"));
	assert_non_null(strstr(sb.buf, "<failure message=\"fpu exception in save_fpregs_to_fpstate\" "
				       "type=\"crash\">expected pass, got crash</failure>"));
	assert_non_null(strstr(sb.buf, "<failure message=\"wait4: expected si_code 3, got 0\" "
				       "type=\"fail\">"));
	assert_non_null(strstr(sb.buf, "<error message=\"the guest stopped answering while it ran\" "
				       "type=\"timeout\">"));
	assert_non_null(strstr(sb.buf, "<error message=\"libvirt: domain failed\" type=\"error\">"));
	assert_non_null(strstr(sb.buf, "name=\"fpu_signal\" time=\"0.000\">"));
	assert_non_null(strstr(sb.buf, "<skipped message=\"needs SSE3\"/>"));
	assert_non_null(strstr(sb.buf, "crash: fpu exception &lt;script&gt;"));
	/* The console's tail, from a whole line, every odd byte shown escaped. */
	assert_non_null(strstr(sb.buf, "console: console/unpatched.log, its end:\n"));
	assert_non_null(strstr(sb.buf, "nul \\x00 byte, esc \\x1b[1m, bad \\xfe, cdata ]]&gt; "
				       "&lt;b&gt;&amp;\nKernel panic - not syncing: TAIL-MARK\n"
				       "</system-out>"));
	assert_null(strstr(sb.buf, "HEAD-MARK"));
	assert_non_null(strstr(sb.buf, "console: none readable"));
	assert_no_control_bytes(&sb);
	strbuf_release(&sb);
}

static void test_kcidb_validates(void **state)
{
	struct fixture *f = *state;
	struct strbuf sb = STRBUF_INIT;

	assert_kcidb_schema();
	assert_int_equal(report_write(&f->in), 0);
	assert_int_equal(validate(f, "kcidb.json", KCIDB_SCHEMA), 0);
	read_report(f, "kcidb.json", &sb);
	struct json_object *doc = test_json_parse(sb.buf);
	test_json_expect(doc, "/version", "{\"major\": 5, \"minor\": 3}");
	assert_int_equal(count(sb.buf, "\"checkout_id\": "), 2);
	assert_int_equal(count(sb.buf, "\"path\": \"fpu."), 8);
	assert_int_equal(count(sb.buf, "\"status\": \"PASS\""), 2 + 2);
	assert_int_equal(count(sb.buf, "\"status\": \"FAIL\""), 3);
	assert_int_equal(count(sb.buf, "\"status\": \"ERROR\""), 1);
	assert_int_equal(count(sb.buf, "\"status\": \"MISS\""), 1);
	assert_int_equal(count(sb.buf, "\"status\": \"SKIP\""), 1);
	assert_int_equal(count(sb.buf, "\"waived\": true"), 1);
	test_json_expect(doc, "/tests/0/id", "\"fpubench:r1:unpatched:pentium3.3anofxsr:fpu_seed\"");
	test_json_expect(doc, "/tests/0/build_id", "\"fpubench:r1:unpatched\"");
	test_json_expect(doc, "/tests/0/origin", "\"fpubench\"");
	test_json_expect(doc, "/tests/0/path", "\"fpu.fpu_seed\"");
	test_json_expect(doc, "/tests/0/status", "\"FAIL\"");
	test_json_expect(doc, "/tests/0/misc/verdict", "\"crash\"");
	test_json_expect(doc, "/tests/0/misc/expected", "\"crash\"");
	test_json_expect(doc, "/tests/0/misc/met", "true");
	test_json_expect(doc, "/tests/0/misc/waived", "true");
	/* The guest's list names what the test guards: the upstream commit, as LTP's tags do. */
	test_json_expect(doc, "/tests/0/misc/guards", "[\"f994d99cf140\"]");
	test_json_expect(doc, "/tests/0/misc/guards_contract", "\"the legacy save path saves with fnsave\"");
	/* Both builds passed, each naming its variant. */
	test_json_expect(doc, "/builds/0/status", "\"PASS\"");
	test_json_expect(doc, "/builds/0/misc/variant", "\"unpatched\"");
	test_json_expect(doc, "/builds/1/status", "\"PASS\"");
	test_json_expect(doc, "/builds/1/misc/variant", "\"patched\"");
	test_json_expect(doc, "/tests/0/environment", "{\"comment\": \"CPU setup pentium3:nofxsr\", "
			 "\"misc\": {\"cpu\": \"pentium3\", \"cmdline\": \"nofxsr\", "
			 "\"host\": \"qemu:///system\", \"fpu_mode\": \"FSAVE\"}}");
	/* Only a full commit hash is one; the short one stays in misc. */
	assert_int_equal(count(sb.buf, "\"git_commit_hash\""), 1);
	test_json_expect(doc, "/checkouts/0/tree_name", "\"debian-6.1\"");
	assert_non_null(strstr(sb.buf, "\"log_excerpt\": \""));
	assert_non_null(strstr(sb.buf, "TAIL-MARK"));
	assert_null(strstr(sb.buf, "HEAD-MARK"));
	assert_non_null(strstr(sb.buf, "\\\\x1b[31mred"));
	assert_no_control_bytes(&sb);
	json_object_put(doc);
	strbuf_release(&sb);
}

/* The validators can fail: small breaks of real reports are caught. */
static void test_validators_reject_broken_reports(void **state)
{
	struct fixture *f = *state;
	struct strbuf junit = STRBUF_INIT, kcidb = STRBUF_INIT;

	assert_int_equal(report_write(&f->in), 0);
	read_report(f, "junit.xml", &junit);
	read_report(f, "kcidb.json", &kcidb);
	write_mutant(f, &junit, "bad.xml", "time=\"1.500\"", "time=\"-1\"");
	assert_int_not_equal(validate(f, "bad.xml", SCHEMAS "/junit.xsd"), 0);
	write_mutant(f, &junit, "bad.xml", "<skipped ", "<skip ");
	assert_int_not_equal(validate(f, "bad.xml", SCHEMAS "/junit.xsd"), 0);
	write_mutant(f, &junit, "bad.xml", "</testsuites>", "");
	assert_int_not_equal(validate(f, "bad.xml", SCHEMAS "/junit.xsd"), 0);
	/* Else every mutant would be "rejected" for want of a schema. */
	assert_kcidb_schema();
	write_mutant(f, &kcidb, "bad.json", "\"status\": \"FAIL\"", "\"status\": \"CRASH\"");
	assert_int_not_equal(validate(f, "bad.json", KCIDB_SCHEMA), 0);
	write_mutant(f, &kcidb, "bad.json", "\"id\": \"fpubench:r1:unpatched\"", "\"id\": \"unpatched\"");
	assert_int_not_equal(validate(f, "bad.json", KCIDB_SCHEMA), 0);
	write_mutant(f, &kcidb, "bad.json", "\"minor\": 3", "\"minor\": 9");
	assert_int_not_equal(validate(f, "bad.json", KCIDB_SCHEMA), 0);
	write_mutant(f, &kcidb, "bad.json", "\"patchset_hash\": \"\"", "\"patchset_hash\": 1");
	assert_int_not_equal(validate(f, "bad.json", KCIDB_SCHEMA), 0);
	write_mutant(f, &kcidb, "bad.json", "\"major\": 5", "\"major\": 4");
	assert_int_not_equal(validate(f, "bad.json", KCIDB_SCHEMA), 0);
	strbuf_release(&junit);
	strbuf_release(&kcidb);
}

static void test_write_fails_without_directory(void **state)
{
	struct fixture *f = *state;
	char *gone = xasprintf("%s/gone", f->dir);

	f->in.run_dir = gone;
	assert_int_equal(report_write(&f->in), ERR_GENERIC);
	assert_non_null(strstr(error_last(), "/gone/report.html'"));
	free(gone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_html_puts_what_went_wrong_above_the_matrix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_red_is_for_missed_expectations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_shows_every_cell_escaped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_bisection_and_met_cells, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_without_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_html_is_xml_with_relative_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_is_made_safe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_junit_validates_and_maps_expectations, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_kcidb_validates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validators_reject_broken_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_fails_without_directory, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
