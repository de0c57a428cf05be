#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "judge/console.h"
#include "lab/lava_log.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* Real logs of lava-run (tests/fixtures/lava/README.md). */
#define FIXTURES FPUBENCH_SRCDIR "/tests/fixtures/lava/"

static void read_fixture(const char *name, struct strbuf *sb)
{
	char *path = xasprintf(FIXTURES "%s", name);

	assert_int_equal(file_read(path, sb), 0);
	free(path);
}

static int parse(struct lava_log *l, const char *text)
{
	return lava_log_parse(l, "7", text, strlen(text));
}

/* The patched kernel's job: its console is the one the judge reads from a libvirt guest. */
static void test_real_pass(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct lava_log l = LAVA_LOG_INIT;
	struct console_report *r;

	(void)state;
	read_fixture("lava-run-patched-pentium2.yaml", &sb);
	assert_int_equal(lava_log_parse(&l, "1", sb.buf, sb.len), 0);
	assert_string_equal(l.result, "pass");
	assert_null(l.error_type);
	assert_null(memchr(l.console.buf, 0x1b, l.console.len));
	assert_int_equal(console_scan(l.console.buf, l.console.len, &r), 0);
	assert_true(r->finished);
	assert_true(r->rebooted);	/* a feedback line, after the end marker */
	assert_string_equal(r->fpu_mode, "FSAVE");
	assert_int_equal(r->ntests, 15);
	for (size_t i = 0; i < r->ntests; i++)
		assert_true(verdict_meets(r->tests[i].status, VERDICT_PASS));	/* x86_test_FISTTP skips */
	assert_null(r->crash);
	/* lava-run dropped the ESC bytes of SeaBIOS's screen clearing itself, and kept the rest. */
	assert_non_null(strstr(l.console.buf, "\nc[?7l[2J[0mSeaBIOS (version"));
	console_report_free(r);
	lava_log_release(&l);
	strbuf_release(&sb);
}

/* The unpatched kernel's oops: LAVA says Infrastructure, the console says what crashed. */
static void test_real_crash(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct lava_log l = LAVA_LOG_INIT;
	struct console_report *r;

	(void)state;
	read_fixture("lava-run-unpatched-pentium2.yaml", &sb);
	assert_int_equal(lava_log_parse(&l, "2", sb.buf, sb.len), 0);
	assert_string_equal(l.result, "fail");
	assert_string_equal(l.error_type, "Infrastructure");
	assert_string_equal(l.error_msg, "Connection closed");
	assert_int_equal(console_scan(l.console.buf, l.console.len, &r), 0);
	assert_false(r->finished);
	assert_non_null(r->crash);
	assert_non_null(strstr(r->crash, "save_fpregs_to_fpstate"));
	console_report_free(r);
	lava_log_release(&l);
	strbuf_release(&sb);
}

/* The monitor matched "done" before lava-run logged it: it comes as feedback, and counts. */
static void test_real_done_in_feedback(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct lava_log l = LAVA_LOG_INIT;
	struct console_report *r;

	(void)state;
	read_fixture("lava-run-patched-qemu32-done-in-feedback.yaml", &sb);
	assert_int_equal(lava_log_parse(&l, "3", sb.buf, sb.len), 0);
	assert_int_equal(console_scan(l.console.buf, l.console.len, &r), 0);
	assert_true(r->finished);
	assert_true(r->rebooted);
	assert_null(r->crash);
	console_report_free(r);
	lava_log_release(&l);
	strbuf_release(&sb);
}

#define RESULT "{\"lvl\": \"results\", \"msg\": {\"case\": \"job\", \"definition\": \"lava\", " \
	       "\"result\": \"pass\"}}\n"

static void test_server_sequence_and_yaml_styles(void **state)
{
	struct lava_log l = LAVA_LOG_INIT;

	(void)state;
	/* YAML's escapes, as a server may send them: \r and ESC sequences go. */
	assert_int_equal(parse(&l, "- {dt: '2026', lvl: target, msg: 'it''s '}\n"
				   "- {lvl: target, msg: \"\\r\\e[2Jup\\r\"}\n"
				   "- {\"lvl\": \"feedback\", \"msg\": \"not yet\"}\n"
				   "- {\"lvl\": \"target\", \"msg\": \"# fpubench: done\"}\n"
				   "- {\"lvl\": \"feedback\", \"msg\": \"after\\ec\"}\n"
				   "- {\"lvl\": \"debug\", \"msg\": {\"a\": 1}}\n"
				   "- " RESULT "\n"),
			 0);
	assert_string_equal(l.console.buf, "it's \nup\n# fpubench: done\nafter\n");
	assert_int_equal(l.console_lines, 4);
	lava_log_release(&l);
}

static void test_bad_logs_name_the_job(void **state)
{
	static const struct {
		const char *log, *error;
	} bad[] = {
		{ "{\"lvl\": \"target\", \"msg\": \"x\"}\nnot yaml: [\n" RESULT,
		  "LAVA job '7' log line 2 is not a YAML mapping" },
		{ "[1, 2]\n" RESULT, "LAVA job '7' log line 1 is not a YAML mapping" },
		{ "{\"msg\": \"no level\"}\n" RESULT, "LAVA job '7' log line 1 is not a YAML mapping" },
		{ "{\"lvl\": \"target\", \"msg\": \"x\"}\n{\"lvl\": \"tar",
		  "LAVA job '7' log line 2 is not a YAML mapping" },
		{ "{\"lvl\": \"target\", \"msg\": \"x\"}\n", "LAVA job '7' log has no job result (truncated)" },
		{ RESULT, "LAVA job '7' log has no console output" },
		{ "", "LAVA job '7' log has no job result (truncated)" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct lava_log l = LAVA_LOG_INIT;

		assert_int_equal(parse(&l, bad[i].log), ERR_INPUT);
		assert_string_equal(error_last(), bad[i].error);
		lava_log_release(&l);
	}
}

/* A lab's failure keeps LAVA's word for the caller, even when the log has no console. */
static void test_infrastructure_without_console(void **state)
{
	struct lava_log l = LAVA_LOG_INIT;

	(void)state;
	assert_int_equal(parse(&l, "{\"lvl\": \"results\", \"msg\": {\"case\": \"job\", \"definition\": "
				   "\"lava\", \"result\": \"fail\", \"error_type\": \"Infrastructure\", "
				   "\"error_msg\": \"Device\\x07 offline\"}}\n"),
			 ERR_INPUT);
	assert_string_equal(l.error_type, "Infrastructure");
	assert_string_equal(l.error_msg, "Device? offline");
	lava_log_release(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_pass),
		cmocka_unit_test(test_real_crash),
		cmocka_unit_test(test_real_done_in_feedback),
		cmocka_unit_test(test_server_sequence_and_yaml_styles),
		cmocka_unit_test(test_bad_logs_name_the_job),
		cmocka_unit_test(test_infrastructure_without_console),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
