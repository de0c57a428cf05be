/* console --rules: the title table printed from crash_rule_get(), every row, aligned. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "judge/crash.h"
#include "lib/error.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Runs `fpubench console ARGS...` with stdout in *out; returns the exit status. */
static int console(const char *const *args, struct strbuf *out)
{
	char *argv[8] = { "fpubench", "console" };
	int argc = 2, saved, status;
	FILE *f = tmpfile();
	char buf[4096];
	size_t n;

	assert_non_null(f);
	while (args[argc - 2]) {
		argv[argc] = (char *)args[argc - 2];
		argc++;
	}
	fflush(stdout);
	saved = dup(1);
	dup2(fileno(f), 1);
	status = cmd_main(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(out, buf, n);
	fclose(f);
	return status;
}

/* The line of text that starts at p, copied into line. */
static const char *next_line(const char *p, char *line, size_t size)
{
	size_t n = strcspn(p, "\n");

	assert_true(n < size);
	memcpy(line, p, n);
	line[n] = '\0';
	return p[n] ? p + n + 1 : p + n;
}

/* A row's title starts at the header's title column and stands alone there. */
static bool row_has_title(const char *line, size_t column, const char *title)
{
	size_t n = strlen(title);

	return strlen(line) >= column + n && strncmp(line + column, title, n) == 0 &&
	       (line[column + n] == ' ' || line[column + n] == '\0') &&
	       (column == 0 || line[column - 1] == ' ');
}

static void test_every_rule_is_a_row_in_order(void **state)
{
	const char *args[] = { "--rules", NULL };
	struct strbuf out = STRBUF_INIT;
	struct crash_rule r;
	char line[512];
	const char *p, *column;
	size_t title_at, rows = 0;

	(void)state;
	assert_int_equal(console(args, &out), 0);
	p = next_line(out.buf, line, sizeof(line));
	assert_true(strncmp(line, "A REPORT BEGINS WITH", 20) == 0);
	assert_non_null(column = strstr(line, "ITS TITLE"));
	assert_non_null(strstr(line, "THE RULE ALSO SKIPS"));
	title_at = (size_t)(column - line);
	for (size_t i = 0; crash_rule_get(i, &r); i++) {
		char begins[sizeof(r.begins) + 4];

		snprintf(begins, sizeof(begins), "%s%s", r.start ? "[^] " : "", r.begins);
		do {
			assert_true(*p);
			p = next_line(p, line, sizeof(line));
		} while (!row_has_title(line, title_at, r.title));
		/* The row begins with the rule's text (wrapped only after its first 20 bytes). */
		assert_memory_equal(line, begins, strlen(begins) < 20 ? strlen(begins) : 20);
		rows++;
	}
	assert_true(rows > 100);
	assert_non_null(strstr(p, "The first rule that matches wins"));
	strbuf_release(&out);
}

static void test_a_known_row(void **state)
{
	const char *args[] = { "--rules", NULL };
	struct strbuf out = STRBUF_INIT;
	const char *row;

	(void)state;
	assert_int_equal(console(args, &out), 0);
	/* crash_formats[]' soft lockup: named by the frame before the dispatcher. */
	assert_non_null(row = strstr(out.buf, "\nBUG: soft lockup "));
	assert_non_null(strstr(row, "BUG: soft lockup in %F"));
	assert_true(strstr(row, "BUG: soft lockup in %F") < strchr(row + 1, '\n'));
	assert_true(strstr(row, "the frames from the dispatcher") < strchr(row + 1, '\n'));
	assert_non_null(strstr(out.buf, "\nany other die() line: STR: 0000 [#1]"));
	strbuf_release(&out);
}

static void test_rules_take_no_log(void **state)
{
	const char *args[] = { "--rules", "serial.log", NULL };
	struct strbuf out = STRBUF_INIT;

	(void)state;
	assert_int_equal(console(args, &out), EXIT_USAGE);
	assert_int_equal(out.len, 0);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_rule_is_a_row_in_order),
		cmocka_unit_test(test_a_known_row),
		cmocka_unit_test(test_rules_take_no_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
