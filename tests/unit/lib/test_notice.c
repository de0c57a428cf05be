#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/notice.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <unistd.h>

static void collect(const char *message, void *ctx)
{
	strbuf_addf(ctx, "[%s]", message);
}

static void test_a_sink_gets_each_notice_whole(void **state)
{
	struct strbuf got = STRBUF_INIT;

	(void)state;
	notice_set_sink(collect, &got);
	notice("extracting %s into %s", "a.tar.xz", "/c/t");
	notice("last lines of %s\n%s--- end of %s", "b.log", "x\ny\n", "b.log");
	notice_set_sink(NULL, NULL);
	assert_string_equal(got.buf, "[extracting a.tar.xz into /c/t][last lines of b.log\nx\ny\n--- end of b.log]");
	strbuf_release(&got);
}

static void test_without_a_sink_notices_go_to_stderr(void **state)
{
	char buf[128] = "";
	FILE *f = tmpfile();
	int saved = dup(2);

	(void)state;
	assert_non_null(f);
	dup2(fileno(f), 2);
	notice("waiting for the cache lock on '%s'", "/c/lock");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "fpubench: waiting for the cache lock on '/c/lock'\n");
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_sink_gets_each_notice_whole),
		cmocka_unit_test(test_without_a_sink_notices_go_to_stderr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
