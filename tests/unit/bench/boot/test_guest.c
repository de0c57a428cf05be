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

#include "boot/cpu.h"
#include "lib/array.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/spawn.h"
#include "boot/cpu_check.h"
#include "boot/domain_xml.h"
#include "boot/embed.h"
#include "boot/guest.h"
#include "boot/guest_domain.h"
#include "lib/strbuf.h"
#include "lib/xmlw.h"

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

/* xmlw_finish() wrapped too: a writer that fails when the test says so. */
static bool xml_fails;
int __real_xmlw_finish(struct xmlw *x, const char *what, char **out);
int __wrap_xmlw_finish(struct xmlw *x, const char *what, char **out);

int __wrap_xmlw_finish(struct xmlw *x, const char *what, char **out)
{
	if (!xml_fails)
		return __real_xmlw_finish(x, what, out);
	x->failed = true;
	return __real_xmlw_finish(x, what, out);
}

/*
 * virConnectGetDomainCapabilities() wrapped: the test driver has no
 * emulator, so each test says what libvirt answers (NULL: it fails).
 */
static const char *domcaps_xml;
char *__wrap_virConnectGetDomainCapabilities(virConnectPtr conn, const char *emulatorbin,
					     const char *arch, const char *machine,
					     const char *virttype, unsigned int flags);

char *__wrap_virConnectGetDomainCapabilities(virConnectPtr conn, const char *emulatorbin,
					     const char *arch, const char *machine,
					     const char *virttype, unsigned int flags)
{
	(void)conn;
	(void)emulatorbin;
	(void)machine;
	(void)flags;
	assert_string_equal(arch, "i686");
	assert_string_equal(virttype, "qemu");
	return domcaps_xml ? strdup(domcaps_xml) : NULL;
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
	assert_int_equal(domain_xml_build(&spec, &xml), 0);
	assert_non_null(strstr(xml, "<domain type=\"qemu\">"));
	assert_non_null(strstr(xml, "<name>fpubench-r1-0-1</name>"));
	assert_non_null(strstr(xml, "<memory unit=\"MiB\">64</memory>"));
	assert_non_null(strstr(xml, "<type arch=\"i686\" machine=\"pc\">hvm</type>"));
	assert_non_null(strstr(xml, "<kernel>/cache/build/patched/arch/x86/boot/bzImage</kernel>"));
	assert_non_null(strstr(xml, "<initrd>/results/r1/initramfs.cpio</initrd>"));
	assert_non_null(strstr(xml, "<cmdline>console=ttyS0 panic=-1 nofxsr</cmdline>"));
	assert_non_null(strstr(xml, "<model fallback=\"forbid\">qemu32</model>"));
	assert_non_null(strstr(xml, "<feature policy=\"disable\" name=\"sse\"/>"));
	assert_non_null(strstr(xml, "<feature policy=\"disable\" name=\"fxsr\"/>"));
	assert_non_null(strstr(xml, "<feature policy=\"require\" name=\"cx8\"/>"));
	assert_non_null(strstr(xml, "<on_reboot>destroy</on_reboot>"));
	assert_non_null(strstr(xml, "<on_poweroff>destroy</on_poweroff>"));
	assert_non_null(strstr(xml, "<on_crash>destroy</on_crash>"));
	assert_non_null(strstr(xml, "<source path=\"/results/r1/console/a&amp;b.log\"/>"));
	assert_non_null(strstr(xml, "<memballoon model=\"none\"/>"));
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
	assert_int_equal(domain_xml_build(&spec, &xml), 0);
	const char *devices = strstr(xml, "<devices>"), *end = strstr(xml, "</devices>");
	assert_non_null(devices);
	assert_non_null(end);
	for (const char *p = devices + 1; (p = strchr(p, '<')) && p < end; p++) {
		size_t n = strcspn(p + 1, " />");
		bool ok = p[1] == '/';

		for (size_t i = 0; i < ARRAY_SIZE(allowed) && !ok; i++)
			ok = strlen(allowed[i]) == n && strncmp(p + 1, allowed[i], n) == 0;
		if (!ok)
			fail_msg("unexpected device element: %.*s", (int)n + 1, p);
	}
	assert_non_null(strstr(xml, "<controller type=\"usb\" model=\"none\"/>"));
	assert_non_null(strstr(xml, "<serial type=\"file\">"));
	assert_non_null(strstr(xml, "<console type=\"file\">"));
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
	assert_int_equal(domain_xml_build(&spec, &xml), 0);
	assert_non_null(strstr(xml, "<name>fpubench-&lt;x&gt;'</name>"));
	free(xml);
	cpu_setup_release(&cpu);
}

/* A domain whose XML cannot be written is not started, and says why (not libvirt's word on an empty XML). */
static void test_run_refuses_a_domain_it_cannot_describe(void **state)
{
	struct guest_conn *gc;
	struct cpu_setup cpu;
	struct guest_outcome outcome;

	(void)state;
	assert_int_equal(cpu_setup_parse(&cpu, "pentium2,-fxsr"), 0);
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	struct guest_spec spec = spec_for(&cpu, "fpubench-unit-badxml");
	xml_fails = true;
	assert_int_equal(guest_run(gc, &spec, 0.3, &outcome), ERR_GENERIC);
	xml_fails = false;
	assert_string_equal(error_last(), "cannot write the XML of the domain");
	guest_conn_free(gc);
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

static pid_t spawn_sleeper(const char *domain_arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* This binary again, looking like libvirt's qemu: "-name guest=NAME,...". */
		if (domain_arg)
			execl("/proc/self/exe", "qemu-system-i386", "-name", domain_arg, (char *)NULL);
		else
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	return pid;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	assert_int_equal(file_write_atomic(path, text, strlen(text)), 0);
	free(path);
}

static bool exists_in(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	bool there = file_exists(path);

	free(path);
	return there;
}

/*
 * A bench killed while libvirt started a domain leaves its state files;
 * the next start must forget them, kill a qemu that still runs, and spare
 * a process that only reuses the pid, and files that are not ours.
 */
static void test_stale_state_is_scrubbed(void **state)
{
	char root[] = "/tmp/fpubench-unit-scrub.XXXXXX";
	int status;

	(void)state;
	assert_non_null(mkdtemp(root));
	char *run = xasprintf("%s/run", root), *dir = xasprintf("%s/run/qemu", root);
	assert_int_equal(mkdir(run, 0700), 0);
	assert_int_equal(mkdir(dir, 0700), 0);

	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	pid_t live = spawn_sleeper("guest=fpubench-live,debug-threads=on");
	pid_t other = spawn_sleeper(NULL);
	char *text = xasprintf("%d", (int)dead);
	write_file(dir, "fpubench-dead.pid", text);
	free(text);
	text = xasprintf("%d", (int)live);
	write_file(dir, "fpubench-live.pid", text);
	free(text);
	text = xasprintf("%d", (int)other);
	write_file(dir, "fpubench-reused.pid", text);
	free(text);
	const char *ours[] = { "fpubench-dead.xml", "fpubench-live.xml", "fpubench-reused.xml",
			       "fpubench-started.xml.new" };
	for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
		write_file(dir, ours[i], "<domstatus/>");
	write_file(dir, "driver.pid", "1");
	write_file(dir, "other.xml", "<domstatus/>");
	/* Both must have exec'd before their command lines are looked at. */
	usleep(200 * 1000);

	assert_int_equal(embed_scrub(root), 0);
	assert_int_equal(waitpid(live, &status, 0), live);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(kill(other, 0), 0);
	kill(other, SIGKILL);
	waitpid(other, &status, 0);
	const char *gone[] = { "fpubench-dead.pid", "fpubench-live.pid", "fpubench-reused.pid",
			       "fpubench-dead.xml", "fpubench-live.xml", "fpubench-reused.xml",
			       "fpubench-started.xml.new" };
	for (size_t i = 0; i < ARRAY_SIZE(gone); i++)
		assert_false(exists_in(dir, gone[i]));
	assert_true(exists_in(dir, "driver.pid"));
	assert_true(exists_in(dir, "other.xml"));
	/* A root with no state yet is fine too. */
	char *fresh = xasprintf("%s/fresh", root);
	assert_int_equal(embed_scrub(fresh), 0);

	char *cleanup[] = { xasprintf("%s/driver.pid", dir), xasprintf("%s/other.xml", dir) };
	for (size_t i = 0; i < 2; i++) {
		unlink(cleanup[i]);
		free(cleanup[i]);
	}
	rmdir(dir);
	rmdir(run);
	rmdir(root);
	free(fresh);
	free(dir);
	free(run);
}

/* Every setup's model is looked up in one list; the first unknown one is named. */
static void test_cpu_models_are_checked(void **state)
{
	const char *specs[] = { "486", "pentium2,-fxsr", "no-such-cpu:nofxsr", "also-unknown" };
	struct cpu_setup setups[4];
	struct guest_conn *gc = NULL;

	(void)state;
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(cpu_setup_parse(&setups[i], specs[i]), 0);
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	assert_int_equal(guest_check_cpus(gc, setups, 2), 0);
	assert_int_equal(guest_check_cpus(gc, setups, 4), ERR_CPU);
	assert_non_null(strstr(error_last(), "unknown cpu model 'no-such-cpu' in setup 'no-such-cpu:nofxsr'"));
	guest_conn_free(gc);
	/* The same verdicts without a host, as run and test give them before building. */
	assert_int_equal(cpu_check_local(setups, 2), 0);
	assert_int_equal(cpu_check_local(setups, 4), ERR_CPU);
	assert_non_null(strstr(error_last(), "unknown cpu model 'no-such-cpu' in setup 'no-such-cpu:nofxsr'"));
	for (size_t i = 0; i < 4; i++)
		cpu_setup_release(&setups[i]);
}

/* A misspelt model or feature is refused with the name that was meant. */
static void test_misspelt_names_get_the_nearest(void **state)
{
	static const struct {
		const char *spec, *message;
	} cases[] = {
		{ "pentum2,-fxsr", "unknown cpu model 'pentum2' in setup 'pentum2,-fxsr' (did you mean 'pentium2'?)" },
		{ "pentium2,-fxrs", "unknown cpu feature 'fxrs' in setup 'pentium2,-fxrs' (did you mean 'fxsr'?)" },
		{ "qemu32,-sse,-sse7", "unknown cpu feature 'sse7' in setup 'qemu32,-sse,-sse7' (did you mean " },
		{ "qemu32,+nosuchfeature", "unknown cpu feature 'nosuchfeature' in setup 'qemu32,+nosuchfeature' (not in " },
	};
	struct guest_conn *gc = NULL;

	(void)state;
	if (!file_exists(CPU_CHECK_FEATURES_MAP))
		skip();
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cpu_setup setup;

		assert_int_equal(cpu_setup_parse(&setup, cases[i].spec), 0);
		assert_int_equal(guest_check_cpus(gc, &setup, 1), ERR_CPU);
		assert_non_null(strstr(error_last(), cases[i].message));
		cpu_setup_release(&setup);
	}
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
	char *uri = embed_uri("/c/libvirt");

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
	char *root = xasprintf("%s/libvirt", dir), *uri = embed_uri(root);
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

/*
 * A bench that has dropped the cache lock still runs its embedded driver
 * until it exits: the next one waits for its driver.pid lock to go, since
 * libvirt never retries a driver that failed to start.
 */
static void test_embed_waits_for_the_exiting_holder(void **state)
{
	char dir[] = "/tmp/fpubench-unit-guest.XXXXXX";
	struct guest_conn *gc = NULL;
	int ready[2], status;

	(void)state;
	assert_non_null(mkdtemp(dir));
	char *root = xasprintf("%s/libvirt", dir), *uri = embed_uri(root);
	char *qemu = xasprintf("%s/run/qemu", root), *pidfile = xasprintf("%s/driver.pid", qemu);
	assert_int_equal(dir_create(qemu, ERR_CACHE), 0);
	assert_int_equal(embed_driver_holder(root), 0);
	assert_int_equal(pipe(ready), 0);

	pid_t child = fork();
	if (child == 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd = open(pidfile, O_RDWR | O_CREAT, 0600);

		if (fd < 0 || fcntl(fd, F_SETLK, &fl) < 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		_exit(0);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(embed_driver_holder(root), child);
	/* Fails (virConnectOpen is wrapped), but only once the holder is gone. */
	assert_int_equal(guest_conn_open(&gc, uri), ERR_LIBVIRT);
	assert_int_equal(waitpid(child, &status, WNOHANG), child);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(embed_driver_holder(root), 0);

	close(ready[0]);
	close(ready[1]);
	const char *rm[] = { "rm", "-rf", dir, NULL };
	spawn_run(rm, NULL, NULL, NULL);
	free(pidfile);
	free(qemu);
	free(uri);
	free(root);
}

/* The saved guests' key names the i686 emulator's file: another one there is another key. */
static void test_restore_key_names_the_i686_emulator(void **state)
{
	char dir[] = "/tmp/fpubench-unit-emu.XXXXXX";
	struct guest_conn *gc = NULL;
	char *first;

	(void)state;
	assert_non_null(mkdtemp(dir));
	char *emu = xasprintf("%s/qemu-system-i386", dir), *saves = xasprintf("%s/saves", dir);
	char *xml = xasprintf("<domainCapabilities>\n  <path>%s</path>\n  <domain>qemu</domain>\n"
			      "</domainCapabilities>\n", emu);
	domcaps_xml = xml;
	assert_int_equal(file_write_atomic(emu, "qemu 7.2", 8), 0);
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	assert_int_equal(guest_conn_restore(gc, saves), 0);
	assert_non_null(strstr(gc->qemu, emu));
	first = xstrdup(gc->qemu);
	guest_conn_free(gc);

	/* A QEMU built apart and installed in its place. */
	assert_int_equal(file_write_atomic(emu, "qemu 7.2, patched", 17), 0);
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	assert_int_equal(guest_conn_restore(gc, saves), 0);
	assert_string_not_equal(gc->qemu, first);
	guest_conn_free(gc);

	unlink(emu);
	assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
	assert_int_equal(guest_conn_restore(gc, saves), ERR_LIBVIRT);
	assert_non_null(strstr(error_last(), "cannot read libvirt's i686 emulator"));
	assert_non_null(strstr(error_last(), emu));
	guest_conn_free(gc);
	error_clear();
	domcaps_xml = NULL;
	const char *argv[] = { "rm", "-rf", dir, NULL };
	assert_int_equal(spawn_run(argv, NULL, NULL, NULL), 0);
	free(first);
	free(xml);
	free(emu);
	free(saves);
}

/* Capabilities libvirt cannot give, or that name no emulator, stop the bench: no key without it. */
static void test_restore_needs_the_emulator(void **state)
{
	const char *bad[] = { NULL, "<domainCapabilities><domain>qemu</domain></domainCapabilities>",
			      "not xml" };
	struct guest_conn *gc = NULL;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		domcaps_xml = bad[i];
		assert_int_equal(guest_conn_open(&gc, "test:///default"), 0);
		assert_int_equal(guest_conn_restore(gc, "/nonexistent/saves"), ERR_LIBVIRT);
		assert_non_null(strstr(error_last(),
				       i ? "name no emulator" : "cannot get libvirt's i686 emulator"));
		guest_conn_free(gc);
		gc = NULL;
		error_clear();
	}
	domcaps_xml = NULL;
}

int main(int argc, char **argv)
{
	/* The stand-in qemu of test_stale_state_is_scrubbed. */
	if (argc == 3 && strcmp(argv[1], "-name") == 0)
		for (;;)
			pause();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_has_the_domain_we_need),
		cmocka_unit_test(test_xml_has_no_network_and_no_host_files),
		cmocka_unit_test(test_xml_escapes_names),
		cmocka_unit_test(test_run_refuses_a_domain_it_cannot_describe),
		cmocka_unit_test(test_run_times_out_and_destroys),
		cmocka_unit_test(test_stale_state_is_scrubbed),
		cmocka_unit_test(test_cpu_models_are_checked),
		cmocka_unit_test(test_misspelt_names_get_the_nearest),
		cmocka_unit_test(test_bad_uri_is_a_libvirt_error),
		cmocka_unit_test(test_embed_uri),
		cmocka_unit_test(test_embed_root_is_private),
		cmocka_unit_test(test_embed_waits_for_the_exiting_holder),
		cmocka_unit_test(test_restore_key_names_the_i686_emulator),
		cmocka_unit_test(test_restore_needs_the_emulator),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
