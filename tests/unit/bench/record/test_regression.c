#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lib/array.h"
#include "lib/error.h"
#include "provenance/mail.h"
#include "record/regression.h"
#include "test_provenance_repo.h"

#include <openssl/evp.h>

static const char *const people[] = {
	"Zoë Ünal <zoe.unal@example.org>",	/* the author's own Signed-off-by */
	"Bob Reviewer <bob@example.org>",
	"\"Maintainer, Carol\" <carol@example.org> # v6.1+",
	"bob reviewer <BOB@example.org>",	/* the same address again */
	"not an address",
	"Dave Committer <dave@example.org>",
};

static const char *const posting_recipients[] = {
	"x86@kernel.org", "linux-kernel@vger.kernel.org", "Bob Reviewer <bob@example.org>",
	"regressions@lists.linux.dev",
};

static const char *const references[] = { "v1@example.org" };

static struct regression base(void)
{
	return (struct regression){
		.from = "Fpu Bench <bench@example.net>",
		.message_id = "fpubench.1.ca2f65d4e41b@example.net",
		.date = 1796500000,
		.culprit = "ca2f65d4e41bca1b6421f5c2cd9fedc8c24eb8e9",
		.culprit_subject = "x86/fpu: Save the legacy x87 state with the waiting fsave",
		.culprit_url = "https://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git",
		.culprit_branch = "x86/fpu",
		.author = "Zoë Ünal <zoe.unal@example.org>",
		.people = people,
		.npeople = ARRAY_SIZE(people),
		.test = "fpu_seed",
		.setups = "pentium2,-fxsr",
		.crash = "fpu exception in save_fpregs_to_fpstate",
		.good = "1111111111111111111111111111111111111111",
		.bad = "2222222222222222222222222222222222222222",
		.steps = 5,
		.runs = 1,
		.confidence = 0.5,
		.revert_verified = true,
		.console = "[    1.830000] fpu exception: 0000 [#1]\n[    1.830000] EIP: "
			   "save_fpregs_to_fpstate+0x42/0x57 and a long line that is not wrapped "
			   "at all, however long it is\n",
		.reproduce = "git fetch https://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git x86/fpu\n"
			     "git checkout ca2f65d4e41bca1b6421f5c2cd9fedc8c24eb8e9\n"
			     "fpubench test --tree . --cpu pentium2,-fxsr --test fpu_seed\n",
	};
}

static char *format(const struct regression *r)
{
	struct strbuf sb = STRBUF_INIT;

	regression_format(&sb, r);
	return strbuf_detach(&sb);
}

/* The value of the first header NAME, unfolded, or NULL. */
static char *header(const char *mail, const char *name)
{
	size_t n = strlen(name);
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = mail; *p && *p != '\n';) {
		const char *nl = strchr(p, '\n');
		if (strncmp(p, name, n) == 0 && p[n] == ':') {
			strbuf_add(&sb, p + n + 1, (size_t)(nl - p - n - 1));
			for (p = nl + 1; *p == ' ' || *p == '\t'; p = nl + 1) {
				nl = strchr(p, '\n');
				strbuf_add(&sb, p, (size_t)(nl - p));
			}
			return strbuf_detach(&sb);
		}
		p = nl + 1;
	}
	strbuf_release(&sb);
	return NULL;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strcasestr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_fresh_thread_recipients_once(void **state)
{
	struct regression r = base();
	char *mail = format(&r);
	char *to = header(mail, "To"), *cc = header(mail, "Cc"), *subject = header(mail, "Subject");

	(void)state;
	assert_non_null(strstr(to, "<zoe.unal@example.org>"));
	assert_null(strchr(to, ','));
	assert_int_equal(count(cc, "zoe.unal@example.org"), 0);
	assert_int_equal(count(cc, "bob@example.org"), 1);
	assert_int_equal(count(cc, "carol@example.org"), 1);
	assert_int_equal(count(cc, "dave@example.org"), 1);
	assert_int_equal(count(cc, "regressions@lists.linux.dev"), 1);
	assert_null(strstr(cc, "v6.1+"));
	assert_non_null(strstr(cc, "\"Maintainer, Carol\" <carol@example.org>"));
	assert_string_equal(subject,
			    " [REGRESSION] x86/fpu: Save the legacy x87 state with the waiting fsave");
	assert_null(header(mail, "In-Reply-To"));
	assert_null(header(mail, "References"));
	assert_non_null(strstr(mail, "\nMessage-ID: <fpubench.1.ca2f65d4e41b@example.net>\n"));
	assert_non_null(strstr(mail, "\nDate: Sat, 05 Dec 2026 19:46:40 +0000\n"));
	assert_non_null(strstr(mail, "\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"));
	assert_non_null(strstr(mail, "\n  ca2f65d4e41b (\"x86/fpu: Save the legacy x87 state with "
				     "the waiting fsave\")\n"));
	assert_non_null(strstr(mail, "\n#regzbot introduced: ca2f65d4e41b\n"));
	assert_non_null(strstr(mail, "\n  Reported-by: Fpu Bench <bench@example.net>\n"));
	assert_non_null(strstr(mail, "\n  Closes: https://lore.kernel.org/r/"
				     "fpubench.1.ca2f65d4e41b@example.net\n"));
	free(to);
	free(cc);
	free(subject);
	free(mail);
}

/* What the bench writes, read back by provenance's own mail parser. */
static void test_reply_reads_back(void **state)
{
	struct regression r = base();

	(void)state;
	r.reply_to = "v2@example.org";
	r.reply_subject = "[PATCH v2] x86/fpu: Save the legacy x87 state with the waiting fsave";
	r.references = references;
	r.nreferences = 1;
	r.recipients = posting_recipients;
	r.nrecipients = ARRAY_SIZE(posting_recipients);
	char *text = format(&r);
	struct mail *m;
	assert_int_equal(mail_parse(&m, text, strlen(text)), 0);
	assert_string_equal(m->subject,
			    "Re: [PATCH v2] x86/fpu: Save the legacy x87 state with the waiting fsave");
	assert_string_equal(m->in_reply_to, "v2@example.org");
	assert_int_equal(m->references.n, 2);
	assert_string_equal(m->references.v[0], "v1@example.org");
	assert_string_equal(m->references.v[1], "v2@example.org");
	assert_string_equal(m->from_name, "Fpu Bench");
	char *cc = header(text, "Cc");
	assert_int_equal(count(cc, "regressions@lists.linux.dev"), 1);
	assert_int_equal(count(cc, "bob@example.org"), 1);
	assert_int_equal(count(cc, "x86@kernel.org"), 1);
	assert_non_null(strstr(text, "\n  Closes: https://lore.kernel.org/r/"));
	/* Every address of the mail, once: To and Cc together. */
	assert_int_equal(m->recipients.n, 7);
	assert_string_equal(m->recipients.v[0], "Zoë Ünal <zoe.unal@example.org>");
	assert_string_equal(m->recipients.v[2], "Maintainer, Carol <carol@example.org>");
	free(cc);
	mail_free(m);
	free(text);

	/* A posting already titled "Re:" gets no second one. */
	r.reply_subject = "Re: [PATCH] x";
	text = format(&r);
	assert_non_null(strstr(text, "\nSubject: Re: [PATCH] x\n"));
	free(text);
}

static void test_encoded_words_and_folding(void **state)
{
	struct regression r = base();
	const char *long_name = "Ünal Ünal Ünal Ünal Ünal Ünal Ünal Ünal Ünal Ünal Ünal Ünal Zoë";
	char *author = xasprintf("%s <zoe.unal@example.org>", long_name);

	(void)state;
	r.author = author;
	r.culprit_subject = "x86/fpu: Sparen Sie die Zustände des Koprozessors mit dem wartenden "
			    "fsave, für alle Prozessoren ohne FXSR";
	char *text = format(&r);
	const char *body = strstr(text, "\n\n");
	/* Headers: 7-bit, lines within 78 columns, continuations start with white space. */
	for (const char *p = text; p < body;) {
		const char *nl = strchr(p, '\n');
		assert_true(nl - p <= 78);
		for (const char *q = p; q < nl; q++)
			assert_true((unsigned char)*q < 0x80);
		p = nl + 1;
	}
	assert_non_null(strstr(text, "=?UTF-8?B?"));
	struct mail *m;
	assert_int_equal(mail_parse(&m, text, strlen(text)), 0);
	char *subject = xasprintf("[REGRESSION] %s", r.culprit_subject);
	assert_string_equal(m->subject, subject);
	assert_string_equal(m->recipients.v[0], author);
	/* Prose wraps at 72 characters; the console's long line stays whole. */
	for (const char *p = body + 2; *p;) {
		const char *nl = strchr(p, '\n');
		size_t chars = 0;
		for (const char *q = p; q < nl; q++)
			chars += ((unsigned char)*q & 0xc0) != 0x80;
		/* Indented lines are quoted as they are: the console, the culprit, commands. */
		if (strncmp(p, "  ", 2) != 0)
			assert_true(chars <= 72 || !memchr(p, ' ', (size_t)(nl - p)));
		p = nl + 1;
	}
	assert_non_null(strstr(text, "\n  [    1.830000] EIP: save_fpregs_to_fpstate+0x42/0x57 and a "
				     "long line that is not wrapped at all, however long it is\n"));
	mail_free(m);
	free(subject);
	free(text);
	free(author);
}

static void test_excerpt_is_the_crash_report(void **state)
{
	struct strbuf log = STRBUF_INIT, out = STRBUF_INIT;

	(void)state;
	assert_int_equal(file_read("tests/fixtures/console/synth-fpu-exception-486.log", &log), 0);
	regression_console_excerpt(&out, log.buf, log.len);
	assert_non_null(strstr(out.buf, "fpu exception: 0000 [#1]"));
	assert_null(strstr(out.buf, "Linux version"));
	assert_true(strstr(out.buf, "fpu exception") < strchr(out.buf, '\n'));
	assert_non_null(strstr(out.buf, "EIP: save_fpregs_to_fpstate"));
	size_t lines = 0;
	for (const char *p = out.buf; (p = strchr(p, '\n')); p++)
		lines++;
	assert_true(lines <= REGRESSION_EXCERPT_LINES);

	/* No report: the last lines, control bytes shown as \xNN. */
	strbuf_reset(&out);
	const char plain[] = "one\ntwo\r\nthree \033[31m\n";
	regression_console_excerpt(&out, plain, sizeof(plain) - 1);
	assert_string_equal(out.buf, "one\ntwo\nthree \\x1b[31m\n");
	strbuf_release(&log);
	strbuf_release(&out);
}

static void test_sender(void **state)
{
	char *from, *dir = test_tmpdir();
	git_repository *repo;
	git_config *cfg;
	const char *home = getenv("HOME");
	char *saved_home = home ? xstrdup(home) : NULL;

	(void)state;
	/* No global configuration to fall back on. */
	setenv("HOME", dir, 1);
	setenv("XDG_CONFIG_HOME", dir, 1);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, dir);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, dir);
	git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, dir);
	assert_int_equal(git_repository_init(&repo, dir, 1), 0);
	assert_int_equal(regression_sender(&from, NULL, repo), ERR_INPUT);
	assert_null(from);
	assert_non_null(strstr(error_last(), "[report]"));
	assert_non_null(strstr(error_last(), "user.email"));
	assert_int_equal(git_repository_config(&cfg, repo), 0);
	assert_int_equal(git_config_set_string(cfg, "user.name", "Zoë Ünal"), 0);
	assert_int_equal(git_config_set_string(cfg, "user.email", "zoe@example.org"), 0);
	git_config_free(cfg);
	assert_int_equal(regression_sender(&from, NULL, repo), 0);
	assert_string_equal(from, "Zoë Ünal <zoe@example.org>");
	free(from);
	assert_int_equal(regression_sender(&from, "Bench <b@example.net>", repo), 0);
	assert_string_equal(from, "Bench <b@example.net>");
	free(from);
	git_repository_free(repo);
	if (saved_home)
		setenv("HOME", saved_home, 1);
	free(saved_home);
	test_rmtree(dir);
	free(dir);
}

/* regzbot is told only of a commit that others can fetch; the mail says when it is not. */
static void test_regzbot_only_for_a_public_culprit(void **state)
{
	struct regression r = base();
	char *text;

	(void)state;
	text = format(&r);
	assert_non_null(strstr(text, "\n#regzbot introduced: ca2f65d4e41b\n"));
	assert_non_null(strstr(text, "It is on the branch x86/fpu of\n"
				     "https://git.kernel.org/pub/scm/linux/kernel/git/tip/tip.git.\n"));
	assert_null(strstr(text, "not public"));
	free(text);

	r.culprit_url = NULL;
	r.culprit_branch = NULL;
	text = format(&r);
	assert_null(strstr(text, "regzbot introduced"));
	assert_non_null(strstr(text, "\nThis commit is not public: no branch of the remotes of"));
	free(text);
}

/* The base64 of a part, from after its headers to the next boundary line, decoded. */
static char *part_data(const char *mail, const char *filename)
{
	char *disposition = xasprintf("Content-Disposition: attachment; filename=\"%s\"\n", filename);
	const char *p = strstr(mail, disposition);
	struct strbuf out = STRBUF_INIT;

	assert_non_null(p);
	p = strstr(p, "\n\n") + 2;
	while (*p && strncmp(p, "\n--", 3) != 0 && strncmp(p, "--", 2) != 0) {
		const char *nl = strchr(p, '\n');
		unsigned char raw[64];
		size_t n = (size_t)(nl - p);

		/* RFC 2045: lines of at most 76 characters. */
		assert_true(n > 0 && n <= 76 && n % 4 == 0);
		int got = EVP_DecodeBlock(raw, (const unsigned char *)p, (int)n);
		assert_true(got >= 0);
		/* EVP_DecodeBlock counts the padding's zero bytes. */
		if (n >= 1 && p[n - 1] == '=')
			got--;
		if (n >= 2 && p[n - 2] == '=')
			got--;
		strbuf_add(&out, raw, (size_t)got);
		p = nl + 1;
	}
	free(disposition);
	return strbuf_detach(&out);
}

static void test_attachments_are_mime_parts(void **state)
{
	struct regression r = base();
	/* A console that holds the boundary the mail would take first. */
	const char *console = "[    1.830000] fpu exception: 0000 [#1]\n--=_fpubench_ca2f65d4e41b\n";
	struct strbuf config = STRBUF_INIT;
	struct regression_attachment files[2];

	(void)state;
	for (int i = 0; i < 100; i++)
		strbuf_addf(&config, "CONFIG_OPTION_%d=y\n", i);
	files[0] = (struct regression_attachment){ "config", config.buf, config.len };
	files[1] = (struct regression_attachment){ "console.log", console, strlen(console) };
	r.console = console;
	r.attachments = files;
	r.nattachments = 2;
	char *text = format(&r);
	char *type = header(text, "Content-Type");
	assert_string_equal(type, " multipart/mixed; boundary=\"=_fpubench_ca2f65d4e41b_\"");
	/* The text comes first, as itself, and names what is attached. */
	assert_non_null(strstr(text, "\nContent-Transfer-Encoding: 8bit\n\n--=_fpubench_ca2f65d4e41b_\n"
				     "Content-Type: text/plain; "
				     "charset=UTF-8\nContent-Transfer-Encoding: 8bit\n\nHello,\n"));
	assert_non_null(strstr(text, "\nAttached: config, console.log\n"));
	char *got = part_data(text, "config");
	assert_string_equal(got, config.buf);
	free(got);
	got = part_data(text, "console.log");
	assert_string_equal(got, console);
	free(got);
	size_t len = strlen(text);
	assert_true(len > 30 && strcmp(text + len - 30, "\n--=_fpubench_ca2f65d4e41b_--\n") == 0);
	/* Read back as a mail, the text is still the regression's. */
	struct mail *m;
	assert_int_equal(mail_parse(&m, text, len), 0);
	assert_non_null(strstr(m->body, "#regzbot introduced: ca2f65d4e41b"));
	mail_free(m);
	free(type);
	free(text);
	strbuf_release(&config);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fresh_thread_recipients_once),
		cmocka_unit_test(test_reply_reads_back),
		cmocka_unit_test(test_encoded_words_and_folding),
		cmocka_unit_test(test_excerpt_is_the_crash_report),
		cmocka_unit_test(test_sender),
		cmocka_unit_test(test_regzbot_only_for_a_public_culprit),
		cmocka_unit_test(test_attachments_are_mime_parts),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
