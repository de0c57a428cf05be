/*
 * The domain XML, and the lifecycle against libvirt's test driver
 * (test:///default: no daemon, no qemu; its domains run until destroyed).
 * virConnectOpen is wrapped (test_guest.wrap) so that an embedded URI
 * fails at once, after guest_conn_open() has prepared its root, instead of
 * starting the real QEMU driver.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cpu.h"
#include "error.h"
#include "guest.h"
#include "strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/libvirt.h>

virConnectPtr __real_virConnectOpen(const char *name);
virConnectPtr __wrap_virConnectOpen(const char *name);

virConnectPtr __wrap_virConnectOpen(const char *name)
{
	if (strncmp(name, "qemu:///embed", 13) == 0)
		return NULL;
	return __real_virConnectOpen(name);
}

static struct guest_spec spec_for(const struct cpu_setup *cpu, const char *name)
{
	return (struct guest_spec){
		.name = name,
		.kernel = "/cache/build/patched/arch/x86/boot/bzImage",
		.initrd = "/results/r1/initramfs.cpio",
		.cmdline = "console=ttyS0 panic=-1 nofxsr",
		.console = "/results/r1/console/a&b.log",
		.cpu = cpu,
		.memory_mib = 64,
	};
}

static void test_xml_has_the_domain_we_need(void **state)
{
	struct cpu_setup cpu;
	char *xml;

	(void)state;
	assert_int_equal(cpu_setup_parse(&cpu, "qemu32,-sse,-sse2,-fxsr,+cx8:nofxsr"), 0);
	struct guest_spec spec = spec_for(&cpu, "fpubench-r1-0-1");
	assert_int_equal(guest_domain_xml(&spec, &xml), 0);
	assert_non_null(strstr(xml, "<domain type='qemu'>"));
	assert_non_null(strstr(xml, "<name>fpubench-r1-0-1</name>"));
	assert_non_null(strstr(xml, "<memory unit='MiB'>64</memory>"));
	assert_non_null(strstr(xml, "<type arch='i686' machine='pc'>hvm</type>"));
	assert_non_null(strstr(xml, "<kernel>/cache/build/patched/arch/x86/boot/bzImage</kernel>"));
	assert_non_null(strstr(xml, "<initrd>/results/r1/initramfs.cpio</initrd>"));
	assert_non_null(strstr(xml, "<cmdline>console=ttyS0 panic=-1 nofxsr</cmdline>"));
	assert_non_null(strstr(xml, "<model fallback='forbid'>qemu32</model>"));
	assert_non_null(strstr(xml, "<feature policy='disable' name='sse'/>"));
	assert_non_null(strstr(xml, "<feature policy='disable' name='fxsr'/>"));
	assert_non_null(strstr(xml, "<feature policy='require' name='cx8'/>"));
	assert_non_null(strstr(xml, "<on_reboot>destroy</on_reboot>"));
	assert_non_null(strstr(xml, "<on_poweroff>destroy</on_poweroff>"));
	assert_non_null(strstr(xml, "<on_crash>destroy</on_crash>"));
	assert_non_null(strstr(xml, "<source path='/results/r1/console/a&amp;b.log'/>"));
	assert_non_null(strstr(xml, "<memballoon model='none'/>"));
	free(xml);
	cpu_setup_release(&cpu);
}

/* No network, no host filesystem, no way out: only these devices. */
static void test_xml_has_no_network_and_no_host_files(void **state)
{
	static const char *const allowed[] = { "controller", "serial", "source", "target",
					       "console", "memballoon" };
	struct cpu_setup cpu;
	char *xml;

	(void)state;
	assert_int_equal(cpu_setup_parse(&cpu, "486"), 0);
	struct guest_spec spec = spec_for(&cpu, "fpubench-r1-0-1");
	assert_int_equal(guest_domain_xml(&spec, &xml), 0);
	const char *devices = strstr(xml, "<devices>"), *end = strstr(xml, "</devices>");
	assert_non_null(devices);
	assert_non_null(end);
	for (const char *p = devices + 1; (p = strchr(p, '<')) && p < end; p++) {
		size_t n = strcspn(p + 1, " />");
		bool ok = p[1] == '/';

		for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]) && !ok; i++)
			ok = strlen(allowed[i]) == n && strncmp(p + 1, allowed[i], n) == 0;
		if (!ok)
			fail_msg("unexpected device element: %.*s", (int)n + 1, p);
	}
	assert_non_null(strstr(xml, "<controller type='usb' model='none'/>"));
	assert_non_null(strstr(xml, "<serial type='file'>"));
	assert_non_null(strstr(xml, "<console type='file'>"));
	free(xml);
	cpu_setup_release(&cpu);
}

static void test_xml_escapes_names(void **state)
{
	struct cpu_setup cpu;
	char *xml;

	(void)state;
	assert_int_equal(cpu_setup_parse(&cpu, "486"), 0);
	struct guest_spec spec = spec_for(&cpu, "fpubench-<x>'");
	assert_int_equal(guest_domain_xml(&spec, &xml), 0);
	assert_non_null(strstr(xml, "<name>fpubench-&lt;x&gt;&apos;</name>"));
	free(xml);
	cpu_setup_release(&cpu);
}

static void test_run_times_out_and_destroys(void **state)
{
	struct guest_conn *gc;
	struct cpu_setup cpu;
	struct guest_outcome outcome;

	(void)state;
	assert_int_equal(cpu_setup_parse(&cpu, "pentium2,-fxsr"), 0);
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	struct guest_spec spec = spec_for(&cpu, "fpubench-unit-timeout");
	/* The test driver's guest never stops by itself. */
	assert_int_equal(guest_run(gc, &spec, 0.3, &outcome), 0);
	assert_true(outcome.timed_out);
	assert_false(outcome.interrupted);
	assert_true(outcome.seconds >= 0.3);
	/* Destroyed: the same name starts again. */
	assert_int_equal(guest_run(gc, &spec, 0.1, &outcome), 0);
	assert_true(outcome.timed_out);
	guest_conn_free(gc);
	cpu_setup_release(&cpu);
}

static void test_stale_domains_are_destroyed(void **state)
{
	struct guest_conn *gc;

	(void)state;
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	/* test:///default has a running domain "test", which is not ours to touch. */
	assert_int_equal(guest_destroy_stale(gc), 0);
	guest_conn_free(gc);
}

static void test_bad_uri_is_a_libvirt_error(void **state)
{
	struct guest_conn *gc = NULL;

	(void)state;
	assert_int_equal(guest_conn_open(&gc, "nosuchdriver:///x"), ERR_LIBVIRT);
	assert_non_null(strstr(error_last(), "'nosuchdriver:///x'"));
	assert_null(gc);
}

static void test_embed_uri(void **state)
{
	char *uri = guest_embed_uri("/c/libvirt");

	(void)state;
	assert_string_equal(uri, "qemu:///embed?root=/c/libvirt");
	free(uri);
}

/* The embedded root holds QEMU's logs and sockets: it is made private, even if it was not. */
static void test_embed_root_is_private(void **state)
{
	char dir[] = "/tmp/fpubench-unit-guest.XXXXXX";
	struct guest_conn *gc = NULL;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	char *root = xasprintf("%s/libvirt", dir), *uri = guest_embed_uri(root);
	char *conf = xasprintf("%s/etc/qemu.conf", root);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(guest_conn_open(&gc, uri), ERR_LIBVIRT);
	assert_null(gc);
	assert_int_equal(stat(root, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(conf, &st), 0);

	unlink(conf);
	char *etc = xasprintf("%s/etc", root);
	rmdir(etc);
	rmdir(root);
	rmdir(dir);
	free(etc);
	free(conf);
	free(uri);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_has_the_domain_we_need),
		cmocka_unit_test(test_xml_has_no_network_and_no_host_files),
		cmocka_unit_test(test_xml_escapes_names),
		cmocka_unit_test(test_run_times_out_and_destroys),
		cmocka_unit_test(test_stale_domains_are_destroyed),
		cmocka_unit_test(test_bad_uri_is_a_libvirt_error),
		cmocka_unit_test(test_embed_uri),
		/* Last: libvirt reads the log settings an embedded URI sets when it first starts. */
		cmocka_unit_test(test_embed_root_is_private),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
