/* The command line's option table: parsing, errors that name the option, help. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmd/options.h"
#include "lib/array.h"
#include "lib/error.h"

#include <stdio.h>
#include <string.h>

static int parse(struct options *o, enum cmd cmd, const char *const *args)
{
	char *argv[32] = { "cmd" };
	int argc = 1;

	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	memset(o, 0, sizeof(*o));
	return options_parse(o, cmd, argc, argv);
}

static void test_values_in_every_spelling(void **state)
{
	const char *args[] = { "--cpu", "486", "--cpu=qemu32", "-j4", "--tim", "2.5", "-p", "-",
			       "--append", "console=ttyS0,115200", "--", "--not-an-option", NULL };
	struct options o;

	(void)state;
	assert_int_equal(parse(&o, CMD_TEST, args), 0);
	assert_int_equal(o.cpus.n, 2);
	assert_string_equal(o.cpus.v[1], "qemu32");
	assert_int_equal(o.jobs, 4);
	assert_true(o.timeout_s == 2.5);
	assert_string_equal(o.patch_files.v[0], "-");
	assert_string_equal(o.append, "console=ttyS0,115200");
	assert_int_equal(o.operands.n, 1);
	assert_string_equal(o.operands.v[0], "--not-an-option");
	options_release(&o);
}

static void test_errors_name_the_option(void **state)
{
	static const struct {
		enum cmd cmd;
		const char *args[3];
		const char *message;
	} cases[] = {
		{ CMD_TEST, { "-x", NULL }, "unknown option '-x'" },
		{ CMD_TEST, { "--frobnicate", NULL }, "unknown option '--frobnicate'" },
		{ CMD_TEST, { "--jobs", NULL }, "option '--jobs' needs a value" },
		{ CMD_TEST, { "-j", NULL }, "option '-j' needs a value" },
		{ CMD_TEST, { "--t", "x" }, "ambiguous option '--t' (--tree, --test, --tarball, --timeout)" },
		{ CMD_HISTORY, { "--patch", "x" }, "'history' takes no --patch (see 'fpubench history --help')" },
		{ CMD_HISTORY, { "-j2", NULL }, "'history' takes no -j (see 'fpubench history --help')" },
		{ CMD_HISTORY, { "--last", "2.9" }, "bad --last '2.9' (a whole number from 1 to 1000000)" },
		{ CMD_HISTORY, { "--last", "nan" }, "bad --last 'nan' (a whole number from 1 to 1000000)" },
		{ CMD_TEST, { "--jobs", "1e10" }, "bad --jobs '1e10' (a whole number from 1 to 1024)" },
		{ CMD_TEST, { "--jobs", "99999999999999999999" },
		  "bad --jobs '99999999999999999999' (a whole number from 1 to 1024)" },
		{ CMD_TEST, { "--jobs", "-3" }, "bad --jobs '-3' (a whole number from 1 to 1024)" },
		{ CMD_TEST, { "--timeout", "inf" }, "bad --timeout 'inf' (seconds, above 0 and at most 86400)" },
		{ CMD_TEST, { "--timeout", "0" }, "bad --timeout '0' (seconds, above 0 and at most 86400)" },
		{ CMD_HISTORY, { "--all=yes", NULL }, "option '--all' takes no value" },
	};
	struct options o;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(parse(&o, cases[i].cmd, cases[i].args), ERR_USAGE);
		assert_string_equal(error_last(), cases[i].message);
		options_release(&o);
	}
}

static void test_strict_numbers(void **state)
{
	long v;

	(void)state;
	assert_int_equal(options_parse_long("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(options_parse_long(" 42", 1, 100, &v), -1);
	assert_int_equal(options_parse_long("+42", 1, 100, &v), -1);
	assert_int_equal(options_parse_long("42 ", 1, 100, &v), -1);
	assert_int_equal(options_parse_long("101", 1, 100, &v), -1);
	assert_int_equal(options_parse_long("", 1, 100, &v), -1);
	assert_int_equal(options_parse_long("-5", -10, 10, &v), 0);
	assert_int_equal(v, -5);
}

/* --help comes from the table: a command lists its options and no other's. */
static void test_help_from_the_table(void **state)
{
	char buf[16384] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	options_print_help(f, CMD_HISTORY);
	fclose(f);
	assert_non_null(strstr(buf, "usage: fpubench history"));
	assert_non_null(strstr(buf, "--last N"));
	assert_non_null(strstr(buf, "--cpu SETUP"));
	assert_null(strstr(buf, "--patch"));
	assert_null(strstr(buf, "--jobs"));
	assert_int_equal(options_command("bisect"), CMD_BISECT);
	assert_int_equal(options_command("bisec"), 0);
}

/* --dump-options, what the man pages and the completion are made from, holds each command's rows. */
static void test_dump_holds_every_row(void **state)
{
	static const enum cmd cmds[] = { CMD_RUN, CMD_TEST, CMD_BISECT, CMD_HISTORY, CMD_CONSOLE,
					 CMD_PROVENANCE };
	static char dump[65536], help[16384];
	FILE *f = fmemopen(dump, sizeof(dump) - 1, "w");

	(void)state;
	options_dump(f);
	fclose(f);
	assert_non_null(strstr(dump, "command\tconsole\tfind and title the crash reports"));
	assert_non_null(strstr(dump, "\nusage\tconsole\tfpubench console --rules\n"));
	assert_non_null(strstr(dump, "\noption\ttest\t-p\t--patch\tFILE\tapply this patch"));
	assert_non_null(strstr(dump, "\noption\tconsole\t\t--rules\t\tprint the rules"));
	assert_null(strstr(dump, "\noption\thistory\t-p\t"));
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		const char *name = NULL, *p = help;
		char prefix[32];
		size_t in_help = 0, in_dump = 0;

		f = fmemopen(help, sizeof(help) - 1, "w");
		options_print_help(f, cmds[i]);
		fclose(f);
		/* An option's line: "  -j, --jobs N" or "      --cpu SETUP", not a wrapped help line. */
		while ((p = strstr(p, "\n  ")) && *(p += 3))
			in_help += strspn(p, " ") <= 4 && p[strspn(p, " ")] == '-';
		for (const char *w = "run\0test\0bisect\0history\0console\0provenance\0"; *w;
		     w += strlen(w) + 1)
			if (options_command(w) == cmds[i])
				name = w;
		snprintf(prefix, sizeof(prefix), "\noption\t%s\t", name);
		for (p = dump; (p = strstr(p, prefix)); p++)
			in_dump++;
		assert_true(in_help > 0);
		assert_int_equal(in_dump, in_help);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_in_every_spelling),
		cmocka_unit_test(test_errors_name_the_option),
		cmocka_unit_test(test_strict_numbers),
		cmocka_unit_test(test_help_from_the_table),
		cmocka_unit_test(test_dump_holds_every_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
