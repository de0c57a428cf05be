/*
 * guest: one libvirt transient domain per boot.
 *
 * A struct guest_conn is a libvirt connection plus the event loop thread
 * that delivers its lifecycle events; it is safe to run several guests on
 * one connection from several threads.  With the embedded driver
 * (qemu:///embed) qemu is a descendant of the bench, so the bench becomes a
 * child subreaper and reaps its qemu zombies: the machine's PID 1 reaps
 * orphans only every second or so, and libvirt waits for the pid to vanish.
 *
 * A guest gets no network device and no host filesystem (domain_xml_build()
 * says what its domain holds).  The embedded driver's root is made 0700: it
 * holds the domains' logs and QEMU's sockets.
 *
 * The console cap: QEMU writes the serial console to a file, as fast as
 * the guest sends it (about 0.5 MB/s under TCG), and a guest may never
 * stop.  guest_run() checks the file's size every WAIT_SLICE_S (0.25 s)
 * and destroys the guest once it passes CONSOLE_MAX (16 MiB); the
 * file then ends a little past the cap, by what the guest wrote in that
 * last slice.  Readers take at most CONSOLE_MAX bytes of it.
 */
#ifndef FPUBENCH_GUEST_H
#define FPUBENCH_GUEST_H

#include "cpu.h"
#include "judge/console.h"

#include <stdbool.h>

#define GUEST_NAME_PREFIX "fpubench-"

struct guest_conn;

struct guest_spec {
	const char *name;	/* domain name, GUEST_NAME_PREFIX... */
	const char *kernel;	/* absolute paths */
	const char *initrd;
	const char *cmdline;
	const char *console;	/* the serial console's log file */
	const struct cpu_setup *cpu;
	unsigned memory_mib;
};

struct guest_outcome {
	bool timed_out;		/* destroyed after the time limit */
	bool flooded;		/* destroyed when its console passed CONSOLE_MAX */
	bool interrupted;	/* destroyed because the bench was told to stop */
	double seconds;		/* from start to stop */
};

/* The embedded driver's URI for a root directory; caller frees. */
char *guest_embed_uri(const char *root);

/*
 * Connects to `uri`.  For an embedded URI, writes the root's qemu.conf
 * first.  ERR_LIBVIRT carries libvirt's message.
 */
int guest_conn_open(struct guest_conn **out, const char *uri);

void guest_conn_free(struct guest_conn *gc);

/*
 * Makes the connection stage its guests' files in `dir` on the host (see
 * stage.h), for a host that does not share our filesystem.
 */
int guest_conn_stage(struct guest_conn *gc, const char *dir);

/*
 * How many guests of memory_mib the host can run at once: two per core,
 * fewer when its free memory does not hold them; at least 1.
 */
int guest_conn_capacity(struct guest_conn *gc, unsigned memory_mib);

/* Whether the connection still works (a daemon may have gone away). */
bool guest_conn_alive(struct guest_conn *gc);

/* libvirt's list of x86 CPU features on this machine. */
#define GUEST_CPU_FEATURES_MAP "/usr/share/libvirt/cpu_map/x86_features.xml"

/*
 * ERR_CPU, naming the first such setup and the nearest known name, when
 * libvirt does not know a setup's model, or one of its features (checked
 * against GUEST_CPU_FEATURES_MAP when this machine has it).  One list of
 * models for all setups: each listing costs the embedded driver 7 ms.
 */
int guest_check_cpus(struct guest_conn *gc, const struct cpu_setup *setups, size_t n);

/*
 * The same check against this machine's libvirt, without a connection to
 * a host: what a run on local guests does before it builds anything.
 */
int guest_check_cpus_local(const struct cpu_setup *setups, size_t n);

/*
 * Forgets the domains named GUEST_NAME_PREFIX* that a killed bench left in
 * embedded root: kills their qemu if it still runs and removes their state
 * files.  Called before connecting, under the cache lock, so no libvirt owns
 * them; libvirt itself would wait 30 s on a domain killed while starting.
 */
int guest_embed_scrub(const char *root);

/*
 * Starts the domain (VIR_DOMAIN_START_AUTODESTROY) and waits until it stops,
 * timeout_s passes or its console passes CONSOLE_MAX, destroying it
 * in the last two cases.  Returns 0 with the outcome, or
 * ERR_LIBVIRT (ERR_CPU for a CPU libvirt refuses) if it did not start.
 */
int guest_run(struct guest_conn *gc, const struct guest_spec *spec, double timeout_s,
	      struct guest_outcome *out);

/* Makes every guest_run() destroy its domain and return; async-signal-safe. */
void guest_interrupt(void);

#endif
