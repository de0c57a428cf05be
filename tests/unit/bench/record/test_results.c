#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/cpu.h"
#include "lib/fileutil.h"
#include "record/results.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct matrix_kernel unpatched = { "unpatched", "/b", "5abf01bc", "05bc58f1" };

struct two_cells {
	struct cpu_setup fsave, fxsave;
	struct matrix_cell cells[2];
	struct matrix m;
};

static void make_cells(struct two_cells *t)
{
	assert_int_equal(cpu_setup_parse(&t->fsave, "pentium3:nofxsr"), 0);
	assert_int_equal(cpu_setup_parse(&t->fxsave, "qemu32"), 0);
	memset(t->cells, 0, sizeof(t->cells));
	t->cells[0] = (struct matrix_cell){
		.kernel = &unpatched, .cpu = &t->fsave, .test = "fpu_seed",
		.status = VERDICT_CRASH, .expected = VERDICT_CRASH, .met = true,
		.crash = "fpu exception in save_fpregs_to_fpstate",
		.reason = "the guest ended \"while\" it ran", .console = "console/x.log",
		.fpu_mode = "FSAVE", .duration_s = 1.25,
	};
	t->cells[1] = (struct matrix_cell){
		.kernel = &unpatched, .cpu = &t->fxsave, .test = "fpu_seed",
		.status = VERDICT_SKIP, .expected = VERDICT_PASS, .met = true,
		.reason = "needs\nSSE3 # really", .fpu_mode = "FXSAVE", .duration_s = 0.5,
	};
	t->m = (struct matrix){ .cells = t->cells, .ncells = 2 };
}

static void release_cells(struct two_cells *t)
{
	cpu_setup_release(&t->fsave);
	cpu_setup_release(&t->fxsave);
}

static void test_json_has_every_field(void **state)
{
	struct two_cells t;
	struct strbuf sb = STRBUF_INIT;
	struct results_run run = { .id = "r1" };

	(void)state;
	make_cells(&t);
	results_format_json(&sb, &run, &t.m);
	assert_non_null(strstr(sb.buf, "\"kernel\": \"unpatched\""));
	assert_non_null(strstr(sb.buf, "\"commit\": \"5abf01bc\""));
	/* cpu is the part before the colon, cmdline the part after it. */
	assert_non_null(strstr(sb.buf, "\"cpu\": \"pentium3\",\n    \"cmdline\": \"nofxsr\""));
	assert_non_null(strstr(sb.buf, "\"cpu\": \"qemu32\",\n    \"cmdline\": \"\""));
	assert_non_null(strstr(sb.buf, "\"status\": \"crash\""));
	assert_non_null(strstr(sb.buf, "\"crash\": \"fpu exception in save_fpregs_to_fpstate\""));
	assert_non_null(strstr(sb.buf, "\"crash\": null"));
	assert_non_null(strstr(sb.buf, "\"expected\": \"crash\""));
	assert_non_null(strstr(sb.buf, "\"duration_s\": 1.250"));
	assert_non_null(strstr(sb.buf, "\"reason\": \"the guest ended \\\"while\\\" it ran\""));
	assert_non_null(strstr(sb.buf, "\"reason\": \"needs\\nSSE3 # really\""));
	assert_true(sb.buf[0] == '[' && sb.buf[sb.len - 2] == ']');
	strbuf_release(&sb);
	release_cells(&t);
}

static void test_ktap_has_one_subtest_per_cell(void **state)
{
	struct two_cells t;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_cells(&t);
	results_format_ktap(&sb, &t.m);
	assert_true(strncmp(sb.buf, "KTAP version 1\n1..1\n    KTAP version 1\n    1..2\n", 48) == 0);
	assert_non_null(strstr(sb.buf, "    not ok 1 unpatched.pentium3:nofxsr.fpu_seed\n"
				       "    # crash: fpu exception in save_fpregs_to_fpstate"));
	/* A reason on several lines, or with '#', stays one directive. */
	assert_non_null(strstr(sb.buf, "    ok 2 unpatched.qemu32.fpu_seed # SKIP needs SSE3   really\n"));
	assert_non_null(strstr(sb.buf, "\nok 1 fpubench\n"));
	t.cells[1].met = false;
	strbuf_reset(&sb);
	results_format_ktap(&sb, &t.m);
	assert_non_null(strstr(sb.buf, "\nnot ok 1 fpubench\n"));
	strbuf_release(&sb);
	release_cells(&t);
}

static void test_write_makes_all_files(void **state)
{
	struct two_cells t;
	const struct matrix_host hosts[] = { { .uri = "test:///default", .jobs = 2 } };
	struct results_run run = { .id = "r1", .command = "run", .started = "s", .finished = "f",
				   .hosts = hosts, .nhosts = 1 };
	char dir[] = "/tmp/fpubench-test-results.XXXXXX";
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	make_cells(&t);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(results_write(dir, &run, &t.m), 0);
	char *json = xasprintf("%s/results.json", dir), *ktap = xasprintf("%s/results.ktap", dir);
	char *runj = xasprintf("%s/run.json", dir);
	assert_true(file_exists(json) && file_exists(ktap));
	assert_int_equal(file_read(runj, &sb), 0);
	assert_non_null(strstr(sb.buf, "\"complete\": true"));
	assert_non_null(strstr(sb.buf, "\"met\": 2"));
	assert_non_null(strstr(sb.buf, "\"hosts\": [\n    {\n      \"uri\": \"test:///default\",\n      \"jobs\": 2\n    }\n  ]"));
	unlink(json);
	unlink(ktap);
	unlink(runj);
	rmdir(dir);
	free(json);
	free(ktap);
	free(runj);
	strbuf_release(&sb);
	release_cells(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_has_every_field),
		cmocka_unit_test(test_ktap_has_one_subtest_per_cell),
		cmocka_unit_test(test_write_makes_all_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
