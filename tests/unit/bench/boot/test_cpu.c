#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/cpu.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_parse_model_features_and_params(void **state)
{
	struct cpu_setup c;

	(void)state;
	assert_int_equal(cpu_setup_parse(&c, "qemu32,-sse,-sse2,+cx8:nofxsr,noapic"), 0);
	assert_string_equal(c.spec, "qemu32,-sse,-sse2,+cx8:nofxsr,noapic");
	assert_string_equal(c.cpu, "qemu32,-sse,-sse2,+cx8");
	assert_string_equal(c.model, "qemu32");
	assert_int_equal(c.nfeatures, 3);
	assert_string_equal(c.features[0].name, "sse");
	assert_false(c.features[0].enable);
	assert_string_equal(c.features[2].name, "cx8");
	assert_true(c.features[2].enable);
	assert_string_equal(c.cmdline, "nofxsr noapic");
	cpu_setup_release(&c);
}

static void test_bad_setups_name_the_spec(void **state)
{
	static const char *const bad[] = { "", ",-fxsr", "486,fxsr", "486,-", "pen tium",
					   "pentium2,-fxsr,", "486,,-fxsr",
					   "486:a\nb", "486,-fx<sr", "@", "@geode,-fxsr", "@ge ode" };
	struct cpu_setup c;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(cpu_setup_parse(&c, bad[i]), ERR_USAGE);
		assert_non_null(strstr(error_last(), "cpu setup '"));
	}
}

/* error_set() wrapped (test_cpu.wrap): a failure's message is set once, where it happens. */
static int errors_set;

int __real_error_set(int code, const char *fmt, ...);
int __wrap_error_set(int code, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	errors_set++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return __real_error_set(code, "%s", msg);
}

static void test_a_setup_bad_twice_sets_one_message(void **state)
{
	struct cpu_setup c;

	(void)state;
	errors_set = 0;
	assert_int_equal(cpu_setup_parse(&c, "486,,-fxsr:a\x01b,\x02"), ERR_USAGE);
	assert_int_equal(errors_set, 1);
	assert_string_equal(error_last(), "cpu setup '486,,-fxsr:a\x01b,\x02': bad kernel parameters");
}

/*
 * The bench's model table says what libvirt's own CPU map says: every model
 * it knows (a family above 0) has FXSR exactly where the map lists it.
 */
static void test_model_table_agrees_with_libvirts_cpu_map(void **state)
{
	const char *dir = "/usr/share/libvirt/cpu_map";
	struct dirent *e;
	DIR *d = opendir(dir);
	int checked = 0;

	(void)state;
	if (!d)
		skip();
	while ((e = readdir(d))) {
		struct strbuf xml = STRBUF_INIT;
		struct cpu_setup c;
		char model[64];
		char *path;

		if (sscanf(e->d_name, "x86_%63[^.].xml", model) != 1 || cpu_setup_parse(&c, model) < 0) {
			error_clear();
			continue;
		}
		path = xasprintf("%s/%s", dir, e->d_name);
		if (cpu_setup_family(&c) > 0 && file_read(path, &xml) == 0) {
			bool fxsr = strstr(xml.buf, "<feature name='fxsr'/>") != NULL;

			if (cpu_setup_uses_fsave(&c) == fxsr)
				fail_msg("model '%s': libvirt's map says fxsr %s", model, fxsr ? "yes" : "no");
			checked++;
		}
		strbuf_release(&xml);
		free(path);
		cpu_setup_release(&c);
	}
	closedir(d);
	assert_true(checked >= 10);
}

static void test_which_setups_use_fsave(void **state)
{
	static const struct { const char *spec; bool fsave; } cases[] = {
		{ "486", true },
		{ "pentium", true },
		{ "pentium2,-fxsr", true },
		{ "qemu32,-sse,-sse2,-fxsr", true },
		{ "pentium3:nofxsr", true },
		{ "qemu32:nofxsr", true },
		{ "pentium3", false },
		{ "qemu32", false },
		{ "qemu32:nofxsrx", false },
		{ "486,+fxsr", false },
	};
	struct cpu_setup c;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(cpu_setup_parse(&c, cases[i].spec), 0);
		if (cpu_setup_uses_fsave(&c) != cases[i].fsave)
			fail_msg("setup '%s'", cases[i].spec);
		cpu_setup_release(&c);
	}
}

/* A kernel is booted on a setup unless its minimum CPU family is above the model's. */
static void test_setup_families(void **state)
{
	static const struct { const char *spec; int family; } cases[] = {
		{ "486", 4 },
		{ "pentium", 5 },
		{ "pentium2,-fxsr", 6 },
		{ "qemu32,-sse,-sse2,-fxsr", 6 },
		{ "pentium3:nofxsr", 6 },
		{ "Opteron_G5", 0 },
	};
	struct cpu_setup c;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(cpu_setup_parse(&c, cases[i].spec), 0);
		if (cpu_setup_family(&c) != cases[i].family)
			fail_msg("setup '%s'", cases[i].spec);
		cpu_setup_release(&c);
	}
}

/* "@NAME" is a board: no model to look up, the FPU path it claims, nofxsr as on any setup. */
static void test_board_setups(void **state)
{
	struct cpu_setup c;

	(void)state;
	assert_int_equal(cpu_setup_parse(&c, "@geode:a=1,b"), 0);
	assert_string_equal(c.board, "geode");
	assert_string_equal(c.cpu, "@geode");
	assert_string_equal(c.cmdline, "a=1 b");
	assert_int_equal(c.nfeatures, 0);
	assert_int_equal(cpu_setup_family(&c), 0);
	assert_false(cpu_setup_uses_fsave(&c));
	c.board_fsave = true;
	assert_true(cpu_setup_uses_fsave(&c));
	cpu_setup_release(&c);
	assert_int_equal(cpu_setup_parse(&c, "@pentium3:nofxsr"), 0);
	assert_true(cpu_setup_uses_fsave(&c));
	cpu_setup_release(&c);
	/* A board named like a model is still a board: it claims FXSAVE unless told. */
	assert_int_equal(cpu_setup_parse(&c, "@486"), 0);
	assert_false(cpu_setup_uses_fsave(&c));
	assert_int_equal(cpu_setup_family(&c), 0);
	cpu_setup_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_model_features_and_params),
		cmocka_unit_test(test_bad_setups_name_the_spec),
		cmocka_unit_test(test_a_setup_bad_twice_sets_one_message),
		cmocka_unit_test(test_model_table_agrees_with_libvirts_cpu_map),
		cmocka_unit_test(test_which_setups_use_fsave),
		cmocka_unit_test(test_setup_families),
		cmocka_unit_test(test_board_setups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
