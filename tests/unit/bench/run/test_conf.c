/*
 * The config file parser: good files, each kind of bad input with its
 * exact message, and the real bench/fpubench.conf against the built-in
 * defaults it must reproduce (cpu.c's setups, the bench's premise).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "run/conf.h"
#include "boot/cpu.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>

/* main() sets it, so that `~/` expands the same everywhere. */
#define HOME "/home/me"

static struct conf *parse_ok(const char *path, const char *text)
{
	struct conf *c = NULL;

	assert_int_equal(conf_parse(&c, path, text, strlen(text)), 0);
	assert_non_null(c);
	return c;
}

static void test_every_section(void **state)
{
	static const char text[] =
		"# a comment\r\n"
		"; another\r\n"
		"\r\n"
		"[run]\r\n"
		"  results = out  \r\n"
		"cache=/var/cache/fpubench\r\n"
		"series = ~/patches\r\n"
		"jobs = 8\r\n"
		"timeout = 12.5\r\n"
		"[tree debian]\r\n"
		"source = debian\r\n"
		"tarball = src/linux.tar.xz\r\n"
		"[tree linus]\r\n"
		"source = git\r\n"
		"repo = /srv/linux\r\n"
		"branch = master\r\n"
		"[ cpu ]\r\n"
		"setup = 486\r\n"
		"setup = pentium3:nofxsr\r\n"
		"[tests]\r\n"
		"test = fpu_seed\r\n"
		"test = fpu_survive\r\n"
		"[expect]\r\n"
		"unpatched fsave fpu_seed = crash\r\n"
		"*\tfxsave  fpu_*   =   skip\r\n"
		"* any * = pass\r\n"
		"[host a]\r\n"
		"uri = qemu:///system\r\n"
		"jobs = 2\r\n"
		"[host b.2]\r\n"
		"uri = qemu+ssh://b/system\r\n"
		"stage = /var/tmp/fpb\r\n";
	struct conf *c;

	(void)state;
	c = parse_ok("/etc/fpubench/x.conf", text);
	assert_string_equal(c->path, "/etc/fpubench/x.conf");
	assert_string_equal(c->results, "/etc/fpubench/out");
	assert_string_equal(c->cache, "/var/cache/fpubench");
	assert_string_equal(c->series, HOME "/patches");
	assert_int_equal(c->jobs, 8);
	assert_true(c->timeout_s == 12.5);

	assert_int_equal(c->ntrees, 2);
	assert_string_equal(c->trees[0].name, "debian");
	assert_int_equal(c->trees[0].source, CONF_TREE_DEBIAN);
	assert_string_equal(c->trees[0].tarball, "/etc/fpubench/src/linux.tar.xz");
	assert_null(c->trees[0].repo);
	assert_string_equal(c->trees[1].name, "linus");
	assert_int_equal(c->trees[1].source, CONF_TREE_GIT);
	assert_string_equal(c->trees[1].repo, "/srv/linux");
	assert_string_equal(c->trees[1].branch, "master");
	assert_null(c->trees[1].tarball);

	assert_int_equal(c->nsetups, 2);
	assert_string_equal(c->setups[0], "486");
	assert_string_equal(c->setups[1], "pentium3:nofxsr");
	assert_int_equal(c->ntests, 2);
	assert_string_equal(c->tests[1], "fpu_survive");

	assert_int_equal(c->nexpects, 3);
	assert_string_equal(c->expects[1].variant, "*");
	assert_int_equal(c->expects[1].fpu, EXPECT_FPU_FXSAVE);
	assert_string_equal(c->expects[1].test, "fpu_*");
	assert_int_equal(c->expects[1].status, VERDICT_SKIP);
	assert_int_equal(expect_find(c->expects, c->nexpects, "unpatched", true, "fpu_seed")->status, VERDICT_CRASH);
	assert_int_equal(expect_find(c->expects, c->nexpects, "unpatched", false, "fpu_seed")->status, VERDICT_SKIP);
	assert_int_equal(expect_find(c->expects, c->nexpects, "patched", true, "fpu_seed")->status, VERDICT_PASS);
	assert_int_equal(expect_find(c->expects, c->nexpects, "patched", false, "x86_test_FCMOV")->status, VERDICT_PASS);

	assert_int_equal(c->nhosts, 2);
	assert_string_equal(c->hosts[0].name, "a");
	assert_string_equal(c->hosts[0].uri, "qemu:///system");
	assert_int_equal(c->hosts[0].jobs, 2);
	assert_string_equal(c->hosts[1].name, "b.2");
	assert_null(c->hosts[0].stage);
	assert_string_equal(c->hosts[1].stage, "/var/tmp/fpb");
	assert_int_equal(c->hosts[1].jobs, 0);
	conf_free(c);
}

static void test_defaults_and_relative_anchors(void **state)
{
	struct conf *c;

	(void)state;
	/* An empty file is a valid one: everything takes its default. */
	c = parse_ok("x.conf", "");
	assert_null(c->results);
	assert_int_equal(c->jobs, 0);
	assert_true(c->timeout_s == 0);
	assert_int_equal(c->nsetups + c->ntests + c->nexpects + c->nhosts, 0);
	assert_int_equal(c->ntrees, 1);
	assert_string_equal(c->trees[0].name, "debian");
	assert_int_equal(c->trees[0].source, CONF_TREE_DEBIAN);
	assert_null(c->trees[0].tarball);
	assert_null(expect_find(c->expects, c->nexpects, "patched", true, "fpu_seed"));
	conf_free(c);

	/* A file in the working directory: relative paths stay relative to it. */
	c = parse_ok("x.conf", "[run]\nresults = out\n");
	assert_string_equal(c->results, "out");
	conf_free(c);
	c = parse_ok("etc/sub/x.conf", "\xef\xbb\xbf[run]\nresults = ../out\ncache = /abs");
	assert_string_equal(c->results, "etc/sub/../out");
	assert_string_equal(c->cache, "/abs");
	conf_free(c);
	c = parse_ok("/x.conf", "[tree t]\nsource = git\nrepo = linux\n");
	assert_string_equal(c->trees[0].repo, "/linux");
	assert_null(c->trees[0].branch);
	conf_free(c);
	conf_free(NULL);
}

struct bad {
	const char *text;
	const char *message;
};

static void test_bad_inputs_name_file_and_line(void **state)
{
	static const struct bad bad[] = {
		{ "[run]\njbos = 4\n", "'x.conf' line 2: unknown key 'jbos' in [run]" },
		{ "[tree a]\nsource = debian\nuri = x\n", "'x.conf' line 3: unknown key 'uri' in [tree a]" },
		{ "[run\n", "'x.conf' line 1: missing ']' in '[run'" },
		{ "[run] # why\n", "'x.conf' line 1: text after ']' in '[run] # why'" },
		{ "[]\n", "'x.conf' line 1: no section name in '[]'" },
		{ "[runs]\n", "'x.conf' line 1: unknown section '[runs]'" },
		{ "[run x]\n", "'x.conf' line 1: expected '[run]'" },
		{ "[tree]\n", "'x.conf' line 1: expected '[tree NAME]'" },
		{ "[host a b]\n", "'x.conf' line 1: expected '[host NAME]'" },
		{ "[tree a/b]\n", "'x.conf' line 1: bad tree name 'a/b' (letters, digits, '.', '_' and '-')" },
		{ "[run]\n[cpu]\n[run]\n", "'x.conf' line 3: section [run] defined twice" },
		{ "jobs = 4\n", "'x.conf' line 1: 'jobs = 4' is before any [section]" },
		{ "[run]\njobs 4\n", "'x.conf' line 2: expected 'KEY = VALUE' in [run], not 'jobs 4'" },
		{ "[run]\n= 4\n", "'x.conf' line 2: no key before '=' in [run]" },
		{ "[run]\nresults =\n", "'x.conf' line 2: key 'results' in [run] has no value" },
		{ "[run]\njobs = 2\n\njobs = 3\n",
		  "'x.conf' line 4: key 'jobs' given twice in [run] (first on line 2)" },
		{ "[tree a]\nsource = debian\nsource = git\n",
		  "'x.conf' line 3: key 'source' given twice in [tree a] (first on line 2)" },
		{ "[run]\nbisect = maybe\n", "'x.conf' line 2: bisect must be yes or no, not 'maybe'" },
		{ "[run]\nbisect-budget = 0\n", "'x.conf' line 2: bad bisect-budget '0' (seconds, above 0)" },
		{ "[report]\nfrom = nobody\n",
		  "'x.conf' line 2: 'from' in [report] is no mail address: 'nobody'" },
		{ "[run]\njobs = four\n", "'x.conf' line 2: bad jobs 'four' in [run] (expected 1 to 1024)" },
		{ "[run]\njobs = 0\n", "'x.conf' line 2: bad jobs '0' in [run] (expected 1 to 1024)" },
		{ "[run]\njobs = -3\n", "'x.conf' line 2: bad jobs '-3' in [run] (expected 1 to 1024)" },
		{ "[run]\njobs = 1025\n", "'x.conf' line 2: bad jobs '1025' in [run] (expected 1 to 1024)" },
		{ "[run]\njobs = 99999999999999999999\n",
		  "'x.conf' line 2: bad jobs '99999999999999999999' in [run] (expected 1 to 1024)" },
		{ "[host h]\nuri = u\njobs = 4 # four\n",
		  "'x.conf' line 3: bad jobs '4 # four' in [host h] (expected 1 to 1024)" },
		{ "[run]\ntimeout = 0\n",
		  "'x.conf' line 2: bad timeout '0' in [run] (expected seconds above 0, at most 86400)" },
		{ "[run]\ntimeout = -1\n",
		  "'x.conf' line 2: bad timeout '-1' in [run] (expected seconds above 0, at most 86400)" },
		{ "[run]\ntimeout = nan\n",
		  "'x.conf' line 2: bad timeout 'nan' in [run] (expected seconds above 0, at most 86400)" },
		{ "[run]\ntimeout = inf\n",
		  "'x.conf' line 2: bad timeout 'inf' in [run] (expected seconds above 0, at most 86400)" },
		{ "[run]\ntimeout = 10s\n",
		  "'x.conf' line 2: bad timeout '10s' in [run] (expected seconds above 0, at most 86400)" },
		{ "[expect]\n* any * = passed\n",
		  "'x.conf' line 2: unknown verdict 'passed' in [expect] "
		  "(expected pass, skip, fail, timeout, crash or error)" },
		{ "[expect]\n* x87 * = pass\n",
		  "'x.conf' line 2: unknown fpu 'x87' in [expect] (expected fsave, fxsave or any)" },
		{ "[expect]\n* * = pass\n", "'x.conf' line 2: expected 'VARIANT FPU TEST = STATUS' in [expect]" },
		{ "[expect]\n* any * * = pass\n",
		  "'x.conf' line 2: expected 'VARIANT FPU TEST = STATUS' in [expect]" },
		{ "[expect]\n* any * pass\n", "'x.conf' line 2: expected 'VARIANT FPU TEST = STATUS' in [expect]" },
		{ "[cpu]\nsetup = 486,fxsr\n",
		  "'x.conf' line 2: cpu setup '486,fxsr': feature 'fxsr' needs a + or - and a name" },
		{ "[cpu]\nsetup = 486\nsetup = 486\n", "'x.conf' line 3: cpu setup '486' listed twice in [cpu]" },
		{ "[tests]\ntest = a\ntest = a\n", "'x.conf' line 3: test 'a' listed twice in [tests]" },
		{ "[tree a]\nsource = svn\n",
		  "'x.conf' line 2: unknown source 'svn' in [tree a] (expected debian or git)" },
		{ "\n[tree a]\ntarball = t\n[cpu]\n", "'x.conf' line 2: tree 'a' has no source (debian or git)" },
		{ "[tree a]\nsource = git\n", "'x.conf' line 1: tree 'a' has source = git but no repo" },
		{ "[tree a]\nsource = git\nrepo = r\ntarball = t\n",
		  "'x.conf' line 4: key 'tarball' in [tree a] is for source = debian" },
		{ "[tree a]\nbranch = main\nsource = debian\n",
		  "'x.conf' line 2: key 'branch' in [tree a] is for source = git" },
		{ "[tree a]\nsource = debian\n[tree a]\nsource = debian\n",
		  "'x.conf' line 3: tree 'a' defined twice" },
		{ "[host a]\njobs = 1\n", "'x.conf' line 1: host 'a' has no uri" },
		{ "[host a]\nuri = u\nstage = tmp\n",
		  "'x.conf' line 3: stage 'tmp' in [host a] is not an absolute path" },
		{ "[host a]\nuri = u\n[host a]\nuri = v\n", "'x.conf' line 3: host 'a' defined twice" },
		{ "[run]\r\nresults = a\rb\r\n", "'x.conf' line 2: control character 0x0d" },
		{ "[run]\nresults = \x1b[31m\n", "'x.conf' line 2: control character 0x1b" },
		{ "[lab l]\njobs = 2\n", "'x.conf' line 1: lab 'l' has no engine (lava-run or rest)" },
		{ "[lab l]\nengine = docker\n",
		  "'x.conf' line 2: unknown engine 'docker' in [lab l] (expected lava-run or rest)" },
		{ "[lab l]\nengine = rest\ntoken-env = T\n",
		  "'x.conf' line 1: lab 'l' has engine = rest but no url" },
		{ "[lab l]\nengine = rest\nurl = http://s/\ntoken = abc\n",
		  "'x.conf' line 4: unknown key 'token' in [lab l]" },
		{ "[lab l]\nengine = rest\nurl = http://s/\ntoken-env = T\ntoken-file = f\n",
		  "'x.conf' line 1: lab 'l' needs one of token-file and token-env" },
		{ "[lab l]\nengine = rest\nurl = ftp://s/\n",
		  "'x.conf' line 3: url 'ftp://s/' in [lab l] is not http:// or https://" },
		{ "[lab l]\nengine = lava-run\nurl = http://s/\n",
		  "'x.conf' line 1: lab 'l' has engine = lava-run, which takes no url nor token" },
		{ "[lab l]\nengine = lava-run\njobs = 0\n",
		  "'x.conf' line 3: bad jobs '0' in [lab l] (expected 1 to 1024)" },
		{ "[lab l]\nengine = lava-run\nengine = rest\n",
		  "'x.conf' line 3: key 'engine' given twice in [lab l]" },
		{ "[lab l]\nengine = lava-run\n[lab l]\n", "'x.conf' line 3: lab 'l' defined twice" },
		{ "[run]\n[lab l]\nengine = lava-run\nboard = b\n",
		  "'x.conf' line 2: lab 'l' names board 'b', which has no [board b]" },
		{ "[board b]\ndevice-type = x86\nboot = ipxe\n",
		  "'x.conf' line 1: board 'b' has no fpu (fsave or fxsave)" },
		{ "[board b]\nfpu = x87\n",
		  "'x.conf' line 2: unknown fpu 'x87' in [board b] (expected fsave or fxsave)" },
		{ "[board b]\nboot = ipxe\nfpu = fsave\n", "'x.conf' line 1: board 'b' has no device-type" },
		{ "[board b]\nboot = u-boot\n",
		  "'x.conf' line 2: unknown boot method 'u-boot' in [board b] (expected ipxe, grub or "
		  "grub-efi)" },
		{ "[run]\n[board b]\ndevice-type = x86\nboot = grub\nfpu = fsave\n",
		  "'x.conf' line 2: board 'b' is in no lab: a [lab] lists it with board = b" },
		{ "[lab l]\nengine = lava-run\nboard = b\n"
		  "[board b]\ndevice-type = x86\nboot = grub\nfpu = fsave\n",
		  "'x.conf' line 1: lab 'l' has engine = lava-run, which boots QEMU only: board 'b' "
		  "needs a server (engine = rest)" },
		{ "[lab l]\nqueue-timeout = 0\n",
		  "'x.conf' line 2: bad queue-timeout '0' in [lab l] (seconds, 1 to 86400)" },
	};
	struct conf *c = NULL;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(conf_parse(&c, "x.conf", bad[i].text, strlen(bad[i].text)), ERR_INPUT);
		assert_string_equal(error_last(), bad[i].message);
		assert_null(c);
	}
}

/* A lab and its board; paths from the config's directory; the token never in the config. */
static void test_lab_and_board(void **state)
{
	const char text[] = "[lab here]\nengine = rest\nurl = https://lava.example/\n"
			    "token-file = token\nartefacts = /srv/a\nartefacts-url = http://f/a\n"
			    "tags = slow  x86\nboard = vx\n"
			    "[board vx]\ndevice-type = vortex86dx\nboot = ipxe\nfpu = fsave\n"
			    "console = ttyS0,38400\n";
	struct conf *c = parse_ok("/etc/fpubench/x.conf", text);
	char *token = NULL;

	(void)state;
	assert_int_equal(c->nlabs, 1);
	assert_int_equal(c->labs[0].engine, CONF_LAB_REST);
	assert_string_equal(c->labs[0].token_file, "/etc/fpubench/token");
	assert_int_equal(c->labs[0].ntags, 2);
	assert_string_equal(c->labs[0].tags[1], "x86");
	assert_string_equal(c->labs[0].boards[0], "vx");
	assert_int_equal(c->nboards, 1);
	assert_int_equal(c->boards[0].fpu, EXPECT_FPU_FSAVE);
	assert_string_equal(c->boards[0].console, "ttyS0,38400");
	assert_int_equal(conf_lab_token(&c->labs[0], &token), ERR_NOTFOUND);
	assert_string_equal(error_last(),
			    "cannot read the token of lab 'here' from '/etc/fpubench/token'");
	assert_null(token);
	conf_free(c);
}

static void test_lab_token_from_environment(void **state)
{
	struct conf_lab lab = { .name = "l", .token_env = "FPUBENCH_TEST_TOKEN" };
	char *token = NULL;

	(void)state;
	unsetenv("FPUBENCH_TEST_TOKEN");
	assert_int_equal(conf_lab_token(&lab, &token), ERR_NOTFOUND);
	assert_string_equal(error_last(), "no token for lab 'l': $FPUBENCH_TEST_TOKEN is not set");
	setenv("FPUBENCH_TEST_TOKEN", "s3cret\n", 1);
	assert_int_equal(conf_lab_token(&lab, &token), 0);
	assert_string_equal(token, "s3cret");
	free(token);
	/* It goes into an HTTP header: a second line would be a header of its own. */
	setenv("FPUBENCH_TEST_TOKEN", "a\r\nX-Evil: 1", 1);
	assert_int_equal(conf_lab_token(&lab, &token), ERR_INPUT);
	assert_null(strstr(error_last(), "Evil"));
	unsetenv("FPUBENCH_TEST_TOKEN");
}

/* A git tree's nightly bisects unless told not to; the mail's sender. */
static void test_bisect_and_report_keys(void **state)
{
	struct conf *c;
	const char text[] = "[run]\nbisect = no\nbisect-budget = 900\n"
			    "[report]\nfrom = Zoë Ünal <zoe@example.org>\narchive = /m/lkml\n"
			    "archive = /m/x86.mbox\n";

	(void)state;
	assert_int_equal(conf_parse(&c, "x.conf", "[run]\n", 6), 0);
	assert_int_equal(c->bisect, CONF_UNSET);
	assert_true(c->bisect_budget_s == 0);
	assert_null(c->report_from);
	conf_free(c);
	assert_int_equal(conf_parse(&c, "x.conf", text, sizeof(text) - 1), 0);
	assert_int_equal(c->bisect, CONF_NO);
	assert_true(c->bisect_budget_s == 900);
	assert_string_equal(c->report_from, "Zoë Ünal <zoe@example.org>");
	assert_int_equal(c->narchives, 2);
	assert_string_equal(c->archives[1], "/m/x86.mbox");
	conf_free(c);
}

static void test_bytes_beyond_text(void **state)
{
	static const char nul[] = "[run]\nresults = a\0b\n";
	struct strbuf big = STRBUF_INIT;
	struct conf *c = NULL;

	(void)state;
	assert_int_equal(conf_parse(&c, "x.conf", nul, sizeof(nul) - 1), ERR_INPUT);
	assert_string_equal(error_last(), "'x.conf' line 2: control character 0x00");

	strbuf_addstr(&big, "[run]\n# ");
	for (int i = 0; i < 4096; i++)
		strbuf_addch(&big, 'x');
	assert_int_equal(conf_parse(&c, "x.conf", big.buf, big.len), ERR_INPUT);
	assert_string_equal(error_last(), "'x.conf' line 2: line longer than 4096 bytes");

	strbuf_reset(&big);
	while (big.len <= 1u << 20)
		strbuf_addstr(&big, "# padding\n");
	assert_int_equal(conf_parse(&c, "x.conf", big.buf, big.len), ERR_INPUT);
	assert_string_equal(error_last(), "'x.conf' is larger than 1 MiB");
	assert_null(c);
	strbuf_release(&big);

	unsetenv("HOME");
	assert_int_equal(conf_parse(&c, "x.conf", "[run]\ncache = ~/c\n", 18), ERR_INPUT);
	assert_string_equal(error_last(), "'x.conf' line 2: cannot expand '~/c': $HOME is not set");
	setenv("HOME", HOME, 1);
}

static void test_load_missing_file(void **state)
{
	struct conf *c = NULL;

	(void)state;
	assert_int_equal(conf_load(&c, "tests/fixtures/conf/no-such.conf"), ERR_NOTFOUND);
	assert_non_null(strstr(error_last(), "'tests/fixtures/conf/no-such.conf'"));
	assert_null(c);
}

/* The KTAP names the guest registers, from GT_TEST("name", ...) in guest-tests/. */
static size_t guest_test_names(char ***out)
{
	glob_t g;
	char **names = NULL;
	size_t n = 0;

	assert_int_equal(glob(FPUBENCH_SRCDIR "/guest-tests/*.c", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct strbuf text = STRBUF_INIT;

		assert_int_equal(file_read(g.gl_pathv[i], &text), 0);
		for (const char *p = text.buf; (p = strstr(p, "GT_TEST(\"")); ) {
			const char *name = p + strlen("GT_TEST(\"");
			const char *end = strchr(name, '"');

			assert_non_null(end);
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrndup(name, (size_t)(end - name));
			p = end;
		}
		strbuf_release(&text);
	}
	globfree(&g);
	*out = names;
	return n;
}

static void test_default_config_is_the_default_matrix(void **state)
{
	static const char *const variants[] = { "patched", "unpatched" };
	struct conf *c;
	char **tests;
	size_t ntests = guest_test_names(&tests);

	(void)state;
	assert_int_equal(conf_load(&c, FPUBENCH_SRCDIR "/bench/fpubench.conf"), 0);
	/* The bench's own defaults: the user's data directory, the series beside the binary. */
	assert_null(c->results);
	assert_null(c->series);
	assert_null(c->cache);
	assert_int_equal(c->jobs, 0);
	assert_true(c->timeout_s == 0);
	assert_int_equal(c->ntrees, 1);
	assert_string_equal(c->trees[0].name, "debian");
	assert_int_equal(c->trees[0].source, CONF_TREE_DEBIAN);
	assert_null(c->trees[0].tarball);
	assert_int_equal(c->ntests, 0);
	assert_int_equal(c->nhosts, 0);

	/* The default matrix's setups, the only list of them: five save with FSAVE, two controls. */
	size_t fsave = 0;
	assert_int_equal(c->nsetups, 7);
	for (size_t i = 0; i < c->nsetups; i++) {
		struct cpu_setup setup;

		assert_int_equal(cpu_setup_parse(&setup, c->setups[i]), 0);
		fsave += cpu_setup_uses_fsave(&setup);
		cpu_setup_release(&setup);
	}
	assert_int_equal(fsave, 5);

	/*
	 * The bench's premise: "patched" passes everywhere, "unpatched" passes
	 * on the FXSAVE controls and crashes the seed reproducer on FSAVE.
	 */
	assert_true(ntests >= 11);
	size_t crashes = 0;
	for (size_t v = 0; v < ARRAY_SIZE(variants); v++)
		for (int fsave = 0; fsave < 2; fsave++)
			for (size_t t = 0; t < ntests; t++) {
				const struct expect_rule *e =
					expect_find(c->expects, c->nexpects, variants[v], fsave, tests[t]);

				assert_non_null(e);
				if (v == 0 || !fsave)
					assert_int_equal(e->status, VERDICT_PASS);
				crashes += e->status == VERDICT_CRASH;
			}
	assert_int_equal(expect_find(c->expects, c->nexpects, "unpatched", true, "fpu_seed")->status, VERDICT_CRASH);
	assert_true(crashes >= 1 && crashes < ntests);
	for (size_t t = 0; t < ntests; t++)
		free(tests[t]);
	free(tests);
	conf_free(c);
}

/* The fuzzer's seed configs: the good ones parse, the bad ones fail cleanly. */
/* The default config documents a two-tree nightly: uncommented, it gives both Debian trees. */
static void test_default_config_two_trees(void **state)
{
	static const char commented[] = "# [tree debian-6.12]\n# source = debian\n"
					"# tarball = /usr/src/linux-source-6.12.tar.xz\n";
	struct strbuf sb = STRBUF_INIT;
	struct conf *c;

	(void)state;
	assert_int_equal(file_read(FPUBENCH_SRCDIR "/bench/fpubench.conf", &sb), 0);
	char *at = strstr(sb.buf, commented);
	assert_non_null(at);
	/* "# " off the three lines, in place. */
	for (char *p = at; p < at + sizeof(commented) - 1; p++)
		if ((p == at || p[-1] == '\n') && p[0] == '#' && p[1] == ' ')
			p[0] = p[1] = ' ';
	assert_int_equal(conf_parse(&c, "nightly.conf", sb.buf, sb.len), 0);
	assert_int_equal(c->ntrees, 2);
	assert_string_equal(c->trees[0].name, "debian");
	assert_string_equal(c->trees[1].name, "debian-6.12");
	assert_int_equal(c->trees[1].source, CONF_TREE_DEBIAN);
	assert_string_equal(c->trees[1].tarball, "/usr/src/linux-source-6.12.tar.xz");
	conf_free(c);
	strbuf_release(&sb);
}

static void test_fixtures(void **state)
{
	glob_t g;
	struct conf *c = NULL;

	(void)state;
	assert_int_equal(glob(FPUBENCH_SRCDIR "/tests/fixtures/conf/*.conf", 0, NULL, &g), 0);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		int err = conf_load(&c, g.gl_pathv[i]);

		if (strstr(g.gl_pathv[i], "/bad-")) {
			assert_int_equal(err, ERR_INPUT);
			assert_non_null(strstr(error_last(), "' line "));
		} else {
			assert_int_equal(err, 0);
			conf_free(c);
		}
		c = NULL;
	}
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_section),
		cmocka_unit_test(test_defaults_and_relative_anchors),
		cmocka_unit_test(test_bad_inputs_name_file_and_line),
		cmocka_unit_test(test_bisect_and_report_keys),
		cmocka_unit_test(test_lab_and_board),
		cmocka_unit_test(test_lab_token_from_environment),
		cmocka_unit_test(test_bytes_beyond_text),
		cmocka_unit_test(test_load_missing_file),
		cmocka_unit_test(test_default_config_is_the_default_matrix),
		cmocka_unit_test(test_default_config_two_trees),
		cmocka_unit_test(test_fixtures),
	};

	setenv("HOME", HOME, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
