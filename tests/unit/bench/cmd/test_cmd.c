/*
 * cmd_prepare()'s defaults for the user's files: results and the history
 * in the XDG data directory, a history an earlier version kept in the
 * cache used where it is, and data beside the executable asked for only by
 * the commands that build (this test's binary has none beside it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "boot/errors.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "lib/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct fixture {
	char dir[64];
	char *data, *cache;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	strcpy(fx->dir, "/tmp/fpubench-test-cmd.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	fx->data = xasprintf("%s/data", fx->dir);
	fx->cache = xasprintf("%s/cache", fx->dir);
	setenv("XDG_DATA_HOME", fx->data, 1);
	setenv("FPUBENCH_CACHE", fx->cache, 1);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	const char *rm[] = { "rm", "-rf", fx->dir, NULL };

	spawn_run(rm, NULL, NULL, NULL);
	free(fx->data);
	free(fx->cache);
	free(fx);
	return 0;
}

static void test_user_defaults(void **state)
{
	struct fixture *fx = *state;
	struct options o = { .command = CMD_HISTORY };
	char *history = xasprintf("%s/fpubench/history.db", fx->data);

	assert_int_equal(cmd_prepare(&o, NULL), 0);
	assert_string_equal(o.history, history);
	assert_string_equal(o.cache, fx->cache);
	cmd_release(&o);
	free(history);
}

static void test_history_in_the_cache_is_used_where_it_is(void **state)
{
	struct fixture *fx = *state;
	struct options o = { .command = CMD_HISTORY };
	char *old = xasprintf("%s/history.db", fx->cache);
	char *dir = xasprintf("%s/fpubench", fx->data);
	char *history = xasprintf("%s/history.db", dir);

	assert_int_equal(dir_create(fx->cache, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(old, "", 0), 0);
	assert_int_equal(cmd_prepare(&o, NULL), 0);
	assert_string_equal(o.history, old);
	cmd_release(&o);

	/* Once the data directory has one, that one. */
	o = (struct options){ .command = CMD_HISTORY };
	assert_int_equal(dir_create(dir, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(history, "", 0), 0);
	assert_int_equal(cmd_prepare(&o, NULL), 0);
	assert_string_equal(o.history, history);
	cmd_release(&o);
	free(history);
	free(dir);
	free(old);
}

/* test builds and boots: it needs the data this binary does not have beside it. */
static void test_building_commands_need_the_data(void **state)
{
	struct fixture *fx = *state;
	struct options o = { .command = CMD_TEST };
	char *results = xasprintf("%s/fpubench/results", fx->data);

	assert_int_equal(cmd_prepare(&o, NULL), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "no fpubench data beside"));
	assert_string_equal(o.results, results);
	cmd_release(&o);
	free(results);
}

/* One table of exit statuses for every command: lib/error.h's codes and the boot stage's. */
static void test_exit_statuses(void **state)
{
	const int codes[] = { ERR_NOTFOUND, ERR_CONFIG, ERR_CPU, ERR_CACHE, ERR_LIBVIRT,
			      ERR_USAGE, ERR_GENERIC };

	(void)state;
	assert_int_equal(cmd_exit_status(0), EXIT_OK);
	/* git bisect run: 125 skips, 128 and up aborts. */
	assert_int_equal(cmd_exit_status(ERR_APPLY), 125);
	assert_int_equal(cmd_exit_status(ERR_BUILD), 125);
	assert_int_equal(cmd_exit_status(ERR_USAGE), 129);
	assert_int_equal(cmd_exit_status(ERR_CPU), 132);
	assert_int_equal(cmd_exit_status(ERR_LIBVIRT), 134);
	assert_true(cmd_exit_status(ERR_GENERIC) >= 128);
	/* A missing input and a malformed one are both bad input; every other kind has its own status. */
	assert_int_equal(cmd_exit_status(ERR_NOTFOUND), 128);
	assert_int_equal(cmd_exit_status(ERR_INPUT), 128);
	for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
		for (size_t j = i + 1; j < ARRAY_SIZE(codes); j++)
			assert_int_not_equal(cmd_exit_status(codes[i]), cmd_exit_status(codes[j]));
	/* lib's table knows none of a stage's codes. */
	assert_int_equal(error_exit_status(ERR_LIBVIRT), EXIT_INTERNAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_statuses),
		cmocka_unit_test_setup_teardown(test_user_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history_in_the_cache_is_used_where_it_is, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_building_commands_need_the_data, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
