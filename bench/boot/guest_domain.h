/*
 * guest_domain: guest.c's connection and domain steps, for restore.c, which
 * runs a boot through a saved guest with the same waiting, destroying and
 * reaping as guest_run().  Not for other modules.
 */
#ifndef FPUBENCH_GUEST_DOMAIN_H
#define FPUBENCH_GUEST_DOMAIN_H

#include "guest.h"

#include <pthread.h>
#include <stdbool.h>

#include <libvirt/libvirt.h>

#define DESTROY_EVENT_WAIT_S 2.0

struct saved_store;

struct waiter {
	const char *name;
	int qemu;	/* pidfd of the domain's qemu, our child; or -1 */
	bool stopped;
	struct waiter *next;
};

struct guest_conn {
	virConnectPtr conn;
	int callback_id;
	unsigned create_flags;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* signalled when a waited-for domain stops */
	struct waiter *waiters;
	struct stage *stage;	/* or NULL: the host shares our filesystem */
	char *state_dir;	/* embedded root's run/qemu, where qemu pids are; or NULL */
	struct saved_store *saves;	/* or NULL: every guest boots cold */
	char *qemu;	/* for the saved guests' key: emulator_identity() */
	char *libvirt_version;
};

/* Listens for a domain's events before it starts: a guest can stop before it is created. */
void waiter_add(struct guest_conn *gc, struct waiter *w);
void waiter_remove(struct guest_conn *gc, struct waiter *w);

/* Starts spec's domain from xml; ERR_CPU for a CPU libvirt refuses, ERR_LIBVIRT otherwise. */
int domain_start(struct guest_conn *gc, const struct guest_spec *spec, const char *xml,
		 virDomainPtr *dom);

/*
 * Waits until the domain, started at start, stops, the bench is
 * interrupted, spec->cancel is set, timeout_s passes or the console passes CONSOLE_MAX, and says
 * which in out.
 */
int domain_wait(struct guest_conn *gc, virDomainPtr dom, const struct guest_spec *spec,
		struct waiter *w, double start, double timeout_s, struct guest_outcome *out);

/* Destroys the domain and takes its stop event now, so it cannot reach a later guest of its name. */
void domain_destroy(struct guest_conn *gc, virDomainPtr dom, struct waiter *w);

/*
 * Follows a started domain as guest_run() does: ends its qemu on its
 * shutdown, waits (domain_wait()), destroys it if it did not stop, and sets
 * out->seconds from start.
 */
int domain_follow(struct guest_conn *gc, virDomainPtr dom, const struct guest_spec *spec,
		  struct waiter *w, double start, double timeout_s, struct guest_outcome *out);

/* Waits (DESTROY_EVENT_WAIT_S at most) for the stop event of a domain that libvirt stopped. */
void domain_await_stop(struct guest_conn *gc, struct waiter *w);

/* Whether the console log grew past the cap; a missing log has not. */
bool console_flooded(const char *path);

/* Whether guest_interrupt() was called. */
bool guest_interrupted(void);

/* Whether spec->cancel says the boot's run stopped early. */
bool guest_cancelled(const struct guest_spec *spec);

#endif
