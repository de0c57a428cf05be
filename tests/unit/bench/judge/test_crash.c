/*
 * Unit tests for bench/judge/crash.c and `fpubench console`: real reports
 * with the titles syzkaller gives them (tests/fixtures/console/real/, see
 * its README), real reports of this bench's own guests, and the reading
 * rules: prefixes, contexts, several reports, benign lines, odd logs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "judge/crash.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REAL "tests/fixtures/console/real/"

/* Scans `len` bytes line by line; the caller frees the scanner. */
static struct crash_scanner *scan_text(const char *text, size_t len)
{
	struct crash_scanner *s = crash_scanner_new();

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;

		crash_scanner_line(s, p, (size_t)(next - p));
		p = next;
	}
	crash_scanner_finish(s);
	return s;
}

static void assert_first(const char *log, const char *want)
{
	struct crash_scanner *s = scan_text(log, strlen(log));

	if (want) {
		assert_true(crash_scanner_count(s) >= 1);
		assert_string_equal(crash_scanner_report(s, 0)->title, want);
	} else {
		assert_int_equal(crash_scanner_count(s), 0);
	}
	crash_scanner_free(s);
}

/*
 * A fixture is "TITLE: ..." (none: no crash), other "KEY: value" lines
 * ("CORRUPTED: Y"), a blank line, then the log.
 */
static void check_fixture(const char *name)
{
	struct strbuf text = STRBUF_INIT;
	char *path = xasprintf(REAL "%s", name), *title = NULL;
	bool corrupted = false;
	const char *p;
	struct crash_scanner *s;

	assert_int_equal(file_read(path, &text), 0);
	for (p = text.buf; *p && *p != '\n';) {
		const char *nl = strchr(p, '\n');

		if (strncmp(p, "TITLE: ", 7) == 0)
			title = xstrndup(p + 7, (size_t)(nl - p - 7));
		corrupted |= strncmp(p, "CORRUPTED: Y", 12) == 0;
		p = nl + 1;
	}
	s = scan_text(p, text.len - (size_t)(p - text.buf));
	if (!title) {
		if (crash_scanner_count(s))
			fail_msg("%s: no crash expected, got '%s'", name, crash_scanner_report(s, 0)->title);
	} else {
		if (!crash_scanner_count(s))
			fail_msg("%s: no crash found, expected '%s'", name, title);
		if (strcmp(crash_scanner_report(s, 0)->title, title) != 0)
			fail_msg("%s: got '%s', expected '%s'", name, crash_scanner_report(s, 0)->title, title);
		if (corrupted)
			assert_true(crash_scanner_report(s, 0)->corrupted);
	}
	crash_scanner_free(s);
	free(title);
	free(path);
	strbuf_release(&text);
}

static void test_real_reports(void **state)
{
	DIR *d = opendir(REAL);
	struct dirent *e;
	int n = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0)
			continue;
		check_fixture(e->d_name);
		n++;
	}
	closedir(d);
	assert_true(n >= 15);
}

static void test_prefixes_and_contexts(void **state)
{
	(void)state;
	/* Caller ids after the timestamp, syslog's level, CRLF. */
	assert_first("<4>[   12.345678][    T1] WARNING: CPU: 0 PID: 1 at kernel/a.c:1 f+0x1/0x2\r\n"
		     "<4>[   12.345678][    T1] EIP: g.constprop.0+0x1/0x2\r\n", "WARNING in g");
	/* A journal's "kernel: " prefix. */
	assert_first("Dec 05 20:00:01 host kernel: BUG: kernel NULL pointer dereference, address: 0\n"
		     "Dec 05 20:00:01 host kernel: RIP: 0010:h+0x1/0x2\n",
		     "BUG: unable to handle kernel NULL pointer dereference in h");
	/* dmesg -x's facility and level. */
	assert_first("kern  :warn  : [    1.000000] WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\n"
		     "kern  :warn  : [    1.000000] RIP: 0010:x_level+0x1/0x2\n", "WARNING in x_level");
	/* dmesg -T and a CI log's ISO time. */
	assert_first("[Sat Dec  5 20:00:01 2026] kernel BUG at mm/x.c:1!\n"
		     "2026-12-05T20:00:01.5Z [Sat Dec  5 20:00:01 2026] EIP: k+0x1/0x2\n", "kernel BUG in k");
	/* Another task's lines inside the report are not its own. */
	assert_first("[ 1.0][ T21] general protection fault: 0000 [#1]\n"
		     "[ 1.0][  T1] RIP: 0010:not_mine+0x1/0x2\n"
		     "[ 1.0][ T21] RIP: 0010:mine+0x1/0x2\n", "general protection fault in mine");
}

static void test_several_reports_are_listed(void **state)
{
	const char *log = "[ 1.0] WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\n"
			  "[ 1.0] EIP: f+0x1/0x2\n"
			  "[ 1.0] ---[ end trace 0000000000000000 ]---\n"
			  "[ 2.0] some line\n"
			  "[ 3.0] BUG: scheduling while atomic: x/1/0x2\n"
			  "[ 3.0] Call Trace:\n"
			  "[ 3.0]  schedule+0x1/0x2\n"
			  "[ 3.0]  g+0x1/0x2\n";
	struct crash_scanner *s = scan_text(log, strlen(log));
	const struct crash *c;

	(void)state;
	assert_int_equal(crash_scanner_count(s), 2);
	c = crash_scanner_report(s, 0);
	assert_string_equal(c->title, "WARNING in f");
	assert_int_equal(c->first_line, 1);
	assert_int_equal(c->last_line, 3);
	assert_false(c->corrupted);
	c = crash_scanner_report(s, 1);
	assert_string_equal(c->title, "BUG: scheduling while atomic in g");
	assert_int_equal(c->first_line, 5);
	assert_int_equal(c->last_line, 8);
	/* The log ends in its call trace: cut off. */
	assert_true(c->corrupted);
	crash_scanner_free(s);
}

static void test_benign_lines(void **state)
{
	(void)state;
	assert_first("[ 1.0] WARNING: The mand mount option has been deprecated and\n", NULL);
	assert_first("[ 1.0] INFO: lockdep is turned off.\n", NULL);
	assert_first("[ 0.0] Kernel command line: console=ttyS0 oops=panic panic_on_warn=1 "
		     "BUG: WARNING: Kernel panic - not syncing: x\n", NULL);
	assert_first("[ 0.0] Command line: BUG: WARNING:\n", NULL);
	assert_first("[ 5.0] traps: a.out[99] general protection fault ip:401000 sp:7ffc error:0 in a.out\n",
		     NULL);
	assert_first("[ 5.0] traps: a.out[99] general protection fault ip:401000 sp:7ffc error:0\n", NULL);
	assert_first("[ 5.0] traps: a.out[99] trap divide error ip:401000 sp:7ffc error:0 in a.out\n", NULL);
	assert_first("[ 1.0] ODEBUG: free active (active state 0) object type: timer_list\n", NULL);
	assert_first("---[ end Kernel panic - not syncing: Fatal exception ]---\n", NULL);
	/* Only at the start of a line does an unknown BUG:/WARNING:/INFO: count. */
	assert_first("[ 1.0] usb 1-1: device says INFO: nothing\n", NULL);
	assert_first("[ 1.0] INFO: something new\n", "INFO: something new");
	assert_first("[ 1.0] EXT4-fs (loop0): WARNING: CPU: 0 PID: 1 at fs/ext4/a.c:1 f+0x1/0x2\n", NULL);
	/* The decompressor's line: the log's own boot, and a reboot once the kernel ran. */
	assert_first("Decompressing Linux... Parsing ELF... done.\nBooting the kernel.\n[ 0.0] Linux version\n", NULL);
	assert_first("[ 0.0] Linux version\n[ 9.0] a line\nBooting the kernel.\n", "unexpected kernel reboot");
}

static void test_odd_logs(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct crash_scanner *s;

	(void)state;
	assert_first("", NULL);
	assert_first("\n\n\r\n", NULL);
	/* NULs and high bytes. */
	s = scan_text("\0\xff\xfe WARNING: CPU: 0 PID: 1 at a.c:1 f\0+0x1/0x2\n\x80\n", 40);
	crash_scanner_free(s);
	/* A megabyte line: only its start is read; the report after it is still found. */
	strbuf_addstr(&sb, "[ 1.0] kernel BUG at a.c:1!");
	for (int i = 0; i < 1 << 20; i++)
		strbuf_addch(&sb, 'x');
	strbuf_addstr(&sb, "\n[ 1.0] EIP: long_line+0x1/0x2\n");
	s = scan_text(sb.buf, sb.len);
	assert_int_equal(crash_scanner_count(s), 1);
	assert_string_equal(crash_scanner_report(s, 0)->title, "kernel BUG in long_line");
	crash_scanner_free(s);
	/* Titles are printable and bounded whatever the line. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "Kernel panic - not syncing: ");
	for (int i = 0; i < 600; i++)
		strbuf_addch(&sb, (char)(i % 2 ? 0x1b : 'y'));
	s = scan_text(sb.buf, sb.len);
	assert_int_equal(crash_scanner_count(s), 1);
	assert_true(strlen(crash_scanner_report(s, 0)->title) <= CRASH_TITLE_MAX);
	for (const char *p = crash_scanner_report(s, 0)->title; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
	crash_scanner_free(s);
	strbuf_release(&sb);
}

static void test_panic_after_a_report_is_its_consequence(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct crash_scanner *s;

	(void)state;
	strbuf_addstr(&sb, "invalid opcode: 0000 [#1]\nEIP: f+0x1/0x2\n---[ end trace 0 ]---\n"
			   "Kernel panic - not syncing: Fatal exception\n");
	s = scan_text(sb.buf, sb.len);
	assert_int_equal(crash_scanner_count(s), 1);
	crash_scanner_free(s);
	/* Far from any report, a panic is one. */
	for (int i = 0; i < 101; i++)
		strbuf_addstr(&sb, "[ 9.0] quiet\n");
	strbuf_addstr(&sb, "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009\n");
	s = scan_text(sb.buf, sb.len);
	assert_int_equal(crash_scanner_count(s), 2);
	assert_string_equal(crash_scanner_report(s, 1)->title, "kernel panic: Attempted to kill init!");
	crash_scanner_free(s);
	strbuf_release(&sb);
}

static void test_frames(void **state)
{
	(void)state;
	/* Hung task: the scheduler's and the waits' frames are skipped. */
	assert_first("INFO: task cat:33 blocked for more than 5 seconds.\nCall Trace:\n"
		     " __schedule+0x1/0x2\n schedule+0x1/0x2\n schedule_timeout+0x1/0x2\n"
		     " wait_for_completion+0x1/0x2\n lkdtm_HUNG_TASK+0x1/0x2\n",
		     "INFO: task hung in lkdtm_HUNG_TASK");
	assert_first("INFO: task a:1 blocked for more than 5 seconds.\nCall Trace:\n"
		     " __schedule+0x1/0x2\n synchronize_rcu_expedited+0x1/0x2\n x+0x1/0x2\n",
		     "INFO: task hung in synchronize_rcu");
	/* Soft lockup: the frame before the syscall's dispatcher. */
	assert_first("watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [cat:33]\n"
		     "EIP: lkdtm_SOFTLOCKUP+0x1/0x2\nCall Trace:\n lkdtm_do_action+0x1/0x2\n"
		     " direct_entry+0x1/0x2\n full_proxy_write+0x1/0x2\n vfs_write+0x1/0x2\n"
		     " ksys_write+0x1/0x2\n",
		     "BUG: soft lockup in full_proxy_write");
	/* Sleeping in atomic context: might_sleep's helpers are skipped. */
	assert_first("BUG: sleeping function called from invalid context at mm/slab.h:1\nCall Trace:\n"
		     " dump_stack_lvl+0x1/0x2\n __might_resched.cold+0x1/0x2\n kmem_cache_alloc+0x1/0x2\n"
		     " fpu_alloc.isra.0+0x1/0x2\n",
		     "BUG: sleeping function called from invalid context in fpu_alloc");
	/* The newer WARNING format, without a stack: its own function. */
	assert_first("WARNING: arch/x86/kernel/fpu/core.c:140 at fpu_sync_fpstate+0x1/0x2, CPU#0: a/1\n",
		     "WARNING in fpu_sync_fpstate");
	/* KFENCE says what the access was. */
	assert_first("BUG: KFENCE: use-after-free read in f+0x1/0x2\n\nUse-after-free read at 0x1 (in kfence-#1):\n"
		     " f+0x1/0x2\n g+0x1/0x2\n", "KFENCE: use-after-free read in f");
	/* The newest WARNING format, without the function: the stack's. */
	assert_first("WARNING: fs/a.c:1 at 0x0, CPU#0: a/1\nRIP: 0010:g+0x1/0x2\n", "WARNING in g");
	/* The refcount family. */
	assert_first("WARNING: CPU: 0 PID: 1 at lib/refcount.c:28 refcount_warn_saturate+0x1/0x2\n"
		     "EIP: refcount_warn_saturate+0x1/0x2\n Call Trace:\n"
		     " __refcount_add.constprop.0+0x1/0x2\n fpu_get+0x1/0x2\n",
		     "WARNING: refcount bug in fpu_get");
}

/* `fpubench console` reads in chunks: lines across chunk boundaries and a huge one. */
static void test_console_command(void **state)
{
	char dir[] = "/tmp/fpubench-console-XXXXXX", *log, *json;
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	struct options o = { 0 };
	const char *argv[2];

	(void)state;
	assert_non_null(mkdtemp(dir));
	log = xasprintf("%s/a.log", dir);
	json = xasprintf("%s/a.json", dir);
	for (int i = 0; i < 70000; i++)
		strbuf_addstr(&sb, "[    0.1] line\n");
	for (int i = 0; i < 200000; i++)
		strbuf_addch(&sb, 'z');
	strbuf_addstr(&sb, "\n[    1.0] BUG: kernel NULL pointer dereference, address: 0\n"
			   "[    1.0] EIP: chunked+0x1/0x2\n");
	assert_int_equal(file_write_atomic(log, sb.buf, sb.len), 0);
	argv[0] = log;
	o.operands.v = argv;
	o.operands.n = 1;
	o.json = json;
	assert_int_equal(cmd_console(&o), 1);
	assert_int_equal(file_read(json, &out), 0);
	assert_non_null(strstr(out.buf, "\"crash\": \"BUG: unable to handle kernel NULL pointer "
				       "dereference in chunked\""));
	assert_non_null(strstr(out.buf, "\"first_line\": 70002,"));
	assert_non_null(strstr(out.buf, "\"last_line\": 70003,"));
	assert_non_null(strstr(out.buf, "\"corrupted\": true"));
	argv[0] = "/nonexistent/log";
	assert_int_equal(cmd_console(&o), ERR_NOTFOUND);
	unlink(log);
	unlink(json);
	rmdir(dir);
	free(log);
	free(json);
	strbuf_release(&sb);
	strbuf_release(&out);
}

/* What differs between two runs of one bug is not in the title. */
static void test_title_numbers(void **state)
{
	(void)state;
	assert_first("BUG: a syz-executor.3/1234 and syzkaller123456:7 on CPU#1\n",
		     "BUG: a syz-executor and syzkaller on CPU");
	assert_first("BUG: from 10.0.0.1 age=624 (0,0) v1.2\n", "BUG: from IP age=NUM (NUM,NUM) v1.NUM");
	/* A number inside a name stays, unless it is 7 digits or more. */
	assert_first("BUG: nl80211 ieee802154 x12345678\n", "BUG: nl80211 ieee802154 xNUM");
}

/* A message printk split at a newline in it: lines of one timestamp and caller id. */
static void test_split_message(void **state)
{
	(void)state;
	assert_first("[    1.000000][   T41] INFO: task a\n[    1.000000][   T41] b:1 blocked for more than 5 seconds.\n"
		     "[    1.100000][   T41] Call Trace:\n[    1.100000][   T41]  f+0x1/0x2\n", "INFO: task hung in f");
	/* Another timestamp, another caller, or no report together: the first line alone. */
	assert_first("[    1.000000] INFO: task a\n[    2.000000] b:1 blocked for more than 5 seconds.\n",
		     "INFO: task a");
	assert_first("[    1.000000][   T41] INFO: task a\n[    1.000000][   T42] b:1 blocked for more than 5 seconds.\n",
		     "INFO: task a");
	assert_first("[    1.000000] INFO: task a\n[    1.000000] b\n", "INFO: task a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_reports),
		cmocka_unit_test(test_prefixes_and_contexts),
		cmocka_unit_test(test_several_reports_are_listed),
		cmocka_unit_test(test_benign_lines),
		cmocka_unit_test(test_odd_logs),
		cmocka_unit_test(test_panic_after_a_report_is_its_consequence),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_title_numbers),
		cmocka_unit_test(test_split_message),
		cmocka_unit_test(test_console_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
