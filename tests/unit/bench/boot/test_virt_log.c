/*
 * libvirt's log lines go to the file virt_log_redirect() names, never to
 * stderr.  The lines the tests provoke are libvirt's own, from its test
 * driver: "error : testNetworkObjFindByName:5414 : Network not found: no
 * network with matching name 'NAME'" (libvirt 9.0, Debian 12).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/virt_log.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

static char dir[] = "/tmp/fpubench-unit-virtlog.XXXXXX";

static void quiet(void *opaque, virErrorPtr err)
{
	(void)opaque;
	(void)err;
}

/* Makes libvirt log one error naming `name`. */
static void provoke(const char *name)
{
	virConnectPtr conn = virConnectOpen("test:///default");

	assert_non_null(conn);
	assert_null(virNetworkLookupByName(conn, name));
	virConnectClose(conn);
}

static char *slurp(const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(file_read(path, &sb), 0);
	free(path);
	return strbuf_detach(&sb);
}

static void test_lines_go_to_the_file_named_last(void **state)
{
	char *a = xasprintf("%s/a.log", dir), *b = xasprintf("%s/b.log", dir);
	char *text, *note;

	(void)state;
	unsetenv("LIBVIRT_LOG_OUTPUTS");
	virt_log_start();
	/* Read once by libvirt, not handed down to a child bench. */
	assert_null(getenv("LIBVIRT_LOG_OUTPUTS"));
	virSetErrorFunc(NULL, quiet);
	note = virt_log_note();
	assert_string_equal(note, "");
	free(note);

	provoke("early");	/* before any file: kept */
	assert_int_equal(virt_log_redirect(a), 0);
	provoke("during-a");
	assert_int_equal(virt_log_redirect(b), 0);
	provoke("during-b");
	assert_int_equal(virt_log_redirect(NULL), 0);

	text = slurp("a.log");
	assert_non_null(strstr(text, "info : libvirt version: "));
	assert_non_null(strstr(text, "error : "));
	assert_non_null(strstr(text, "'early'"));
	assert_non_null(strstr(text, "'during-a'"));
	assert_null(strstr(text, "during-b"));
	free(text);
	text = slurp("b.log");
	assert_non_null(strstr(text, "'during-b'"));
	assert_null(strstr(text, "during-a"));
	free(text);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

static void test_the_note_names_the_file(void **state)
{
	char *path = xasprintf("%s/c.log", dir), *note, *want;

	(void)state;
	assert_int_equal(virt_log_redirect(path), 0);
	note = virt_log_note();
	want = xasprintf(" (libvirt's log: %s)", path);
	assert_string_equal(note, want);
	free(note);
	free(want);
	assert_int_equal(virt_log_redirect(NULL), 0);
	note = virt_log_note();
	assert_string_equal(note, "");
	free(note);
	unlink(path);
	free(path);
}

static void test_a_file_that_cannot_be_opened_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(virt_log_redirect("/no/such/dir/libvirt.log"), ERR_GENERIC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_go_to_the_file_named_last),
		cmocka_unit_test(test_the_note_names_the_file),
		cmocka_unit_test(test_a_file_that_cannot_be_opened_is_an_error),
	};
	int failed;

	if (!mkdtemp(dir))
		return 1;
	/* Nothing of libvirt's reaches stderr: the test's own stderr is checked after. */
	char *err_path = xasprintf("%s/stderr", dir);
	int saved = dup(2), fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	dup2(saved, 2);
	struct strbuf sb = STRBUF_INIT;
	file_read(err_path, &sb);
	fputs(sb.buf, stderr);
	if (strstr(sb.buf, "info : ") || strstr(sb.buf, "warning : ") || strstr(sb.buf, "error : ")) {
		fprintf(stderr, "libvirt wrote to stderr\n");
		failed++;
	}
	strbuf_release(&sb);
	unlink(err_path);
	rmdir(dir);
	free(err_path);
	return failed;
}
