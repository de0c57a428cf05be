/*
 * regression.eml as bisect_mail_write() writes it from a run directory and
 * a small repository: what a stranger can act on (the commit ids, the URL
 * of a public remote whose branch holds the culprit, the bench's commands),
 * nothing of this machine, the .config and console attached, and the
 * #regzbot line only for a culprit that a public remote holds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmd/bisect_mail.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "test_provenance_repo.h"

struct fixture {
	char *repo_dir;
	git_repository *repo;
	git_oid good, culprit, bad;
	char *run_dir;
	char *config;	/* the culprit's, relative to run_dir */
};

static const char config_text[] = "#\n# Automatically generated file; DO NOT EDIT.\n"
				  "CONFIG_X86_32=y\n# CONFIG_X86_FXSR is not set\n";
static const char console_text[] = "[    1.830000] fpu exception: 0000 [#1]\n"
				   "[    1.830000] EIP: save_fpregs_to_fpstate+0x42/0x57\n";

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	const struct test_file one = { "f", "1\n" }, two = { "f", "2\n" }, three = { "g", "3\n" };

	fx->repo = test_repo_new(&fx->repo_dir);
	fx->good = test_commit(fx->repo, NULL, &one, 1, "x86/fpu: Start\n", ADA, 1700000000);
	fx->culprit = test_commit(fx->repo, &fx->good, &two, 1,
				  "x86/fpu: Save the legacy x87 state with fsave\n", DAVE, 1700000100);
	fx->bad = test_commit(fx->repo, &fx->culprit, &three, 1, "x86/fpu: Later\n", ADA, 1700000200);
	fx->run_dir = test_tmpdir();
	fx->config = xasprintf("config/%s", git_oid_tostr_s(&fx->culprit));
	char *dir = xasprintf("%s/config", fx->run_dir), *path = xasprintf("%s/%s", fx->run_dir, fx->config);
	assert_int_equal(dir_create(dir, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(path, config_text, strlen(config_text)), 0);
	free(dir);
	free(path);
	dir = xasprintf("%s/console", fx->run_dir);
	path = xasprintf("%s/console/culprit.log", fx->run_dir);
	assert_int_equal(dir_create(dir, ERR_GENERIC), 0);
	assert_int_equal(file_write_atomic(path, console_text, strlen(console_text)), 0);
	free(dir);
	free(path);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	git_repository_free(fx->repo);
	test_rmtree(fx->repo_dir);
	test_rmtree(fx->run_dir);
	free(fx->repo_dir);
	free(fx->run_dir);
	free(fx->config);
	free(fx);
	return 0;
}

/* A remote as `git remote add` and `git fetch` leave it: its URL and one branch. */
static void remote_add(struct fixture *fx, const char *name, const char *url, const git_oid *tip)
{
	git_remote *remote;
	git_reference *ref;
	char *branch = xasprintf("refs/remotes/%s/master", name);

	assert_int_equal(git_remote_create(&remote, fx->repo, name, url), 0);
	assert_int_equal(git_reference_create(&ref, fx->repo, branch, tip, 1, NULL), 0);
	git_reference_free(ref);
	git_remote_free(remote);
	free(branch);
}

/* The mail bisect_mail_write() writes for the fixture's bisection. */
static char *write_mail(struct fixture *fx)
{
	struct bisect b = { .repo = fx->repo, .found = true };
	struct bisect_step good = { .verdict = BISECT_GOOD, .runs = 1 };
	struct bisect_step bad = { .verdict = BISECT_BAD, .runs = 1, .failed_runs = 1 };
	struct bisect_step culprit = {
		.verdict = BISECT_BAD, .runs = 1, .failed_runs = 1, .test = "fpu_seed",
		.crash = "fpu exception in save_fpregs_to_fpstate", .console = "console/culprit.log",
		.setups = "pentium2,-fxsr", .config = fx->config,
	};
	struct strbuf text = STRBUF_INIT;

	git_oid_cpy(&b.culprit, &fx->culprit);
	git_oid_cpy(&good.commit, &fx->good);
	git_oid_cpy(&bad.commit, &fx->bad);
	git_oid_cpy(&culprit.commit, &fx->culprit);
	struct bisect_mail in = {
		.repo = fx->repo, .repo_dir = fx->repo_dir, .run_dir = fx->run_dir, .b = &b,
		.good_end = &good, .bad_end = &bad, .culprit = &culprit, .revert_verified = true,
		.conf_from = "Fpu Bench <fpubench@example.net>", .version = "v1.2-3-gabcdef0",
		.test_args = " --cpu pentium2,-fxsr --test fpu_seed",
		.bisect_args = " --cpu pentium2,-fxsr --test fpu_seed",
	};
	char *path = bisect_mail_write(&in);
	assert_non_null(path);
	assert_int_equal(file_read(path, &text), 0);
	free(path);
	return strbuf_detach(&text);
}

/* What every mail holds: ids, commands, attachments, and no path of this machine. */
static void check_actionable(const struct fixture *fx, const char *mail)
{
	char *checkout = xasprintf("\n  git checkout %s\n", git_oid_tostr_s(&fx->culprit));
	const char *home = getenv("HOME");

	assert_non_null(strstr(mail, checkout));
	assert_non_null(strstr(mail, "\n  fpubench test --tree . --cpu pentium2,-fxsr --test fpu_seed\n"));
	assert_non_null(strstr(mail, "with fpubench v1.2-3-gabcdef0\n"));
	assert_non_null(strstr(mail, "filename=\"config\"\n"));
	assert_non_null(strstr(mail, "filename=\"console.log\"\n"));
	assert_null(strstr(mail, fx->run_dir));
	assert_null(strstr(mail, fx->repo_dir));
	assert_null(strstr(mail, "/tmp"));
	if (home && strlen(home) > 1)
		assert_null(strstr(mail, home));
	free(checkout);
}

static void test_no_remote_is_not_public(void **state)
{
	struct fixture *fx = *state;
	char *mail = write_mail(fx);
	char good[GIT_OID_HEXSZ + 1], bad[GIT_OID_HEXSZ + 1];
	char *bisect = xasprintf("\n  fpubench bisect --repo . --good %s --bad %s --cpu",
				 git_oid_tostr(good, sizeof(good), &fx->good),
				 git_oid_tostr(bad, sizeof(bad), &fx->bad));

	check_actionable(fx, mail);
	assert_null(strstr(mail, "regzbot introduced"));
	assert_non_null(strstr(mail, "This commit is not public"));
	assert_non_null(strstr(mail, "# in a kernel git repository that holds"));
	/* The ends are as public as the culprit: the bisection may be run again with them. */
	assert_non_null(strstr(mail, bisect));
	free(bisect);
	free(mail);
}

static void test_public_remote_names_url_and_regzbot(void **state)
{
	struct fixture *fx = *state;
	char regzbot[64];

	/* A remote whose branch does not hold it, and one with credentials in its URL that does. */
	remote_add(fx, "old", "https://git.example.org/old.git", &fx->good);
	remote_add(fx, "origin", "https://bob:secret@git.example.org/linux.git", &fx->bad);
	char *mail = write_mail(fx);
	check_actionable(fx, mail);
	snprintf(regzbot, sizeof(regzbot), "\n#regzbot introduced: %.12s\n", git_oid_tostr_s(&fx->culprit));
	assert_non_null(strstr(mail, regzbot));
	assert_non_null(strstr(mail, "\n  git fetch https://git.example.org/linux.git master\n"));
	assert_null(strstr(mail, "secret"));
	assert_null(strstr(mail, "not public"));
	assert_non_null(strstr(mail, "fpubench bisect --repo . --good"));
	free(mail);
}

static void test_local_or_ssh_remote_is_not_public(void **state)
{
	struct fixture *fx = *state;

	/* A mirror on this machine and a push URL hold it: nobody else can fetch either. */
	remote_add(fx, "mirror", fx->repo_dir, &fx->bad);
	remote_add(fx, "push", "git@gitolite.example.org:linux.git", &fx->culprit);
	char *mail = write_mail(fx);
	check_actionable(fx, mail);
	assert_null(strstr(mail, "regzbot introduced"));
	assert_non_null(strstr(mail, "This commit is not public"));
	assert_null(strstr(mail, "gitolite"));
	free(mail);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_remote_is_not_public, setup, teardown),
		cmocka_unit_test_setup_teardown(test_public_remote_names_url_and_regzbot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_local_or_ssh_remote_is_not_public, setup, teardown),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
