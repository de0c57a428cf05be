#include "cmd.h"

#include "build/payload.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "run/coverage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * --list: the guest's tests as its build lists them, each with the upstream
 * commits it guards ("-": none) and the contract, then its functions.
 */
static int list_tests(const struct options *o)
{
	struct payload_test *tests;
	size_t n;
	int err = payload_read_tests(o->guest_dir, &tests, &n);

	for (size_t i = 0; i < n && !err; i++) {
		char *commits = payload_test_tag(&tests[i], "linux-git");
		char *functions = payload_test_tag(&tests[i], "function");

		printf("%-18s %-28s %s\n", tests[i].name, *commits ? commits : "-", tests[i].guards);
		if (*functions)
			printf("%-18s %-28s functions: %s\n", "", "", functions);
		free(commits);
		free(functions);
	}
	payload_tests_free(tests, n);
	return err;
}

/*
 * `--patch -`: standard input, kept in a file of its own for the tree to
 * apply; *path is that file's name (caller unlinks and frees).
 */
static int patch_from_stdin(char **path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;
	int err = 0;

	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		strbuf_add(&sb, buf, n);
	if (ferror(stdin))
		err = error_set_errno(ERR_NOTFOUND, "cannot read patch '-' from standard input");
	if (!err) {
		char *name = xasprintf("fpubench-stdin-%ld.patch", (long)getpid());

		*path = path_temp(name);
		free(name);
		if ((err = file_write_atomic(*path, sb.buf, sb.len)) < 0) {
			free(*path);
			*path = NULL;
		}
	}
	strbuf_release(&sb);
	return err;
}

int cmd_test(struct options *o)
{
	struct session s = { 0 };
	char *stdin_patch = NULL, *append = NULL;
	int err;

	if (o->tree && o->patch_files.n)
		return error_set(ERR_USAGE, "'test' takes --patch or --tree, not both");
	/* The gcov patch goes on top of the series: a tree as it is has none. */
	if (o->tree && o->coverage)
		return error_set(ERR_USAGE, "'test' takes --coverage or --tree, not both");
	if ((err = cmd_prepare(o, NULL)) < 0)
		return err;
	if (o->list)
		return list_tests(o);
	for (size_t i = 0; i < o->patch_files.n; i++) {
		if (strcmp(o->patch_files.v[i], "-") != 0)
			continue;
		if (o->stdin_patch)
			return error_set(ERR_USAGE, "'--patch -' can be given once");
		if ((err = patch_from_stdin(&stdin_patch)) < 0)
			return err;
		o->stdin_patch = stdin_patch;
	}
	s.cfg = cmd_session_config(o, NULL);
	if (o->coverage)
		s.cfg.append = append = coverage_append(o->append);
	err = cmd_matrix(&s, o, NULL);
	session_release(&s);
	if (stdin_patch)
		unlink(stdin_patch);
	free(stdin_patch);
	free(append);
	return err;
}

static const struct opt test_options[] = {
	OPT_ROW_CPU,
	OPT_ROW_APPEND,
	OPT_ROW_URI,
	OPT_ROW_LAB,
	{ "patch", 'p', "FILE", OPT_LIST, OPT_FIELD(patch_files), 0, 0,
	  "apply this patch on top of \"patched\" (git format-patch mail, git diff or "
	  "diff -u at -p1; - reads standard input); repeatable, in order" },
	{ "tree", 0, "DIR", OPT_STRING, OPT_FIELD(tree), 0, 0,
	  "build the kernel tree DIR as it is checked out, no series (for git bisect run)" },
	{ "coverage", 0, "DIR", OPT_STRING, OPT_FIELD(coverage), 0, 0,
	  "build the kernel with gcov on its FPU code as a variant of its own and write the "
	  "lines each setup runs to DIR: lcov tracefiles, HTML and summary.txt" },
	{ "list", 0, NULL, OPT_FLAG, OPT_FIELD(list), 0, 0,
	  "list the guest tests, the commits each guards, its contract and its functions" },
	OPT_ROW_TEST,
	OPT_ROWS_MATRIX,
	OPT_END,
};

const struct command_def cmd_test_def = {
	CMD_TEST, "test", "fpubench test [OPTION]... [--patch FILE]... | --tree DIR | --list",
	"test a patch, or a kernel tree as it is (for git bisect run)",
	"Builds \"patched\" with the given patches on top (or the kernel tree DIR as it is\n"
	"checked out) and runs the guest tests on every setup. Exits 0 when every cell\n"
	"passed, 1 when one failed, crashed or timed out, 125 when the kernel cannot be\n"
	"tested (git bisect skip), 128 and up on errors (git bisect run stops).",
	test_options, cmd_test, false,
};
