/*
 * bisect.json: what `fpubench bisect` writes, read back as a nightly run
 * reads it, and the malformed files that reading refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "bisect/bisect_json.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "test_json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GOOD "1111111111111111111111111111111111111111"
#define BAD "2222222222222222222222222222222222222222"
#define STEP1 "3333333333333333333333333333333333333333"
#define STEP2 "4444444444444444444444444444444444444444"
#define REVERT "5555555555555555555555555555555555555555"

struct fixture {
	char dir[64];
	char *path;
	struct bisect_step good_end, bad_end, steps[2];
	struct bisect b;
	struct bisect_verification v;
};

static struct bisect_step step(const char *hex, const char *subject, enum bisect_verdict verdict,
			       int runs, int failed_runs, const char *note)
{
	struct bisect_step st = { .subject = (char *)subject, .verdict = verdict, .runs = runs,
				  .failed_runs = failed_runs, .note = (char *)note, .build_s = 61.25,
				  .test_s = 9.96 };

	assert_int_equal(git_oid_fromstr(&st.commit, hex), 0);
	return st;
}

/* Three boots a step; STEP1 is the culprit, and BAD failed two of its three. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/fpubench-test-bisect-json.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->path = xasprintf("%s/bisect.json", f->dir);
	f->good_end = step(GOOD, "x86/fpu: the good end", BISECT_GOOD, 3, 0, NULL);
	f->bad_end = step(BAD, "the bad end \"quoted\"", BISECT_BAD, 3, 2, "pentium3 fpu_seed crash");
	f->steps[0] = step(STEP1, "x86/fpu: the culprit", BISECT_BAD, 3, 3, "pentium3 fpu_seed crash");
	f->steps[1] = step(STEP2, NULL, BISECT_SKIP, 1, 0, "does not build: \x01 \xff");
	f->b = (struct bisect){ .steps = f->steps, .nsteps = 2, .found = true,
				.culprit = f->steps[0].commit };
	f->v = (struct bisect_verification){ .parent = f->good_end, .culprit = f->steps[0],
					     .revert = step(REVERT, "Revert", BISECT_GOOD, 3, 0, NULL),
					     .have_parent = true, .reverts_cleanly = true,
					     .have_revert = true };
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	rmdir(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static struct json_object *read_document(const struct fixture *f)
{
	struct strbuf sb = STRBUF_INIT;
	struct json_object *doc;

	assert_int_equal(file_read(f->path, &sb), 0);
	doc = test_json_parse(sb.buf);
	strbuf_release(&sb);
	return doc;
}

static void test_a_culprit_round_trip(void **state)
{
	struct fixture *f = *state;
	struct bisect_json_summary got;

	assert_int_equal(bisect_json_write(f->path, &f->b, &f->good_end, &f->bad_end, &f->v,
					   "{\"commit\": \"" STEP1 "\", \"links\": []}"), 0);
	struct json_object *doc = read_document(f);
	/* A good verdict's confidence: 5 of 6 boots failed where the bug was seen. */
	test_json_expect(doc, "/good", "{\"commit\": \"" GOOD "\", \"subject\": \"x86/fpu: the good end\", "
			 "\"verdict\": \"good\", \"runs\": 3, \"failed_runs\": 0, \"mixed\": false, "
			 "\"build_s\": 61.2, \"test_s\": 10.0, \"note\": null, \"confidence\": 0.9954}");
	test_json_expect(doc, "/bad", "{\"commit\": \"" BAD "\", \"subject\": \"the bad end \\\"quoted\\\"\", "
			 "\"verdict\": \"bad\", \"runs\": 3, \"failed_runs\": 2, \"mixed\": true, "
			 "\"build_s\": 61.2, \"test_s\": 10.0, \"note\": \"pentium3 fpu_seed crash\"}");
	test_json_expect(doc, "/steps/0/verdict", "\"bad\"");
	test_json_expect(doc, "/steps/0/mixed", "false");
	/* No subject is an empty one; a note's broken bytes still make valid JSON. */
	test_json_expect(doc, "/steps/1", "{\"commit\": \"" STEP2 "\", \"subject\": \"\", "
			 "\"verdict\": \"skip\", \"runs\": 1, \"failed_runs\": 0, \"mixed\": false, "
			 "\"build_s\": 61.2, \"test_s\": 10.0, "
			 "\"note\": \"does not build: \\u0001 \\ufffd\"}");
	test_json_expect(doc, "/step_count", "2");
	test_json_expect(doc, "/culprit", "\"" STEP1 "\"");
	test_json_expect(doc, "/culprit_provenance", "{\"commit\": \"" STEP1 "\", \"links\": []}");
	test_json_expect(doc, "/range", "[]");
	test_json_expect(doc, "/verification/reverts_cleanly", "true");
	test_json_expect(doc, "/verification/parent_passes/ok", "true");
	/* In a verification a good step's confidence is 0: it is no bisection step. */
	test_json_expect(doc, "/verification/parent_passes/step/confidence", "0.0");
	test_json_expect(doc, "/verification/culprit_fails/ok", "true");
	test_json_expect(doc, "/verification/culprit_fails/step/commit", "\"" STEP1 "\"");
	test_json_expect(doc, "/verification/revert_passes/step/commit", "\"" REVERT "\"");
	json_object_put(doc);

	assert_int_equal(bisect_json_read(&got, f->path), 0);
	assert_string_equal(got.culprit, STEP1);
	assert_float_equal(got.confidence, bisect_confidence(3, 5, 6), 1e-4);
}

/* Skips left a range: no culprit and no verification; the ends still say what they gave. */
static void test_a_range_round_trip(void **state)
{
	struct fixture *f = *state;
	struct bisect_verification none = { 0 };
	struct bisect_json_summary got;

	f->b.found = false;
	f->b.range = (git_oid[]){ f->steps[1].commit, f->steps[0].commit };
	f->b.nrange = 2;
	assert_int_equal(bisect_json_write(f->path, &f->b, &f->good_end, &f->bad_end, &none, NULL), 0);
	struct json_object *doc = read_document(f);
	test_json_expect(doc, "/culprit", "null");
	test_json_expect(doc, "/culprit_provenance", "null");
	test_json_expect(doc, "/range", "[\"" STEP2 "\", \"" STEP1 "\"]");
	test_json_expect(doc, "/verification", "{\"reverts_cleanly\": null, \"parent_passes\": null, "
			 "\"culprit_fails\": null, \"revert_passes\": null}");
	json_object_put(doc);

	assert_int_equal(bisect_json_read(&got, f->path), 0);
	assert_string_equal(got.culprit, "");
	assert_float_equal(got.confidence, bisect_confidence(3, 5, 6), 1e-4);
}

/* Writes text as bisect.json; reading it must fail with one message naming the file. */
static void expect_malformed(const struct fixture *f, const char *text, const char *why)
{
	struct bisect_json_summary got;
	char *message = xasprintf("malformed bisect result '%s': %s", f->path, why);

	assert_int_equal(file_write_atomic(f->path, text, strlen(text)), 0);
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(bisect_json_read(&got, f->path), ERR_INPUT);
	assert_string_equal(error_last(), message);
	assert_string_equal(got.culprit, "");
	assert_true(got.confidence == 0);
	free(message);
}

static void test_malformed_results_are_named(void **state)
{
	struct fixture *f = *state;
	struct bisect_json_summary got;

	assert_int_equal(bisect_json_read(&got, f->path), ERR_NOTFOUND);
	expect_malformed(f, "{\"culprit\": null, \"good\": {", "unexpected end of data");
	expect_malformed(f, "[]", "not a JSON object");
	expect_malformed(f, "{\"good\": {}}", "no culprit");
	expect_malformed(f, "{\"culprit\": \"" STEP1 "x\", \"good\": {}}",
			 "the culprit is neither a commit nor null");
	expect_malformed(f, "{\"culprit\": \"" STEP1 "\"}", "no good end");
	expect_malformed(f, "{\"culprit\": \"" STEP1 "\", \"good\": {\"confidence\": \"high\"}}",
			 "the good end's confidence is not a number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_culprit_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_range_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_results_are_named, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
