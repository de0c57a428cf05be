#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lab/lava_job.h"
#include "lib/error.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* The scalar at a path of mapping keys and sequence indexes ("actions/0/deploy/to"), or NULL. */
static const char *lookup(yaml_document_t *doc, const char *path)
{
	yaml_node_t *node = yaml_document_get_root_node(doc);
	char *copy = strdup(path), *save = NULL;

	for (char *key = strtok_r(copy, "/", &save); key && node; key = strtok_r(NULL, "/", &save)) {
		yaml_node_t *next = NULL;

		if (node->type == YAML_SEQUENCE_NODE) {
			long i = strtol(key, NULL, 10);
			yaml_node_item_t *items = node->data.sequence.items.start;
			if (i >= 0 && items + i < node->data.sequence.items.top)
				next = yaml_document_get_node(doc, items[i]);
		} else if (node->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
			     p < node->data.mapping.pairs.top && !next; p++) {
				yaml_node_t *k = yaml_document_get_node(doc, p->key);
				if (strcmp((char *)k->data.scalar.value, key) == 0)
					next = yaml_document_get_node(doc, p->value);
			}
		}
		node = next;
	}
	free(copy);
	return node && node->type == YAML_SCALAR_NODE ? (char *)node->data.scalar.value : NULL;
}

static void load(yaml_document_t *doc, const struct strbuf *sb)
{
	yaml_parser_t parser;

	assert_true(yaml_parser_initialize(&parser));
	yaml_parser_set_input_string(&parser, (const unsigned char *)sb->buf, sb->len);
	assert_true(yaml_parser_load(&parser, doc));
	yaml_parser_delete(&parser);
}

static struct cpu_setup setup;

static struct lava_job job(void)
{
	return (struct lava_job){
		.name = "fpubench r1 patched pentium2,-fxsr", .device_type = "qemu", .cpu = &setup,
		.memory_mib = 64, .cmdline = "console=ttyS0 panic=-1 nofxsr",
		.kernel_url = "file:///x/bzImage-patched", .kernel_sha256 = "aa",
		.initrd_url = "file:///x/initramfs-patched.cpio", .initrd_sha256 = "bb",
		.timeout_s = 59.5, .run_id = "r1", .variant = "patched", .setup = "pentium2,-fxsr",
		.version = "6.1", .commit = "abc",
	};
}

static void test_qemu_job(void **state)
{
	struct lava_job j = job();
	struct strbuf sb = STRBUF_INIT;
	yaml_document_t doc;

	(void)state;
	assert_int_equal(lava_job_write(&j, &sb), 0);
	load(&doc, &sb);
	assert_string_equal(lookup(&doc, "job_name"), j.name);
	assert_string_equal(lookup(&doc, "device_type"), "qemu");
	assert_string_equal(lookup(&doc, "context/arch"), "i386");
	assert_string_equal(lookup(&doc, "context/no_kvm"), "true");
	assert_string_equal(lookup(&doc, "context/extra_options/0"), "-cpu pentium2,fxsr=off");
	assert_string_equal(lookup(&doc, "context/extra_options/1"), "-no-reboot");
	/* A version that looks like a number stays a string. */
	assert_non_null(strstr(sb.buf, "fpubench.version: '6.1'"));
	assert_string_equal(lookup(&doc, "actions/0/deploy/to"), "tmpfs");
	assert_string_equal(lookup(&doc, "actions/0/deploy/images/kernel/image_arg"),
			    "-kernel {kernel} -append \"console=ttyS0 panic=-1 nofxsr\"");
	assert_string_equal(lookup(&doc, "actions/0/deploy/images/ramdisk/sha256sum"), "bb");
	/* Whole seconds, rounded up; the job holds the deployment and two boot timeouts. */
	assert_string_equal(lookup(&doc, "actions/1/boot/timeout/seconds"), "60");
	assert_string_equal(lookup(&doc, "timeouts/job/seconds"), "240");
	assert_string_equal(lookup(&doc, "actions/2/test/monitors/0/end"), "# fpubench: done");
	assert_string_equal(lookup(&doc, "actions/2/test/monitors/0/fixupdict/not ok"), "fail");
	yaml_document_delete(&doc);
	strbuf_release(&sb);
}

/* Untrusted names stay strings: YAML's syntax in them is quoted, not obeyed. */
static void test_names_are_quoted(void **state)
{
	struct lava_job j = job();
	struct strbuf sb = STRBUF_INIT;
	yaml_document_t doc;

	(void)state;
	j.variant = "a: b\n- c # d";
	j.commit = "*alias";
	assert_int_equal(lava_job_write(&j, &sb), 0);
	load(&doc, &sb);
	assert_string_equal(lookup(&doc, "metadata/fpubench.variant"), j.variant);
	assert_string_equal(lookup(&doc, "metadata/fpubench.commit"), j.commit);
	yaml_document_delete(&doc);
	strbuf_release(&sb);
}

static void test_board_job(void **state)
{
	static const char *const tags[] = { "vortex86dx" };
	struct lava_job j = job();
	struct strbuf sb = STRBUF_INIT;
	yaml_document_t doc;

	(void)state;
	j.device_type = "x86-board";
	j.boot_method = "ipxe";
	j.tags = tags;
	j.ntags = 1;
	j.cmdline = "console=ttyS0,115200 x=\"quoted\"";
	assert_int_equal(lava_job_write(&j, &sb), 0);
	load(&doc, &sb);
	assert_string_equal(lookup(&doc, "tags/0"), "vortex86dx");
	assert_string_equal(lookup(&doc, "context/extra_kernel_args"), j.cmdline);
	assert_null(lookup(&doc, "context/arch"));
	assert_string_equal(lookup(&doc, "actions/0/deploy/to"), "tftp");
	assert_null(lookup(&doc, "actions/0/deploy/kernel/type"));
	assert_string_equal(lookup(&doc, "actions/0/deploy/ramdisk/install_overlay"), "false");
	assert_string_equal(lookup(&doc, "actions/1/boot/method"), "ipxe");
	yaml_document_delete(&doc);
	strbuf_release(&sb);
}

static void test_qemu_refuses_what_image_arg_cannot_hold(void **state)
{
	static const char *const bad[] = { "a=\"b\"", "a={kernel}", "a=}" };
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct lava_job j = job();

		j.cmdline = bad[i];
		assert_int_equal(lava_job_write(&j, &sb), ERR_INPUT);
		assert_non_null(strstr(error_last(), bad[i]));
	}
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_job),
		cmocka_unit_test(test_names_are_quoted),
		cmocka_unit_test(test_board_job),
		cmocka_unit_test(test_qemu_refuses_what_image_arg_cannot_hold),
	};
	int err;

	assert_int_equal(cpu_setup_parse(&setup, "pentium2,-fxsr"), 0);
	err = cmocka_run_group_tests(tests, NULL, NULL);
	cpu_setup_release(&setup);
	return err;
}
