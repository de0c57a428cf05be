/*
 * saved_guest: the cache's saved guests, one per key.  A saved guest is a
 * libvirt save image of a guest parked where /init is about to run its
 * tests (guest-tests/rt/park.h), with the console it had written by then.
 *
 * Its key is everything the guest's state up to that point depends on: the
 * kernel's build id, the CPU setup, the base command line (without the
 * tests and start index, which the restored guest is told), the
 * initramfs's content, the guest's memory, and the versions of QEMU and
 * libvirt (a save image is QEMU's migration stream, and libvirt's header
 * wraps it).  The store's entries are named by the key's hash and hold the
 * key's text, checked on every use, so that a collision or another
 * version's entry is never restored.
 *
 * Entries are directories <dir>/<id>/ holding `image`, `console` and `meta`.
 * They are written in <dir>/<id>.tmp-<pid>-<n>/ and published by rename(),
 * under the cache lock the bench holds; leftovers of a killed bench (its
 * temporary entries, its guests' sockets <id>.sock) are removed when the
 * store is opened.  After each publication the oldest
 * entries (by last use) are removed until the store holds at most
 * max_bytes.  A damaged entry (an image or console whose size or content
 * is not what was written, a meta that does not parse or names another key,
 * or an image that libvirt refuses) is removed: the caller boots cold and
 * saves anew.  The meta holds the image's and the console's hashes; a bench
 * process hashes a file once (saved_store_file_hash()), so a save image costs
 * its first restore in a process about 25 ms.
 *
 * A key is saved at its second boot, not its first: a save and a restore
 * cost more than the boot to /init they spare, and most kernels of a
 * bisection or a `test --patch` that passes are booted once per setup.  The
 * store remembers the keys it has seen as empty files <dir>/<id>.seen, which
 * go with the entry or, unused, after SAVED_SEEN_DAYS.
 *
 * Within the bench one boot at a time holds a key (saved_store_take()): a
 * restored domain keeps its save's UUID, which libvirt lets only one
 * running domain have.
 */
#ifndef FPUBENCH_SAVED_GUEST_H
#define FPUBENCH_SAVED_GUEST_H

#include "errors.h"

#include <stdbool.h>
#include <stddef.h>

#define SAVED_ID_LEN 40
/* About 60 saved guests of the default matrix's size (8 to 16 MB each). */
#define SAVED_STORE_MAX_BYTES (1ULL << 30)
#define SAVED_SEEN_DAYS 30

struct saved_key {
	const char *build_id;
	const char *cpu;	/* the setup as given: "pentium2,-fxsr" */
	const char *cmdline;	/* the base command line */
	const char *initrd_hash;
	const char *qemu;	/* libvirt's QEMU version and the i686 emulator's file */
	const char *libvirt;	/* libvirt's version */
	unsigned memory_mib;
};

/* The key as text, one "name value" a line (caller frees). */
char *saved_key_text(const struct saved_key *k);

/* The hash of a key's text, as SAVED_ID_LEN hex digits and a NUL. */
void saved_key_id(const char *text, char id[SAVED_ID_LEN + 1]);

struct saved_store;

struct saved_entry {
	char id[SAVED_ID_LEN + 1];
	char *key;	/* its text */
	char *dir;	/* the published entry */
	char *image;	/* in dir: restore from these */
	char *console;
	char *cmdline;	/* the whole command line the saved guest booted with */
	char *tmp;	/* while a new entry is written: its directory, with `image` to save into */
};

/* Opens (creating) the store in dir; ERR_CACHE when it cannot be written. */
int saved_store_open(struct saved_store **out, const char *dir, unsigned long long max_bytes);

void saved_store_free(struct saved_store *s);

/* The directory the store is in. */
const char *saved_store_dir(const struct saved_store *s);

/*
 * The hash of the file's content (hex), computed once per path, size and
 * mtime; NULL when it cannot be read.  Thread-safe; the store owns it.
 */
const char *saved_store_file_hash(struct saved_store *s, const char *path);

enum saved_take {
	SAVED_RESTORE,	/* *e is a published entry: restore it */
	SAVED_NEW,	/* none (or a damaged one, now removed): park a guest and publish it */
	SAVED_BUSY,	/* another boot holds the key: boot cold */
	SAVED_FIRST,	/* the key's first boot: boot cold; the store now knows the key */
};

/*
 * Takes key_text for the caller until saved_store_release(), with an
 * enum saved_take, or a negative code when the store cannot be written.
 * For SAVED_NEW, e->tmp is made.
 */
int saved_store_take(struct saved_store *s, const char *key_text, struct saved_entry *e);

/*
 * Publishes e->tmp (its image saved) with the console up to the save and the
 * command line the guest booted with; then e names the published entry.
 */
int saved_store_publish(struct saved_store *s, struct saved_entry *e, const char *console,
			const char *cmdline);

/* Removes the entry (a damaged one, or a new one that was not saved); the next take of its key is SAVED_NEW. */
void saved_store_drop(struct saved_store *s, struct saved_entry *e);

/* Lets another boot take the key, and frees e's fields. */
void saved_store_release(struct saved_store *s, struct saved_entry *e);

/* The store's size in bytes, for the bench's figures and the tests. */
unsigned long long saved_store_bytes(struct saved_store *s);

#endif
