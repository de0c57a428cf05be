#include "restore.h"

#include "domain_xml.h"
#include "guest_domain.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/fileutil.h"
#include "lib/strbuf.h"
#include "lib/xalloc.h"
#include "saved_guest.h"
#include "virt_loop.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PARKED_WORD "parked"
#define RESUMED_WORD "resumed"
/*
 * How long a restored guest has to say it read its line.  A restored guest
 * that does not is destroyed and the boot goes on cold: now and then (about
 * 1 in 3 restores, QEMU 7.2) a guest that only read its line never ran on,
 * as though an interrupt were lost, and one that answers has run on every
 * time (bench/OPTIMISATIONS.md).
 */
#define RESUME_WAIT_S 5.0
#define SOCKET_WAIT_S 2.0	/* QEMU listens from its start; this is a safety net */
#define SEED_BYTES 32

/* One boot's way through the store. */
struct restore {
	struct guest_conn *gc;
	const struct guest_spec *spec;	/* the boot's, with the key's domain name */
	struct guest_spec boot;
	char *name;
	struct saved_entry entry;
	char uuid[37];
	char *socket;
	char *park_cmdline;
};

/* The UUID a key's domains keep: its id's first 32 digits. */
static void key_uuid(const char *id, char uuid[37])
{
	snprintf(uuid, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", id, id + 8, id + 12, id + 16, id + 20);
}

static int socket_connect(const char *path, double wait_s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double until = clock_seconds() + wait_s;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return error_set_errno(ERR_LIBVIRT, "cannot make a socket");
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		close(fd);
		if (clock_seconds() >= until)
			return error_set_errno(ERR_LIBVIRT, "cannot reach the guest at '%s'", path);
		clock_sleep(0.01);
	}
}

/*
 * Reads the guest's second serial port until it says `word`: 1, or 0 when
 * the port closed (qemu ended), the deadline passed, the console passed
 * CONSOLE_MAX or the bench was interrupted (or the boot cancelled) first.
 */
static int await_word(int fd, const char *word, double deadline, const struct guest_spec *spec)
{
	const char *console = spec->console;
	char buf[256];
	size_t len = 0;

	while (!guest_interrupted() && !guest_cancelled(spec) && clock_seconds() < deadline &&
	       !console_flooded(console)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			return 0;
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, word))
			return 1;
		if (len == sizeof(buf) - 1)
			len = 0;
	}
	return 0;
}

/* The line a restored /init reads (guest-tests/rt/park.h). */
static char *request_line(const struct guest_spec *spec)
{
	unsigned char seed[SEED_BYTES];
	struct strbuf sb = STRBUF_INIT;
	struct timespec now;
	size_t got = 0;

	while (got < sizeof(seed)) {
		ssize_t n = getrandom(seed + got, sizeof(seed) - got, 0);

		if (n > 0)
			got += (size_t)n;
		else if (errno != EINTR)
			break;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	strbuf_addf(&sb, "go start=%d tests=%s time=%lld.%09ld seed=", spec->start > 0 ? spec->start : 1,
		    spec->tests ? spec->tests : "", (long long)now.tv_sec, now.tv_nsec);
	for (size_t i = 0; i < got; i++)
		strbuf_addf(&sb, "%02x", seed[i]);
	strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb);
}

/* Tells the guest its line and waits for its answer; ERR_LIBVIRT when it does not come. */
static int request_send(const char *socket, const struct guest_spec *spec)
{
	char *line = request_line(spec);
	int fd = socket_connect(socket, SOCKET_WAIT_S), err = 0;

	if (fd >= 0) {
		size_t len = strlen(line);

		if (write(fd, line, len) != (ssize_t)len)
			err = error_set_errno(ERR_LIBVIRT, "cannot write to the guest at '%s'", socket);
		else if (!await_word(fd, RESUMED_WORD, clock_seconds() + RESUME_WAIT_S, spec))
			err = error_set(ERR_LIBVIRT, "guest '%s' did not resume", spec->name);
		close(fd);
	} else {
		err = fd;
	}
	free(line);
	return err;
}

static int domain_xml_of(struct restore *r, const char *cmdline, char **xml)
{
	struct domain_park park = { .cmdline = cmdline, .uuid = r->uuid, .socket = r->socket };

	return domain_xml_build_parked(r->spec, &park, xml);
}

enum restore_result { RESTORE_REFUSED, RESTORE_RAN, RESTORE_NOT_RESUMED };

/*
 * Restores the entry into spec's domain and runs its tests: RESTORE_RAN
 * with out set, RESTORE_REFUSED when libvirt refused the image (the caller
 * drops it), RESTORE_NOT_RESUMED (destroyed, the save kept), or an error.
 */
static int restore_boot(struct restore *r, double timeout_s, struct guest_outcome *out)
{
	struct waiter w = { .name = r->spec->name, .qemu = -1 };
	struct file_atomic copy;
	struct stat st;
	char *xml = NULL;
	virDomainPtr dom;
	int err;

	if (stat(r->entry.console, &st) < 0)
		return 0;
	/* The saved console counts for every boot restored from it. */
	file_atomic_begin(&copy, r->spec->console, 0644);
	file_atomic_add_file(&copy, r->entry.console, (size_t)st.st_size);
	if ((err = file_atomic_commit(&copy)) < 0 || (err = domain_xml_of(r, r->entry.cmdline, &xml)) < 0)
		return err;
	memset(out, 0, sizeof(*out));
	waiter_add(r->gc, &w);
	double start = clock_seconds();
	if (virDomainRestoreFlags(r->gc->conn, r->entry.image, xml, VIR_DOMAIN_SAVE_RUNNING) < 0) {
		error_clear();
		err = 0;
		goto out;
	}
	if (!(dom = virDomainLookupByName(r->gc->conn, r->spec->name))) {
		err = error_set(ERR_LIBVIRT, "restored domain '%s' is gone: %s", r->spec->name,
				virt_loop_last_error());
		goto out;
	}
	if (request_send(r->socket, r->spec) < 0) {
		error_clear();
		domain_destroy(r->gc, dom, &w);
		err = RESTORE_NOT_RESUMED;
	} else if ((err = domain_follow(r->gc, dom, r->spec, &w, start, timeout_s, out)) == 0) {
		err = RESTORE_RAN;
	}
	out->restored = true;
	virDomainFree(dom);
out:
	waiter_remove(r->gc, &w);
	free(xml);
	return err;
}

enum park_result { PARK_SAVED = 1, PARK_RAN };

/*
 * Boots spec's guest with the park parameter and saves it where it parks:
 * PARK_SAVED with the entry published; PARK_RAN when the boot ran to its end
 * (it never parked, or its save failed and it was told to go on), out set;
 * or an error code.
 */
static int park_boot(struct restore *r, double timeout_s, struct guest_outcome *out)
{
	struct waiter w = { .name = r->spec->name, .qemu = -1 };
	int err, fd, parked = 0;
	char *xml = NULL;
	virDomainPtr dom;

	unlink(r->socket);
	if ((err = domain_xml_of(r, r->park_cmdline, &xml)) < 0)
		return err;
	memset(out, 0, sizeof(*out));
	waiter_add(r->gc, &w);
	double start = clock_seconds();
	if ((err = domain_start(r->gc, r->spec, xml, &dom)) < 0)
		goto out;
	if ((fd = socket_connect(r->socket, SOCKET_WAIT_S)) >= 0) {
		parked = await_word(fd, PARKED_WORD, start + timeout_s, r->spec);
		close(fd);
	}
	error_clear();
	if (parked && virDomainSaveFlags(dom, r->entry.image, NULL, VIR_DOMAIN_SAVE_RUNNING) == 0) {
		domain_await_stop(r->gc, &w);
		err = saved_store_publish(r->gc->saves, &r->entry, r->spec->console, r->park_cmdline);
		err = err < 0 ? err : PARK_SAVED;
	} else {
		/* Not saved: a parked guest still runs, and is told its tests as a restored one is. */
		if (parked && (err = request_send(r->socket, r->spec)) < 0)
			domain_destroy(r->gc, dom, &w);
		else if ((err = domain_follow(r->gc, dom, r->spec, &w, start, timeout_s, out)) == 0)
			err = PARK_RAN;
	}
	virDomainFree(dom);
out:
	waiter_remove(r->gc, &w);
	free(xml);
	return err;
}

/* The key of spec's boot as text, or NULL when its initramfs cannot be read. */
static char *boot_key(struct guest_conn *gc, const struct guest_spec *spec)
{
	const char *initrd_hash = saved_store_file_hash(gc->saves, spec->initrd);
	struct saved_key k = {
		.build_id = spec->build_id,
		.cpu = spec->cpu->spec,
		.cmdline = spec->base_cmdline,
		.initrd_hash = initrd_hash,
		.qemu = gc->qemu,
		.libvirt = gc->libvirt_version,
		.memory_mib = spec->memory_mib,
	};

	return initrd_hash ? saved_key_text(&k) : NULL;
}

int restore_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
		struct guest_outcome *out)
{
	struct restore r = { .gc = gc, .boot = *spec, .spec = &r.boot };
	struct sockaddr_un sa;
	char *key;
	int taken, err = 0;

	if (!gc->saves || !spec->base_cmdline || !spec->build_id || !(key = boot_key(gc, spec)))
		return 0;
	taken = saved_store_take(gc->saves, key, &r.entry);
	free(key);
	if (taken != SAVED_NEW && taken != SAVED_RESTORE) {
		/* A busy key is another boot's to release. */
		if (taken != SAVED_BUSY)
			saved_store_release(gc->saves, &r.entry);
		error_clear();
		return 0;
	}
	/* libvirt restores a domain under the name it was saved with; one boot holds a key at a time. */
	r.name = xasprintf(GUEST_NAME_PREFIX "saved-%.16s", r.entry.id);
	r.boot.name = r.name;
	r.socket = xasprintf("%s/%.16s.sock", saved_store_dir(gc->saves), r.entry.id);
	if (strlen(r.socket) >= sizeof(sa.sun_path))
		goto out;
	key_uuid(r.entry.id, r.uuid);
	if (taken == SAVED_NEW) {
		r.park_cmdline = xasprintf("%s " RESTORE_PARK_PARAM, spec->cmdline);
		err = park_boot(&r, timeout_s, out);
		if (err != PARK_SAVED) {
			err = err == PARK_RAN ? 1 : err;
			goto out;
		}
	}
	/* An image libvirt refuses is damaged: dropped, and this boot is cold. */
	if ((err = restore_boot(&r, timeout_s, out)) == RESTORE_REFUSED)
		saved_store_drop(gc->saves, &r.entry);
	if (err == RESTORE_NOT_RESUMED)
		err = 0;
out:
	if (err < 0 && err != ERR_CPU) {
		/* A store or a restore that fails does not fail the boot: it boots cold. */
		error_clear();
		err = 0;
	}
	unlink(r.socket);
	saved_store_release(gc->saves, &r.entry);
	free(r.socket);
	free(r.name);
	free(r.park_cmdline);
	return err;
}
