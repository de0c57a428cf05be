#include "guest.h"

#include "cpu_check.h"
#include "domain_xml.h"
#include "guest_domain.h"
#include "embed.h"
#include "lib/clock.h"
#include "lib/error.h"
#include "lib/xalloc.h"
#include "reaper.h"
#include "saved_guest.h"
#include "restore.h"
#include "stage.h"
#include "virt_log.h"
#include "virt_loop.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#define WAIT_SLICE_S 0.25	/* also how often the console's size is checked */
#define POLL_ACTIVE_S 1.0	/* a safety net in case an event is lost */
/*
 * A guest keeps a core only half busy: libvirt's start handshake and the
 * 200 ms it sleeps in every destroy leave it idle (a crash boot lives 0.92 s
 * for 0.45 s of qemu CPU).  On 2 cores, 4 guests took the warm matrix from
 * 18.1 s to 15.8 s (medians of 3); 3 guests did as well (bench/OPTIMISATIONS.md).
 */
#define GUESTS_PER_CORE 2

static volatile sig_atomic_t interrupted;

bool guest_interrupted(void)
{
	return interrupted;
}

bool guest_cancelled(const struct guest_spec *spec)
{
	return spec->cancel && atomic_load(spec->cancel);
}

bool console_flooded(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > (off_t)CONSOLE_MAX;
}

static int lifecycle_event(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			   void *opaque)
{
	struct guest_conn *gc = opaque;
	const char *name = virDomainGetName(dom);

	(void)conn;
	(void)detail;
	if ((event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_SHUTDOWN) || !name)
		return 0;
	pthread_mutex_lock(&gc->lock);
	for (struct waiter *w = gc->waiters; w; w = w->next) {
		if (strcmp(w->name, name) != 0)
			continue;
		if (event == VIR_DOMAIN_EVENT_STOPPED)
			w->stopped = true;
		else if (w->qemu >= 0)
			reaper_qemu_end(w->qemu);
	}
	pthread_cond_broadcast(&gc->cond);
	pthread_mutex_unlock(&gc->lock);
	return 0;
}

/* How long a bench waits for one that is exiting to free the embedded root. */
#define EMBED_PIDFILE_WAIT_S 30.0

/* This process runs an embedded driver (libvirt's: one root a process, until it exits). */
static bool embed_started;

/*
 * Waits until no other process runs root's embedded driver: under the
 * cache lock the holder can only be a bench on its way out, and a process
 * whose driver failed to start never retries it (libvirt 9.0 answers "qemu
 * state driver is not active" from then on).
 */
static int wait_for_root(const char *root)
{
	double until = clock_seconds() + EMBED_PIDFILE_WAIT_S;
	long pid;

	while ((pid = embed_driver_holder(root)) > 0) {
		if (interrupted)
			return error_set(ERR_INTERRUPTED, "interrupted");
		if (clock_seconds() >= until)
			return error_set(ERR_LIBVIRT, "libvirt root '%s' is still in use by process %ld after %.0f s",
					 root, pid, EMBED_PIDFILE_WAIT_S);
		clock_sleep(0.05);
	}
	return 0;
}

int guest_conn_open(struct guest_conn **out, const char *uri)
{
	struct guest_conn *gc = xcalloc(1, sizeof(*gc));
	pthread_condattr_t attr;
	char *root = embed_root(uri);
	int err = 0;

	gc->callback_id = -1;
	pthread_mutex_init(&gc->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&gc->cond, &attr);
	pthread_condattr_destroy(&attr);

	if (root && !embed_started && (err = wait_for_root(root)) < 0)
		goto fail;
	if (root && (err = embed_prepare(root)) < 0)
		goto fail;
	if ((err = virt_loop_start()) < 0)
		goto fail;
	/* With the embedded driver qemu is our descendant: we reap it. */
	int reaps = root ? reaper_start() : 0;
	if (reaps < 0) {
		err = reaps;
		goto fail;
	}
	if (reaps)
		gc->state_dir = embed_state_dir(root);
	gc->conn = virConnectOpen(uri);
	if (!gc->conn) {
		err = error_set(ERR_LIBVIRT, "cannot connect to libvirt at '%s': %s", uri, virt_loop_last_error());
		goto fail;
	}
	embed_started = embed_started || root;
	gc->callback_id = virConnectDomainEventRegisterAny(gc->conn, NULL,
							   VIR_DOMAIN_EVENT_ID_LIFECYCLE,
							   VIR_DOMAIN_EVENT_CALLBACK(lifecycle_event),
							   gc, NULL);
	if (gc->callback_id < 0) {
		err = error_set(ERR_LIBVIRT, "cannot watch domain events at '%s': %s", uri, virt_loop_last_error());
		goto fail;
	}
	/*
	 * AUTODESTROY ends our guests when the connection drops.  libvirt 9.0's
	 * embedded driver and the test driver refuse it; with embed, stale
	 * domains are destroyed at the next start instead.
	 */
	const char *type = virConnectGetType(gc->conn);
	gc->create_flags = root || (type && strcmp(type, "TEST") == 0) ? 0
								       : VIR_DOMAIN_START_AUTODESTROY;
	free(root);
	*out = gc;
	return 0;
fail:
	free(root);
	guest_conn_free(gc);
	return err;
}

int guest_conn_stage(struct guest_conn *gc, const char *dir)
{
	return stage_open(&gc->stage, gc->conn, dir);
}

/*
 * The emulator the guests run on, for the saved guests' key: libvirt's
 * version (virConnectGetVersion()) is that of the host arch's emulator,
 * qemu-system-x86_64, so the i686 one's file is named beside it, by path,
 * size and change time, as libvirt's own capabilities cache tells binaries
 * apart: a qemu-system-i386 installed or built apart changes the key.
 */
static int emulator_identity(struct guest_conn *gc, unsigned long version, char **out)
{
	char *caps = virConnectGetDomainCapabilities(gc->conn, NULL, "i686", NULL, "qemu", 0);
	xmlDocPtr doc = NULL;
	xmlChar *path = NULL;
	struct stat st;
	int err = 0;

	if (!caps)
		return error_set(ERR_LIBVIRT, "cannot get libvirt's i686 emulator: %s",
				 virt_loop_last_error());
	doc = xmlReadMemory(caps, (int)strlen(caps), "domcapabilities.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;

	for (xmlNodePtr n = root ? root->children : NULL; n && !path; n = n->next)
		if (n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, BAD_CAST "path") == 0)
			path = xmlNodeGetContent(n);
	if (!path) {
		err = error_set(ERR_LIBVIRT, "libvirt's i686 domain capabilities name no emulator");
		goto out;
	}
	if (stat((const char *)path, &st) < 0) {
		err = error_set(ERR_LIBVIRT, "cannot read libvirt's i686 emulator '%s': %s",
				(const char *)path, strerror(errno));
		goto out;
	}
	*out = xasprintf("%lu %s %lld %lld.%09ld", version, (const char *)path, (long long)st.st_size,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
out:
	xmlFree(path);
	xmlFreeDoc(doc);
	free(caps);
	return err;
}

int guest_conn_restore(struct guest_conn *gc, const char *dir)
{
	unsigned long hv = 0, lib = 0;
	char *qemu = NULL;
	int err;

	if (gc->stage || gc->saves)
		return 0;
	if (virConnectGetVersion(gc->conn, &hv) < 0 || virConnectGetLibVersion(gc->conn, &lib) < 0)
		return error_set(ERR_LIBVIRT, "cannot get the versions of libvirt: %s",
				 virt_loop_last_error());
	if ((err = emulator_identity(gc, hv, &qemu)) < 0)
		return err;
	if ((err = saved_store_open(&gc->saves, dir, SAVED_STORE_MAX_BYTES)) < 0) {
		free(qemu);
		return err;
	}
	gc->qemu = qemu;
	gc->libvirt_version = xasprintf("%lu", lib);
	return 0;
}

int guest_conn_capacity(struct guest_conn *gc, unsigned memory_mib)
{
	virNodeInfo info;
	unsigned long long free_bytes = virNodeGetFreeMemory(gc->conn);
	/* qemu's RSS peaked at about 60 MiB besides the guest's own memory (QEMU 7.2, TCG). */
	unsigned long long per_guest = ((unsigned long long)memory_mib + 64) << 20;
	int guests;

	if (virNodeGetInfo(gc->conn, &info) < 0) {
		error_clear();
		return 1;
	}
	guests = (info.cpus > 0 ? (int)info.cpus : 1) * GUESTS_PER_CORE;
	if (free_bytes && free_bytes / per_guest < (unsigned long long)guests)
		guests = (int)(free_bytes / per_guest);
	return guests > 0 ? guests : 1;
}

bool guest_conn_alive(struct guest_conn *gc)
{
	return virConnectIsAlive(gc->conn) == 1;
}

void guest_conn_free(struct guest_conn *gc)
{
	if (!gc)
		return;
	stage_free(gc->stage);
	saved_store_free(gc->saves);
	free(gc->qemu);
	free(gc->libvirt_version);
	if (gc->conn) {
		if (gc->callback_id >= 0)
			virConnectDomainEventDeregisterAny(gc->conn, gc->callback_id);
		virConnectClose(gc->conn);
	}
	pthread_cond_destroy(&gc->cond);
	pthread_mutex_destroy(&gc->lock);
	free(gc->state_dir);
	free(gc);
}

int guest_check_cpus(struct guest_conn *gc, const struct cpu_setup *setups, size_t n)
{
	return cpu_check_setups(gc->conn, setups, n);
}

void waiter_remove(struct guest_conn *gc, struct waiter *w)
{
	pthread_mutex_lock(&gc->lock);
	for (struct waiter **p = &gc->waiters; *p; p = &(*p)->next) {
		if (*p == w) {
			*p = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&gc->lock);
}

static struct timespec monotonic_at(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	return ts;
}

static int guest_run_here(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
			  struct guest_outcome *out);

/*
 * On a host that does not share our filesystem, the kernel and initramfs
 * are staged there first and the console comes back after the guest.
 */
int guest_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
	      struct guest_outcome *out)
{
	struct guest_spec remote = *spec;
	char *kernel = NULL, *initrd = NULL, *console = NULL, *console_name = NULL;
	int err;

	if (!gc->stage)
		return guest_run_here(gc, spec, timeout_s, out);
	console_name = xasprintf("%s.log", spec->name);
	console = stage_path(gc->stage, console_name);
	if ((err = stage_put(gc->stage, spec->kernel, &kernel)) < 0 ||
	    (err = stage_put(gc->stage, spec->initrd, &initrd)) < 0)
		goto out;
	remote.kernel = kernel;
	remote.initrd = initrd;
	remote.console = console;
	if ((err = guest_run_here(gc, &remote, timeout_s, out)) == 0)
		err = stage_take(gc->stage, console_name, spec->console, CONSOLE_MAX + 1);
out:
	free(kernel);
	free(initrd);
	free(console);
	free(console_name);
	return err;
}

/* Listens for a domain's events before it starts: a guest can stop before virDomainCreateXML returns. */
void waiter_add(struct guest_conn *gc, struct waiter *w)
{
	pthread_mutex_lock(&gc->lock);
	w->next = gc->waiters;
	gc->waiters = w;
	pthread_mutex_unlock(&gc->lock);
}

/* Starts spec's domain; ERR_CPU for a CPU libvirt refuses, ERR_LIBVIRT otherwise. */
int domain_start(struct guest_conn *gc, const struct guest_spec *spec, const char *xml,
			virDomainPtr *dom)
{
	virErrorPtr e;
	char *log;
	int err;

	if ((*dom = virDomainCreateXML(gc->conn, xml, gc->create_flags)))
		return 0;
	e = virGetLastError();
	log = virt_log_note();
	err = error_set(e && e->domain == VIR_FROM_CPU ? ERR_CPU : ERR_LIBVIRT,
			"cannot start domain '%s' (cpu '%s'): %s%s", spec->name, spec->cpu->spec,
			virt_loop_last_error(), log);
	free(log);
	return err;
}

/*
 * Asks libvirt whether the domain still runs, in case its stop event was
 * lost; called with gc->lock held, which it drops meanwhile.  ERR_LIBVIRT
 * when the connection is lost: the host, not the kernel, failed, and the
 * boot is to be retried elsewhere.
 */
static int domain_poll(struct guest_conn *gc, virDomainPtr dom, struct waiter *w)
{
	pthread_mutex_unlock(&gc->lock);
	int active = virDomainIsActive(dom);
	bool lost = active < 0 && !guest_conn_alive(gc);
	pthread_mutex_lock(&gc->lock);
	if (active == 0)
		w->stopped = true;
	if (lost) {
		char *log = virt_log_note();
		int err = error_set(ERR_LIBVIRT, "lost the connection to libvirt while '%s' ran%s",
				    w->name, log);

		free(log);
		return err;
	}
	return 0;
}

/*
 * Waits until the domain, started at start, stops, the bench is
 * interrupted, the spec's run is cancelled, timeout_s passes or the console passes CONSOLE_MAX, and says
 * which in out.
 */
int domain_wait(struct guest_conn *gc, virDomainPtr dom, const struct guest_spec *spec,
		       struct waiter *w, double start, double timeout_s, struct guest_outcome *out)
{
	double deadline = start + timeout_s, next_poll = start + POLL_ACTIVE_S;
	int err = 0;

	pthread_mutex_lock(&gc->lock);
	while (!w->stopped) {
		double now = clock_seconds();

		if (interrupted) {
			out->interrupted = true;
			break;
		}
		if (guest_cancelled(spec)) {
			out->cancelled = true;
			break;
		}
		if (now >= deadline) {
			out->timed_out = true;
			break;
		}
		if (console_flooded(spec->console)) {
			out->flooded = true;
			break;
		}
		if (now >= next_poll) {
			if ((err = domain_poll(gc, dom, w)) < 0)
				break;
			next_poll = now + POLL_ACTIVE_S;
			continue;
		}
		double until = now + WAIT_SLICE_S;
		struct timespec ts = monotonic_at(until < deadline ? until : deadline);
		pthread_cond_timedwait(&gc->cond, &gc->lock, &ts);
	}
	pthread_mutex_unlock(&gc->lock);
	return err;
}

void domain_await_stop(struct guest_conn *gc, struct waiter *w)
{
	struct timespec ts = monotonic_at(clock_seconds() + DESTROY_EVENT_WAIT_S);

	pthread_mutex_lock(&gc->lock);
	while (!w->stopped && pthread_cond_timedwait(&gc->cond, &gc->lock, &ts) == 0)
		;
	pthread_mutex_unlock(&gc->lock);
}

void domain_destroy(struct guest_conn *gc, virDomainPtr dom, struct waiter *w)
{
	virDomainDestroy(dom);
	domain_await_stop(gc, w);
}

int domain_follow(struct guest_conn *gc, virDomainPtr dom, const struct guest_spec *spec,
		  struct waiter *w, double start, double timeout_s, struct guest_outcome *out)
{
	/* Its shutdown event ends its qemu at once (lifecycle_event). */
	int qemu = gc->state_dir ? reaper_qemu_open(gc->state_dir, spec->name) : -1;
	int err;

	pthread_mutex_lock(&gc->lock);
	w->qemu = qemu;
	pthread_mutex_unlock(&gc->lock);
	err = domain_wait(gc, dom, spec, w, start, timeout_s, out);
	if (out->timed_out || out->flooded || out->interrupted || out->cancelled)
		domain_destroy(gc, dom, w);
	out->seconds = clock_seconds() - start;
	pthread_mutex_lock(&gc->lock);
	w->qemu = -1;
	pthread_mutex_unlock(&gc->lock);
	if (qemu >= 0)
		close(qemu);
	return err;
}

static int guest_run_here(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
			  struct guest_outcome *out)
{
	struct waiter w = { .name = spec->name, .qemu = -1 };
	char *xml = NULL;
	virDomainPtr dom;
	double start;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = restore_run(gc, spec, timeout_s, out)) != 0)
		return err > 0 ? 0 : err;
	/* A restore that gave way to the cancel is not followed by a cold boot. */
	if (guest_cancelled(spec)) {
		out->cancelled = true;
		return 0;
	}
	if ((err = domain_xml_build(spec, &xml)) < 0)
		return err;
	waiter_add(gc, &w);
	start = clock_seconds();
	if ((err = domain_start(gc, spec, xml, &dom)) == 0) {
		err = domain_follow(gc, dom, spec, &w, start, timeout_s, out);
		virDomainFree(dom);
	}
	waiter_remove(gc, &w);
	free(xml);
	return err;
}

void guest_interrupt(void)
{
	interrupted = 1;
}
