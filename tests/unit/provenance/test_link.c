#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "provenance/link.h"
#include "lib/array.h"

#include <stdlib.h>
#include <string.h>

#define SEED_ID "1302106003-366952-1-git-send-email-hans.rosenfeld@amd.com"

static void check(const char *value, enum link_kind kind, const char *id)
{
	struct link l;

	link_parse(&l, value);
	if (l.kind != kind)
		fail_msg("'%s': kind %s, not %s", value, link_kind_name(l.kind), link_kind_name(kind));
	assert_string_equal(l.value, value);
	if (!id) {
		if (l.message_id)
			fail_msg("'%s': found id '%s'", value, l.message_id);
		assert_null(l.lore_url);
	} else {
		if (!l.message_id)
			fail_msg("'%s': no id", value);
		assert_string_equal(l.message_id, id);
		char *lore = link_lore_url(id);
		assert_string_equal(l.lore_url, lore);
		free(lore);
	}
	link_release(&l);
}

static void test_the_seed_link(void **state)
{
	struct link l;

	(void)state;
	link_parse(&l, "http://lkml.kernel.org/r/" SEED_ID);
	assert_int_equal(l.kind, LINK_LKML_KERNEL_ORG);
	assert_string_equal(l.message_id, SEED_ID);
	assert_string_equal(l.lore_url, "https://lore.kernel.org/r/" SEED_ID);
	link_release(&l);
}

static void test_lore_forms(void **state)
{
	(void)state;
	check("https://lore.kernel.org/r/20190828.1@x.com", LINK_LORE, "20190828.1@x.com");
	check("https://lore.kernel.org/r/20190828.1@x.com/", LINK_LORE, "20190828.1@x.com");
	check("https://lore.kernel.org/lkml/20190828.1@x.com/", LINK_LORE, "20190828.1@x.com");
	check("https://lore.kernel.org/all/20190828.1@x.com/T/", LINK_LORE, "20190828.1@x.com");
	check("https://lore.kernel.org/all/20190828.1@x.com/T/#u", LINK_LORE, "20190828.1@x.com");
	check("https://lore.kernel.org/linux-fsdevel/20190828.1@x.com/#t", LINK_LORE,
	      "20190828.1@x.com");
	check("https://lore.kernel.org/r/20190828.1%40x.com", LINK_LORE, "20190828.1@x.com");
	check("https://LORE.kernel.org/r/%3C20190828.1@x.com%3E", LINK_LORE, "20190828.1@x.com");
	check("https://lore.kernel.org/r/CAHk-=wg+x_9@mail.gmail.com", LINK_LORE,
	      "CAHk-=wg+x_9@mail.gmail.com");
	check("https://lore.kernel.org/lkml/", LINK_LORE, NULL);
	check("https://lore.kernel.org/r/abc@x.com?q=1", LINK_LORE, "abc@x.com");
}

static void test_msgid_redirectors(void **state)
{
	(void)state;
	check("https://patch.msgid.link/20240101.1-1-a@b.org", LINK_MSGID, "20240101.1-1-a@b.org");
	check("https://msgid.link/20240101.1-1-a@b.org/", LINK_MSGID, "20240101.1-1-a@b.org");
	check("https://lkml.kernel.org/r/tip-abc@git.kernel.org", LINK_LKML_KERNEL_ORG,
	      "tip-abc@git.kernel.org");
	check("http://mid.gmane.org/87abc@x.org", LINK_GMANE, "87abc@x.org");
	check("http://article.gmane.org/gmane.linux.kernel/1234", LINK_GMANE, NULL);
	check("https://patchwork.kernel.org/project/linux-mm/patch/20200101.1-a@b.com/",
	      LINK_PATCHWORK, "20200101.1-a@b.com");
	check("https://patchwork.ozlabs.org/patch/123456/", LINK_PATCHWORK, NULL);
}

static void test_links_without_a_message_id_are_classified(void **state)
{
	(void)state;
	check("https://marc.info/?l=linux-kernel&m=123456789", LINK_MARC, NULL);
	check("https://lkml.org/lkml/2019/8/28/1", LINK_LKML_ORG, NULL);
	check("https://www.spinics.net/lists/kernel/msg123.html", LINK_SPINICS, NULL);
	check("https://bugzilla.kernel.org/show_bug.cgi?id=1234", LINK_BUGZILLA, NULL);
	check("https://bugzilla.redhat.com/1234", LINK_BUGZILLA, NULL);
	check("https://github.com/torvalds/linux/issues/1", LINK_URL, NULL);
	check("see the thread from last week", LINK_TEXT, NULL);
	check("", LINK_TEXT, NULL);
}

static void test_urls_in_text_and_punctuation(void **state)
{
	(void)state;
	check("v2: https://lore.kernel.org/r/a1@b.org.", LINK_LORE, "a1@b.org");
	check("<https://lore.kernel.org/r/a1@b.org>", LINK_LORE, "a1@b.org");
	check("(https://lore.kernel.org/r/a1@b.org)", LINK_LORE, "a1@b.org");
	check("https://lore.kernel.org/r/a1@b.org # v3", LINK_LORE, "a1@b.org");
	check("https://lore.kernel.org/r/a%00b@c", LINK_LORE, "a%00b@c");
	check("https://lore.kernel.org/r/a%4", LINK_LORE, NULL);
	check("https://lore.kernel.org/r/a%4@b", LINK_LORE, "a%4@b");
	check("https://lore.kernel.org:443/r/a1@b.org", LINK_LORE, "a1@b.org");
	check("https://notlore.kernel.org.evil/r/a1@b.org", LINK_URL, NULL);
}

static void test_lore_url_encodes_what_a_path_cannot_hold(void **state)
{
	char *url = link_lore_url("a/b?c#d%e f@x");

	(void)state;
	assert_string_equal(url, "https://lore.kernel.org/r/a%2Fb%3Fc%23d%25e%20f@x");
	free(url);
}

static void test_msgid_normalize(void **state)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "<abc@x>", "abc@x" },
		{ "  abc@x  ", "abc@x" },
		{ "<abc@x> (added by the maintainer)", "abc@x" },
		{ "< abc@x >", "abc@x" },
		{ "", NULL },
		{ "<>", NULL },
		{ "<abc@x", NULL },
		{ "a b@x", NULL },
		{ "a\x01@x", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *id = link_msgid_normalize(cases[i].in, strlen(cases[i].in));
		if (!cases[i].out && id)
			fail_msg("'%s' gave '%s'", cases[i].in, id);
		if (cases[i].out) {
			if (!id)
				fail_msg("'%s' gave nothing", cases[i].in);
			assert_string_equal(id, cases[i].out);
		}
		free(id);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_seed_link),
		cmocka_unit_test(test_lore_forms),
		cmocka_unit_test(test_msgid_redirectors),
		cmocka_unit_test(test_links_without_a_message_id_are_classified),
		cmocka_unit_test(test_urls_in_text_and_punctuation),
		cmocka_unit_test(test_lore_url_encodes_what_a_path_cannot_hold),
		cmocka_unit_test(test_msgid_normalize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
