/*
 * embed: the root directory of libvirt's embedded QEMU driver
 * (qemu:///embed?root=DIR), which runs inside the bench with no daemon.
 *
 * embed_prepare() readies a root before each connection: it writes the
 * driver's settings that work without a daemon (etc/qemu.conf), makes the
 * root 0700, since it holds the domains' logs and QEMU's sockets, and
 * forgets what a killed bench left in it (embed_scrub()).  libvirt keeps a
 * running domain's state files, NAME.pid among them, in the root's
 * embed_state_dir().
 */
#ifndef FPUBENCH_EMBED_H
#define FPUBENCH_EMBED_H

/* The embedded driver's URI for a root directory; caller frees. */
char *embed_uri(const char *root);

/* The root= value of an embedded URI, or NULL for another URI; caller frees. */
char *embed_root(const char *uri);

/* The root's directory of libvirt's state files, run/qemu; caller frees. */
char *embed_state_dir(const char *root);

/*
 * The pid of the process whose embedded driver runs on root, or 0.
 * libvirt's driver locks the root's run/qemu/driver.pid from its first
 * connection until its process exits.  Only before this process's first
 * connection to an embedded root: the probe's close() would drop the
 * driver's own lock after it.
 */
long embed_driver_holder(const char *root);

/* Makes the root ready for a connection, as above; ERR_CACHE. */
int embed_prepare(const char *root);

/*
 * Forgets the domains named GUEST_NAME_PREFIX* that a killed bench left in
 * embedded root: kills their qemu if it still runs and removes their state
 * files.  Called before connecting, under the cache lock, so no libvirt owns
 * them; libvirt itself would wait 30 s on a domain killed while starting.
 */
int embed_scrub(const char *root);

#endif
