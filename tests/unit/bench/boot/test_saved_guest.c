/*
 * The saved guests' key and store (saved_guest.h), on files in a
 * temporary directory, and the domain XML of a parked guest.  No libvirt:
 * the images here are plain files of known sizes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "boot/cpu.h"
#include "boot/domain_xml.h"
#include "boot/saved_guest.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

static const struct saved_key base_key = {
	.build_id = "3f1c0ffee",
	.cpu = "pentium2,-fxsr",
	.cmdline = "console=ttyS0 panic=-1 oops=panic tsc=unstable",
	.initrd_hash = "9a8b7c",
	.qemu = "7002022",
	.libvirt = "9000000",
	.memory_mib = 64,
};

static void key_id(const struct saved_key *k, char id[SAVED_ID_LEN + 1])
{
	char *text = saved_key_text(k);

	saved_key_id(text, id);
	free(text);
}

/* Every part of the key names another saved guest. */
static void test_key_parts_each_change_the_id(void **state)
{
	char base[SAVED_ID_LEN + 1], again[SAVED_ID_LEN + 1], other[SAVED_ID_LEN + 1];
	struct saved_key k;

	(void)state;
	key_id(&base_key, base);
	key_id(&base_key, again);
	assert_string_equal(base, again);
	assert_int_equal(strlen(base), SAVED_ID_LEN);
	const char **fields[] = { &k.build_id, &k.cpu, &k.cmdline, &k.initrd_hash, &k.qemu, &k.libvirt };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		k = base_key;
		*fields[i] = "x";
		key_id(&k, other);
		assert_string_not_equal(base, other);
	}
	k = base_key;
	k.memory_mib = 128;
	key_id(&k, other);
	assert_string_not_equal(base, other);
	/* A part cannot pass for another: each is named on its own line. */
	char *text = saved_key_text(&base_key);
	assert_non_null(strstr(text, "build-id 3f1c0ffee\ncpu pentium2,-fxsr\n"));
	assert_non_null(strstr(text, "qemu 7002022\nlibvirt 9000000\n"));
	free(text);
}

struct fixture {
	char *dir;
	char *console;
	struct saved_store *store;
};

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	const char *base = getenv("TMPDIR");

	f->dir = xasprintf("%s/fpubench-saved-XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	f->console = xasprintf("%s/console.log", f->dir);
	assert_int_equal(file_write_atomic(f->console, "KTAP version 1\n1..15\n", 21), 0);
	char *saves = xasprintf("%s/saves", f->dir);
	assert_int_equal(saved_store_open(&f->store, saves, 1ULL << 30), 0);
	free(saves);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	saved_store_free(f->store);
	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(f->console);
	free(f->dir);
	free(f);
	return 0;
}

static void write_bytes(const char *path, size_t n)
{
	char *buf = xcalloc(1, n);

	memset(buf, 'i', n);
	assert_int_equal(file_write_atomic(path, buf, n), 0);
	free(buf);
}

/* Changes one byte in place: the file keeps its size. */
static void flip_byte(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	unsigned char c;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, at), 1);
	c ^= 0x01;
	assert_int_equal(pwrite(fd, &c, 1, at), 1);
	close(fd);
}

/* A second later than the file's mtime: a write in the same clock tick can leave it as it was. */
static void mtime_later(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	st.st_mtim.tv_sec++;
	struct timespec times[2] = { st.st_atim, st.st_mtim };
	assert_int_equal(utimensat(AT_FDCWD, path, times, 0), 0);
}

/*
 * Takes a new entry for key (its first boot is cold, unless the store has
 * seen it), "saves" an image of `size` bytes into it and publishes it.
 */
static void publish(struct fixture *f, const char *key, size_t size)
{
	struct saved_entry e;
	int taken = saved_store_take(f->store, key, &e);

	if (taken == SAVED_FIRST) {
		saved_store_release(f->store, &e);
		taken = saved_store_take(f->store, key, &e);
	}
	assert_int_equal(taken, SAVED_NEW);
	assert_non_null(e.tmp);
	write_bytes(e.image, size);
	assert_int_equal(saved_store_publish(f->store, &e, f->console, "console=ttyS0 fpubench_park=1"), 0);
	assert_null(e.tmp);
	assert_true(file_exists(e.image));
	saved_store_release(f->store, &e);
}

static void test_store_publishes_then_restores(void **state)
{
	struct fixture *f = *state;
	struct saved_entry e;
	struct strbuf sb = STRBUF_INIT;

	publish(f, "key one\n", 4096);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_RESTORE);
	assert_null(e.tmp);
	assert_string_equal(e.cmdline, "console=ttyS0 fpubench_park=1");
	assert_int_equal(file_read(e.console, &sb), 0);
	assert_string_equal(sb.buf, "KTAP version 1\n1..15\n");
	/* One boot at a time holds a key. */
	struct saved_entry other;
	assert_int_equal(saved_store_take(f->store, "key one\n", &other), SAVED_BUSY);
	saved_store_release(f->store, &e);
	assert_int_equal(saved_store_take(f->store, "key one\n", &other), SAVED_RESTORE);
	saved_store_release(f->store, &other);
	/* Another key is another entry, saved at its second boot. */
	assert_int_equal(saved_store_take(f->store, "key two\n", &other), SAVED_FIRST);
	saved_store_release(f->store, &other);
	assert_int_equal(saved_store_take(f->store, "key two\n", &other), SAVED_NEW);
	saved_store_release(f->store, &other);
	strbuf_release(&sb);
}

/* A truncated or changed image, a meta of another key, a lost or changed console: a new save, never a restore. */
static void test_store_drops_damaged_entries(void **state)
{
	struct fixture *f = *state;
	struct saved_entry e;
	char id[SAVED_ID_LEN + 1];

	publish(f, "key one\n", 4096);
	saved_key_id("key one\n", id);
	char *image = xasprintf("%s/saves/%s/image", f->dir, id);
	char *meta = xasprintf("%s/saves/%s/meta", f->dir, id);
	char *console = xasprintf("%s/saves/%s/console", f->dir, id);

	assert_int_equal(truncate(image, 4000), 0);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	assert_false(file_exists(image));
	saved_store_release(f->store, &e);

	publish(f, "key one\n", 4096);
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(file_read(meta, &sb), 0);
	char *p = strstr(sb.buf, "key one");
	assert_non_null(p);
	p[4] = 'x';
	assert_int_equal(file_write_atomic(meta, sb.buf, sb.len), 0);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	saved_store_release(f->store, &e);

	publish(f, "key one\n", 4096);
	assert_int_equal(unlink(console), 0);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	saved_store_release(f->store, &e);

	/* Damage of the same size, even with the old mtime, as the next bench process finds it. */
	publish(f, "key one\n", 4096);
	struct stat st;
	assert_int_equal(stat(image, &st), 0);
	flip_byte(image, 2048);
	struct timespec times[2] = { st.st_atim, st.st_mtim };
	assert_int_equal(utimensat(AT_FDCWD, image, times, 0), 0);
	struct saved_store *next;
	char *saves = xasprintf("%s/saves", f->dir);
	assert_int_equal(saved_store_open(&next, saves, 1ULL << 30), 0);
	assert_int_equal(saved_store_take(next, "key one\n", &e), SAVED_NEW);
	assert_false(file_exists(image));
	saved_store_release(next, &e);
	saved_store_free(next);
	free(saves);
	/* In this process, a rewrite of the same size (a new mtime); and the console too. */
	publish(f, "key one\n", 4096);
	flip_byte(image, 10);
	mtime_later(image);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	saved_store_release(f->store, &e);
	publish(f, "key one\n", 4096);
	flip_byte(console, 0);
	mtime_later(console);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	saved_store_release(f->store, &e);

	/*
	 * An image libvirt refused is dropped by the caller, and the key's next
	 * boot saves it anew, even where the store had lost its seen mark.
	 */
	publish(f, "key one\n", 4096);
	char *seen = xasprintf("%s/saves/%s.seen", f->dir, id);
	assert_int_equal(unlink(seen), 0);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_RESTORE);
	saved_store_drop(f->store, &e);
	saved_store_release(f->store, &e);
	assert_false(file_exists(image));
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	saved_store_release(f->store, &e);
	free(seen);
	strbuf_release(&sb);
	free(image);
	free(meta);
	free(console);
}

/* Past the limit, the least recently used entries go first. */
static void test_store_keeps_its_size_limit(void **state)
{
	struct fixture *f = *state;
	struct saved_entry e;
	char *saves = xasprintf("%s/small", f->dir);
	struct saved_store *full = f->store;

	assert_int_equal(saved_store_open(&f->store, saves, 10000), 0);
	publish(f, "a\n", 4000);
	publish(f, "b\n", 4000);
	/* a is used after b: b is the older now. */
	sleep(1);
	assert_int_equal(saved_store_take(f->store, "a\n", &e), SAVED_RESTORE);
	saved_store_release(f->store, &e);
	publish(f, "c\n", 4000);
	assert_true(saved_store_bytes(f->store) <= 10000);
	/* b is forgotten, its first boot again. */
	assert_int_equal(saved_store_take(f->store, "b\n", &e), SAVED_FIRST);
	saved_store_release(f->store, &e);
	assert_int_equal(saved_store_take(f->store, "a\n", &e), SAVED_RESTORE);
	saved_store_release(f->store, &e);
	assert_int_equal(saved_store_take(f->store, "c\n", &e), SAVED_RESTORE);
	saved_store_release(f->store, &e);
	saved_store_free(f->store);
	f->store = full;
	free(saves);
}

/* A killed bench's half-written entry is gone at the next open. */
static void test_store_open_removes_leftovers(void **state)
{
	struct fixture *f = *state;
	struct saved_store *again;
	char *dir = xasprintf("%s/saves", f->dir);
	char *tmp = xasprintf("%s/0123.tmp-99-0", dir);

	assert_int_equal(mkdir(tmp, 0700), 0);
	char *image = xasprintf("%s/image", tmp);
	write_bytes(image, 100);
	char *sock = xasprintf("%s/0123456789abcdef.sock", dir);
	write_bytes(sock, 1);
	assert_int_equal(saved_store_open(&again, dir, 1ULL << 30), 0);
	assert_false(file_exists(tmp));
	assert_false(file_exists(sock));
	free(sock);
	saved_store_free(again);
	free(image);
	free(tmp);
	free(dir);
}

static void test_file_hash_follows_the_content(void **state)
{
	struct fixture *f = *state;
	char *path = xasprintf("%s/initramfs.cpio", f->dir);
	char first[64];

	assert_null(saved_store_file_hash(f->store, path));
	assert_int_equal(file_write_atomic(path, "one", 3), 0);
	snprintf(first, sizeof(first), "%s", saved_store_file_hash(f->store, path));
	assert_string_equal(saved_store_file_hash(f->store, path), first);
	assert_int_equal(file_write_atomic(path, "other", 5), 0);
	assert_string_not_equal(saved_store_file_hash(f->store, path), first);
	free(path);
}

/* A save that cannot be read is not published, and the error names the file. */
static void test_store_publish_names_an_unreadable_image(void **state)
{
	struct fixture *f = *state;
	struct saved_entry e;

	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_FIRST);
	saved_store_release(f->store, &e);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	/* It stats as a file would, and cannot be hashed. */
	assert_int_equal(mkdir(e.image, 0700), 0);
	char *want = xasprintf("cannot read '%s': ", e.image);
	assert_int_equal(saved_store_publish(f->store, &e, f->console, "console=ttyS0"), ERR_CACHE);
	assert_true(strncmp(error_last(), want, strlen(want)) == 0);
	assert_int_equal(rmdir(e.image), 0);	/* the store removes plain files only */
	saved_store_release(f->store, &e);
	assert_int_equal(saved_store_take(f->store, "key one\n", &e), SAVED_NEW);
	saved_store_release(f->store, &e);
	free(want);
}

static void test_parked_xml_has_the_port_and_uuid(void **state)
{
	struct cpu_setup cpu;
	char *xml;

	(void)state;
	assert_int_equal(cpu_setup_parse(&cpu, "486"), 0);
	struct guest_spec spec = {
		.name = "fpubench-saved-0123456789abcdef",
		.kernel = "/k",
		.initrd = "/i",
		.cmdline = "console=ttyS0 fpubench_start=3",
		.console = "/c.log",
		.cpu = &cpu,
		.memory_mib = 64,
	};
	struct domain_park park = {
		.cmdline = "console=ttyS0 fpubench_park=1",
		.uuid = "01234567-89ab-cdef-0123-456789abcdef",
		.socket = "/saves/0123456789abcdef.sock",
	};
	assert_int_equal(domain_xml_build_parked(&spec, &park, &xml), 0);
	assert_non_null(strstr(xml, "<uuid>01234567-89ab-cdef-0123-456789abcdef</uuid>"));
	assert_non_null(strstr(xml, "<cmdline>console=ttyS0 fpubench_park=1</cmdline>"));
	assert_non_null(strstr(xml, "<source path=\"/c.log\" append=\"on\"/>"));
	assert_non_null(strstr(xml, "<serial type=\"unix\">"));
	assert_non_null(strstr(xml, "<source mode=\"bind\" path=\"/saves/0123456789abcdef.sock\"/>"));
	assert_non_null(strstr(xml, "<target port=\"1\"/>"));
	free(xml);
	/* A cold boot's domain has neither. */
	assert_int_equal(domain_xml_build(&spec, &xml), 0);
	assert_null(strstr(xml, "<uuid>"));
	assert_null(strstr(xml, "unix"));
	assert_null(strstr(xml, "append"));
	free(xml);
	cpu_setup_release(&cpu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_parts_each_change_the_id),
		cmocka_unit_test_setup_teardown(test_store_publishes_then_restores, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_drops_damaged_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_keeps_its_size_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_open_removes_leftovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_hash_follows_the_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_publish_names_an_unreadable_image, setup, teardown),
		cmocka_unit_test(test_parked_xml_has_the_port_and_uuid),
	};

	git_libgit2_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
