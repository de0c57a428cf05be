/*
 * The progress line on a terminal (a pty of the test's own) stays one row
 * of it; elsewhere it is plain lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/progress.h"

#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* What the terminal received: the bytes written to the pty so far. */
static size_t pty_read(int master, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size - 1 && (r = read(master, buf + n, size - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	return n;
}

static void test_a_long_line_is_cut_to_the_terminal(void **state)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 40 };
	int master, slave;
	char buf[4096], *row, *save;
	struct progress p;
	FILE *f;

	(void)state;
	assert_int_equal(openpty(&master, &slave, NULL, NULL, &ws), 0);
	f = fdopen(slave, "w");
	assert_non_null(f);
	progress_init(&p, f, "booting");
	assert_true(p.tty);
	progress_update(&p, -1, "%s", "12 of 14 boots done, 180 cells, 2 not as expected");
	progress_update(&p, -1, "%s", "13 of 14 boots done, 195 cells, 2 not as expected");
	progress_end(&p);
	fclose(f);
	pty_read(master, buf, sizeof(buf));
	close(master);

	/* Each redraw starts with \r; none of them may pass 39 columns. */
	size_t redraws = 0;
	for (row = strtok_r(buf, "\r\n", &save); row; row = strtok_r(NULL, "\r\n", &save)) {
		char *clear = strstr(row, "\033[K");

		if (clear)
			*clear = '\0';
		assert_true(strlen(row) <= 39);
		redraws++;
	}
	assert_true(redraws >= 2);
}

static void test_a_file_gets_whole_lines(void **state)
{
	char *text = NULL;
	size_t size = 0;
	struct progress p;
	FILE *f = open_memstream(&text, &size);

	(void)state;
	progress_init(&p, f, "building");
	assert_false(p.tty);
	progress_update(&p, -1, "%s", "patched: 1234 objects compiled, a line longer than any terminal "
		       "is wide, which a log keeps whole");
	progress_end(&p);
	fclose(f);
	assert_string_equal(text, "building: patched: 1234 objects compiled, a line longer than any "
			    "terminal is wide, which a log keeps whole\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_long_line_is_cut_to_the_terminal),
		cmocka_unit_test(test_a_file_gets_whole_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
